"""Specs waza loads, regraded end to end as waza would: graders without `name` (keyed by "" in
`validations`, the later of two replacing the earlier), scenario evals (schemaVersion "2.0"),
and files that are not results files refused in one line naming what they are."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.conftest import Project, make_results, make_run

_PASS = "import sys; sys.stdin.read(); print('fine')\n"
_FAIL = "import sys; sys.stdin.read(); sys.exit('unwanted')\n"


def _unnamed(project: Project, script_name: str, source: str) -> str:
    script = project.write_grader(script_name, source)
    return f"- type: program\n  config:\n    command: python3\n    args: [{json.dumps(script)}]\n"


def _regraded(project: Project, grade_project: Any) -> tuple[Any, Any]:
    out = project.root / "out.json"
    result = grade_project("--output", str(out))
    assert result.code in (0, 1), result.stderr
    return result, json.loads(out.read_text())


@pytest.mark.slow
def test_an_unnamed_program_grader_is_keyed_by_the_empty_name(
    project: Project, grade_project: Any
) -> None:
    project.write_eval(_unnamed(project, "check.py", _PASS))
    project.write_task("t1")
    saved = {"": {"identifier": "", "type": "program", "score": 0, "passed": False}}
    project.write_results(make_results({"t1": [make_run(validations=saved, status="failed")]}))
    result, regraded = _regraded(project, grade_project)
    assert result.code == 0, result.stderr
    (run,) = regraded["tasks"][0]["runs"]
    assert list(run["validations"]) == [""]
    verdict = run["validations"][""]
    assert (verdict["identifier"], verdict["type"], verdict["passed"]) == ("", "program", True)
    assert verdict["feedback"] == "fine" and run["status"] == "passed"


@pytest.mark.slow
def test_of_two_unnamed_graders_the_later_one_decides(project: Project, grade_project: Any) -> None:
    # waza keys both by "": the task's grader, graded after the global one, overwrites it.
    project.write_eval(_unnamed(project, "global.py", _FAIL))
    project.write_task("t1", graders=_unnamed(project, "task.py", _PASS))
    project.write_results(make_results({"t1": [make_run()]}))
    result, regraded = _regraded(project, grade_project)
    assert result.code == 0, result.stderr
    (run,) = regraded["tasks"][0]["runs"]
    assert run["validations"][""]["passed"] is True
    assert run["validations"][""]["details"]["args"][0].endswith("task.py")


@pytest.mark.slow
def test_a_failing_unnamed_grader_is_reported_on_its_yaml_line(
    project: Project, grade_project: Any
) -> None:
    project.write_eval(_unnamed(project, "check.py", _FAIL))
    project.write_task("t1")
    project.write_results(make_results({"t1": [make_run()]}))
    result = grade_project()
    assert result.code == 1, result.stderr
    assert "eval.yaml:5" in result.stderr and "unwanted" in result.stderr


@pytest.mark.slow
def test_a_scenario_eval_regrades_like_any_other(project: Project, grade_project: Any) -> None:
    script = project.write_grader("check.py", _PASS)
    project.eval_path.write_text(
        'schemaVersion: "2.0"\nname: cli-check\nscenario: cli-version\n'
        "config: {trials_per_task: 1, timeout_seconds: 60, executor: mock}\n"
        "metrics: [{name: task_completion, weight: 1, threshold: 1}]\n"
        f"graders:\n  - type: program\n    name: report\n"
        f"    config: {{command: python3, args: [{json.dumps(script)}]}}\n"
        "  - type: file\n    name: boundary\n    config: {must_not_exist: [private.txt]}\n"
        "tasks: [tasks/*.yaml]\n"
    )
    project.write_task("t1", extra="inputs: {prompt: Run git --version.}\n")
    kept = {"boundary": {"identifier": "boundary", "type": "file", "score": 1, "passed": True}}
    project.write_results(make_results({"t1": [make_run(validations=kept)]}, eval_name="cli-check"))
    result, regraded = _regraded(project, grade_project)
    assert result.code == 0, result.stderr
    validations = regraded["tasks"][0]["runs"][0]["validations"]
    assert validations["report"]["passed"] is True
    boundary = validations["boundary"]  # a file grader: graded again in the workspace
    assert (boundary["type"], boundary["passed"], boundary["feedback"]) == (
        "file",
        True,
        "All file checks passed",
    )


@pytest.mark.slow
def test_a_results_type_error_names_waza_s_type_not_a_python_class(
    project: Project, grade_project: Any
) -> None:
    project.write_eval(_unnamed(project, "check.py", _PASS))
    project.write_task("t1")
    project.write_results(make_results({"t1": [make_run()]}, metrics={"blob": "x"}))
    result = grade_project()
    assert result.code == 2
    (line,) = result.stderr.splitlines()
    assert line == (
        f"waza-ci: error: {project.results_path}: at $.metrics.blob: want an object "
        "(waza's MeasureResult), got a string"
    )
