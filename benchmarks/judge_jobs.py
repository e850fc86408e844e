"""The LLM judge's concurrency: 200 `prompt` graders re-judged with `--judge-jobs 8` through the
real Copilot SDK and CLI, against a model on loopback that answers each judgement after a fixed
delay.

200 tasks x 1 run x 1 inline `prompt` grader; `--judge openai` with a BYOK endpoint that is a
small OpenAI-compatible server in this process: it waits `--delay` seconds before the first
answer of each judgement (a `set_waza_grade_pass` call) and answers the follow-up that carries
the tool's result at once, so one judgement costs one delay. The ideal is
sessions x delay / jobs plus the runtime's start-up; the start-up is measured in the same run as
a whole grading of one such grader with no delay (process, SDK, CLI, one session). Each figure is
the fastest of --repeats, the two run alternately. The goal: within 1.2x of the ideal.

The server is written here, not imported from tests/ (benchmarks run with only the project
installed); tests/judge/fake_model.py is the tests' richer one.

    python benchmarks/judge_jobs.py [--sessions 200] [--delay 0.5] [--jobs 8] [--repeats 2]
"""

from __future__ import annotations

import argparse
import http.server
import json
import os
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from _project import Row, alternated, waza_ci

GOAL = 1.2
ROOT = Path(__file__).resolve().parents[1]
INSTALLED_CLI = ROOT / ".ci" / ".npm" / "copilot-cli" / "copilot"
KEY_VARIABLE = "WAZA_CI_BENCH_JUDGE_KEY"


class DelayedModel:
    """Chat completions on 127.0.0.1: a grade call after `delay_s`, then plain text at once."""

    def __init__(self, delay_s: float) -> None:
        self.delay_s = delay_s
        self.openings = 0
        lock = threading.Lock()
        model = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                return

            def do_GET(self) -> None:
                self._send("application/json", json.dumps({"object": "list", "data": []}))

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
                messages = body.get("messages") or []
                opening = not messages or messages[-1].get("role") != "tool"
                if opening:
                    with lock:
                        model.openings += 1
                    time.sleep(model.delay_s)
                self._send(*_completion(body, opening))

            def _send(self, kind: str, text: str) -> None:
                data = text.encode()
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _completion(body: dict[str, Any], opening: bool) -> tuple[str, str]:
    message: dict[str, Any] = {"role": "assistant", "content": None if opening else "Graded."}
    if opening:
        arguments = json.dumps({"description": "bench", "reason": "fine"})
        message["tool_calls"] = [
            {
                "index": 0,
                "id": f"call_{time.monotonic_ns()}",
                "type": "function",
                "function": {"name": "set_waza_grade_pass", "arguments": arguments},
            }
        ]
    finish = "tool_calls" if opening else "stop"
    usage = {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}
    head = {"id": "c", "created": int(time.time()), "model": body.get("model"), "usage": usage}
    if not body.get("stream"):
        choice = {"index": 0, "message": message, "finish_reason": finish}
        return "application/json", json.dumps(
            {**head, "object": "chat.completion", "choices": [choice]}
        )
    chunks = [{"index": 0, "delta": message, "finish_reason": None}]
    chunks.append({"index": 0, "delta": {}, "finish_reason": finish})
    events = [
        json.dumps({**head, "object": "chat.completion.chunk", "choices": [chunk]})
        for chunk in chunks
    ]
    return "text/event-stream", "".join(f"data: {e}\n\n" for e in [*events, "[DONE]"])


def write_project(root: Path, sessions: int) -> list[str]:
    """`sessions` tasks, one saved run each, one inline `prompt` grader."""
    (root / "tasks").mkdir(parents=True)
    (root / "eval.yaml").write_text(
        "name: judge-bench\ntasks: ['tasks/*.yaml']\ngraders:\n"
        "  - type: prompt\n    name: judged\n    config:\n"
        "      prompt: Is the answer complete? Call set_waza_grade_pass or set_waza_grade_fail.\n"
    )
    tasks: list[dict[str, Any]] = []
    for task in range(sessions):
        (root / "tasks" / f"t{task:04d}.yaml").write_text(
            f"id: t{task:04d}\ninputs:\n  prompt: Say done {task}.\n"
        )
        run: dict[str, Any] = {"run_number": 1, "status": "passed", "duration_ms": 1000}
        run.update(final_output=f"done {task}", transcript=[], validations={})
        tasks.append({"test_id": f"t{task:04d}", "status": "passed", "runs": [run]})
    doc: dict[str, Any] = {
        "schemaVersion": "1.4",
        "eval_name": "judge-bench",
        "config": {"runs_per_test": 1},
    }
    doc.update(summary={"duration_ms": 1}, tasks=tasks)
    (root / "results.json").write_text(json.dumps(doc))
    return ["grade", "eval.yaml", "--results", "results.json"]


def judged(args: list[str], model: DelayedModel, jobs: int) -> list[str]:
    return waza_ci(
        args,
        *("--judge", "openai", "--judge-url", model.url, "--judge-model", "bench-model"),
        *("--judge-key-env", KEY_VARIABLE, "--judge-jobs", str(jobs)),
    )


def cli_problem() -> str:
    """Why the real runtime cannot be used here ("" when it can)."""
    try:
        import copilot  # noqa: F401, PLC0415 - only to say why a row is skipped
    except ImportError:
        return "the Copilot SDK is not installed"
    os.environ.setdefault("COPILOT_CLI_PATH", str(INSTALLED_CLI))
    if not Path(os.environ["COPILOT_CLI_PATH"]).is_file():
        return "no Copilot CLI (bash .ci/copilot-cli.sh)"
    return ""


def measure(sessions: int, delay_s: float, jobs: int, repeats: int) -> tuple[float, float]:
    """(the grading's seconds, the start-up's seconds)."""
    os.environ[KEY_VARIABLE] = "sk-bench-not-a-secret"
    slow, instant = DelayedModel(delay_s), DelayedModel(0.0)
    try:
        with tempfile.TemporaryDirectory(prefix="waza-ci-bench-") as temp:
            many, one = Path(temp) / "many", Path(temp) / "one"
            args_many, args_one = write_project(many, sessions), write_project(one, 1)
            # The two projects sit in different folders: their argv are relative to each.
            startup_argv = [*judged(args_one, instant, jobs)]
            startup_argv[startup_argv.index("eval.yaml")] = str(one / "eval.yaml")
            startup_argv[startup_argv.index("results.json")] = str(one / "results.json")
            graded, (startup,) = alternated(
                repeats, judged(args_many, slow, jobs), [startup_argv], many
            )
            if slow.openings != sessions * repeats:
                raise SystemExit(f"{slow.openings} judgements asked, not {sessions * repeats}")
    finally:
        slow.close()
        instant.close()
    return graded.seconds, startup.seconds


def rows(
    repeats: int, sessions: int = 200, delays: tuple[float, ...] = (0.5,), jobs: int = 8
) -> list[Row]:
    return [row for delay_s in delays for row in _row(repeats, sessions, delay_s, jobs)]


def _row(repeats: int, sessions: int, delay_s: float, jobs: int) -> list[Row]:
    figure = f"judge: {sessions} prompt graders, --judge-jobs {jobs}, model delay {delay_s:g} s"
    problem = cli_problem()
    if problem:
        return [Row(figure, "skipped", problem, float("nan"), f"<= {GOAL}x ideal", False)]
    graded, startup = measure(sessions, delay_s, jobs, repeats)
    ideal = sessions * delay_s / jobs + startup
    return [
        Row(
            figure,
            f"{graded:.2f} s",
            f"ideal {ideal:.2f} s ({sessions} x {delay_s:g} s / {jobs} + start-up {startup:.2f} s)",
            graded / ideal,
            f"<= {GOAL}x ideal",
            graded / ideal <= GOAL,
        )
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--delay", type=float, default=0.5)
    parser.add_argument("--jobs", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=2)
    options = parser.parse_args()
    for row in rows(options.repeats, options.sessions, (options.delay,), options.jobs):
        print(f"{row.figure}: {row.value}; {row.baseline}; {row.ratio:.2f}x (goal {row.goal})")


if __name__ == "__main__":
    main()
