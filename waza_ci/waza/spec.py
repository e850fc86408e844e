"""The eval spec: eval.yaml and its task files, as frozen values with YAML lines.

Every grader keeps the file and line that define it, so errors and check-run annotations can
point there. Loading is strict where waza is strict (a program grader's config keys) and names
the file and line of every problem. A grader may have no `name`, as in waza: its verdict is
keyed by the empty name, and of two graders with the same name (the empty one included) the
later replaces the earlier, as in waza's map of verdicts.
"""

from __future__ import annotations

import glob
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from waza_ci.errors import WINDOWS_PATH_HINT, InputError, Location, windows_path
from waza_ci.golang.yaml import child, is_null
from waza_ci.waza.eval_header import eval_shape
from waza_ci.waza.identity import EvalIdentity
from waza_ci.waza.modules.ref import ModulePin
from waza_ci.waza.modules.resolve import ModuleResolver
from waza_ci.waza.program_config import ProgramConfig, describe, load_program_config
from waza_ci.waza.project_config import (
    DEFAULT_PROGRAM_TIMEOUT_S,
    LoadWarning,
    find_program_timeout,
    find_project_config,
)
from waza_ci.waza.spec_schema import EVAL_GRADER, TASK_FILE, TASK_GRADER
from waza_ci.waza.yaml_doc import at, construct, load_yaml, scalar_text

__all__ = [
    "DEFAULT_PROGRAM_TIMEOUT_S",
    "EXPECTED_KIND",
    "EXPECTED_OUTPUT_KEYS",
    "PROGRAM_KIND",
    "EvalSpec",
    "GraderSpec",
    "LoadWarning",
    "ProgramConfig",
    "TaskSpec",
    "find_program_timeout",
    "load_eval",
]

PROGRAM_KIND = "program"
EXPECTED_KIND = "expected"
"""The kind of the checks waza synthesises from a task's `expected.output_*` lists."""
EXPECTED_OUTPUT_KEYS = ("output_contains", "output_not_contains", "output_contains_any")


@dataclass(frozen=True)
class GraderSpec:
    """One grader entry of the spec (any kind) and where it is defined."""

    name: str
    """waza's key for its verdict in a run's `validations`; "" when the spec gives none."""
    kind: str
    weight: float
    location: Location
    program: ProgramConfig | None = None
    config: yaml.Node | None = field(default=None, compare=False, repr=False)
    """The entry's `config` as YAML (None when absent); each grader kind decodes it itself,
    strictly, as waza's grader factory does (graders/params.py)."""
    synthetic: bool = False
    """A check waza makes from the task's `expected:` block, not an entry of `graders:`."""
    module: ModulePin | None = None
    """A `ref:` entry's module, as waza.lock pinned it (the entry is its merged preset)."""

    @property
    def label(self) -> str:
        """How messages name this grader: its quoted name, or that it has none."""
        return describe(self.name)


@dataclass(frozen=True)
class TaskSpec:
    """An enabled task: its id, name, and its graders (global ones first, later names win)."""

    id: str
    name: str
    location: Location
    graders: tuple[GraderSpec, ...]
    prompt: str = ""
    """`inputs.prompt` as written."""
    prompt_file: str = ""
    """`inputs.prompt_file` as written (relative to the task file's folder)."""

    @property
    def path(self) -> Path:
        """The task file."""
        return Path(self.location.file)

    @property
    def program_graders(self) -> tuple[GraderSpec, ...]:
        return tuple(g for g in self.graders if g.program is not None)


@dataclass(frozen=True)
class EvalSpec:
    """The loaded eval spec."""

    path: Path
    name: str
    tasks: tuple[TaskSpec, ...]
    scenario: str = ""
    """A scenario eval's workflow identity (`scenario:`, schemaVersion "2.0"); "" for 1.x."""
    skill: str = ""
    """The skill the eval is about (`skill:`); "" when the spec names none."""
    program_timeout_s: int = DEFAULT_PROGRAM_TIMEOUT_S
    warnings: tuple[LoadWarning, ...] = field(default=())
    program_timeout_source: str = "waza's default"
    """Where `program_timeout_s` came from, for a timeout's explanation in the report."""
    judge_model: str = ""
    """`config.judge_model`: the model of `prompt` graders that name none."""

    @property
    def modules(self) -> tuple[ModulePin, ...]:
        """What every `ref:` grader resolved to, once each, by ref."""
        pins = {g.module for task in self.tasks for g in task.graders if g.module is not None}
        return tuple(sorted(pins, key=lambda pin: pin.ref))

    @property
    def eval_identity(self) -> EvalIdentity:
        """The eval as its results files name it (`eval_name`, `skill`)."""
        return EvalIdentity(self.name, self.skill)

    def timeout_for(self, grader: GraderSpec) -> int:
        """`config.timeout` (program graders) → `.waza.yaml graders.programTimeout` → 30 s."""
        if grader.program is not None and grader.program.timeout_s:
            return grader.program.timeout_s
        return self.program_timeout_s

    def timeout_source_for(self, grader: GraderSpec) -> str:
        """Where `timeout_for(grader)` came from: `config.timeout at eval.yaml:12`, …"""
        if grader.program is not None and grader.program.timeout_s:
            return f"config.timeout at {grader.location}"
        return self.program_timeout_source


def load_eval(
    eval_path: Path, *, working_directory: Path, modules: ModuleResolver | None = None
) -> EvalSpec:
    """Load eval.yaml, resolve its task globs relative to its folder, skip disabled tasks;
    `ref:` graders are resolved by `modules` (waza.lock and the module cache)."""
    try:
        root = load_yaml(eval_path, what="eval spec", shape=eval_shape)
    except InputError:
        if is_results_file(eval_path):
            raise InputError(
                "this is a waza results file (`eval_name`, `tasks[].runs`), not an eval spec: "
                "give it with --results, and the eval.yaml as EVAL_YAML",
                Location(str(eval_path)),
            ) from None
        raise
    global_graders = _load_graders(eval_path, root, task_level=False, modules=modules)
    warnings: list[LoadWarning] = []
    tasks: list[TaskSpec] = []
    seen: dict[str, Location] = {}
    for task_path in _task_files(eval_path, root, warnings):
        task = _load_task(task_path, global_graders, modules)
        if task is None:
            continue
        if task.id in seen:
            raise InputError(
                f"task id {task.id!r} is also defined at {seen[task.id]}", task.location
            )
        seen[task.id] = task.location
        tasks.append(task)
    if not tasks:
        empty = [str(w) for w in warnings if w.message.startswith("tasks glob")]
        why = f" ({'; '.join(empty)})" if empty else ""
        raise InputError(f"no tasks found in spec{why}", Location(str(eval_path)))
    timeout, config_warnings = find_program_timeout(working_directory)
    config = find_project_config(working_directory)
    source = (
        f"graders.programTimeout in {config}"
        if config is not None and timeout != DEFAULT_PROGRAM_TIMEOUT_S
        else "waza's default"
    )
    return EvalSpec(
        path=eval_path,
        name=scalar_text(eval_path, child(root, "name"), "name") or eval_path.stem,
        tasks=tuple(tasks),
        scenario=scalar_text(eval_path, child(root, "scenario"), "scenario"),
        skill=scalar_text(eval_path, child(root, "skill"), "skill"),
        program_timeout_s=timeout,
        warnings=tuple(warnings + config_warnings),
        program_timeout_source=source,
        judge_model=scalar_text(
            eval_path, child(child(root, "config"), "judge_model"), "judge_model"
        ),
    )


def _task_files(eval_path: Path, root: yaml.Node, warnings: list[LoadWarning]) -> Iterator[Path]:
    entries = child(root, "tasks")
    if entries is None:
        return
    if not isinstance(entries, yaml.SequenceNode):
        raise InputError("`tasks` must be a list of file globs", at(eval_path, entries))
    base = eval_path.parent
    seen: set[Path] = set()
    for entry in entries.value:
        if not isinstance(entry, yaml.ScalarNode) or entry.tag != "tag:yaml.org,2002:str":
            raise InputError("each `tasks` entry must be a file glob", at(eval_path, entry))
        matches = [
            path
            for path in map(Path, sorted(glob.glob(str(base / entry.value), recursive=True)))
            if path.is_file()
        ]
        if not matches:
            why = (
                WINDOWS_PATH_HINT
                if windows_path(entry.value)
                else "globs are relative to the eval file's folder"
            )
            warnings.append(
                LoadWarning(
                    f"tasks glob {entry.value!r} matched no file in {str(base.resolve())!r} "
                    f"({why})",
                    at(eval_path, entry),
                )
            )
        for match in matches:
            resolved = match.resolve()  # a path per component: once per file, not twice
            if resolved not in seen:  # two globs naming one file load it once
                seen.add(resolved)
                yield match


def _load_task(
    task_path: Path, global_graders: tuple[GraderSpec, ...], modules: ModuleResolver | None
) -> TaskSpec | None:
    root = load_yaml(task_path, what="task file", shape=TASK_FILE)
    if not _enabled(task_path, child(root, "enabled")):
        return None
    id_node = child(root, "id")
    task_id = scalar_text(task_path, id_node, "id")
    if not task_id:
        raise InputError("a task needs a non-empty `id`", at(task_path, id_node or root))
    merged: dict[str, GraderSpec] = {}
    graders = (
        *global_graders,
        *_load_graders(task_path, root, task_level=True, modules=modules),
        *_expected_checks(task_path, child(root, "expected")),
    )
    for grader in graders:
        merged[grader.name] = grader  # a later entry with the same name replaces an earlier one
    inputs = child(root, "inputs")
    return TaskSpec(
        id=task_id,
        name=scalar_text(task_path, child(root, "name"), "name") or task_id,
        location=at(task_path, id_node or root),
        graders=tuple(merged.values()),
        prompt=scalar_text(task_path, child(inputs, "prompt") if inputs else None, "prompt"),
        prompt_file=scalar_text(
            task_path, child(inputs, "prompt_file") if inputs else None, "prompt_file"
        ),
    )


def _expected_checks(path: Path, expected: yaml.Node | None) -> Iterator[GraderSpec]:
    """waza's synthetic checks from `expected.output_*`, after every grader, in this order;
    each is named `_<key>` and made only from a non-empty list."""
    if expected is None:
        return
    for key in EXPECTED_OUTPUT_KEYS:
        node = child(expected, key)
        if isinstance(node, yaml.SequenceNode) and node.value:
            yield GraderSpec(
                name=f"_{key}",
                kind=EXPECTED_KIND,
                weight=1.0,
                location=at(path, node),
                config=node,
                synthetic=True,
            )


def _enabled(path: Path, node: yaml.Node | None) -> bool:
    if node is None or is_null(node):
        return True
    value = construct(path, node)
    if not isinstance(value, bool):
        raise InputError("`enabled` must be true or false", at(path, node))
    return value


def _load_graders(
    path: Path, root: yaml.Node, *, task_level: bool, modules: ModuleResolver | None
) -> tuple[GraderSpec, ...]:
    entries = child(root, "graders")
    if entries is None or is_null(entries):
        return ()
    if not isinstance(entries, yaml.SequenceNode):
        raise InputError("`graders` must be a list", at(path, entries))
    return tuple(
        _load_grader(path, entry, task_level=task_level, modules=modules) for entry in entries.value
    )


def _load_grader(
    path: Path, node: yaml.Node, *, task_level: bool, modules: ModuleResolver | None
) -> GraderSpec:
    location = at(path, node)
    if not isinstance(node, yaml.MappingNode):
        raise InputError("a grader entry must be a mapping", location)
    module = None
    ref = scalar_text(path, child(node, "ref"), "ref")
    if ref:  # waza: the entry is its remote preset, with the entry's own fields on top
        if modules is None:
            raise InputError(f"grader `ref: {ref}` needs waza.lock and a module cache", location)
        shape = TASK_GRADER if task_level else EVAL_GRADER
        node, module = modules.expand(path, node, ref, shape)
    name = scalar_text(path, child(node, "name"), "name")  # optional, as in waza
    kind = scalar_text(path, child(node, "type"), "type")
    if task_level and not kind:
        # waza fails grading for it ("no kind associated with grader"): refused up front.
        raise InputError(f"grader {describe(name)} needs a `type`", location)
    program = load_program_config(path, node, name) if kind == PROGRAM_KIND else None
    config = child(node, "config")
    return GraderSpec(
        name=name,
        kind=kind,
        weight=_weight(path, child(node, "weight"), name),
        location=location,
        program=program,
        config=None if config is None or is_null(config) else config,
        module=module,
    )


def _weight(path: Path, node: yaml.Node | None, name: str) -> float:
    if node is None or is_null(node):
        return 1.0  # absent or null: waza's zero weight, which counts as 1
    weight = construct(path, node)
    if isinstance(weight, bool) or not isinstance(weight, int | float):
        raise InputError(f"grader {describe(name)}: `weight` must be a number", at(path, node))
    return float(weight)


def is_results_file(path: Path) -> bool:
    """A JSON object with `eval_name` or `tasks` of runs: what `waza run --output` writes."""
    if not path.is_file():  # a FIFO or a device is never sniffed (reading could block)
        return False
    try:
        with path.open("rb") as stream:
            head = stream.read(65536).decode("utf-8", "replace")
    except OSError:
        return False
    return head.lstrip().startswith("{") and ('"eval_name"' in head or '"runs"' in head)
