"""eval.yaml, task files and .waza.yaml loaded as waza's yaml.v3 structs load them: schema
versions, wrong types beside unknown fields, strict project config, hostile YAML."""

from __future__ import annotations

import time
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from tests.action_process import run_action
from tests.conftest import Project, make_results, make_run
from tests.runner_files import parse_command
from waza_ci.errors import InputError
from waza_ci.waza.spec import find_program_timeout, load_eval


def _write_eval(project: Project, head: str) -> None:
    project.write_eval("")
    project.eval_path.write_text(head + project.eval_path.read_text() + "future_field: true\n")
    project.write_task("t1")


# --- schemaVersion, as waza's compatibility corpus tests it -------------------------------------


@pytest.mark.parametrize("version", ["", "1.0", "1.1", "1.4", "1.5", "1.99"])
def test_eval_schema_versions_waza_accepts_load(project: Project, version: str) -> None:
    _write_eval(project, f'schemaVersion: "{version}"\n' if version else "")
    assert [task.id for task in load_eval(project.eval_path, working_directory=project.root).tasks]


@pytest.mark.parametrize(
    ("version", "message"),
    [
        ("2.0", "is for scenario evals only"),
        ("3.0", "or exactly '2.0' with `scenario:`"),
        ("broken", "is not MAJOR.MINOR"),
        ("1.-1", "minor version must be a non-negative integer"),
        ("1.5.1", "is not MAJOR.MINOR"),
        ("1.x", "minor version"),
    ],
)
def test_eval_schema_versions_waza_refuses_name_the_line(
    project: Project, version: str, message: str
) -> None:
    _write_eval(project, f'description: x\nschemaVersion: "{version}"\n')
    with pytest.raises(InputError) as caught:
        load_eval(project.eval_path, working_directory=project.root)
    assert message in caught.value.message
    assert caught.value.location is not None
    assert (caught.value.location.file, caught.value.location.line) == (str(project.eval_path), 2)


# --- wrong types are errors even among unknown fields -----------------------------------------


@pytest.mark.parametrize(
    ("eval_head", "message", "line"),
    [
        ("config:\n  timeout_seconds: [bad]\n", "`config.timeout_seconds` must be a whole", 2),
        ("config:\n  trials_per_task: three\n", "`config.trials_per_task` must be a whole", 2),
        ("config:\n  parallel: 3\n", "`config.parallel` must be true or false", 2),
        ("config: 5\n", "`config` must be a mapping", 1),
        ("metrics:\n  - name: m\n    threshold: [1]\n", "`metrics[0].threshold` must be", 3),
        ("baseline: sometimes\n", "`baseline` must be true or false", 1),
        ("inputs:\n  a: {b: c}\n", "`inputs.a` must be a string", 2),
    ],
)
def test_wrong_types_in_the_eval_name_the_line_despite_unknown_fields(
    project: Project, eval_head: str, message: str, line: int
) -> None:
    _write_eval(project, eval_head)
    with pytest.raises(InputError) as caught:
        load_eval(project.eval_path, working_directory=project.root)
    assert message in caught.value.message
    assert caught.value.location is not None and caught.value.location.line == line


@pytest.mark.parametrize(
    ("task_extra", "message", "line"),
    [
        ("timeout_seconds: soon\n", "`timeout_seconds` must be a whole number", 4),
        ("golden: maybe\n", "`golden` must be true or false", 4),
        ("tags: label\n", "`tags` must be a list", 4),
        ("inputs:\n  responder: {max_followups: many}\n", "`inputs.responder.max_followups`", 5),
    ],
)
def test_wrong_types_in_a_task_file_name_the_line(
    project: Project, task_extra: str, message: str, line: int
) -> None:
    project.write_eval("")
    path = project.write_task("t1", extra="future_field: {x: 1}\n" + task_extra)
    with pytest.raises(InputError) as caught:
        load_eval(project.eval_path, working_directory=project.root)
    assert message in caught.value.message
    assert caught.value.location is not None and caught.value.location.file == str(path)
    assert caught.value.location.line == line


def test_loose_yaml_scalars_that_yaml_v3_decodes_are_accepted(project: Project) -> None:
    # yaml.v3: any scalar fits a string field, `yes`/`off` fit a bool field, 2.0 an int one.
    _write_eval(project, "version: 3\nconfig:\n  parallel: yes\n  workers: 2.0\n")
    project.write_task("t1", extra="tags: [1, true]\nenabled: on\n")
    assert load_eval(project.eval_path, working_directory=project.root).tasks


# --- numbers that are not numbers -----------------------------------------------------------


@pytest.mark.parametrize(
    ("graders", "line"),
    [
        ("- type: program\n  name: g\n  weight: .inf\n  config: {command: x}\n", 7),
        ("- type: program\n  name: g\n  weight: -.Inf\n  config: {command: x}\n", 7),
        ("- type: program\n  name: g\n  weight: .nan\n  config: {command: x}\n", 7),
        ("- type: program\n  name: g\n  config: {command: x, timeout: .inf}\n", 7),
    ],
)
def test_infinite_and_nan_numbers_are_refused_with_the_line(
    project: Project, graders: str, line: int
) -> None:
    project.write_eval(graders)
    project.write_task("t1")
    with pytest.raises(InputError) as caught:
        load_eval(project.eval_path, working_directory=project.root)
    assert caught.value.location is not None and caught.value.location.line == line
    assert str(project.eval_path) in str(caught.value)


def test_infinite_metric_threshold_is_refused(project: Project) -> None:
    _write_eval(project, "metrics:\n  - name: m\n    threshold: .inf\n")
    with pytest.raises(InputError, match="must be a finite number"):
        load_eval(project.eval_path, working_directory=project.root)


# --- hostile YAML: alias bombs, self-containing anchors, deep nesting ------------------------

BILLION_LAUGHS = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + level)}: &{chr(98 + level)} [{', '.join(['*' + chr(97 + level)] * 10)}]\n"
    for level in range(8)
)


def test_an_alias_bomb_is_refused_quickly_with_bounded_memory(project: Project) -> None:
    project.write_eval("")
    path = project.write_task("t1", extra=BILLION_LAUGHS)  # expands to 10^9 scalars
    tracemalloc.start()
    started = time.monotonic()
    try:
        with pytest.raises(InputError) as caught:
            load_eval(project.eval_path, working_directory=project.root)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert time.monotonic() - started < 5
    assert peak < 20 * 1024 * 1024
    assert "excessive aliasing" in caught.value.message
    assert caught.value.location is not None and caught.value.location.file == str(path)


def test_modest_aliasing_is_fine(project: Project) -> None:
    project.write_eval("")
    project.write_task("t1", extra="x-common: &c {k: v}\ncontext_dir: &d here\nother: *d\n")
    assert load_eval(project.eval_path, working_directory=project.root).tasks


def test_an_anchor_that_contains_itself_is_refused(project: Project) -> None:
    project.write_eval("")
    project.write_task("t1", extra="loop: &l [1, *l]\n")
    with pytest.raises(InputError, match="contains an alias to itself"):
        load_eval(project.eval_path, working_directory=project.root)


@pytest.mark.slow
@pytest.mark.parametrize("opener", ["[", "{a: "])
def test_100000_levels_of_nesting_are_one_input_error(project: Project, opener: str) -> None:
    closer = "]" if opener == "[" else "}"
    project.eval_path.write_text("name: x\ndeep: " + opener * 100_000 + closer * 100_000 + "\n")
    with pytest.raises(InputError) as caught:
        load_eval(project.eval_path, working_directory=project.root)
    assert "nested too deeply" in caught.value.message
    assert str(project.eval_path) in str(caught.value)


# --- .waza.yaml: what waza throws the whole file away over is one warning naming the file,
# the line and waza's error; waza's 30 s default program timeout applies -----------------------


def test_an_unknown_waza_yaml_key_discards_the_program_timeout(tmp_path: Path) -> None:
    config = tmp_path / ".waza.yaml"
    config.write_text("graders:\n  programTimeout: 45\n  programTimout: 5\n")
    timeout, warnings = find_program_timeout(tmp_path)
    assert timeout == 30
    warning = str(*warnings)
    assert warning.startswith(f"{config}:3: ")
    assert "field programTimout not found in type projectconfig.GradersConfig" in warning
    assert "default 30 s timeout, not its graders.programTimeout: 45" in warning
    assert "\n" not in warning


def test_an_unknown_top_level_waza_yaml_key_also_discards_it(tmp_path: Path) -> None:
    (tmp_path / ".waza.yaml").write_text("graders:\n  programTimeout: 45\nextra: 1\n")
    timeout, warnings = find_program_timeout(tmp_path)
    assert timeout == 30
    assert "field extra not found in type projectconfig.ProjectConfig" in str(*warnings)


def test_a_wrongly_typed_waza_yaml_value_elsewhere_discards_it(tmp_path: Path) -> None:
    (tmp_path / ".waza.yaml").write_text(
        "defaults:\n  parallel: 7\ngraders:\n  programTimeout: 45\n"
    )
    timeout, warnings = find_program_timeout(tmp_path)
    assert timeout == 30 and "line 2: cannot unmarshal !!int `7` into bool" in str(*warnings)


def test_an_unreadable_program_timeout_falls_back_to_waza_s_default(tmp_path: Path) -> None:
    config = tmp_path / ".waza.yaml"
    config.write_text("files: {evalFile: eval.yaml}\ngraders:\n  programTimeout: soon\n")
    timeout, warnings = find_program_timeout(tmp_path)
    assert timeout == 30
    assert str(*warnings).startswith(f"{config}:3: ")
    assert "line 3: cannot unmarshal !!str `soon` into int" in str(*warnings)


def test_a_full_valid_waza_yaml_is_honoured(tmp_path: Path) -> None:
    (tmp_path / ".waza.yaml").write_text(
        "paths: {skills: s/, evals: e/, results: r/}\n"
        "defaults: {engine: mock, model: m, timeout: 60, parallel: true, sessionLog: false}\n"
        "cache: {enabled: true, dir: .c}\nserver: {port: 8080, resultsDir: r/}\n"
        "dev: {model: m, target: high, maxIterations: 3}\n"
        "tokens: {warningThreshold: 1, fallbackLimit: 2, limits: {defaults: {'*.md': 10}}}\n"
        "graders: {programTimeout: 45}\n"
        "storage: {provider: azure-blob, accountName: a, containerName: c, enabled: true}\n"
    )
    assert find_program_timeout(tmp_path) == (45, [])


def test_an_empty_waza_yaml_means_defaults_without_a_warning(tmp_path: Path) -> None:
    (tmp_path / ".waza.yaml").write_text("# nothing yet\n")
    assert find_program_timeout(tmp_path) == (30, [])


@pytest.mark.slow
def test_the_cli_warns_in_one_line_naming_the_file_and_key(
    project: Project, grade_project: Any
) -> None:
    (project.root / ".waza.yaml").write_text("graders:\n  programTimeout: 45\n  colour: red\n")
    project.write_eval("")
    project.write_task("t1")
    project.write_results(make_results({"t1": [make_run()]}))
    result = grade_project("--fail-on", "errors")  # a task without graders is not graded
    assert result.code == 0, result.stderr
    (warning,) = [line for line in result.stderr.splitlines() if "warning" in line]
    assert warning.startswith(f"waza-ci: warning: {project.root / '.waza.yaml'}:3: ")
    assert "field colour not found in type projectconfig.GradersConfig" in warning


@pytest.mark.slow
def test_the_action_warns_with_a_workflow_annotation_on_the_key(
    project: Project, tmp_path: Path
) -> None:
    (project.root / ".waza.yaml").write_text("graders:\n  programTimeout: 45\n  colour: red\n")
    project.write_eval("")
    project.write_task("t1")
    project.write_results(make_results({"t1": [make_run()]}))
    inputs = {"eval": "eval.yaml", "results": "results.json", "fail-on": "errors"}
    result = run_action(tmp_path, project.root, inputs)
    assert result.returncode == 0, result.stdout + result.stderr
    (warning,) = [line for line in result.stdout.splitlines() if line.startswith("::warning")]
    name, properties, message = parse_command(warning)
    assert (name, properties["file"], properties["line"]) == ("warning", ".waza.yaml", "3")
    assert "field colour not found" in message and "not its graders.programTimeout: 45" in message


@pytest.mark.slow
def test_the_cli_refuses_wrong_types_with_exit_2_and_the_place(
    project: Project, grade_project: Any
) -> None:
    _write_eval(project, "config:\n  timeout_seconds: [bad]\n")
    project.write_results(make_results({"t1": [make_run()]}))
    result = grade_project()
    assert result.code == 2
    (line,) = result.stderr.splitlines()
    assert f"{project.eval_path}:2: " in line and "config.timeout_seconds" in line

    _write_eval(project, "")
    doc = make_results({"t1": [make_run()]}, future_field=True)
    doc["config"]["runs_per_test"] = "bad"
    project.write_results(doc)
    result = grade_project()
    assert result.code == 2
    (line,) = result.stderr.splitlines()
    assert f"{project.results_path}: at $.config.runs_per_test" in line


@pytest.mark.parametrize(("value", "seconds"), [("7", 7), ("1.9", 1), ("0.5", 30), ("-3", 30)])
def test_a_program_timeout_is_read_as_yaml_v3_reads_an_int(
    project: Project, value: str, seconds: int
) -> None:
    project.write_eval(f"- type: program\n  name: g\n  config: {{command: x, timeout: {value}}}\n")
    project.write_task("t1")
    spec = load_eval(project.eval_path, working_directory=project.root)
    assert spec.timeout_for(spec.tasks[0].graders[0]) == seconds


def test_the_eval_schema_version_is_checked_before_any_field(project: Project) -> None:
    # As waza reads the header first: a 2.0 eval without `scenario:` is told so, not about
    # its fields.
    _write_eval(project, 'schemaVersion: "2.0"\nconfig: {parallel: 7}\n')
    with pytest.raises(InputError, match="is for scenario evals only"):
        load_eval(project.eval_path, working_directory=project.root)
