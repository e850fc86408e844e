"""Hostile structure end to end: 100,000 levels of nesting in the eval
spec, the results file and the event file, and numbers JSON cannot hold, give one line naming
the file and exit 2 in the CLI, and exactly one `::error` in the action; never a traceback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.action_process import run_action
from tests.conftest import Project, make_results, make_run

DEEP_JSON = "[" * 100_000 + "]" * 100_000


def _project(project: Project) -> None:
    project.write_eval(
        project.program_grader("ok", "-c", timeout=None).replace(
            'args: ["-c"]', 'args: ["-c", "pass"]'
        )
    )
    project.write_task("t1")
    project.write_results(make_results({"t1": [make_run()]}))


def _deep(project: Project, where: str) -> Path:
    if where == "eval":
        project.eval_path.write_text(project.eval_path.read_text() + "deep: " + DEEP_JSON + "\n")
        return project.eval_path
    text = project.results_path.read_text()
    project.results_path.write_text(text.rstrip()[:-1] + ', "deep": ' + DEEP_JSON + "}")
    return project.results_path


@pytest.mark.slow
@pytest.mark.parametrize("where", ["eval", "results"])
def test_deep_nesting_is_one_line_and_exit_2_in_the_cli(
    project: Project, grade_project: Any, where: str
) -> None:
    _project(project)
    path = _deep(project, where)
    result = grade_project()
    assert result.code == 2
    (line,) = result.stderr.splitlines()
    assert str(path) in line and "nested too deeply" in line
    assert "Traceback" not in result.stderr and result.stdout == ""


@pytest.mark.slow
@pytest.mark.parametrize("where", ["eval", "results", "event"])
def test_deep_nesting_is_one_error_command_in_the_action(
    project: Project, tmp_path: Path, where: str
) -> None:
    _project(project)
    event = None
    if where == "event":
        event = '{"deep": ' + DEEP_JSON + "}"
    else:
        _deep(project, where)
    result = run_action(
        tmp_path, project.root, {"eval": "eval.yaml", "results": "results.json"}, event=event
    )
    assert result.returncode == 2, result.stdout + result.stderr
    errors = [line for line in result.stdout.splitlines() if line.startswith("::error")]
    assert len(errors) == 1 and "nested too deeply" in errors[0]
    assert "Traceback" not in result.stdout + result.stderr


@pytest.mark.slow
@pytest.mark.parametrize("literal", ["1e999", "-1e999", "NaN", "Infinity"])
def test_non_finite_numbers_are_one_line_naming_the_json_path(
    project: Project, grade_project: Any, literal: str
) -> None:
    _project(project)
    doc = make_results({"t1": [make_run(duration_ms=5)]})
    doc["summary"]["success_rate"] = 0.25
    project.results_path.write_text(
        json.dumps(doc).replace('"success_rate": 0.25', f'"success_rate": {literal}')
    )
    result = grade_project()
    assert result.code == 2
    (line,) = result.stderr.splitlines()
    assert f"{project.results_path}: at $.summary.success_rate" in line and literal in line


@pytest.mark.slow
def test_nothing_written_holds_infinity_or_nan(project: Project, grade_project: Any) -> None:
    # The regraded file, the summary and stdout are strict JSON/Markdown: no Infinity/NaN,
    # even when every statistic is degenerate (one run, zero scores, no usage).
    _project(project)
    out = project.root / "out.json"
    result = grade_project("--output", str(out), "--summary", str(project.root / "s.md"))
    assert result.code == 0, result.stderr
    for text in (out.read_text(), result.stdout):
        json.loads(text, parse_constant=lambda name: pytest.fail(f"{name} written"))
    assert "Infinity" not in out.read_text() and "NaN" not in out.read_text()
