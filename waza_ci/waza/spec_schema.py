"""The typed shapes of eval.yaml, task files and `.waza.yaml`, checked on YAML nodes.

waza decodes these files into Go structs with yaml.v3: a field of the wrong type fails the
load even where unknown fields are tolerated, so `timeout_seconds: [bad]` is an error however
many unknown keys sit beside it. The shapes below are waza's structs (field names and types);
`check_shape` walks a composed document against one and names the first mismatch and its line.

It also refuses what yaml.v3 refuses before decoding: an anchor that contains itself, and alias
"bombs" that expand a small file into an enormous document.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Union

import yaml

from waza_ci.golang.yaml import TAG as _TAG
from waza_ci.golang.yaml import is_null, resolve

STR = "a string"
INT = "a whole number"
FLOAT = "a number"
BOOL = "true or false"
ANY = "anything"


@dataclass(frozen=True)
class Struct:
    """A Go struct: known fields and their shapes. `strict` refuses unknown keys (KnownFields);
    `go_name` is the type's name in yaml.v3's errors (`projectconfig.DefaultsConfig`)."""

    fields: Mapping[str, Shape]
    strict: bool = False
    go_name: str = ""


@dataclass(frozen=True)
class ListOf:
    item: Shape


@dataclass(frozen=True)
class MapOf:
    value: Shape


Shape = Union[str, Struct, ListOf, MapOf]  # noqa: UP007 - a runtime alias, quoted forms break it


class ShapeError(Exception):
    """The first place where a document does not fit its shape."""

    def __init__(self, message: str, node: yaml.Node, path: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.node = node
        self.path = path


_STRS = ListOf(STR)
_GRADER_FIELDS: dict[str, Shape] = {
    "name": STR,
    "type": STR,
    "rubric": STR,
    "weight": FLOAT,
    "config": ANY,  # checked per grader kind (program graders: spec.py)
}
EVAL_GRADER = Struct({**_GRADER_FIELDS, "ref": STR, "script": STR, "model": STR})
TASK_GRADER = Struct({**_GRADER_FIELDS, "assertions": _STRS})
_EVAL_CONFIG: dict[str, Shape] = {
    "trials_per_task": INT,
    "timeout_seconds": INT,
    "first_event_timeout_seconds": INT,
    "parallel": BOOL,
    "workers": INT,
    "fail_fast": BOOL,
    "executor": STR,
    "model": STR,
    "reasoning_effort": STR,
    "skill_directories": _STRS,
    "instruction_files": _STRS,
    "inject_skill_body": BOOL,
    "trigger_skill_routing": BOOL,
    "disabled_skills": _STRS,
    "required_skills": _STRS,
    "mcp_servers": MapOf(ANY),
    "max_attempts": INT,
    "group_by": STR,
    "judge_model": STR,
    "judge_reasoning_effort": STR,
}
_METRIC: dict[str, Shape] = {
    "name": STR,
    "weight": FLOAT,
    "threshold": FLOAT,
    "enabled": BOOL,
    "description": STR,
}


def _eval_spec(*, strict: bool) -> Struct:
    """waza's EvalSpec. `strict`: decoded with KnownFields, as waza decodes a scenario eval
    (graders decode themselves, so their entries stay tolerant either way)."""
    return Struct(
        {
            "schemaVersion": STR,
            "name": STR,
            "description": STR,
            "scenario": STR,
            "skill": STR,
            "version": STR,
            "config": Struct(_EVAL_CONFIG, strict=strict),
            "hooks": ANY,
            "mcp_mocks": ListOf(ANY),
            "command_mocks": ListOf(ANY),
            "adversarial": Struct({"packs": _STRS, "on_unsafe_outcome": STR}, strict=strict),
            "inputs": MapOf(STR),
            "tasks_from": STR,
            "range": ListOf(INT),
            "graders": ListOf(EVAL_GRADER),
            "metrics": ListOf(Struct(_METRIC, strict=strict)),
            "tasks": _STRS,
            "baseline": BOOL,
        },
        strict=strict,
    )


EVAL_SPEC = _eval_spec(strict=False)
"""A 1.x eval spec: unknown keys are tolerated (waza warns about them)."""
SCENARIO_EVAL_SPEC = _eval_spec(strict=True)
"""A scenario eval (`scenario:`, schemaVersion "2.0"): waza refuses unknown keys in it."""
TASK_FILE = Struct(
    {
        "enabled": BOOL,
        "context_dir": STR,
        "name": STR,
        "expected": Struct(
            {
                "outcomes": ListOf(Struct({"type": STR, "value": ANY, "condition": STR})),
                "tool_calls": MapOf(ANY),
                "behavior": Struct(
                    {
                        "max_tool_calls": INT,
                        "max_iterations": INT,
                        "max_tokens": INT,
                        "max_response_time_ms": INT,
                        "required_tools": _STRS,
                        "forbidden_tools": _STRS,
                    }
                ),
                "output_contains": _STRS,
                "output_not_contains": _STRS,
                "output_contains_any": _STRS,
                "should_trigger": BOOL,
            }
        ),
        "instruction_files": _STRS,
        "skill_directories": _STRS,
        "inputs": Struct(
            {
                "prompt": STR,
                "prompt_file": STR,
                "context": MapOf(ANY),
                "files": ListOf(Struct({"path": STR, "content": STR})),
                "repos": ListOf(Struct({"type": STR, "source": STR, "commit": STR, "dest": STR})),
                "workdir": STR,
                "environment": MapOf(STR),
                "follow_up_prompts": _STRS,
                "responder": Struct({"model": STR, "instructions": STR, "max_followups": INT}),
            }
        ),
        "description": STR,
        "tags": _STRS,
        "id": STR,
        "golden": BOOL,
        "timeout_seconds": INT,
        "first_event_timeout_seconds": INT,
        "command_mocks": ListOf(ANY),
        "graders": ListOf(TASK_GRADER),
        "checkpoints": ListOf(
            Struct({"after_turn": INT, "graders": ListOf(TASK_GRADER), "on_failure": STR})
        ),
        "requirements": ListOf(ANY),
    }
)


def _config_struct(name: str, fields: Mapping[str, Shape]) -> Struct:
    return Struct(fields, strict=True, go_name=f"projectconfig.{name}Config")


PROJECT_CONFIG = Struct(
    {
        "paths": _config_struct("Paths", {"skills": STR, "evals": STR, "results": STR}),
        "files": _config_struct("Files", {"evalFile": STR, "taskGlob": STR, "taskFileSuffix": STR}),
        "defaults": _config_struct(
            "Defaults",
            {
                "engine": STR,
                "model": STR,
                "model_reasoning_effort": STR,
                "judgeModel": STR,
                "timeout": INT,
                "parallel": BOOL,
                "workers": INT,
                "verbose": BOOL,
                "sessionLog": BOOL,
            },
        ),
        "cache": _config_struct("Cache", {"enabled": BOOL, "dir": STR}),
        "server": _config_struct("Server", {"port": INT, "resultsDir": STR}),
        "dev": _config_struct("Dev", {"model": STR, "target": STR, "maxIterations": INT}),
        "tokens": _config_struct(
            "Tokens",
            {
                "warningThreshold": INT,
                "fallbackLimit": INT,
                "limits": _config_struct(
                    "TokenLimits", {"defaults": MapOf(INT), "overrides": MapOf(INT)}
                ),
            },
        ),
        "graders": _config_struct("Graders", {"programTimeout": INT}),
        "storage": _config_struct(
            "Storage",
            {"provider": STR, "accountName": STR, "containerName": STR, "enabled": BOOL},
        ),
        "registries": ListOf(
            Struct(
                {"name": STR, "url": STR, "priority": INT},
                strict=True,
                go_name="config.RegistrySource",
            )
        ),
    },
    strict=True,
    go_name="projectconfig.ProjectConfig",
)
"""`.waza.yaml`: every key of waza's ProjectConfig in any version (`files` since 0.33.0,
`defaults.model_reasoning_effort` in one lineage, `registries` in the latest). waza decodes it
with KnownFields."""

_INT64 = 2**63
# yaml.v3 accepts these plain words for a bool field (YAML 1.1 compatibility).
_BOOL_WORDS = frozenset(
    ("y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "n", "N", "no", "No", "NO", "off", "Off")
) | {"OFF"}


def check_shape(node: yaml.Node, shape: Shape, where: str = "") -> None:
    """Raise ShapeError at the first node that does not fit `shape` (null fits anything, as
    yaml.v3 leaves the zero value); `where` is the node's own key path, for messages.
    Iterative; shared (aliased) nodes are checked once."""
    pending: list[tuple[yaml.Node, Shape, str]] = [(node, shape, where)]
    checked: set[tuple[int, int]] = set()
    while pending:
        current, expected, path = pending.pop()
        if (id(current), id(expected)) in checked or is_null(current) or expected == ANY:
            continue
        checked.add((id(current), id(expected)))
        if isinstance(expected, str):
            _check_scalar(current, expected, path)
        elif isinstance(expected, ListOf):
            if not isinstance(current, yaml.SequenceNode):
                raise ShapeError(f"`{path}` must be a list", current, path)
            # Reversed onto the stack, so the first mismatch in the document is the one named.
            items = [(item, expected.item, f"{path}[{i}]") for i, item in enumerate(current.value)]
            pending.extend(reversed(items))
        else:
            pending.extend(reversed(_mapping_children(current, expected, path)))


def _mapping_children(
    node: yaml.Node, shape: Struct | MapOf, path: str
) -> list[tuple[yaml.Node, Shape, str]]:
    if not isinstance(node, yaml.MappingNode):
        raise ShapeError(f"`{path or 'the document'}` must be a mapping", node, path)
    children = []
    for key, value in node.value:
        if key.tag == _TAG + "merge":
            continue  # `<<: *defaults`: the merged mapping is checked where it is defined
        name = str(key.value) if isinstance(key, yaml.ScalarNode) else ""
        where = f"{path}.{name}" if path else name
        if isinstance(shape, MapOf):
            children.append((value, shape.value, where))
        elif name in shape.fields:
            children.append((value, shape.fields[name], where))
        elif shape.strict:
            raise ShapeError(f"unknown key `{where}`", key, where)
    return children


def _check_scalar(node: yaml.Node, expected: str, path: str) -> None:
    if not isinstance(node, yaml.ScalarNode):
        raise ShapeError(f"`{path}` must be {expected}, not a list or mapping", node, path)
    if expected == STR:
        return  # yaml.v3 decodes any scalar into a string field as its text
    tag, value = resolve(node)
    if expected == BOOL:
        if tag == "bool" or str(node.value) in _BOOL_WORDS:
            return
        raise ShapeError(f"`{path}` must be {BOOL}, not {node.value!r}", node, path)
    if tag not in ("int", "float"):
        raise ShapeError(f"`{path}` must be {expected}, not {node.value!r}", node, path)
    if isinstance(value, float) and not math.isfinite(value):
        # yaml.v3 would take .inf/.nan into a float field; nothing downstream can use it,
        # and JSON cannot hold it.
        raise ShapeError(f"`{path}` must be a finite number, not {node.value}", node, path)
    if expected == INT and not -_INT64 <= value < _INT64:
        raise ShapeError(f"`{path}` is out of range for a whole number", node, path)


# yaml.v3's alias-expansion budget (decode.go): allowed share of aliased nodes by size.
_ALIAS_RATIO_LOW = 400_000
_ALIAS_RATIO_HIGH = 4_000_000


def _allowed_alias_ratio(expanded: int) -> float:
    if expanded <= _ALIAS_RATIO_LOW:
        return 0.99
    if expanded >= _ALIAS_RATIO_HIGH:
        return 0.10
    share = (expanded - _ALIAS_RATIO_LOW) / (_ALIAS_RATIO_HIGH - _ALIAS_RATIO_LOW)
    return 0.99 - 0.89 * share


def check_aliases(root: yaml.Node) -> None:
    """Refuse an anchor that contains itself, and a document whose aliases expand it far
    beyond its own size ("billion laughs"), as yaml.v3 refuses them: the expanded size is
    computed per distinct node, never by expanding, so this is linear in the file."""
    expanded: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if children_done:
            on_path.discard(key)
            expanded[key] = 1 + sum(expanded[id(child)] for child in _children(node))
            continue
        if key in expanded:
            continue
        if key in on_path:
            raise ShapeError("an anchor's value contains an alias to itself", node)
        on_path.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in _children(node) if id(child) not in expanded)
    total = expanded[id(root)]
    aliased = total - len(expanded)
    if aliased > 100 and total > 1000 and aliased / total > _allowed_alias_ratio(total):
        raise ShapeError(
            f"the document contains excessive aliasing ({len(expanded)} nodes expand to {total})",
            root,
        )


def _children(node: yaml.Node) -> list[Any]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []
