""".waza.yaml: every key waza's project config has is accepted (`files:` since waza 0.33.0,
`registries` in the latest), and a file waza's strict load refuses is discarded as waza
discards it: waza's 30 s default program timeout applies, with one warning in waza's words."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Project, make_results, make_run
from waza_ci.waza.project_config import find_program_timeout

# Every section of waza's ProjectConfig, as `waza init` writes it (waza 0.33.0+).
_FULL = """\
# yaml-language-server: $schema=https://example.invalid/config.schema.json
paths: {skills: skills/, evals: evals/, results: results/}
files:
  evalFile: eval.yaml
  taskGlob: tasks/*.yaml
  taskFileSuffix: .yaml
defaults:
  engine: copilot-sdk
  model: m
  model_reasoning_effort: high
  judgeModel: j
  timeout: 300
  parallel: false
  workers: 4
  verbose: false
  sessionLog: false
cache: {enabled: false, dir: .waza-cache}
server: {port: 3000, resultsDir: results/}
dev: {model: m, target: medium-high, maxIterations: 5}
tokens:
  warningThreshold: 500
  fallbackLimit: 1000
  limits: {defaults: {"SKILL.md": 700}, overrides: {"README.md": 3000}}
graders:
  programTimeout: 33
storage: {provider: azure-blob, accountName: a, containerName: waza-results, enabled: true}
registries:
  - {name: public, url: "https://github.com/waza-evals"}
  - {name: team, url: "https://example.invalid/evals", priority: 2}
"""


def test_every_key_of_waza_s_project_config_is_accepted(tmp_path: Path) -> None:
    (tmp_path / ".waza.yaml").write_text(_FULL)
    assert find_program_timeout(tmp_path) == (33, [])


def test_a_files_block_alone_keeps_the_program_timeout(tmp_path: Path) -> None:
    (tmp_path / ".waza.yaml").write_text(
        "files:\n  evalFile: eval.waza.yaml\n  taskGlob: cases/*.task.yaml\n"
        "  taskFileSuffix: .task.yaml\ngraders:\n  programTimeout: 33\n"
    )
    assert find_program_timeout(tmp_path) == (33, [])


@pytest.mark.parametrize(
    ("content", "line", "message"),
    [
        # waza's error texts: yaml.v3's unmarshal errors, then validateConfig's.
        (
            "bogus: 1\n",
            1,
            "parsing .waza.yaml: yaml: unmarshal errors: line 1: field bogus not found in type "
            "projectconfig.ProjectConfig",
        ),
        (
            "defaults:\n  model: m\n  workers: many\n",
            3,
            "parsing .waza.yaml: yaml: unmarshal errors: line 3: cannot unmarshal !!str `many` "
            "into int",
        ),
        (
            "tokens:\n  limits: {skill: 5}\n",
            2,
            "line 2: field skill not found in type projectconfig.TokenLimitsConfig",
        ),
        ("paths: {skills: [a, b]}\n", 1, "line 1: cannot unmarshal !!seq into string"),
        ("dev: 5\n", 1, "line 1: cannot unmarshal !!int `5` into projectconfig.DevConfig"),
        (
            "files:\n  evalFile: evals/eval.yaml\n",
            2,
            'files.evalFile must be a filename, got "evals/',
        ),
        ("files:\n  evalFile: '..'\n", 2, 'files.evalFile must be a filename, got ".."'),
        (
            "files:\n  taskFileSuffix: ../x.yaml\n",
            2,
            'files.taskFileSuffix must be a filename suffix, got "../x.yaml"',
        ),
        ("files:\n  taskGlob: '  '\n", 2, "files.taskGlob must not be empty"),
        ("registries:\n  - {name: a}\n", 2, "registries[0].url must not be empty"),
        (
            "registries:\n  - {name: a, url: x}\n  - {name: a, url: y}\n",
            3,
            'registries[1].name "a" duplicates registries[0].name',
        ),
        (  # Go's %q (strconv.Quote), not JSON's quoting
            'registries:\n  - {name: "b\\u00a0\\x01c", url: x}\n'
            '  - {name: "b\\u00a0\\x01c", url: y}\n',
            3,
            'registries[1].name "b\\u00a0\\x01c" duplicates registries[0].name',
        ),
    ],
)
def test_a_file_waza_refuses_is_discarded_with_one_warning_in_waza_s_words(
    tmp_path: Path, content: str, line: int, message: str
) -> None:
    config = tmp_path / ".waza.yaml"
    config.write_text(f"{content}graders:\n  programTimeout: 33\n")
    timeout, warnings = find_program_timeout(tmp_path)
    assert timeout == 30
    (warning,) = map(str, warnings)
    assert warning.startswith(f"{config}:{line}: ") and message in warning
    assert warning.endswith(
        "; waza discards this whole file over it, so program graders get its default 30 s "
        "timeout, not its graders.programTimeout: 33"
    )


def test_an_empty_files_value_keeps_waza_s_default_silently(tmp_path: Path) -> None:
    (tmp_path / ".waza.yaml").write_text("files:\n  evalFile: ''\ngraders: {programTimeout: 9}\n")
    assert find_program_timeout(tmp_path) == (9, [])


@pytest.mark.slow
def test_the_timeout_of_a_waza_yaml_with_files_applies_to_graders(
    project: Project, grade_project: Any
) -> None:
    # The real case: `.waza.yaml` as `waza init` 0.33+ writes it; a grader slower than
    # programTimeout times out at it, not at waza's 30 s default.
    (project.root / ".waza.yaml").write_text(
        _FULL.replace("programTimeout: 33", "programTimeout: 1")
    )
    script = project.write_grader("slow.py", "import time\ntime.sleep(20)\n")
    project.write_eval(project.program_grader("slow", script))
    project.write_task("t1")
    project.write_results(make_results({"t1": [make_run()]}))
    result = grade_project()
    assert result.code == 3, result.stderr
    where = project.root.resolve() / ".waza.yaml"
    assert f"timed out after 1 s (limit from graders.programTimeout in {where})" in result.stderr
    assert "warning" not in result.stderr


def test_a_refused_waza_yaml_does_not_time_graders_out_at_its_timeout(
    project: Project, grade_project: Any
) -> None:
    # waza throws the file away, so its programTimeout of 1 s does not apply: a grader that
    # takes 3 s passes under waza's 30 s default, as it does under `waza grade`.
    config = project.root / ".waza.yaml"
    config.write_text("graders:\n  programTimeout: 1\ndefaults:\n  workers: many\n")
    script = project.write_grader("slowish.py", "import time\ntime.sleep(3)\n")
    project.write_eval(project.program_grader("slowish", script))
    project.write_task("t1")
    project.write_results(make_results({"t1": [make_run()]}))
    result = grade_project()
    assert result.code == 0, result.stderr
    assert result.stderr.count("waza discards this whole file") == 1, result.stderr
    assert f"{config.resolve()}:4: " in result.stderr
    assert "cannot unmarshal !!str `many` into int" in result.stderr


def test_a_timeout_written_with_its_unit_is_quoted_as_written(tmp_path: Path) -> None:
    """`3s` is no integer to waza (the whole file is discarded): the warning shows it as
    written, not as a number of seconds ("3s s")."""
    (tmp_path / ".waza.yaml").write_text("graders:\n  programTimeout: 3s\n")
    timeout, warnings = find_program_timeout(tmp_path)
    assert timeout == 30
    (warning,) = map(str, warnings)
    assert warning.endswith("default 30 s timeout, not its graders.programTimeout: 3s")
