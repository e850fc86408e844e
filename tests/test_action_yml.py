"""action.yml, the code and the README agree: inputs, defaults, outputs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from waza_ci.action_settings import INPUT_DEFAULTS
from waza_ci.github.checks import CheckRunResult  # noqa: F401 - the action's output types exist

ROOT = Path(__file__).resolve().parent.parent
ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
README = (ROOT / "README.md").read_text(encoding="utf-8")
OUTPUTS = (
    "passed",
    "overall-score",
    "runs-graded",
    "runs-failed",
    "grader-errors",
    "check-run-id",
    "check-run-url",
    "output-file",
    "failed-tasks",
    "report-json",
    "regressions",
    "fixed",
    "flaky",
    "pass-rate",
    "baseline-pass-rate",
    "gate",
)


def inputs() -> dict[str, Any]:
    result: dict[str, Any] = ACTION["inputs"]
    return result


def test_it_is_a_docker_action_built_from_the_dockerfile() -> None:
    assert ACTION["runs"] == {"using": "docker", "image": "Dockerfile"}


def test_required_inputs_and_defaults_match_the_code() -> None:
    declared = inputs()
    assert {n for n, spec in declared.items() if spec.get("required")} == {"results"}
    for name, default in INPUT_DEFAULTS.items():
        assert str(declared[name].get("default", "")) == default, name
    assert declared["github-token"]["default"] == "${{ github.token }}"
    assert set(declared) == set(INPUT_DEFAULTS) | {"eval", "results", "github-token"}


def test_every_input_and_output_has_a_description_and_is_in_the_readme() -> None:
    for name, spec in inputs().items():
        assert spec.get("description"), name
        assert f"| `{name}` |" in README, f"input {name} is not documented in the README"
    assert set(ACTION["outputs"]) == set(OUTPUTS)
    for name, spec in ACTION["outputs"].items():
        assert spec.get("description"), name
        assert f"| `{name}` |" in README, f"output {name} is not documented in the README"
