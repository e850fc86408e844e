"""waza's project config, `.waza.yaml`: found as waza finds it (the nearest one, walking up
from the working directory) and read for what regrading needs, `graders.programTimeout`.

waza decodes the file strictly (yaml.v3 KnownFields) and then checks `files` and
`registries`; over one unknown key, mistyped value or refused value anywhere in it, its loader
fails and the program grader falls back to its 30 s default: the whole file is discarded
(internal/graders/program_grader.go, NewProgramGrader: `cfg, err := projectconfig.Load(".")`,
the timeout taken only when `err == nil`; internal/projectconfig/config.go, Load). waza-ci does
the same, so a slow grader gets the same verdict, and says so in one warning naming the file,
the line and waza's error.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from waza_ci.errors import InputError, Location
from waza_ci.golang.strconv import go_quote
from waza_ci.golang.yaml import child, is_null
from waza_ci.waza.spec_schema import ANY, PROJECT_CONFIG, ShapeError, check_shape
from waza_ci.waza.unmarshal_text import unmarshal_problem
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
    """`graders.programTimeout` of the nearest `.waza.yaml` (see find_project_config), or
    waza's 30 s default when there is none or waza would discard it (with one warning)."""
    config = find_project_config(working_directory)
    if config is None:
        return DEFAULT_PROGRAM_TIMEOUT_S, []
    root: yaml.MappingNode | None = None
    try:
        # YAML itself (syntax, duplicate keys, aliases) first, then waza's strict decode.
        root = load_optional_yaml(config, what="project config", shape=ANY)
        if root is None:
            return DEFAULT_PROGRAM_TIMEOUT_S, []  # nothing in it: the default either way
        _refuse_as_waza_does(config, root)
    except InputError as err:
        return DEFAULT_PROGRAM_TIMEOUT_S, [_discarded(err, root)]
    return _program_timeout(config, root)


def _discarded(err: InputError, root: yaml.MappingNode | None) -> LoadWarning:
    declared = _declared_timeout(root)
    ignored = (
        f", not its graders.programTimeout: {declared.value}"
        if isinstance(declared, yaml.ScalarNode) and not is_null(declared)
        else ""
    )
    return LoadWarning(
        f"{err.message}; waza discards this whole file over it, so program graders get its "
        f"default {DEFAULT_PROGRAM_TIMEOUT_S} s timeout{ignored}",
        err.location,
    )


def _declared_timeout(root: yaml.MappingNode | None) -> yaml.Node | None:
    graders = child(root, "graders") if root is not None else None
    return child(graders, "programTimeout") if graders is not None else None


def _program_timeout(path: Path, root: yaml.MappingNode) -> tuple[int, list[LoadWarning]]:
    node = _declared_timeout(root)
    if node is None or is_null(node):
        return DEFAULT_PROGRAM_TIMEOUT_S, []
    timeout = int(construct(path, node))  # an int, or a float yaml.v3 truncates
    if timeout == 0:
        return DEFAULT_PROGRAM_TIMEOUT_S, []  # Go's zero value: unset
    if timeout < 0:
        problem = f"graders.programTimeout must be >= 1; using {DEFAULT_PROGRAM_TIMEOUT_S} s"
        return DEFAULT_PROGRAM_TIMEOUT_S, [LoadWarning(problem, at(path, node))]
    return timeout, []


def _refuse_as_waza_does(path: Path, root: yaml.MappingNode) -> None:
    """An InputError in waza's words where its Load fails: the strict decode, then
    validateConfig's checks of `files` (0.33.0+) and `registries`."""
    try:
        check_shape(root, PROJECT_CONFIG)
    except ShapeError as err:
        line = err.node.start_mark.line + 1
        raise InputError(
            f"parsing .waza.yaml: yaml: unmarshal errors: line {line}: "
            f"{unmarshal_problem(err, PROJECT_CONFIG)}",
            at(path, err.node),
        ) from None
    _check_files(path, child(root, "files"))
    _check_registries(path, child(root, "registries"))


def _check_files(path: Path, files: yaml.Node | None) -> None:
    """A file name, a glob and a suffix; "" keeps waza's default, so only a value that is set
    can be wrong."""
    for key, bad, wanted in (
        ("evalFile", _bad_file_name, "a filename"),
        ("taskGlob", None, ""),
        ("taskFileSuffix", _bad_suffix, "a filename suffix"),
    ):
        node = child(files, key) if files is not None else None
        value = scalar_text(path, node, key)
        if node is None or not value:
            continue
        if not value.strip():
            raise InputError(f"files.{key} must not be empty", at(path, node))
        if bad is not None and bad(value):
            quoted = go_quote(value)
            raise InputError(f"files.{key} must be {wanted}, got {quoted}", at(path, node))


def _check_registries(path: Path, registries: yaml.Node | None) -> None:
    if not isinstance(registries, yaml.SequenceNode):
        return
    first_index: dict[str, int] = {}
    for index, entry in enumerate(registries.value):
        name = scalar_text(path, child(entry, "name"), "name").strip()
        for key, value in (("name", name), ("url", scalar_text(path, child(entry, "url"), "url"))):
            if not value.strip():
                raise InputError(f"registries[{index}].{key} must not be empty", at(path, entry))
        if name in first_index:
            raise InputError(
                f"registries[{index}].name {go_quote(name)} duplicates "
                f"registries[{first_index[name]}].name",
                at(path, entry),
            )
        first_index[name] = index


def _bad_file_name(value: str) -> bool:
    return "/" in value or "\\" in value or value in (".", "..")


def _bad_suffix(value: str) -> bool:
    return "/" in value or "\\" in value or ".." in value
