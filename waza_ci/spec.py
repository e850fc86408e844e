"""The eval spec: eval.yaml, its task files and `.waza.yaml`, as frozen values with YAML lines.

Every grader keeps the file and line that define it, so errors and check-run annotations can
point there. Loading is strict where waza is strict (a program grader's config keys) and names
the file and line of every problem.
"""

from __future__ import annotations

import glob
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from waza_ci.errors import InputError, Location

PROGRAM_KIND = "program"
DEFAULT_PROGRAM_TIMEOUT_S = 30
PROGRAM_CONFIG_KEYS = ("command", "args", "timeout")
PROJECT_CONFIG_NAME = ".waza.yaml"
PROJECT_CONFIG_MAX_LEVELS = 10


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
    warnings: tuple[str, ...] = field(default=())

    def timeout_for(self, grader: GraderSpec) -> int:
        """`config.timeout` → `.waza.yaml graders.programTimeout` → 30 s."""
        assert grader.program is not None
        return grader.program.timeout_s or self.program_timeout_s


def load_eval(eval_path: Path, *, working_directory: Path) -> EvalSpec:
    """Load eval.yaml, resolve its task globs relative to its folder, skip disabled tasks."""
    root, document = _load_yaml(eval_path, what="eval spec")
    if not isinstance(document, dict):
        raise InputError("an eval spec must be a YAML mapping", _at(eval_path, root))
    global_graders = _load_graders(eval_path, root, task_level=False)
    warnings: list[str] = []
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
    name = document.get("name")
    return EvalSpec(
        path=eval_path,
        name=name if isinstance(name, str) else eval_path.stem,
        tasks=tuple(tasks),
        program_timeout_s=timeout,
        warnings=tuple(warnings + config_warnings),
    )


def find_program_timeout(working_directory: Path) -> tuple[int, list[str]]:
    """`graders.programTimeout` of the nearest `.waza.yaml`, walking up as waza does."""
    directory = working_directory.resolve()
    for _ in range(PROJECT_CONFIG_MAX_LEVELS):
        candidate = directory / PROJECT_CONFIG_NAME
        if candidate.is_file():
            return _read_program_timeout(candidate)
        if directory.parent == directory:
            break
        directory = directory.parent
    return DEFAULT_PROGRAM_TIMEOUT_S, []


def _read_program_timeout(path: Path) -> tuple[int, list[str]]:
    # waza silently falls back to 30 s on a malformed .waza.yaml; we fall back too but say so.
    fallback = f"{path}: ignored (using {DEFAULT_PROGRAM_TIMEOUT_S} s program timeout)"
    try:
        config = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as err:
        return DEFAULT_PROGRAM_TIMEOUT_S, [f"{fallback}: {_one_line(str(err))}"]
    graders = config.get("graders") if isinstance(config, dict) else None
    timeout = graders.get("programTimeout") if isinstance(graders, dict) else None
    if timeout is None:
        return DEFAULT_PROGRAM_TIMEOUT_S, []
    if isinstance(timeout, bool) or not isinstance(timeout, int) or timeout < 1:
        return DEFAULT_PROGRAM_TIMEOUT_S, [f"{fallback}: graders.programTimeout must be >= 1"]
    return timeout, []


def _task_files(eval_path: Path, root: yaml.Node, warnings: list[str]) -> Iterator[Path]:
    entries = _child(root, "tasks")
    if entries is None:
        return
    if not isinstance(entries, yaml.SequenceNode):
        raise InputError("`tasks` must be a list of file globs", _at(eval_path, entries))
    base = eval_path.parent
    for entry in entries.value:
        if not isinstance(entry, yaml.ScalarNode) or entry.tag != "tag:yaml.org,2002:str":
            raise InputError("each `tasks` entry must be a file glob", _at(eval_path, entry))
        matches = sorted(glob.glob(str(base / entry.value), recursive=True))
        if not matches:
            warnings.append(f"{_at(eval_path, entry)}: tasks glob {entry.value!r} matched no file")
        yield from (Path(match) for match in matches)


def _load_task(task_path: Path, global_graders: tuple[GraderSpec, ...]) -> TaskSpec | None:
    root, document = _load_yaml(task_path, what="task file")
    if not isinstance(document, dict):
        raise InputError("a task file must be a YAML mapping", _at(task_path, root))
    if document.get("enabled") is False:
        return None
    task_id = document.get("id")
    if not isinstance(task_id, str) or not task_id:
        raise InputError("a task needs a non-empty string `id`", _at(task_path, root))
    merged: dict[str, GraderSpec] = {}
    for grader in global_graders + _load_graders(task_path, root, task_level=True):
        merged[grader.name] = grader  # a later entry with the same name replaces an earlier one
    name = document.get("name")
    return TaskSpec(
        id=task_id,
        name=name if isinstance(name, str) else task_id,
        location=_at(task_path, _child(root, "id") or root),
        graders=tuple(merged.values()),
    )


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
    entry = _construct(node)
    name = entry.get("name")
    if not isinstance(name, str) or not name:
        raise InputError("a grader needs a non-empty string `name`", location)
    kind = entry.get("type", "")
    if not isinstance(kind, str) or (task_level and not kind):
        raise InputError(f"grader {name!r} needs a string `type`", location)
    weight = entry.get("weight", 1.0)
    if isinstance(weight, bool) or not isinstance(weight, int | float):
        raise InputError(f"grader {name!r}: `weight` must be a number", location)
    program = _load_program_config(path, node, name) if kind == PROGRAM_KIND else None
    return GraderSpec(
        name=name, kind=kind, weight=float(weight), location=location, program=program
    )


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
    config = _construct(config_node)
    command = config.get("command")
    if not isinstance(command, str) or not command.strip():
        where = _child(config_node, "command") or grader
        raise InputError(f"program grader {name!r} must have a 'command'", _at(path, where))
    return ProgramConfig(
        command=command,
        args=_program_args(path, config_node, config.get("args"), name),
        timeout_s=_program_timeout(path, config_node, config.get("timeout"), name),
    )


def _program_args(
    path: Path, config_node: yaml.Node, args: Any, name: str
) -> tuple[str, ...] | None:
    if args is None:
        return None
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise InputError(
            f"program grader {name!r}: `args` must be a list of strings",
            _at(path, _child(config_node, "args") or config_node),
        )
    return tuple(args)


def _program_timeout(path: Path, config_node: yaml.Node, timeout: Any, name: str) -> int | None:
    if timeout is None:
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, int):
        raise InputError(
            f"program grader {name!r}: `timeout` must be a whole number of seconds",
            _at(path, _child(config_node, "timeout") or config_node),
        )
    return timeout if timeout > 0 else None


def _load_yaml(path: Path, *, what: str) -> tuple[yaml.Node, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{what} not found", Location(str(path))) from None
    except (OSError, UnicodeDecodeError) as err:
        raise InputError(f"cannot read {what}: {err}", Location(str(path))) from None
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        line = mark.line + 1 if mark is not None else None
        problem = err.problem or err.context or "invalid YAML"
        raise InputError(f"invalid YAML: {problem}", Location(str(path), line=line)) from None
    except yaml.YAMLError as err:
        raise InputError(f"invalid YAML: {_one_line(str(err))}", Location(str(path))) from None
    if root is None:
        raise InputError(f"{what} is empty", Location(str(path)))
    return root, _construct(root)


def _construct(node: yaml.Node) -> Any:
    return yaml.SafeLoader("").construct_document(node)


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
