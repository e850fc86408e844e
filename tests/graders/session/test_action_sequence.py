"""`action_sequence`: waza's Go tests (action_sequence_grader_test.go) restated as a table,
then details, load errors and construction errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.graders.harness import grade_raw, grader_task
from waza_ci.errors import InputError
from waza_ci.graders import KINDS

RF, WF = "read_file", "write_file"


def _run(tools_used: list[str] | None) -> dict[str, Any]:
    return {"run_number": 1, "status": "passed", "session_digest": {"tools_used": tools_used}}


def _grade(tmp_path: Path, mode: str, expected: list[str], run: dict[str, Any]) -> dict[str, Any]:
    config = f"{{matching_mode: {mode}, expected_actions: [{', '.join(expected)}]}}"
    loaded = grader_task(tmp_path, f"name: seq\ntype: action_sequence\nconfig: {config}")
    return grade_raw(loaded, "seq", run)


MATCHED = "Action sequence matched"

# (mode, expected, tools_used, score, passed, feedback)
GO_CASES = [
    pytest.param(
        "exact_match",
        [RF, WF, "search"],
        [RF, WF, "search"],
        1.0,
        True,
        MATCHED,
        id="exact-passes-when-equal",
    ),
    pytest.param(
        "exact_match",
        [RF, WF],
        [RF, WF, "search"],
        0.8,
        False,
        "Exact match failed: expected 2 actions [read_file write_file], "
        "got 3 actions [read_file write_file search]",
        id="exact-fails-with-extra-step",
    ),
    pytest.param(
        "exact_match",
        [RF, WF, "search"],
        [RF, WF],
        0.8,
        False,
        "Exact match failed: expected 3 actions [read_file write_file search], "
        "got 2 actions [read_file write_file]",
        id="exact-fails-with-missing-step",
    ),
    pytest.param(
        "exact_match",
        [RF, WF],
        [WF, RF],
        1.0,
        False,
        "Exact match failed: expected 2 actions [read_file write_file], "
        "got 2 actions [write_file read_file]",
        id="exact-fails-with-wrong-order-at-full-score",
    ),
    pytest.param(
        "exact_match",
        [RF],
        [],
        0.0,
        False,
        "Exact match failed: expected 1 actions [read_file], got 0 actions []",
        id="exact-with-empty-actual",
    ),
    pytest.param("exact_match", [RF], [RF], 1.0, True, MATCHED, id="exact-single-tool"),
    pytest.param(
        "in_order_match",
        [RF, WF, "search"],
        [RF, WF, "search"],
        1.0,
        True,
        MATCHED,
        id="in-order-exact-sequence",
    ),
    pytest.param(
        "in_order_match",
        [RF, WF],
        ["init", RF, "search", WF, "cleanup"],
        0.5714285714285715,
        True,
        MATCHED,
        id="in-order-with-steps-interspersed",
    ),
    pytest.param(
        "in_order_match",
        [RF, WF],
        [WF, RF],
        1.0,
        False,
        "In-order match failed: not all expected actions [read_file write_file] appeared in "
        "order within actual [write_file read_file]",
        id="in-order-fails-with-wrong-order",
    ),
    pytest.param(
        "in_order_match",
        [RF, WF, "deploy"],
        [RF, WF],
        0.8,
        False,
        "In-order match failed: not all expected actions [read_file write_file deploy] "
        "appeared in order within actual [read_file write_file]",
        id="in-order-fails-with-missing-step",
    ),
    pytest.param(
        "in_order_match",
        [RF, "deploy"],
        ["init", RF, WF, "test", "deploy", "cleanup"],
        0.5,
        True,
        MATCHED,
        id="in-order-subset-in-order",
    ),
    pytest.param(
        "any_order_match",
        [RF, WF, "search"],
        ["search", WF, RF],
        1.0,
        True,
        MATCHED,
        id="any-order-different-order",
    ),
    pytest.param(
        "any_order_match",
        [RF, WF],
        ["init", WF, "search", RF, "cleanup"],
        0.5714285714285715,
        True,
        MATCHED,
        id="any-order-with-extra-tools",
    ),
    pytest.param(
        "any_order_match",
        [RF, WF, "deploy"],
        [RF, WF],
        0.8,
        False,
        "Any-order match failed: missing or insufficient actions: deploy (need 1, got 0)",
        id="any-order-missing-tool",
    ),
    pytest.param(
        "any_order_match",
        [RF, RF, WF],
        [WF, RF, RF],
        1.0,
        True,
        MATCHED,
        id="any-order-duplicates-expected",
    ),
    pytest.param(
        "any_order_match",
        [RF, RF, WF],
        [WF, RF],
        0.8,
        False,
        "Any-order match failed: missing or insufficient actions: read_file (need 2, got 1)",
        id="any-order-insufficient-duplicates",
    ),
    pytest.param("exact_match", ["a", "b", "c"], ["a", "b", "c"], 1.0, True, MATCHED, id="perfect"),
    pytest.param(
        "any_order_match",
        ["a", "b", "c", "d"],
        ["a", "c"],
        0.6666666666666666,
        False,
        # waza lists these in random order; waza-ci in the order first expected
        "Any-order match failed: missing or insufficient actions: b (need 1, got 0), "
        "d (need 1, got 0)",
        id="partial-match",
    ),
    pytest.param(
        "exact_match",
        ["a", "b"],
        ["x", "y"],
        0.0,
        False,
        "Exact match failed: expected 2 actions [a b], got 2 actions [x y]",
        id="no-match",
    ),
    pytest.param(
        "exact_match",
        [RF],
        None,
        0.0,
        False,
        "Exact match failed: expected 1 actions [read_file], got 0 actions []",
        id="nil-tools-used-is-empty",
    ),
]


@pytest.mark.parametrize(("mode", "expected", "tools", "score", "passed", "feedback"), GO_CASES)
def test_waza_action_sequence_cases(
    tmp_path: Path,
    mode: str,
    expected: list[str],
    tools: list[str] | None,
    score: float,
    passed: bool,
    feedback: str,
) -> None:
    verdict = _grade(tmp_path, mode, expected, _run(tools))
    assert (verdict["score"], verdict["passed"], verdict["feedback"]) == (score, passed, feedback)
    assert verdict["details"]["f1"] == verdict["score"]
    assert verdict["type"] == "action_sequence"


def test_details(tmp_path: Path) -> None:
    verdict = _grade(tmp_path, "any_order_match", ["a", "b"], _run(["a", "b", "x", "a"]))
    assert verdict["details"] == {
        "matching_mode": "any_order_match",
        "expected_actions": ["a", "b"],
        "actual_actions": ["a", "b", "x", "a"],
        "precision": 0.5,
        "recall": 1.0,
        "f1": 0.6666666666666666,
    }


def test_an_absent_digest_grades_as_an_empty_sequence(tmp_path: Path) -> None:
    verdict = _grade(tmp_path, "in_order_match", ["a"], {"run_number": 1, "status": "passed"})
    assert (verdict["score"], verdict["passed"]) == (0.0, False)
    assert verdict["details"]["actual_actions"] is None  # Go's nil slice
    assert verdict["details"]["precision"] == 0.0


def test_names_compare_exactly(tmp_path: Path) -> None:
    assert _grade(tmp_path, "exact_match", ["Bash"], _run(["bash"]))["passed"] is False


@pytest.mark.parametrize(
    ("mode_yaml", "shown"),
    [
        pytest.param("matching_mode: invalid_mode, ", '"invalid_mode"', id="invalid"),
        pytest.param("matching_mode: in_order, ", '"in_order"', id="skill-invocation-spelling"),
        pytest.param("", '""', id="absent"),
    ],
)
def test_a_mode_waza_does_not_know_fails_construction(
    tmp_path: Path, mode_yaml: str, shown: str
) -> None:
    config = f"{{{mode_yaml}expected_actions: [a]}}"
    loaded = grader_task(tmp_path, f"name: seq\ntype: action_sequence\nconfig: {config}")
    verdict = grade_raw(loaded, "seq", _run(["a"]))
    assert verdict["feedback"] == (
        f"failed to create grader seq: action_sequence grader 'seq' has invalid matching_mode "
        f"{shown} (must be exact_match, in_order_match, or any_order_match)"
    )
    assert (verdict["score"], verdict["passed"]) == (0.0, False)


@pytest.mark.parametrize(
    ("config", "message"),
    [
        pytest.param(
            "{matching_mode: exact_match, expected_actions: []}",
            'action_sequence grader "seq": must have at least one action in '
            "config.expected_actions",
            id="no-expected-actions",
        ),
        pytest.param(
            "{matching_mode: exact_match}",
            'action_sequence grader "seq": must have at least one action in '
            "config.expected_actions",
            id="expected-actions-absent",
        ),
        pytest.param(
            "{matching_mode: exact_match, expected_actions: [a], mode: x}",
            'invalid grader config for "seq" (type "action_sequence"): failed to decode grader '
            "parameters of type models.ActionSequenceGraderParameters: yaml: unmarshal errors: "
            "line 1: field mode not found in type models.ActionSequenceGraderParameters",
            id="unknown-key",
        ),
    ],
)
def test_load_errors(tmp_path: Path, config: str, message: str) -> None:
    loaded = grader_task(tmp_path, f"name: seq\ntype: action_sequence\nconfig: {config}")
    with pytest.raises(InputError) as raised:
        KINDS["action_sequence"].configure(loaded.grader("seq"))
    assert raised.value.message == message
