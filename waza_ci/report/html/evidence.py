"""One saved run -> the evidence the HTML report shows when the run is opened: the prompt, the
transcript as a conversation, the session digest, the final output, the grading context a
program grader received, and each verdict's details. Pure.

Every text is untrusted and cleaned (`clean`: no controls, no bidi overrides, no lone
surrogates), then cut head-and-tail within the run's budget, the cut marked. A transcript
longer than its budget keeps its first and last events and says how many were left out.
Transcripts come in two spellings (flat fields, or `data` with camelCase names, as the
Copilot SDK writes them): both are read.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from waza_ci.report.text_safety import clean, head_tail, utf8_len
from waza_ci.waza.context import build_context

MIN_TEXT_BYTES = 256
"""No text is cut shorter than this, whatever the run's budget (a marker needs room too)."""


@dataclass(frozen=True)
class Budget:
    """How many UTF-8 bytes one run's evidence may take."""

    run_bytes: int
    """The transcript's share; the single texts share as much again, the verdicts too."""
    text_bytes: int
    """The most any single text keeps."""

    def cut(self, text: str, share: int = 1) -> str:
        limit = max(min(self.text_bytes, self.run_bytes // share), MIN_TEXT_BYTES)
        return head_tail(clean(text), limit)


def text_of(value: Any) -> str:
    """A transcript field as text: strings as they are, `{"content": text}` as its text,
    anything else as indented JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and len(value) == 1 and isinstance(value.get("content"), str):
        return str(value["content"])
    try:
        return json.dumps(value, indent=2, ensure_ascii=False, default=str)
    except (ValueError, TypeError, RecursionError):
        return str(value)


def _field(event: Mapping[str, Any], *names: str) -> Any:
    """The first of `names` found on the event or in its `data` object."""
    data = event.get("data")
    for source in (event, data if isinstance(data, dict) else {}):
        for name in names:
            if name in source and source[name] is not None:
                return source[name]
    return None


def _item(event: Any, budget: Budget) -> dict[str, Any]:  # noqa: PLR0911 - one per kind
    """One transcript event as a conversation item: `k` is its kind (user, assistant, tool,
    result, error, event)."""
    if not isinstance(event, dict):
        return {"k": "event", "t": "(not an object)", "x": budget.cut(text_of(event), 4)}
    kind = str(event.get("type") or "")
    content = _field(event, "content", "message", "text")
    call = _field(event, "tool_call_id", "toolCallId")
    if kind == "user.message":
        return {"k": "user", "x": budget.cut(text_of(content), 4)}
    if kind == "assistant.message":
        return {"k": "assistant", "x": budget.cut(text_of(content), 4)}
    if kind == "tool.execution_start":
        return {
            "k": "tool",
            "n": clean(text_of(_field(event, "tool_name", "toolName", "name"))),
            "id": clean(text_of(call)),
            "x": budget.cut(text_of(_field(event, "arguments", "args", "input")), 4),
        }
    if kind in ("tool.execution_complete", "tool.execution_partial_result"):
        success = _field(event, "success")
        return {
            "k": "result",
            "n": clean(text_of(_field(event, "tool_name", "toolName", "name"))),
            "id": clean(text_of(call)),
            "ok": success is not False,
            "x": budget.cut(text_of(_field(event, "tool_result", "result", "output")), 4),
        }
    if "error" in kind:
        return {"k": "error", "t": clean(kind), "x": budget.cut(text_of(content or event), 4)}
    return {"k": "event", "t": clean(kind) or "(no type)", "x": budget.cut(text_of(content), 4)}


def _item_size(item: Mapping[str, Any]) -> int:
    return sum(utf8_len(v) for v in item.values() if isinstance(v, str)) + 16


def conversation(transcript: Sequence[Any], budget: Budget) -> list[dict[str, Any]]:
    """The transcript's events as items, within `budget.run_bytes`: the first and the last
    events, alternately, while they fit; the events between become one `cut` item (none when
    every event fits).

    Items are made only as they are taken, so a long transcript costs its budget's worth of
    work, not its length's (a 100 MB results file of 400 runs and 300,000 events: grading it
    with `--html` took 3.4 s when every event was made an item first, 1.1 s now)."""
    head: list[dict[str, Any]] = []
    tail: list[dict[str, Any]] = []
    used, low, high = 0, 0, len(transcript) - 1
    while low <= high:
        take_head = len(head) <= len(tail)
        item = _item(transcript[low] if take_head else transcript[high], budget)
        size = _item_size(item)
        if used + size > budget.run_bytes:
            break
        used += size
        if take_head:
            head.append(item)
            low += 1
        else:
            tail.append(item)
            high -= 1
    if low > high:
        return [*head, *reversed(tail)]
    cut = {"k": "cut", "n": high - low + 1}
    return [*head, cut, *reversed(tail)]


def _digest(raw_run: Mapping[str, Any]) -> dict[str, Any]:
    """The session digest's headline numbers (turns, tokens, tools used, errors)."""
    found = raw_run.get("session_digest")
    digest: dict[str, Any] = found if isinstance(found, dict) else {}
    usage: dict[str, Any] = digest["usage"] if isinstance(digest.get("usage"), dict) else {}
    tools: list[Any] = digest["tools_used"] if isinstance(digest.get("tools_used"), list) else []
    errors: list[Any] = digest["errors"] if isinstance(digest.get("errors"), list) else []
    numbers = {
        key: usage.get(key) if isinstance(usage.get(key), int) else None
        for key in ("turns", "input_tokens", "output_tokens")
    }
    calls = digest.get("tool_call_count")
    return {
        **numbers,
        "tool_calls": calls if isinstance(calls, int) else None,
        "tools": [clean(text_of(tool))[:200] for tool in tools[:100]],
        "errors": [clean(text_of(error))[:500] for error in errors[:20]],
    }


def tokens_of(raw_run: Mapping[str, Any]) -> int | None:
    """Input plus output tokens of the run's session digest, when it has them."""
    digest = raw_run.get("session_digest")
    usage = digest.get("usage") if isinstance(digest, dict) else None
    if not isinstance(usage, dict):
        return None
    counts = [usage.get(k) for k in ("input_tokens", "output_tokens")]
    numbers = [c for c in counts if isinstance(c, int) and not isinstance(c, bool)]
    return sum(numbers) if numbers else None


def _context(raw_run: Mapping[str, Any], budget: Budget) -> str:
    """The grading context (context.json) a program grader of this run received, less the
    transcript (shown beside it as the conversation)."""
    context = build_context(raw_run)
    events = context.pop("transcript")
    context["transcript"] = f"({len(events)} events: the conversation beside)"
    return budget.cut(text_of(context), 8)  # mostly what is shown beside it: the smallest share


def _details(raw_verdict: Any, budget: Budget, share: int) -> dict[str, Any]:
    """A verdict's feedback and `details` as label/text pairs (a program's captured output is
    `stdout`/`stderr` there), each cut within the verdict's share of the run's budget."""
    if not isinstance(raw_verdict, dict):
        return {"f": "", "d": []}
    details = raw_verdict.get("details")
    pairs = (
        [
            [clean(str(key))[:200], budget.cut(text_of(value), share)]
            for key, value in details.items()
        ]
        if isinstance(details, dict)
        else ([["details", budget.cut(text_of(details), share)]] if details is not None else [])
    )
    return {"f": budget.cut(text_of(raw_verdict.get("feedback")), share), "d": pairs}


def run_evidence(
    raw_run: Mapping[str, Any], graders: Sequence[str], budget: Budget
) -> dict[str, Any]:
    """What opening one run shows; `graders` are the grid's columns, in order (their verdicts'
    details come as a list in that order, None where the run has none)."""
    transcript = raw_run.get("transcript")
    validations = raw_run.get("validations")
    validations = validations if isinstance(validations, dict) else {}
    share = max(len(graders), 1)
    error = raw_run.get("error_msg") or raw_run.get("error")
    return {
        "prompt": budget.cut(text_of(raw_run.get("prompt")), 4),
        "output": budget.cut(text_of(raw_run.get("final_output")), 4),
        "error": budget.cut(text_of(error), 4) if error else "",
        "digest": _digest(raw_run),
        "conversation": conversation(transcript if isinstance(transcript, list) else [], budget),
        "context": _context(raw_run, budget),
        "verdicts": [
            _details(validations[name], budget, share) if name in validations else None
            for name in graders
        ],
    }
