"""waza's project config, `.waza.yaml`: found as waza finds it (the nearest one, walking up
from the working directory) and read for what regrading needs, `graders.programTimeout`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from waza_ci.errors import InputError, Location
from waza_ci.waza.spec_schema import PROJECT_CONFIG
from waza_ci.waza.yaml_doc import at, child, construct, is_null, load_optional_yaml

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
    """waza decodes `.waza.yaml` strictly (unknown keys and wrong types fail) and, when it
    fails, uses every default, the 30 s program timeout included; so does this, but it says
    so in one warning that names the file, the line and the problem."""
    try:
        root = load_optional_yaml(path, what="project config", shape=PROJECT_CONFIG)
    except InputError as err:
        fallback = (
            f"; ignored, using waza's defaults ({DEFAULT_PROGRAM_TIMEOUT_S} s program timeout)"
        )
        return DEFAULT_PROGRAM_TIMEOUT_S, [LoadWarning(err.message + fallback, err.location)]
    timeout_node = child(child(root, "graders") or root, "programTimeout") if root else None
    if timeout_node is None or is_null(timeout_node):
        return DEFAULT_PROGRAM_TIMEOUT_S, []
    timeout = int(construct(path, timeout_node))  # an int (or integral float), per the shape
    if timeout < 1:
        problem = f"graders.programTimeout must be >= 1; using {DEFAULT_PROGRAM_TIMEOUT_S} s"
        return DEFAULT_PROGRAM_TIMEOUT_S, [LoadWarning(problem, at(path, timeout_node))]
    return timeout, []
