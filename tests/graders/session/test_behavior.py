"""`behavior`: waza's Go tests (behavior_grader_test.go) restated as a table, then details,
load errors and the construction error."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.graders.harness import grade_raw, grader_task
from waza_ci.errors import InputError
from waza_ci.graders import KINDS


def _run(duration_ms: int = 0, **digest: Any) -> dict[str, Any]:
    run: dict[str, Any] = {"run_number": 1, "status": "passed", "duration_ms": duration_ms}
    run["session_digest"] = digest
    return run


def _grade(tmp_path: Path, config: str, run: dict[str, Any]) -> dict[str, Any]:
    loaded = grader_task(tmp_path, f"name: b\ntype: behavior\nconfig: {config}")
    return grade_raw(loaded, "b", run)


USAGE_500 = {"input_tokens": 500}
ALL_RULES = (
    "{max_tool_calls: 10, max_tokens: 2000, required_tools: [read_file], "
    "forbidden_tools: [exec], max_duration_ms: 10000}"
)

# (config, run, score, passed, feedback) — the cases of waza's behavior_grader_test.go
GO_CASES = [
    pytest.param(
        "{max_tool_calls: 10}",
        _run(tool_call_count=5),
        1.0,
        True,
        "All behavior checks passed",
        id="max-tool-calls-under-limit",
    ),
    pytest.param(
        "{max_tool_calls: 10}",
        _run(tool_call_count=10),
        1.0,
        True,
        "All behavior checks passed",
        id="max-tool-calls-exactly-at-limit",
    ),
    pytest.param(
        "{max_tool_calls: 5}",
        _run(tool_call_count=8),
        0.0,
        False,
        "Tool call count 8 exceeds max allowed 5",
        id="max-tool-calls-over-limit",
    ),
    pytest.param(
        "{max_tokens: 1000}",
        _run(tool_call_count=999, usage=USAGE_500),
        1.0,
        True,
        "All behavior checks passed",
        id="max-tool-calls-zero-is-no-check",
    ),
    pytest.param(
        "{max_tokens: 1000}",
        _run(usage=USAGE_500),
        1.0,
        True,
        "All behavior checks passed",
        id="max-tokens-under-limit",
    ),
    pytest.param(
        "{max_tokens: 1000}",
        _run(usage={"input_tokens": 1000}),
        1.0,
        True,
        "All behavior checks passed",
        id="max-tokens-exactly-at-limit",
    ),
    pytest.param(
        "{max_tokens: 500}",
        _run(usage={"input_tokens": 1200}),
        0.0,
        False,
        "Token usage 1200 exceeds max allowed 500",
        id="max-tokens-over-limit",
    ),
    pytest.param(
        "{max_tokens: 500}",
        _run(),
        1.0,
        True,
        "All behavior checks passed",
        id="max-tokens-passes-when-usage-is-nil",
    ),
    pytest.param(
        "{required_tools: [read_file, write_file]}",
        _run(tools_used=["read_file", "write_file", "search"]),
        1.0,
        True,
        "All behavior checks passed",
        id="required-tools-all-present",
    ),
    pytest.param(
        "{required_tools: [read_file, write_file]}",
        _run(tools_used=["read_file", "search"]),
        0.5,
        False,
        "Required tool not used: write_file",
        id="required-tool-missing",
    ),
    pytest.param(
        "{required_tools: [read_file]}",
        _run(tools_used=[]),
        0.0,
        False,
        "Required tool not used: read_file",
        id="required-tool-but-no-tools-used",
    ),
    pytest.param(
        "{forbidden_tools: [exec, shell]}",
        _run(tools_used=["read_file", "write_file"]),
        1.0,
        True,
        "All behavior checks passed",
        id="forbidden-tools-none-used",
    ),
    pytest.param(
        "{forbidden_tools: [exec, shell]}",
        _run(tools_used=["read_file", "exec", "write_file"]),
        0.5,
        False,
        "Forbidden tool was used: exec",
        id="forbidden-tool-used",
    ),
    pytest.param(
        "{forbidden_tools: [exec]}",
        _run(tools_used=[]),
        1.0,
        True,
        "All behavior checks passed",
        id="forbidden-tools-and-no-tools-used",
    ),
    pytest.param(
        "{max_duration_ms: 5000}",
        _run(3000),
        1.0,
        True,
        "All behavior checks passed",
        id="duration-under-limit",
    ),
    pytest.param(
        "{max_duration_ms: 5000}",
        _run(5000),
        1.0,
        True,
        "All behavior checks passed",
        id="duration-exactly-at-limit",
    ),
    pytest.param(
        "{max_duration_ms: 5000}",
        _run(8000),
        0.0,
        False,
        "Duration 8000ms exceeds max allowed 5000ms",
        id="duration-over-limit",
    ),
    pytest.param(
        ALL_RULES,
        _run(
            5000,
            tool_call_count=3,
            usage={"input_tokens": 800},
            tools_used=["read_file", "write_file"],
        ),
        1.0,
        True,
        "All behavior checks passed",
        id="combined-all-rules-pass",
    ),
    pytest.param(
        ALL_RULES,
        _run(
            5000,
            tool_call_count=15,
            usage={"input_tokens": 800},
            tools_used=["read_file", "write_file"],
        ),
        0.8,
        False,
        "Tool call count 15 exceeds max allowed 10",
        id="combined-one-rule-fails-among-many",
    ),
    pytest.param(
        "{max_tool_calls: 5, max_tokens: 1000, required_tools: [read_file], "
        "forbidden_tools: [exec]}",
        _run(tool_call_count=20, usage={"input_tokens": 5000}, tools_used=["exec"]),
        0.0,
        False,
        "Tool call count 20 exceeds max allowed 5; Token usage 5000 exceeds max allowed 1000; "
        "Required tool not used: read_file; Forbidden tool was used: exec",
        id="combined-multiple-rules-fail",
    ),
    pytest.param(
        "{max_tool_calls: 5, max_tokens: 1000}",
        _run(tool_call_count=10, usage=USAGE_500),
        0.5,
        False,
        "Tool call count 10 exceeds max allowed 5",
        id="combined-rules-checked-independently",
    ),
    pytest.param(
        "{max_tool_calls: 10}",
        _run(tool_call_count=0),
        1.0,
        True,
        "All behavior checks passed",
        id="edge-zero-tool-calls",
    ),
    pytest.param(
        "{max_tokens: 500}",
        _run(usage={"input_tokens": 0}),
        1.0,
        True,
        "All behavior checks passed",
        id="edge-zero-tokens",
    ),
    pytest.param(
        "{max_tool_calls: 10}",
        _run(tool_call_count=3, tools_used=[]),
        1.0,
        True,
        "All behavior checks passed",
        id="edge-empty-required-tools-list",
    ),
    pytest.param(
        "{max_tool_calls: 10}",
        _run(tool_call_count=3, tools_used=["exec", "shell"]),
        1.0,
        True,
        "All behavior checks passed",
        id="edge-empty-forbidden-tools-list",
    ),
    pytest.param(
        "{max_duration_ms: 5000}",
        _run(0),
        1.0,
        True,
        "All behavior checks passed",
        id="edge-zero-duration",
    ),
    pytest.param(
        "{required_tools: [read_file]}",
        _run(tools_used=None),
        0.0,
        False,
        "Required tool not used: read_file",
        id="edge-nil-tools-used-with-required-tools",
    ),
    pytest.param(
        "{forbidden_tools: [exec]}",
        _run(tools_used=None),
        1.0,
        True,
        "All behavior checks passed",
        id="edge-nil-tools-used-with-forbidden-tools",
    ),
]


@pytest.mark.parametrize(("config", "run", "score", "passed", "feedback"), GO_CASES)
def test_waza_behavior_cases(
    tmp_path: Path, config: str, run: dict[str, Any], score: float, passed: bool, feedback: str
) -> None:
    verdict = _grade(tmp_path, config, run)
    assert (verdict["score"], verdict["passed"], verdict["feedback"]) == (score, passed, feedback)
    assert verdict["type"] == "behavior"


def test_details_of_a_passing_run(tmp_path: Path) -> None:
    config = "{max_tool_calls: 10, required_tools: [read_file], forbidden_tools: [exec]}"
    run = _run(1234, tool_call_count=3, tools_used=["read_file", "write_file"])
    assert _grade(tmp_path, config, run)["details"] == {
        "actual_duration": 1234,
        "failures": None,
        "forbidden_tools": ["exec"],
        "max_duration_ms": 0,
        "max_tokens": 0,
        "max_tool_calls": 10,
        "required_tools": ["read_file"],
        "tool_call_count": 3,
        "tools_used": ["read_file", "write_file"],
    }


def test_details_of_a_failing_run_with_usage(tmp_path: Path) -> None:
    run = _run(
        tool_call_count=2,
        tools_used=["bash", "bash"],
        usage={"input_tokens": 700, "output_tokens": 400, "cache_read_tokens": 9000},
    )
    details = _grade(tmp_path, "{max_tokens: 1000, required_tools: []}", run)["details"]
    assert details["failures"] == ["Token usage 1100 exceeds max allowed 1000"]
    assert details["tokens_total"] == 1100  # cache tokens do not count
    assert details["required_tools"] == []  # configured empty: [], not null
    assert details["forbidden_tools"] is None  # not configured: Go's nil slice


def test_an_absent_session_digest_is_an_empty_one(tmp_path: Path) -> None:
    # waza grade hands every grader the digest struct; a run without one grades as empty.
    run = {"run_number": 1, "status": "passed", "duration_ms": 5}
    verdict = _grade(tmp_path, "{max_tool_calls: 10, forbidden_tools: [exec]}", run)
    assert (verdict["score"], verdict["passed"]) == (1.0, True)
    assert verdict["details"]["tools_used"] is None
    assert verdict["details"]["tool_call_count"] == 0
    assert "tokens_total" not in verdict["details"]


def test_tool_call_count_is_trusted_over_the_calls_listed(tmp_path: Path) -> None:
    run = _run(tool_call_count=1, tools_used=["a", "b", "c"])
    assert _grade(tmp_path, "{max_tool_calls: 2}", run)["passed"] is True


def test_duplicate_list_entries_are_two_checks(tmp_path: Path) -> None:
    verdict = _grade(tmp_path, "{required_tools: [a, a, b]}", _run(tools_used=["b"]))
    assert verdict["score"] == pytest.approx(1 / 3)
    assert verdict["feedback"] == "Required tool not used: a; Required tool not used: a"


def test_names_compare_exactly(tmp_path: Path) -> None:
    verdict = _grade(tmp_path, "{required_tools: [Bash]}", _run(tools_used=["bash"]))
    assert verdict["passed"] is False


def test_a_negative_limit_alone_is_a_rule_that_checks_nothing(tmp_path: Path) -> None:
    verdict = _grade(tmp_path, "{max_tool_calls: -1}", _run(tool_call_count=50))
    assert (verdict["score"], verdict["passed"]) == (1.0, True)


@pytest.mark.parametrize("config", ["{}", "{max_tool_calls: 0, required_tools: []}"])
def test_no_rule_fails_construction(tmp_path: Path, config: str) -> None:
    verdict = _grade(tmp_path, config, _run())
    assert verdict["feedback"] == (
        "failed to create grader b: behavior grader 'b' must have at least one rule configured"
    )
    assert (verdict["score"], verdict["passed"]) == (0.0, False)
    assert "details" not in verdict


@pytest.mark.parametrize(
    ("config", "message"),
    [
        pytest.param(
            "{max_turns: 3}",
            'invalid grader config for "b" (type "behavior"): failed to decode grader parameters'
            " of type models.BehaviorGraderParameters: yaml: unmarshal errors: line 1: field "
            "max_turns not found in type models.BehaviorGraderParameters",
            id="unknown-key",
        ),
        pytest.param(
            "{max_tool_calls: lots}",
            'invalid grader config for "b" (type "behavior"): failed to decode grader parameters'
            " of type models.BehaviorGraderParameters: yaml: unmarshal errors: line 1: cannot "
            "unmarshal !!str `lots` into int",
            id="wrong-type",
        ),
    ],
)
def test_load_errors(tmp_path: Path, config: str, message: str) -> None:
    loaded = grader_task(tmp_path, f"name: b\ntype: behavior\nconfig: {config}")
    with pytest.raises(InputError) as raised:
        KINDS["behavior"].configure(loaded.grader("b"))
    assert raised.value.message == message
