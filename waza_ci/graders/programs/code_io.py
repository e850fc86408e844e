"""What goes to the `code` grader's runner and what comes back: the JSON document on its stdin
(the output, the transcript as waza's event model re-reads it, the tool calls, the assertions),
and the reading of the results it prints, with waza's text when they cannot be read.

code.py holds the kind itself; this is the wire format, kept apart so each reads on its own.
"""

from __future__ import annotations

import json
from typing import Any

from waza_ci.golang.json_scanner import GoJSONError, go_unmarshal_struct
from waza_ci.graders.base import GraderJob
from waza_ci.graders.inprocess import GraderError


def stdin_document(job: GraderJob, assertions: tuple[str, ...]) -> bytes:
    """The JSON document waza writes to the runner's stdin, for this run."""
    transcript = [_event(event) for event in job.run.transcript or ()]
    document = {
        "output": job.run.final_output,
        "outcome": {},  # `waza grade` has no outcome: always an empty map
        "transcript": transcript,
        "tool_calls": tool_calls(transcript),
        "duration_ms": job.run.duration_ms,
        "assertions": list(assertions),
        "debug": False,
    }
    # ASCII escapes: any string (even a lone surrogate from the results file) reaches the
    # runner as the same value.
    return json.dumps(document).encode("ascii")


_TEXT_EVENTS = ("user.message", "assistant.message")
_START = "tool.execution_start"
_COMPLETE = "tool.execution_complete"
_PARTIAL = "tool.execution_partial_result"
_ERROR = "session.error"
_ARGUMENT_KEYS = ("path", "file_text", "command", "description", "skill")


def _event(event: Any) -> dict[str, Any]:
    """One transcript event as waza re-serialises it: its event model keeps, per type, only
    the fields it knows (`content` of messages, `message` of session errors, the ids, names,
    arguments and results of tool events); every other type keeps only `type`."""
    fields = event if isinstance(event, dict) else {}
    kind = _text(fields.get("type"))
    if kind in _TEXT_EVENTS:
        return {"content": _text(fields.get("content")), "type": kind}
    projected: dict[str, Any] = {"type": kind}
    if kind == _ERROR:
        projected["message"] = _text(fields.get("message"))
    elif kind == _START:
        if fields.get("arguments") is not None:
            projected["arguments"] = fields["arguments"]
        projected["tool_call_id"] = _text(fields.get("tool_call_id"))
        projected["tool_name"] = _text(fields.get("tool_name"))
    elif kind == _COMPLETE:
        projected["success"] = fields.get("success") is True
        projected["tool_call_id"] = _text(fields.get("tool_call_id"))
        result = _tool_result(fields.get("tool_result"))
        if result is not None:
            projected["tool_result"] = result
    elif kind == _PARTIAL:
        projected["tool_call_id"] = _text(fields.get("tool_call_id"))
    return projected


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _tool_result(value: Any) -> dict[str, Any] | None:
    """A tool result as the SDK's typed result keeps it: `content`, and `contents` and
    `detailedContent` when present."""
    if not isinstance(value, dict):
        return None
    result: dict[str, Any] = {"content": _text(value.get("content"))}
    contents = value.get("contents")
    if isinstance(contents, list) and contents:
        result["contents"] = contents
    detailed = value.get("detailedContent")
    if isinstance(detailed, str):
        result["detailedContent"] = detailed
    return result


def tool_calls(transcript: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """waza's tool calls of a (re-serialised) transcript: one per start with a name and an id,
    in start order, completed by the last completion with the same id that follows it."""
    calls: dict[str, dict[str, Any]] = {}
    order: list[str] = []
    for event in transcript:
        call_id = event.get("tool_call_id", "")
        if event["type"] == _START and call_id and event.get("tool_name"):
            calls[call_id] = {
                "id": call_id,
                "name": event["tool_name"],
                "arguments": _arguments(event.get("arguments")),
                "success": False,
            }
            order.append(call_id)
        elif event["type"] == _COMPLETE and call_id in calls:
            call = calls[call_id]
            call["success"] = event["success"]
            call.pop("result", None)
            if "tool_result" in event:
                call["result"] = event["tool_result"]
    return [_call_in_order(calls[call_id]) for call_id in order]


def _call_in_order(call: dict[str, Any]) -> dict[str, Any]:
    # Go writes a struct's fields in declaration order: id, name, arguments, result, success.
    ordered: dict[str, Any] = {key: call[key] for key in ("id", "name", "arguments")}
    if "result" in call:
        ordered["result"] = call["result"]
    ordered["success"] = call["success"]
    return ordered


def _arguments(value: Any) -> dict[str, str]:
    """The five argument fields waza decodes (mapstructure: a key matches its field in any
    letter case; a value that is not a string leaves the field empty)."""
    arguments = dict.fromkeys(_ARGUMENT_KEYS, "")
    if not isinstance(value, dict):
        return arguments
    for field_name in _ARGUMENT_KEYS:
        key = field_name if field_name in value else _folded_key(value, field_name)
        if key is not None and isinstance(value[key], str):
            arguments[field_name] = value[key]
    return arguments


def _folded_key(mapping: dict[str, Any], name: str) -> str | None:
    folded = name.casefold()
    return next((key for key in mapping if str(key).casefold() == folded), None)


def decode_results(stdout: str) -> list[str]:
    """The runner's `{"results": [...]}`, read as Go's json.Unmarshal reads it into a struct
    with a `Results []string` field; raises GraderError with waza's text."""
    try:
        document = go_unmarshal_struct(stdout)
    except GoJSONError as err:
        raise _undecodable(stdout, str(err)) from None
    if not isinstance(document, dict):
        raise _undecodable(stdout, "json: cannot unmarshal into Go value of type struct")
    results: Any = None
    for key, value in document.items():  # Go matches the field name in any letter case
        if key.casefold() == "results":
            results = value
    if results is None:
        return []
    if not isinstance(results, list) or not all(r is None or isinstance(r, str) for r in results):
        raise _undecodable(stdout, "json: cannot unmarshal into Go struct field .Results")
    return ["" if r is None else r for r in results]  # Go leaves a string null as ""


def _undecodable(stdout: str, problem: str) -> GraderError:
    return GraderError(f"failed to deserialize output ({stdout}) from assertions: {problem}")
