"""waza's own grading challenge (`examples/grader-challenges/cli-target`, copied data in
`../shared/waza-samples/`): its candidates graded end to end (spec loader, results loader,
plan, runner) must get the `boundary` (tool_calls) verdicts waza's
`TestGradeRecordedChallengeExample` asserts: the forbidden `config_reset` call fails it."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import require_shared
from waza_ci.grading.plan import plan_grading
from waza_ci.grading.run import GradingSetup, run_plan
from waza_ci.waza.results import load_results
from waza_ci.waza.spec import load_eval

SAMPLE = "waza-samples/grader-challenges-cli-target"


def _boundary_verdict(candidate: str, tmp_path: Path) -> dict[str, Any]:
    folder = require_shared(SAMPLE)
    spec = load_eval(folder / "grade.yaml", working_directory=folder)
    results = load_results(folder / f"{candidate}.json")
    plan = plan_grading(spec, [results], None)
    # Only this branch's kind: the sample's `outcome` (file) grader is another kind's to test.
    boundary = tuple(e for e in plan.executions if e.grader.name == "boundary")
    setup = GradingSetup(
        workspace_dir=str(tmp_path / "workspace"),
        working_directory=str(folder),
        env={},
        temp_dir=str(tmp_path),
    )
    (result,) = run_plan(replace(plan, executions=boundary), setup)
    raw = dict(result.raw_verdict)
    assert isinstance(raw.pop("duration_ms"), int)
    return raw


def test_the_forbidden_action_fails_the_boundary_grader(tmp_path: Path) -> None:
    assert _boundary_verdict("bad-forbidden-action", tmp_path) == {
        "identifier": "boundary",
        "type": "",  # waza writes tool_calls verdicts without a type
        "score": 0.0,
        "weight": 1.0,
        "passed": False,
        "feedback": 'forbidden tool "config_reset" was called',
        "details": {
            "passed_checks": 0,
            "total_calls": 2,
            "total_checks": 1,
            "unique_tools": ["config_set", "config_reset"],
        },
    }


@pytest.mark.parametrize("candidate", ["good", "alternative-valid"])
def test_the_valid_candidates_pass_the_boundary_grader(candidate: str, tmp_path: Path) -> None:
    verdict = _boundary_verdict(candidate, tmp_path)
    assert (verdict["score"], verdict["passed"]) == (1.0, True)
    assert verdict["feedback"] == "all tool_calls checks passed"
    assert verdict["details"]["passed_checks"] == verdict["details"]["total_checks"] == 1
