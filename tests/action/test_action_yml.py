"""action.yml and the code agree: inputs, defaults, outputs (tests/test_docs.py checks that
docs/action.md documents each)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from waza_ci.action.settings import DECLARED_INPUTS, INPUT_DEFAULTS
from waza_ci.github.checks import CheckRunResult  # noqa: F401 - the action's output types exist

ROOT = Path(__file__).resolve().parents[2]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
OUTPUTS = (
    "passed",
    "tasks-passed",
    "overall-score",
    "runs-graded",
    "runs-failed",
    "grader-errors",
    "check-run-id",
    "check-run-url",
    "output-file",
    "html-report",
    "failed-tasks",
    "report-json",
    "regressions",
    "fixed",
    "flaky",
    "pass-rate",
    "baseline-pass-rate",
    "gate",
    "judge-spend",
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
    assert set(declared) == DECLARED_INPUTS  # what the entry point refuses as unknown


def test_every_input_and_output_has_a_description() -> None:
    for name, spec in inputs().items():
        assert spec.get("description"), name
    assert set(ACTION["outputs"]) == set(OUTPUTS)
    for name, spec in ACTION["outputs"].items():
        assert spec.get("description"), name


# Where GitHub's runner evaluates `${{ }}` while it loads a Docker action, and the named values it
# knows there (the runner's own action manifest schema). Anywhere else an expression fails the
# whole job at "Set up job", however harmless it looks in a description.
EXPRESSION_CONTEXTS: dict[tuple[str, ...], frozenset[str]] = {
    ("inputs", "*", "default"): frozenset(
        {"github", "strategy", "matrix", "job", "runner", "hashFiles"}
    ),
    ("runs", "args", "*"): frozenset({"inputs"}),
    ("runs", "env", "*"): frozenset({"inputs"}),
}
_EXPRESSION = re.compile(r"\$\{\{(.*?)\}\}", re.DOTALL)
# A named value starts an expression term: a word not after `.`, not a quoted string's content.
_NAMED_VALUE = re.compile(r"(?<![.\w'])([A-Za-z_][\w-]*)")
_LITERALS = frozenset({"true", "false", "null"})


def _scalars(node: yaml.Node, path: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], yaml.Node]]:
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            yield from _scalars(value, (*path, str(key.value)))
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            yield from _scalars(item, (*path, str(index)))
    elif isinstance(node, yaml.ScalarNode):
        yield path, node


def _contexts_at(path: tuple[str, ...]) -> frozenset[str]:
    for pattern, contexts in EXPRESSION_CONTEXTS.items():
        if len(pattern) == len(path) and all(
            p in ("*", q) for p, q in zip(pattern, path, strict=True)
        ):
            return contexts
    return frozenset()


def misplaced_expressions(text: str) -> list[str]:
    """Every `${{ }}` the runner would refuse while loading the action, as `line N: why`."""
    problems: list[str] = []
    root = yaml.compose(text)
    if root is None:
        return problems
    for path, node in _scalars(root, ()):
        value = str(node.value)
        where = f"line {node.start_mark.line + 1} ({'.'.join(path)})"
        if "${{" not in value:
            continue
        allowed = _contexts_at(path)
        if not allowed:
            problems.append(f"{where}: expressions are not allowed here")
            continue
        if value.count("${{") != len(_EXPRESSION.findall(value)):
            problems.append(f"{where}: an unclosed `${{{{`")
        for body in _EXPRESSION.findall(value):
            unquoted = re.sub(r"'(?:[^']|'')*'", "''", body)
            names = [n for n in _NAMED_VALUE.findall(unquoted) if n not in _LITERALS]
            if not body.strip():
                problems.append(f"{where}: an empty expression")
            for name in names:
                if name not in allowed:
                    problems.append(f"{where}: unrecognized named-value {name!r}")
    return problems


def test_action_yml_has_expressions_only_where_the_runner_evaluates_them() -> None:
    assert misplaced_expressions((ROOT / "action.yml").read_text(encoding="utf-8")) == []


def test_the_expression_check_catches_what_breaks_loading() -> None:
    shard_example = "inputs:\n  shard:\n    description: e.g. `${{ matrix.shard }}/4`\n"
    assert misplaced_expressions(shard_example) == [
        "line 3 (inputs.shard.description): expressions are not allowed here"
    ]
    assert misplaced_expressions("inputs:\n  x:\n    default: ${{ }}\n") == [
        "line 3 (inputs.x.default): an empty expression"
    ]
    assert misplaced_expressions("inputs:\n  x:\n    default: ${{ secrets.TOKEN }}\n") == [
        "line 3 (inputs.x.default): unrecognized named-value 'secrets'"
    ]
    assert misplaced_expressions("runs:\n  image: ${{ inputs.image }}\n") == [
        "line 2 (runs.image): expressions are not allowed here"
    ]
    assert misplaced_expressions("runs:\n  args:\n    - ${{ github.sha }}\n") == [
        "line 3 (runs.args.0): unrecognized named-value 'github'"
    ]
    allowed = (
        "inputs:\n  t:\n    default: ${{ github.token }}\n"
        "  k:\n    default: ${{ hashFiles('**/x.lock') }}-${{ runner.os == 'Linux' }}\n"
        "runs:\n  env:\n    A: ${{ inputs.t }}\n  args:\n    - ${{ inputs.k }}\n"
    )
    assert misplaced_expressions(allowed) == []
