"""The grading-context payload: field rules and tool-call pairing."""

from __future__ import annotations

import json

from waza_ci.waza.context import build_context, derive_tool_calls, serialize_context


def test_missing_evidence_is_null_and_empty_stays_empty() -> None:
    context = build_context({"final_output": "x", "command_invocations": [], "tool_events": None})
    assert context["command_invocations"] == []
    assert context["tool_events"] is None
    assert context["user_input_requests"] is None
    assert context["host_lifecycle"] is None
    assert context["outcome"] == {} and context["transcript"] == [] and context["tool_calls"] == []


def test_completion_wins_over_partial_result_in_either_order() -> None:
    transcript = [
        {"type": "tool.execution_start", "tool_call_id": "1", "tool_name": "a", "arguments": {}},
        {
            "type": "tool.execution_complete",
            "tool_call_id": "1",
            "tool_result": {"content": "done"},
            "success": True,
        },
        {
            "type": "tool.execution_partial_result",
            "tool_call_id": "1",
            "tool_result": {"content": "late partial"},
            "success": False,
        },
        {"type": "tool.execution_start", "tool_call_id": "2", "tool_name": "b"},
    ]
    calls = derive_tool_calls(transcript)
    assert calls == [
        {"name": "a", "arguments": {}, "result": {"content": "done"}, "success": True},
        {"name": "b", "arguments": None, "result": None, "success": False},
    ]


def test_serialized_once_is_valid_utf8_json() -> None:
    payload = serialize_context({"final_output": "ünï <&>", "duration_ms": 12})
    assert json.loads(payload.decode("utf-8"))["output"] == "ünï <&>"


def test_serialized_as_json_dumps_lays_it_out_with_the_same_values() -> None:
    run = {
        "final_output": "ünï <&> \u2028",
        "duration_ms": 12,
        "transcript": [{"type": "assistant.message", "content": "x", "score": 0.5}],
        "tool_events": [],
    }
    payload = serialize_context(run)
    expected = build_context(run)
    assert payload == json.dumps(expected, indent=2, ensure_ascii=False).encode("utf-8")
    tiny = {"final_output": "", "transcript": [{"type": "t", "p": 1.5e-05, "q": 1e-300}]}
    assert json.loads(serialize_context(tiny)) == build_context(tiny)


def test_nesting_deeper_than_the_native_encoder_allows_is_still_written() -> None:
    deep: object = "bottom"
    for _ in range(400):
        deep = [deep]
    run = {"final_output": "", "transcript": [{"type": "t", "deep": deep}]}
    assert json.loads(serialize_context(run)) == build_context(run)
