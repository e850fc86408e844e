"""eval.yaml / task files / .waza.yaml loading: merging, lines, strictness."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Project
from waza_ci.errors import InputError
from waza_ci.waza.spec import find_program_timeout, load_eval


def test_graders_merge_global_then_task_and_keep_their_lines(project: Project) -> None:
    project.write_eval(
        "- type: program\n  name: shared\n  config: {command: a}\n"
        "- type: program\n  name: global_only\n  weight: 0\n  config: {command: b, timeout: 7}\n"
    )
    project.write_task(
        "t1",
        graders="- type: prompt\n  name: judge\n- type: program\n  name: shared\n"
        "  config: {command: c, args: [x, y]}\n",
    )
    spec = load_eval(project.eval_path, working_directory=project.root)
    (task,) = spec.tasks
    assert [g.name for g in task.graders] == ["shared", "global_only", "judge"]
    shared = task.graders[0]
    assert shared.program is not None and shared.program.command == "c"
    assert shared.program.args == ("x", "y")
    assert shared.location.file.endswith("t1.yaml") and shared.location.line == 6
    assert task.graders[1].location.line == 8
    assert [g.name for g in task.program_graders] == ["shared", "global_only"]
    assert spec.timeout_for(task.graders[1]) == 7
    assert spec.timeout_for(shared) == 30


def test_waza_yaml_is_found_walking_up(tmp_path: Path) -> None:
    (tmp_path / ".waza.yaml").write_text("graders:\n  programTimeout: 45\n")
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    assert find_program_timeout(deep) == (45, [])


def test_malformed_waza_yaml_falls_back_with_a_warning(tmp_path: Path) -> None:
    (tmp_path / ".waza.yaml").write_text("graders: [\n")
    timeout, warnings = find_program_timeout(tmp_path)
    assert timeout == 30
    assert len(warnings) == 1 and ".waza.yaml" in str(warnings[0])


@pytest.mark.parametrize(
    ("graders", "message", "line"),
    [
        (
            "- type: program\n  name: g\n  config: {command: x, env: {A: b}}\n",
            "unknown config key 'env'",
            6,
        ),
        ("- type: program\n  name: g\n", "must have a 'command'", 4),
        (
            "- type: program\n  name: g\n  config: {command: x, args: [[1]]}\n",
            "`args` must be a list of strings",
            6,
        ),
        (
            "- type: program\n  name: g\n  config: {command: x, timeout: soon}\n",
            "`timeout` must be",
            6,
        ),
        ("- type: program\n  config: {command: ' '}\n", "grader (no name) must have", 5),
        ("- name: g\n  config: {command: x}\n", "needs a `type`", 4),
        ("- config: {command: x}\n", "grader (no name) needs a `type`", 4),
    ],
)
def test_bad_graders_name_file_and_line(
    project: Project, graders: str, message: str, line: int
) -> None:
    project.write_eval("")
    path = project.write_task("t1", graders=graders)
    with pytest.raises(InputError) as caught:
        load_eval(project.eval_path, working_directory=project.root)
    assert message in str(caught.value)
    assert caught.value.location is not None
    assert caught.value.location.file == str(path)
    assert caught.value.location.line == line


def test_yaml_syntax_error_names_the_line(project: Project) -> None:
    project.eval_path.write_text("name: x\ntasks:\n  - a\n bad: [\n")
    with pytest.raises(InputError) as caught:
        load_eval(project.eval_path, working_directory=project.root)
    assert caught.value.location is not None and caught.value.location.line is not None
    assert "invalid YAML" in str(caught.value)


def test_duplicate_task_ids_are_refused(project: Project) -> None:
    project.write_eval("")
    project.write_task("t1")
    (project.root / "tasks" / "copy.yaml").write_text("id: t1\n")
    with pytest.raises(InputError, match="also defined"):
        load_eval(project.eval_path, working_directory=project.root)


def test_no_enabled_task_is_an_error(project: Project) -> None:
    project.write_eval("")
    project.write_task("t1", extra="enabled: false\n")
    with pytest.raises(InputError, match="no tasks found in spec"):
        load_eval(project.eval_path, working_directory=project.root)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("task_yaml", "message", "line"),
    [
        (
            "id: t1\ngraders: []\ngraders: []\n",
            "mapping key 'graders' already defined at line 2",
            3,
        ),
        ("id: [t1]\n", "`id` must be a string, not a list or mapping", 1),
        ("id: t1\nname: !!python/object:os.system x\n", "invalid YAML", 2),
        ("id: t1\nenabled: !!timestamp 2020-13-45\n", "`enabled` must be true or false", 2),
        ("id: t1\nenabled: 'false'\n", "`enabled` must be true or false", 2),
        ("id: t1\n" + "x: " + "[" * 3000 + "]" * 3000 + "\n", "invalid YAML", None),
    ],
)
def test_yaml_that_cannot_be_built_is_a_one_line_input_error(
    project: Project, task_yaml: str, message: str, line: int | None
) -> None:
    project.write_eval("")
    path = project.root / "tasks" / "t1.yaml"
    path.parent.mkdir()
    path.write_text(task_yaml)
    with pytest.raises(InputError) as caught:
        load_eval(project.eval_path, working_directory=project.root)
    assert message in str(caught.value)
    assert caught.value.location is not None and caught.value.location.file == str(path)
    if line is not None:
        assert caught.value.location.line == line


def test_scalars_become_strings_as_yaml_v3_decodes_them(project: Project) -> None:
    project.write_eval("")
    project.write_task(
        "2024",
        graders="- type: program\n  name: 7\n  weight:\n"
        "  config: {command: python3, args: [--retries, 3, true, ~]}\n",
    )
    spec = load_eval(project.eval_path, working_directory=project.root)
    (task,) = spec.tasks
    assert task.id == "2024"
    (grader,) = task.graders
    assert grader.name == "7" and grader.weight == 1.0
    assert grader.program is not None
    assert grader.program.args == ("--retries", "3", "true", "")


def test_two_globs_naming_one_task_file_load_it_once(project: Project) -> None:
    project.write_eval("", tasks_glob="tasks/*.yaml")
    text = project.eval_path.read_text().replace(
        'tasks:\n  - "tasks/*.yaml"', 'tasks:\n  - "tasks/*.yaml"\n  - "tasks/t1.yaml"'
    )
    project.eval_path.write_text(text)
    project.write_task("t1")
    spec = load_eval(project.eval_path, working_directory=project.root)
    assert [t.id for t in spec.tasks] == ["t1"]


# --- graders without `name`, as waza loads and keys them ---------------------------------------


def test_a_grader_without_a_name_loads_under_the_empty_name(project: Project) -> None:
    # waza's loader does not require `name`; its verdict is keyed by "" in `validations`.
    project.write_eval("- type: text\n  config: {regex_match: [x]}\n")
    project.write_task("t1", graders="- type: program\n  config: {command: check}\n")
    (task,) = load_eval(project.eval_path, working_directory=project.root).tasks
    (grader,) = task.graders  # both are named "": the task's replaces the global one
    assert (grader.name, grader.kind, grader.label) == ("", "program", "(no name)")
    assert grader.location.file.endswith("t1.yaml") and grader.location.line == 4
    assert task.program_graders == (grader,)


def test_two_unnamed_global_graders_leave_the_later_one(project: Project) -> None:
    # As waza's map of verdicts: the second grader named "" overwrites the first.
    project.write_eval(
        "- type: program\n  config: {command: first}\n"
        "- type: code\n  config: {assertions: [ok]}\n"
        "- type: program\n  name: named\n  config: {command: other}\n"
    )
    project.write_task("t1")
    (task,) = load_eval(project.eval_path, working_directory=project.root).tasks
    assert [(g.name, g.kind) for g in task.graders] == [("", "code"), ("named", "program")]
    assert [g.name for g in task.program_graders] == ["named"]


def test_a_null_name_is_no_name(project: Project) -> None:
    project.write_eval("- type: program\n  name: ~\n  config: {command: check}\n")
    project.write_task("t1")
    (task,) = load_eval(project.eval_path, working_directory=project.root).tasks
    assert [g.name for g in task.program_graders] == [""]
