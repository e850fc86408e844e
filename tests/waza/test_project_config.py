""".waza.yaml: every key waza's project config has is accepted (`files:` since waza 0.33.0),
and `graders.programTimeout` is honoured whatever else the file holds."""

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
    ("files", "message"),
    [
        ("evalFile: evals/eval.yaml", "files.evalFile 'evals/eval.yaml' is not a file name"),
        ("evalFile: '..'", "files.evalFile '..' is not a file name"),
        ("taskFileSuffix: ../x.yaml", "files.taskFileSuffix '../x.yaml' is not a file-name"),
        ("taskGlob: '  '", "files.taskGlob '  ' is not a glob"),
    ],
)
def test_files_waza_refuses_warn_and_keep_the_program_timeout(
    tmp_path: Path, files: str, message: str
) -> None:
    config = tmp_path / ".waza.yaml"
    config.write_text(f"files:\n  {files}\ngraders:\n  programTimeout: 33\n")
    timeout, warnings = find_program_timeout(tmp_path)
    assert timeout == 33
    (warning,) = map(str, warnings)
    assert warning.startswith(f"{config}:2: ") and message in warning


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
