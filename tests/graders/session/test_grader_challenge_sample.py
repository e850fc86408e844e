"""waza's own grading challenge (`examples/grader-challenges/cli-target`, copied data in
`../shared/waza-samples/`): its candidates graded end to end (spec loader, results loader,
plan, runner) must get the `boundary` (tool_calls) verdicts waza's
`TestGradeRecordedChallengeExample` asserts: the forbidden `config_reset` call fails it."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import require_shared, run_cli_process
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


# The whole sample through the `waza-ci grade` command, as its README runs it with waza:
# `waza grade grade.yaml --results candidates/<c>.json --workspace workspaces/<c>`. The
# expected scores are the example's own: good 1 / passed, alternative-valid 1 / passed,
# bad-forbidden-action 1/2 / failed (its target state is right, the reset is forbidden; it has
# no workspace of its own, so it is graded on the good one).
@pytest.mark.slow
@pytest.mark.parametrize(
    ("candidate", "workspace", "code", "score"),
    [
        ("good", "good", 0, 1.0),
        ("alternative-valid", "alternative-valid", 0, 1.0),
        ("bad-forbidden-action", "good", 1, 0.5),
    ],
)
def test_the_command_grades_every_candidate_as_waza_s_example_says(
    candidate: str, workspace: str, code: int, score: float, tmp_path: Path
) -> None:
    folder = require_shared(SAMPLE)
    out = tmp_path / "regraded.json"
    done = run_cli_process(
        [
            "grade",
            str(folder / "grade.yaml"),
            "--results",
            str(folder / f"{candidate}.json"),
            "--workspace",
            str(folder / "workspaces" / workspace),
            "--working-directory",
            str(folder),
            "--output",
            str(out),
        ],
        cwd=tmp_path,
    )
    assert done.code == code, done.stderr
    outcome = json.loads(done.stdout)
    assert outcome["overall_score"] == score
    validations = json.loads(out.read_text())["tasks"][0]["runs"][0]["validations"]
    assert sorted(validations) == ["boundary", "outcome"]
    assert validations["outcome"]["type"] == "file" and validations["outcome"]["passed"] is True
    boundary = validations["boundary"]
    if code:
        assert boundary["feedback"] == 'forbidden tool "config_reset" was called'
        assert "boundary" in done.stderr and "config_reset" in done.stderr
    else:
        assert boundary["feedback"] == "all tool_calls checks passed"
