"""The eval spec: eval.yaml, its task files and `.waza.yaml`, as frozen values with YAML lines.

Every grader keeps the file and line that define it, so errors and check-run annotations can
point there. Loading is strict where waza is strict (a program grader's config keys) and names
the file and line of every problem.
"""

from __future__ import annotations

import glob
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from waza_ci.errors import InputError, Location
from waza_ci.files import MAX_SPEC_BYTES, read_regular_text
from waza_ci.waza.schema_version import schema_version_problem
from waza_ci.waza.spec_schema import (
    EVAL_SPEC,
    PROJECT_CONFIG,
    TASK_FILE,
    Shape,
    ShapeError,
    check_aliases,
    check_shape,
)

PROGRAM_KIND = "program"
DEFAULT_PROGRAM_TIMEOUT_S = 30
PROGRAM_CONFIG_KEYS = ("command", "args", "timeout")
PROJECT_CONFIG_NAME = ".waza.yaml"
PROJECT_CONFIG_MAX_LEVELS = 10
_SURROGATE = re.compile("[\ud800-\udfff]")
_SCALAR_TAGS = frozenset(
    f"tag:yaml.org,2002:{name}" for name in ("str", "int", "float", "bool", "timestamp")
)


@dataclass(frozen=True)
class LoadWarning:
    """Something wrong but not fatal in the spec or project config, and where it is."""

    message: str
    location: Location | None = None

    def __str__(self) -> str:
        return f"{self.location}: {self.message}" if self.location else self.message


@dataclass(frozen=True)
class ProgramConfig:
    """A program grader's `config`: what to execute and for how long at most."""

    command: str
    args: tuple[str, ...] | None
    timeout_s: int | None
    """`config.timeout` when set and positive; otherwise the project default applies."""


@dataclass(frozen=True)
class GraderSpec:
    """One grader entry of the spec (any kind) and where it is defined."""

    name: str
    kind: str
    weight: float
    location: Location
    program: ProgramConfig | None = None


@dataclass(frozen=True)
class TaskSpec:
    """An enabled task: its id, name, and its graders (global ones first, later names win)."""

    id: str
    name: str
    location: Location
    graders: tuple[GraderSpec, ...]

    @property
    def program_graders(self) -> tuple[GraderSpec, ...]:
        return tuple(g for g in self.graders if g.program is not None)


@dataclass(frozen=True)
class EvalSpec:
    """The loaded eval spec."""

    path: Path
    name: str
    tasks: tuple[TaskSpec, ...]
    program_timeout_s: int = DEFAULT_PROGRAM_TIMEOUT_S
    warnings: tuple[LoadWarning, ...] = field(default=())
    program_timeout_source: str = "waza's default"
    """Where `program_timeout_s` came from, for a timeout's explanation in the report."""

    def timeout_for(self, grader: GraderSpec) -> int:
        """`config.timeout` → `.waza.yaml graders.programTimeout` → 30 s."""
        assert grader.program is not None
        return grader.program.timeout_s or self.program_timeout_s

    def timeout_source_for(self, grader: GraderSpec) -> str:
        """Where `timeout_for(grader)` came from: `config.timeout at eval.yaml:12`, …"""
        assert grader.program is not None
        if grader.program.timeout_s:
            return f"config.timeout at {grader.location}"
        return self.program_timeout_source


def load_eval(eval_path: Path, *, working_directory: Path) -> EvalSpec:
    """Load eval.yaml, resolve its task globs relative to its folder, skip disabled tasks."""
    root = _load_yaml(eval_path, what="eval spec", shape=EVAL_SPEC, versioned=True)
    global_graders = _load_graders(eval_path, root, task_level=False)
    warnings: list[LoadWarning] = []
    tasks: list[TaskSpec] = []
    seen: dict[str, Location] = {}
    for task_path in _task_files(eval_path, root, warnings):
        task = _load_task(task_path, global_graders)
        if task is None:
            continue
        if task.id in seen:
            raise InputError(
                f"task id {task.id!r} is also defined at {seen[task.id]}", task.location
            )
        seen[task.id] = task.location
        tasks.append(task)
    if not tasks:
        raise InputError("no tasks found in spec", Location(str(eval_path)))
    timeout, config_warnings = find_program_timeout(working_directory)
    config = find_project_config(working_directory)
    source = (
        f"graders.programTimeout in {config}"
        if config is not None and timeout != DEFAULT_PROGRAM_TIMEOUT_S
        else "waza's default"
    )
    return EvalSpec(
        path=eval_path,
        name=_text(eval_path, _child(root, "name"), "name") or eval_path.stem,
        tasks=tuple(tasks),
        program_timeout_s=timeout,
        warnings=tuple(warnings + config_warnings),
        program_timeout_source=source,
    )


def find_project_config(working_directory: Path) -> Path | None:
    """The nearest `.waza.yaml`, walking up from `working_directory` as waza does: the first
    one that exists decides, even when it cannot be loaded."""
    directory = working_directory.resolve()
    for _ in range(PROJECT_CONFIG_MAX_LEVELS):
        candidate = directory / PROJECT_CONFIG_NAME
        if candidate.exists():
            return candidate
        if directory.parent == directory:
            break
        directory = directory.parent
    return None


def find_program_timeout(working_directory: Path) -> tuple[int, list[LoadWarning]]:
    """`graders.programTimeout` of the nearest `.waza.yaml` (see find_project_config)."""
    config = find_project_config(working_directory)
    if config is None:
        return DEFAULT_PROGRAM_TIMEOUT_S, []
    return _read_program_timeout(config)


def _read_program_timeout(path: Path) -> tuple[int, list[LoadWarning]]:
    """waza decodes `.waza.yaml` strictly (unknown keys and wrong types fail) and, when it
    fails, uses every default, the 30 s program timeout included; so does this, but it says
    so in one warning that names the file, the line and the problem."""
    try:
        root = _load_optional_yaml(path, what="project config", shape=PROJECT_CONFIG)
    except InputError as err:
        fallback = (
            f"; ignored, using waza's defaults ({DEFAULT_PROGRAM_TIMEOUT_S} s program timeout)"
        )
        return DEFAULT_PROGRAM_TIMEOUT_S, [LoadWarning(err.message + fallback, err.location)]
    timeout_node = _child(_child(root, "graders") or root, "programTimeout") if root else None
    if timeout_node is None or _is_null(timeout_node):
        return DEFAULT_PROGRAM_TIMEOUT_S, []
    timeout = int(_construct(path, timeout_node))  # an int (or integral float), per the shape
    if timeout < 1:
        problem = f"graders.programTimeout must be >= 1; using {DEFAULT_PROGRAM_TIMEOUT_S} s"
        return DEFAULT_PROGRAM_TIMEOUT_S, [LoadWarning(problem, _at(path, timeout_node))]
    return timeout, []


def _task_files(eval_path: Path, root: yaml.Node, warnings: list[LoadWarning]) -> Iterator[Path]:
    entries = _child(root, "tasks")
    if entries is None:
        return
    if not isinstance(entries, yaml.SequenceNode):
        raise InputError("`tasks` must be a list of file globs", _at(eval_path, entries))
    base = eval_path.parent
    seen: set[Path] = set()
    for entry in entries.value:
        if not isinstance(entry, yaml.ScalarNode) or entry.tag != "tag:yaml.org,2002:str":
            raise InputError("each `tasks` entry must be a file glob", _at(eval_path, entry))
        matches = [
            Path(m)
            for m in sorted(glob.glob(str(base / entry.value), recursive=True))
            if Path(m).is_file()
        ]
        if not matches:
            warnings.append(
                LoadWarning(f"tasks glob {entry.value!r} matched no file", _at(eval_path, entry))
            )
        for match in matches:
            if match.resolve() not in seen:  # two globs naming one file load it once
                seen.add(match.resolve())
                yield match


def _load_task(task_path: Path, global_graders: tuple[GraderSpec, ...]) -> TaskSpec | None:
    root = _load_yaml(task_path, what="task file", shape=TASK_FILE)
    if not _enabled(task_path, _child(root, "enabled")):
        return None
    id_node = _child(root, "id")
    task_id = _text(task_path, id_node, "id")
    if not task_id:
        raise InputError("a task needs a non-empty `id`", _at(task_path, id_node or root))
    merged: dict[str, GraderSpec] = {}
    for grader in global_graders + _load_graders(task_path, root, task_level=True):
        merged[grader.name] = grader  # a later entry with the same name replaces an earlier one
    return TaskSpec(
        id=task_id,
        name=_text(task_path, _child(root, "name"), "name") or task_id,
        location=_at(task_path, id_node or root),
        graders=tuple(merged.values()),
    )


def _enabled(path: Path, node: yaml.Node | None) -> bool:
    if node is None or _is_null(node):
        return True
    value = _construct(path, node)
    if not isinstance(value, bool):
        raise InputError("`enabled` must be true or false", _at(path, node))
    return value


def _load_graders(path: Path, root: yaml.Node, *, task_level: bool) -> tuple[GraderSpec, ...]:
    entries = _child(root, "graders")
    if entries is None or _is_null(entries):
        return ()
    if not isinstance(entries, yaml.SequenceNode):
        raise InputError("`graders` must be a list", _at(path, entries))
    return tuple(_load_grader(path, entry, task_level=task_level) for entry in entries.value)


def _load_grader(path: Path, node: yaml.Node, *, task_level: bool) -> GraderSpec:
    location = _at(path, node)
    if not isinstance(node, yaml.MappingNode):
        raise InputError("a grader entry must be a mapping", location)
    name = _text(path, _child(node, "name"), "name")
    if not name:
        raise InputError("a grader needs a non-empty `name`", location)
    kind = _text(path, _child(node, "type"), "type")
    if task_level and not kind:
        raise InputError(f"grader {name!r} needs a `type`", location)
    program = _load_program_config(path, node, name) if kind == PROGRAM_KIND else None
    return GraderSpec(
        name=name,
        kind=kind,
        weight=_weight(path, _child(node, "weight"), name),
        location=location,
        program=program,
    )


def _weight(path: Path, node: yaml.Node | None, name: str) -> float:
    if node is None or _is_null(node):
        return 1.0  # absent or null: waza's zero weight, which counts as 1
    weight = _construct(path, node)
    if isinstance(weight, bool) or not isinstance(weight, int | float):
        raise InputError(f"grader {name!r}: `weight` must be a number", _at(path, node))
    return float(weight)


def _load_program_config(path: Path, grader: yaml.MappingNode, name: str) -> ProgramConfig:
    config_node = _child(grader, "config")
    if config_node is None or _is_null(config_node):
        raise InputError(f"program grader {name!r} must have a 'command'", _at(path, grader))
    if not isinstance(config_node, yaml.MappingNode):
        raise InputError(
            f"program grader {name!r}: `config` must be a mapping", _at(path, config_node)
        )
    for key_node, _value in config_node.value:
        if key_node.value not in PROGRAM_CONFIG_KEYS:
            raise InputError(
                f"program grader {name!r}: unknown config key {key_node.value!r} "
                f"(allowed: {', '.join(PROGRAM_CONFIG_KEYS)})",
                _at(path, key_node),
            )
    command_node = _child(config_node, "command")
    command = _text(path, command_node, "command")
    if not command.strip():
        where = command_node or grader
        raise InputError(f"program grader {name!r} must have a 'command'", _at(path, where))
    return ProgramConfig(
        command=command,
        args=_program_args(path, _child(config_node, "args"), name),
        timeout_s=_program_timeout(path, _child(config_node, "timeout"), name),
    )


def _program_args(path: Path, node: yaml.Node | None, name: str) -> tuple[str, ...] | None:
    if node is None or _is_null(node):
        return None
    problem = InputError(
        f"program grader {name!r}: `args` must be a list of strings", _at(path, node)
    )
    if not isinstance(node, yaml.SequenceNode):
        raise problem
    args: list[str] = []
    for item in node.value:
        if not isinstance(item, yaml.ScalarNode):
            raise problem
        # As yaml.v3 decodes into []string: a scalar's own text (`3` -> "3"), null -> "".
        args.append("" if _is_null(item) else _valid_text(item.value))
    return tuple(args)


def _program_timeout(path: Path, node: yaml.Node | None, name: str) -> int | None:
    if node is None or _is_null(node):
        return None
    timeout = _construct(path, node)
    # yaml.v3 decodes a finite float into an int field by truncating it (1.9 -> 1).
    usable = isinstance(timeout, int | float) and not isinstance(timeout, bool)
    if not usable or not math.isfinite(timeout) or abs(timeout) >= 2**63:
        raise InputError(
            f"program grader {name!r}: `timeout` must be a whole number of seconds",
            _at(path, node),
        )
    seconds = int(timeout)
    return seconds if seconds > 0 else None


def _text(path: Path, node: yaml.Node | None, key: str) -> str:
    """A string field as yaml.v3 decodes it: a scalar's text; absent or null is ""."""
    if node is None or _is_null(node):
        return ""
    if not isinstance(node, yaml.ScalarNode):
        raise InputError(f"`{key}` must be a single value, not a list or mapping", _at(path, node))
    if node.tag not in _SCALAR_TAGS:
        raise InputError(
            f"invalid YAML: `{key}` has an unsupported tag {node.tag}", _at(path, node)
        )
    return _valid_text(str(node.value))


def _valid_text(text: str) -> str:
    # A "\ud800" escape in YAML gives a lone surrogate, which no output could encode as UTF-8;
    # Go's decoders make it U+FFFD, and so do we.
    return _SURROGATE.sub("\ufffd", text)


def _load_yaml(path: Path, *, what: str, shape: Shape, versioned: bool = False) -> yaml.MappingNode:
    root = _load_optional_yaml(path, what=what, shape=shape, versioned=versioned)
    if root is None:
        raise InputError(f"{what} is empty", Location(str(path)))
    return root


def _load_optional_yaml(
    path: Path, *, what: str, shape: Shape, versioned: bool = False
) -> yaml.MappingNode | None:
    """The document's root mapping checked against `shape`; None for an empty document.
    `versioned`: its `schemaVersion` is checked first, before any field, as waza checks it."""
    text = read_regular_text(path, what=what, max_bytes=MAX_SPEC_BYTES)  # its errors name path
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as err:
        raise InputError(f"invalid YAML: {_problem(err)}", _mark(path, err)) from None
    except yaml.YAMLError as err:
        raise InputError(f"invalid YAML: {_one_line(str(err))}", Location(str(path))) from None
    except RecursionError:
        raise InputError("invalid YAML: nested too deeply", Location(str(path))) from None
    if root is None:
        return None
    if not isinstance(root, yaml.MappingNode):
        raise InputError(f"a {what} must be a YAML mapping", _at(path, root))
    try:
        check_aliases(root)
        _refuse_duplicate_keys(path, root)
        if versioned:
            _check_schema_version(path, _child(root, "schemaVersion"))
        check_shape(root, shape)
    except ShapeError as err:
        raise InputError(f"invalid {what}: {err.message}", _at(path, err.node)) from None
    return root


def _check_schema_version(path: Path, node: yaml.Node | None) -> None:
    version = _text(path, node, "schemaVersion")
    problem = schema_version_problem(version)
    if problem is not None:
        raise InputError(problem, _at(path, node) if node is not None else Location(str(path)))


def _refuse_duplicate_keys(path: Path, root: yaml.Node) -> None:
    """yaml.v3 (waza) refuses a mapping key defined twice; PyYAML would keep the last."""
    pending = [root]
    seen_nodes: set[int] = set()
    while pending:
        node = pending.pop()
        if id(node) in seen_nodes:  # aliases share nodes
            continue
        seen_nodes.add(id(node))
        if isinstance(node, yaml.MappingNode):
            first: dict[str, yaml.Node] = {}
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode) and key.tag != "tag:yaml.org,2002:merge":
                    if key.value in first:
                        earlier = first[key.value].start_mark.line + 1
                        raise InputError(
                            f"mapping key {key.value!r} already defined at line {earlier}",
                            _at(path, key),
                        )
                    first[key.value] = key
                pending.extend((key, value))
        elif isinstance(node, yaml.SequenceNode):
            pending.extend(node.value)


def _construct(path: Path, node: yaml.Node) -> Any:
    """The Python value of one node; a value YAML cannot build is the user's error."""
    try:
        return yaml.SafeLoader("").construct_document(node)
    except yaml.MarkedYAMLError as err:
        raise InputError(f"invalid YAML: {_problem(err)}", _mark(path, err, node)) from None
    except (yaml.YAMLError, ValueError, TypeError, RecursionError) as err:
        raise InputError(f"invalid YAML value: {_one_line(str(err))}", _at(path, node)) from None


def _problem(err: yaml.MarkedYAMLError) -> str:
    return _one_line(err.problem or err.context or "invalid YAML")


def _mark(path: Path, err: yaml.MarkedYAMLError, node: yaml.Node | None = None) -> Location:
    mark = err.problem_mark or err.context_mark
    if mark is not None:
        return Location(str(path), line=mark.line + 1)
    return _at(path, node) if node is not None else Location(str(path))


def _child(node: yaml.Node, key: str) -> yaml.Node | None:
    if not isinstance(node, yaml.MappingNode):
        return None
    for key_node, value_node in node.value:
        if isinstance(key_node, yaml.ScalarNode) and key_node.value == key:
            return value_node  # type: ignore[no-any-return]
    return None


def _is_null(node: yaml.Node) -> bool:
    return isinstance(node, yaml.ScalarNode) and node.tag == "tag:yaml.org,2002:null"


def _at(path: Path, node: yaml.Node) -> Location:
    return Location(str(path), line=node.start_mark.line + 1)


def _one_line(text: str) -> str:
    return " ".join(text.split())
