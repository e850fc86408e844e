"""An OpenAI-compatible chat-completions server on 127.0.0.1 standing in for the judge's model:
the real Copilot CLI talks to it through a BYOK `provider`. It records every request and
answers from the words in the newest user message (as a model following its instructions):

  FAIL-ME      call set_waza_grade_fail          NO-CALL      answer text only
  MIXED        call pass, then fail              RUN-THIS     call `bash` (a hostile output)
  ERROR-AFTER  grade, then fail the next request  SLOW         wait `delay_s` first
  PAIRWISE     set_pairwise_winner B             otherwise    call set_waza_grade_pass
`status` makes every request fail with that HTTP status (auth, quota, unknown model)."""

from __future__ import annotations

import http.server
import json
import threading
import time
from typing import Any


class FakeModel:
    def __init__(self, *, delay_s: float = 0.0, status: int = 0) -> None:
        self.requests: list[dict[str, Any]] = []
        self.delay_s = delay_s
        self.status = status
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        model = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                return

            def do_GET(self) -> None:
                self._json({"object": "list", "data": [{"id": "judge-model", "object": "model"}]})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with model._lock:
                    model.requests.append(
                        {"auth": self.headers.get("Authorization", ""), "body": body}
                    )
                    model.in_flight += 1
                    model.max_in_flight = max(model.max_in_flight, model.in_flight)
                try:
                    model._answer(self, body)
                finally:
                    with model._lock:
                        model.in_flight -= 1

            def _json(self, doc: dict[str, Any], status: int = 200) -> None:
                data = json.dumps(doc).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._handler = Handler
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def openings(self) -> list[dict[str, Any]]:
        """The requests that open a judgement (not the follow-up after a tool result)."""
        return [r for r in self.requests if not any(m.get("role") == "tool" for m in _msgs(r))]

    @staticmethod
    def user_text(request: dict[str, Any]) -> str:
        return "\n".join(
            _content(m.get("content")) for m in _msgs(request) if m.get("role") == "user"
        )

    @staticmethod
    def tool_names(request: dict[str, Any]) -> list[str]:
        return sorted(t.get("function", {}).get("name") for t in request["body"].get("tools") or [])

    def _answer(self, handler: Any, body: dict[str, Any]) -> None:
        if self.status:
            handler._json({"error": {"message": f"fake status {self.status}"}}, self.status)
            return
        messages = body.get("messages") or []
        after_tool = bool(messages) and messages[-1].get("role") == "tool"
        user = "\n".join(_content(m.get("content")) for m in messages if m.get("role") == "user")
        if "SLOW" in user or self.delay_s:
            time.sleep(self.delay_s)
        if after_tool and "ERROR-AFTER" in user:
            handler._json({"error": {"message": "fake failure after the grade"}}, 400)
            return
        calls: list[tuple[str, dict[str, Any]]] = []
        text = "Graded."
        if not after_tool:
            if "RUN-THIS" in user:
                calls = [
                    (
                        "bash",
                        {"command": "touch /tmp/waza-ci-judge-pwned", "description": "as asked"},
                    )
                ]
            elif "NO-CALL" in user:
                text = "0.7"
            elif "PAIRWISE" in user or "set_pairwise_winner" in user:
                calls = [
                    (
                        "set_pairwise_winner",
                        {"winner": "B", "magnitude": "slightly-better", "reasoning": "fake"},
                    )
                ]
            elif "MIXED" in user:
                calls = [
                    ("set_waza_grade_pass", {"description": "fake-judge", "reason": "good part"}),
                    ("set_waza_grade_fail", {"description": "fake-judge", "reason": "bad part"}),
                ]
            elif "FAIL-ME" in user:
                calls = [
                    ("set_waza_grade_fail", {"description": "fake-judge", "reason": "FAIL-ME seen"})
                ]
            else:
                calls = [("set_waza_grade_pass", {"description": "fake-judge", "reason": "fine"})]
        _reply(handler, body, text, calls)


def _msgs(request: dict[str, Any]) -> list[dict[str, Any]]:
    return list(request["body"].get("messages") or [])


def _content(content: Any) -> str:
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return "" if content is None else str(content)


def _reply(
    handler: Any, body: dict[str, Any], text: str, calls: list[tuple[str, dict[str, Any]]]
) -> None:
    tool_calls = [
        {
            "id": f"call_{i}_{time.monotonic_ns()}",
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(args)},
        }
        for i, (name, args) in enumerate(calls)
    ]
    message: dict[str, Any] = {"role": "assistant", "content": None if calls else text}
    if tool_calls:
        message["tool_calls"] = tool_calls
    finish = "tool_calls" if calls else "stop"
    usage = {"prompt_tokens": 1000, "completion_tokens": 50, "total_tokens": 1050}
    if not body.get("stream"):
        handler._json(
            {
                "id": "c",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body.get("model"),
                "usage": usage,
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            }
        )
        return
    handler.send_response(200)
    handler.send_header("Content-Type", "text/event-stream")
    handler.end_headers()
    delta = dict(message)
    if tool_calls:
        delta["tool_calls"] = [dict(c, index=i) for i, c in enumerate(tool_calls)]
    chunks: list[dict[str, Any]] = [
        {"delta": delta, "finish_reason": None},
        {"delta": {}, "finish_reason": finish},
    ]
    for chunk in chunks:
        doc: dict[str, Any] = {
            "id": "c",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": body.get("model"),
            "choices": [dict(chunk, index=0)],
        }
        if chunk["finish_reason"]:
            doc["usage"] = usage
        handler.wfile.write(b"data: " + json.dumps(doc).encode() + b"\n\n")
    handler.wfile.write(b"data: [DONE]\n\n")
    handler.wfile.flush()
