"""waza's project config, `.waza.yaml`: found as waza finds it (the nearest one, walking up
from the working directory) and read for what regrading needs, `graders.programTimeout`.

Every key of waza's ProjectConfig is known (`paths`, `files`, `defaults`, `cache`, `server`,
`dev`, `tokens`, `graders`, `storage`). waza throws the whole file away (every default, a 30 s
program timeout) over one unknown key or mistyped value anywhere in it; waza-ci says so in a
warning naming the file, line and key, but still honours a readable `graders.programTimeout`:
a newer waza may know a key waza-ci does not, and the timeout is what the user asked for.
Only when the timeout itself cannot be read (bad YAML, a wrong type) is the default used.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from waza_ci.errors import InputError, Location
from waza_ci.waza.goyaml import child, is_null
from waza_ci.waza.spec_schema import ANY, INT, PROJECT_CONFIG, ShapeError, check_shape
from waza_ci.waza.yaml_doc import at, construct, load_optional_yaml, scalar_text

DEFAULT_PROGRAM_TIMEOUT_S = 30
PROJECT_CONFIG_NAME = ".waza.yaml"
PROJECT_CONFIG_MAX_LEVELS = 10


@dataclass(frozen=True)
class LoadWarning:
    """Something wrong but not fatal in the spec or project config, and where it is."""

    message: str
    location: Location | None = None

    def __str__(self) -> str:
        return f"{self.location}: {self.message}" if self.location else self.message


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
    fallback = f"; ignored, using waza's default ({DEFAULT_PROGRAM_TIMEOUT_S} s program timeout)"
    try:
        # YAML itself (syntax, duplicate keys, aliases) first; the shape is judged below.
        root = load_optional_yaml(path, what="project config", shape=ANY)
        timeout_node = _timeout_node(path, root)
    except InputError as err:
        return DEFAULT_PROGRAM_TIMEOUT_S, [LoadWarning(err.message + fallback, err.location)]
    timeout = _timeout(path, timeout_node)
    warnings = _elsewhere(path, root, timeout)
    if timeout is not None and timeout < 1:
        problem = f"graders.programTimeout must be >= 1; using {DEFAULT_PROGRAM_TIMEOUT_S} s"
        assert timeout_node is not None
        return DEFAULT_PROGRAM_TIMEOUT_S, [*warnings, LoadWarning(problem, at(path, timeout_node))]
    return timeout or DEFAULT_PROGRAM_TIMEOUT_S, warnings


def _timeout_node(path: Path, root: yaml.MappingNode | None) -> yaml.Node | None:
    """`graders.programTimeout`, checked as waza's int field: an InputError when unreadable."""
    graders = child(root, "graders") if root is not None else None
    if graders is None or is_null(graders):
        return None
    try:
        if not isinstance(graders, yaml.MappingNode):
            raise ShapeError("`graders` must be a mapping", graders)
        node = child(graders, "programTimeout")
        if node is not None:
            check_shape(node, INT, "graders.programTimeout")
    except ShapeError as err:
        raise InputError(f"invalid project config: {err.message}", at(path, err.node)) from None
    return None if node is None or is_null(node) else node


def _timeout(path: Path, node: yaml.Node | None) -> int | None:
    return None if node is None else int(construct(path, node))  # an int, or integral float


def _elsewhere(path: Path, root: yaml.MappingNode | None, timeout: int | None) -> list[LoadWarning]:
    """What waza would refuse the file over (beyond the timeout): one warning, or none."""
    if root is None:
        return []
    try:
        check_shape(root, PROJECT_CONFIG)
        _check_files(path, root)
    except ShapeError as err:
        problem, location = f"invalid project config: {err.message}", at(path, err.node)
    except InputError as err:
        problem, location = err.message, err.location or Location(str(path))
    else:
        return []
    kept = (
        f"waza-ci still applies graders.programTimeout ({timeout} s)"
        if timeout is not None and timeout >= 1
        else f"the program timeout is waza's default ({DEFAULT_PROGRAM_TIMEOUT_S} s) either way"
    )
    note = f"; waza ignores this whole file over it ({DEFAULT_PROGRAM_TIMEOUT_S} s program timeout)"
    return [LoadWarning(f"{problem}{note}; {kept}", location)]


def _check_files(path: Path, root: yaml.MappingNode) -> None:
    """waza's checks of `files` (0.33.0+): a file name, a glob and a suffix; "" keeps the
    default, so only a value that is set can be wrong."""
    files = child(root, "files")
    if files is None or is_null(files):
        return
    for key, bad in (
        ("evalFile", _bad_file_name),
        ("taskGlob", lambda value: False),
        ("taskFileSuffix", _bad_suffix),
    ):
        node = child(files, key)
        value = scalar_text(path, node, key)
        if value and (not value.strip() or bad(value)):
            raise InputError(
                f"invalid project config: files.{key} {value!r} is not {_WANTED[key]}",
                at(path, node) if node is not None else Location(str(path)),
            )


_WANTED = {"evalFile": "a file name", "taskGlob": "a glob", "taskFileSuffix": "a file-name suffix"}


def _bad_file_name(value: str) -> bool:
    return "/" in value or "\\" in value or value in (".", "..")


def _bad_suffix(value: str) -> bool:
    return "/" in value or "\\" in value or ".." in value
