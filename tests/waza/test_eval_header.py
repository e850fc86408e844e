"""Scenario evals (`scenario:`, schemaVersion "2.0", waza v0.40.1+) load as waza loads them;
the version boundary between them and 1.x evals is waza's."""

from __future__ import annotations

import re

import pytest

from tests.conftest import Project
from waza_ci.errors import InputError
from waza_ci.waza.spec import load_eval

_SCENARIO = (
    'schemaVersion: "2.0"\nname: inventory\nscenario: inventory-report\n'
    "config:\n  trials_per_task: 1\n  timeout_seconds: 30\n  executor: mock\n"
    "metrics:\n  - {name: task_completion, weight: 1, threshold: 1}\n"
    "graders:\n  - type: program\n    name: report\n    config: {command: check}\n"
    "  - type: file\n    config: {must_exist: [report.txt]}\n"
    "tasks:\n  - tasks/*.yaml\n"
)


def _write(project: Project, text: str) -> None:
    project.eval_path.write_text(text)
    project.write_task("t1", extra="inputs:\n  prompt: Write report.txt.\n")


def test_a_scenario_eval_loads_its_tasks_and_graders_as_a_1x_eval(project: Project) -> None:
    _write(project, _SCENARIO)
    spec = load_eval(project.eval_path, working_directory=project.root)
    assert spec.scenario == "inventory-report" and spec.name == "inventory"
    (task,) = spec.tasks
    assert [(g.name, g.kind) for g in task.graders] == [("report", "program"), ("", "file")]
    assert task.program_graders[0].location.line == 11


@pytest.mark.parametrize(
    ("header", "message", "line"),
    [
        # waza's TestScenarioVersionBoundary cases, restated
        ('scenario: s\nschemaVersion: "1.5"\n', 'needs `schemaVersion: "2.0"` exactly', 2),
        ("scenario: s\n", "and it has none", 1),
        ('scenario: s\nschemaVersion: "2.1"\n', "not '2.1'", 2),
        ('scenario: s\nschemaVersion: "3.0"\n', "not '3.0'", 2),
        ('schemaVersion: "2.0"\n', "is for scenario evals only", 1),
        ('scenario: ""\nschemaVersion: "2.0"\n', "`scenario` must name the workflow", 1),
        ('scenario: "  "\nschemaVersion: "2.0"\n', "`scenario` must name the workflow", 1),
        ('scenario: [a]\nschemaVersion: "2.0"\n', "`scenario` must be a single value", 1),
    ],
)
def test_the_version_boundary_is_waza_s(
    project: Project, header: str, message: str, line: int
) -> None:
    _write(project, header + "name: suite\ntasks: [tasks/*.yaml]\n")
    with pytest.raises(InputError) as caught:
        load_eval(project.eval_path, working_directory=project.root)
    assert message in caught.value.message
    assert caught.value.location is not None
    assert (caught.value.location.file, caught.value.location.line) == (
        str(project.eval_path),
        line,
    )


@pytest.mark.parametrize("version", ["1.0", "1.99", ""])
def test_a_null_scenario_is_a_1x_eval(project: Project, version: str) -> None:
    head = f'schemaVersion: "{version}"\n' if version else ""
    _write(project, head + "scenario: ~\nname: suite\ntasks: [tasks/*.yaml]\n")
    assert load_eval(project.eval_path, working_directory=project.root).scenario == ""


@pytest.mark.parametrize(
    ("old", "new", "where"),
    [
        ("tasks:\n", "future_field: true\ntasks:\n", "future_field"),
        ("  executor: mock\n", "  executor: mock\n  colour: red\n", "config.colour"),
        ("threshold: 1}", "threshold: 1, unit: s}", "metrics[0].unit"),
    ],
)
def test_a_scenario_eval_is_read_strictly_as_waza_reads_it(
    project: Project, old: str, new: str, where: str
) -> None:
    # waza decodes a scenario eval with KnownFields; a 1.x eval only warns.
    scenario = _SCENARIO.replace(old, new)
    _write(project, scenario)
    with pytest.raises(InputError, match=re.escape(f"unknown key `{where}`")):
        load_eval(project.eval_path, working_directory=project.root)
    legacy = scenario.replace('schemaVersion: "2.0"\n', "").replace(
        "scenario: inventory-report\n", ""
    )
    project.eval_path.write_text(legacy)
    assert load_eval(project.eval_path, working_directory=project.root).scenario == ""


def test_unknown_keys_in_a_scenario_eval_s_graders_stay_tolerated(project: Project) -> None:
    # Grader entries decode themselves in waza, without KnownFields.
    _write(project, _SCENARIO.replace("    name: report\n", "    name: report\n    note: x\n"))
    assert load_eval(project.eval_path, working_directory=project.root).tasks
