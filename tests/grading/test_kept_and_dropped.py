"""Which saved verdicts survive a regrade: an LLM judge's are kept and marked so,
a grader that left the spec loses its verdict (as `waza grade` drops it), and an errored run
keeps the verdicts of graders that completed before it errored, as unscored evidence (waza
v0.42.2, #1151): they are written back, but count for nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Project, make_results, make_run, run_cli_process


def _saved(name: str, kind: str, passed: bool) -> dict[str, Any]:
    return {
        "identifier": name,
        "type": kind,
        "score": 1.0 if passed else 0.0,
        "weight": 1.0,
        "passed": passed,
        "feedback": f"{name} said so",
        "duration_ms": 5,
    }


def _grade(project: Project) -> tuple[int, dict[str, Any], str]:
    out = project.root / "out.json"
    report = project.root / "report.json"
    done = run_cli_process(
        [*project.grade_args(), "--output", str(out), "--report-json", str(report)],
        cwd=project.root,
    )
    return done.code, json.loads(out.read_text()), report.read_text()


def _project(project: Project, runs: list[dict[str, Any]]) -> None:
    ok = project.write_grader("ok.py", "import sys\nsys.stdin.read()\n")
    project.write_eval(
        project.program_grader("ok", ok) + "- type: prompt\n  name: judge\n  config: {}\n"
    )
    project.write_task("t1")
    project.write_results(make_results({"t1": runs}))


@pytest.mark.slow
def test_an_errored_run_keeps_its_completed_verdicts_as_evidence_only(project: Project) -> None:
    errored = make_run(2, status="error", error_msg="grader timed out")
    errored["validations"] = {"ok": _saved("ok", "program", True)}
    judged = make_run(1)
    judged["validations"] = {"judge": _saved("judge", "prompt", True)}
    _project(project, [judged, errored])
    code, out, _ = _grade(project)
    runs = out["tasks"][0]["runs"]
    assert runs[1]["status"] == "error"
    assert runs[1]["validations"] == {"ok": _saved("ok", "program", True)}  # kept, untouched
    assert out["tasks"][0]["status"] == "failed" and code == 1  # the errored run still fails


@pytest.mark.slow
def test_a_judge_is_kept_and_a_grader_outside_the_spec_is_dropped(project: Project) -> None:
    run = make_run(1)
    run["validations"] = {
        "judge": _saved("judge", "prompt", True),
        "gone": _saved("gone", "text", False),
    }
    _project(project, [run])
    code, out, report = _grade(project)
    validations = out["tasks"][0]["runs"][0]["validations"]
    assert sorted(validations) == ["judge", "ok"]
    assert validations["judge"] == _saved("judge", "prompt", True)
    assert code == 0
    data = json.loads(report)
    assert data["counts"]["kinds"] == {
        "program": {"regraded": 1, "kept": 0},
        "prompt": {"regraded": 0, "kept": 1},
    }
    rows = {row["grader"]: row for row in data["tasks"][0]["graders"]}
    assert rows["judge"]["regraded"] is False and rows["ok"]["regraded"] is True


@pytest.mark.slow
def test_a_judge_without_a_saved_verdict_is_not_graded_and_fails(project: Project) -> None:
    _project(project, [make_run(1)])
    code, out, report = _grade(project)
    assert code == 1
    assert "judge" not in out["tasks"][0]["runs"][0]["validations"]  # nothing is invented
    rows = {row["grader"]: row for row in json.loads(report)["tasks"][0]["graders"]}
    assert rows["judge"]["status"] == "failed" and rows["judge"]["graded"] is False


@pytest.mark.slow
def test_a_verdict_that_flips_is_reported_saved_and_now(project: Project, tmp_path: Path) -> None:
    run = make_run(1)
    run["validations"] = {"ok": _saved("ok", "program", False)}  # failed when it was saved
    judge = _saved("judge", "prompt", True)
    run["validations"]["judge"] = judge
    _project(project, [run])
    code, _, report = _grade(project)
    assert code == 0
    data = json.loads(report)
    rows = {row["grader"]: row for row in data["tasks"][0]["graders"]}
    assert rows["ok"]["flips"] == [{"run": 1, "saved": "failed", "now": "passed"}]
    assert data["counts"]["flipped"] == 1


def test_a_regraded_verdict_keeps_every_field_beside_what_was_saved() -> None:
    # merge_run spells dataclasses.replace out for speed; a field added to GraderVerdict must not be
    # lost there.
    from dataclasses import fields, replace

    from waza_ci.grading.verdicts import _with_saved
    from waza_ci.waza.results import SavedVerdict
    from waza_ci.waza.scoring import Diagnosis, GraderVerdict

    values: dict[str, Any] = {
        "name": "n",
        "kind": "text",
        "score": 0.25,
        "weight": 2.0,
        "passed": False,
        "feedback": "f",
        "regraded": True,
        "error": "e",
        "duration_ms": 7,
        "diagnosis": Diagnosis(exit_error="x"),
        "notes": ("a",),
        "saved_passed": None,
        "saved_score": None,
    }
    assert {f.name for f in fields(GraderVerdict)} == set(values)
    verdict = GraderVerdict(**values)
    before = SavedVerdict.model_validate(_saved("n", "text", True))
    assert _with_saved(verdict, before) == replace(verdict, saved_passed=True, saved_score=1.0)
