"""One saved run -> the bytes of its grading-context file (`context.json`, version 1). Pure.

The rules follow waza v0.40.0's program-grader reference: `outcome` is `{}` and `transcript` and
`tool_calls` are `[]` when absent; the evidence fields are the run's own value when the results
file has the key (an empty list stays empty) and `null` when it does not, because `null` means
"no evidence recorded", not "zero calls".
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic_core import PydanticSerializationError, to_json

CONTEXT_VERSION = 1
EVIDENCE_FIELDS = ("tool_events", "host_lifecycle", "command_invocations", "user_input_requests")

_START = "tool.execution_start"
_RESULT_TYPES = ("tool.execution_complete", "tool.execution_partial_result")


def build_context(raw_run: Mapping[str, Any]) -> dict[str, Any]:
    """The grading context of one run, from its raw results-file JSON."""
    transcript = raw_run.get("transcript")
    events: list[Any] = transcript if isinstance(transcript, list) else []
    duration = raw_run.get("duration_ms")
    context: dict[str, Any] = {
        "version": CONTEXT_VERSION,
        "output": raw_run.get("final_output") or "",
        "outcome": {},
        "transcript": events,
        "tool_calls": derive_tool_calls(events),
    }
    for name in EVIDENCE_FIELDS:
        context[name] = raw_run.get(name)
    context["duration_ms"] = duration if isinstance(duration, int) else 0
    return context


def serialize_context(raw_run: Mapping[str, Any]) -> bytes:
    """`build_context` as UTF-8 JSON with a two-space indent: computed once per run, shared by
    all its graders.

    pydantic-core's native encoder makes the bytes: a transcript can be large, and this runs
    once per saved run. Its text equals `json.dumps(indent=2, ensure_ascii=False)` except in
    how floats below 1e-4 are spelled (`1e-5`, not `1e-05`); the values are the same, and
    graders read values. What the native encoder refuses (nesting deeper than its limit) the
    standard library writes.
    """
    context = build_context(raw_run)
    try:
        return to_json(context, indent=2)
    except PydanticSerializationError:
        return json.dumps(context, indent=2, ensure_ascii=False).encode("utf-8")


def derive_tool_calls(transcript: Sequence[Any]) -> list[dict[str, Any]]:
    """Pair each tool start with its completion (or, failing that, its partial result) by id.

    Starts without a `tool_name` or `tool_call_id` are not tool calls; the order is start order.
    The transcript is parsed JSON, where an object is always a dict: `type(...) is dict` keeps
    the walk over a long transcript cheap, where an ABC check on every event was not.
    """
    results: dict[str, Mapping[str, Any]] = {}
    for event in transcript:
        if type(event) is not dict or event.get("type") not in _RESULT_TYPES:
            continue
        call_id = event.get("tool_call_id")
        if not isinstance(call_id, str) or not call_id:
            continue
        # A completion is final: it wins over any partial result, before or after it.
        if (
            event.get("type") == _RESULT_TYPES[0]
            or call_id not in results
            or results[call_id].get("type") != _RESULT_TYPES[0]
        ):
            results[call_id] = event
    calls: list[dict[str, Any]] = []
    for event in transcript:
        if type(event) is not dict or event.get("type") != _START:
            continue
        name, call_id = event.get("tool_name"), event.get("tool_call_id")
        if not name or not isinstance(call_id, str) or not call_id:
            continue
        result = results.get(call_id, {})
        calls.append(
            {
                "name": name,
                "arguments": event.get("arguments"),
                "result": result.get("tool_result"),
                "success": bool(result.get("success", False)),
            }
        )
    return calls
