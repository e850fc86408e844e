"""waza results files (`waza run --output`): tolerant loading and waza-shaped writing.

The file is kept as parsed JSON (so unknown fields and key order survive a round trip
untouched) and validated with pydantic models of the parts waza-ci reads. Writing follows Go's
`json.MarshalIndent`: two-space indent, `<>&` escaped, integral floats printed as integers.
"""

from __future__ import annotations

import glob
import json
import math
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, BinaryIO

from pydantic import BeforeValidator, Field, ValidationError

from waza_ci.errors import WINDOWS_PATH_HINT, InputError, Location, windows_path
from waza_ci.files import (
    MAX_RESULTS_BYTES,
    RESULTS_LIMIT_HINT,
    identity,
    open_regular_file,
    read_regular_file,
)
from waza_ci.golang.json import dumps_go_json, map_json, write_go_json
from waza_ci.waza.broken_json import decode_json_bytes, json_syntax_error
from waza_ci.waza.identity import EvalIdentity
from waza_ci.waza.jsonstream import parse_streamed
from waza_ci.waza.results_errors import WANTED_FILE, describe_error, missing_tasks, not_results
from waza_ci.waza.results_schema import GraderResults, OutcomeFields, RunFields, TaskFields
from waza_ci.waza.schema_version import schema_version_problem


def _go_zero(zero: Any) -> BeforeValidator:
    # Go's decoder leaves a field at its zero value for JSON null; it does not fail.
    return BeforeValidator(lambda value: zero if value is None else value)


SavedVerdict = GraderResults
"""A saved `validations.<name>` entry (waza's GraderResults)."""


class SavedRun(RunFields):
    """One trial of a task (waza's RunResult), typed in full, plus the context fields that
    waza-ci passes to graders."""

    host_lifecycle: Any = None
    user_input_requests: list[Any] | None = None

    @property
    def errored(self) -> bool:
        """waza does not regrade a run that errored in its original execution."""
        return self.status == "error" or bool(self.error_msg)


class SavedTask(TaskFields):
    """One task's outcome (waza's TestOutcome)."""

    test_id: str
    runs: Annotated[list[SavedRun], _go_zero([])] = Field(default_factory=list)


class SavedResults(OutcomeFields):
    """The top level of a results file (waza's EvaluationOutcome)."""

    schema_version: str | None = Field(default=None, alias="schemaVersion")
    kind: str | None = None
    tasks: Annotated[list[SavedTask], _go_zero([])] = Field(default_factory=list)


@dataclass(frozen=True)
class ResultsFile:
    """A loaded results file: where it came from, its raw JSON, and the validated view."""

    path: Path
    name: str
    """How reports and GradeOutcome keys name this file (its file name, unless ambiguous)."""
    raw: dict[str, Any]
    model: SavedResults

    def raw_run(self, task_index: int, run_index: int) -> dict[str, Any]:
        run: dict[str, Any] = self.raw["tasks"][task_index]["runs"][run_index]
        return run

    @property
    def eval_identity(self) -> EvalIdentity:
        """The eval that wrote this file, as it says (`eval_name`, `skill`)."""
        return EvalIdentity(self.model.eval_name, self.model.skill)

    def tasks_by_id(self) -> dict[str, tuple[int, SavedTask]]:
        return {task.test_id: (index, task) for index, task in enumerate(self.model.tasks)}


def load_results(
    path: Path, name: str | None = None, *, max_bytes: int = MAX_RESULTS_BYTES
) -> ResultsFile:
    """Read and validate one results file; every problem is an InputError naming the place."""
    # Checked first (a regular file within the cap), then read a piece at a time, so the text
    # and the document never both exist whole; None leaves the decision (and the wording of
    # any error) to the whole-text parse.
    with open_regular_file(
        path, what="results file", max_bytes=max_bytes, hint=RESULTS_LIMIT_HINT
    ) as source:
        streamed = parse_streamed(source, flag=_LONE_SURROGATE_ESCAPE)
    raw, lone_surrogate_escapes = (
        streamed if streamed is not None else _parse_whole(path, max_bytes)
    )
    if lone_surrogate_escapes:
        raw = _replace_lone_surrogates(raw)
    what = not_results(raw)
    if what is not None:
        raise InputError(
            f"not evaluation results: this is {what}; {WANTED_FILE}", Location(str(path))
        )
    if not isinstance(raw, dict):
        raise InputError(
            "a results file must hold a JSON object", Location(str(path), json_path="$")
        )
    _check_version(raw, path)
    problem = missing_tasks(raw)
    if problem is not None:
        raise InputError(problem, Location(str(path)))
    try:
        model = SavedResults.model_validate(raw)
    except ValidationError as err:
        message, where = describe_error(SavedResults, err.errors()[0])
        raise InputError(message, Location(str(path), json_path=where)) from None
    return ResultsFile(path=path, name=name or path.name, raw=raw, model=model)


def _parse_whole(path: Path, max_bytes: int) -> tuple[Any, bool]:
    data = read_regular_file(
        path, what="results file", max_bytes=max_bytes, hint=RESULTS_LIMIT_HINT
    )
    text = decode_json_bytes(data, path)  # an empty, compressed or UTF-16 file says so
    del data
    return _parse_json(text, path), bool(_LONE_SURROGATE_ESCAPE.search(text))


class _NotFinite:
    """Stands in for a number JSON cannot hold (NaN, Infinity, 1e999) until its path is found."""

    def __init__(self, literal: str) -> None:
        self.literal = literal


def _parse_json(text: str, path: Path) -> Any:
    """json.loads, with every problem an InputError: a syntax error names its line, a number
    that is not a finite float64 (which Go refuses and JSON cannot hold) its JSON path."""
    odd: list[_NotFinite] = []

    def not_finite(literal: str) -> _NotFinite:
        odd.append(_NotFinite(literal))
        return odd[-1]

    def number(literal: str) -> float | _NotFinite:
        value = float(literal)
        return value if math.isfinite(value) else not_finite(literal)

    try:
        raw = json.loads(text, parse_float=number, parse_constant=not_finite)
    except json.JSONDecodeError as err:
        raise json_syntax_error(text, err, path) from None
    except ValueError as err:  # an integer of more digits than Python converts
        raise InputError(f"invalid JSON: {_one_line(str(err))}", Location(str(path))) from None
    except RecursionError:
        raise InputError("invalid JSON: nested too deeply", Location(str(path))) from None
    if odd:
        where = _find_path(raw, lambda value: isinstance(value, _NotFinite))
        raise InputError(
            f"{odd[0].literal} is not a finite JSON number (waza reads numbers as float64)",
            Location(str(path), json_path=where),
        )
    return raw


def _find_path(value: Any, wanted: Callable[[Any], bool]) -> str:
    """The JSON path of the first value (in document order) for which `wanted` is true."""
    pending: list[tuple[Any, str]] = [(value, "$")]
    while pending:
        current, where = pending.pop()
        if wanted(current):
            return where
        if isinstance(current, dict):
            pending.extend((item, f"{where}.{key}") for key, item in reversed(current.items()))
        elif isinstance(current, list):
            pending.extend(
                (item, f"{where}[{i}]") for i, item in reversed(list(enumerate(current)))
            )
    return "$"


def _one_line(text: str) -> str:
    return " ".join(text.split())


# A \\uD800-\\uDFFF escape; only then can the parsed strings hold lone surrogates.
_LONE_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _replace_lone_surrogates(value: Any) -> Any:
    """Go decodes an unpaired surrogate escape as U+FFFD; Python keeps it, and it cannot be
    encoded as UTF-8 later (stdin, context.json, the regraded file)."""

    def fix(item: Any) -> Any:
        return _SURROGATE.sub("\ufffd", item) if isinstance(item, str) else item

    return map_json(value, fix, fix)


def _check_version(raw: Mapping[str, Any], path: Path) -> None:
    version = raw.get("schemaVersion")
    if version is None:
        return  # missing or null means current, as waza reads it
    where = Location(str(path), json_path="$.schemaVersion")
    if not isinstance(version, str):
        raise InputError("schemaVersion must be a string", where)
    problem = schema_version_problem(version)
    if problem is not None:
        raise InputError(problem, where)


def load_results_files(
    patterns: Sequence[str], max_bytes: int = MAX_RESULTS_BYTES
) -> list[ResultsFile]:
    """Expand paths and globs (recursive `**`), in order, each file once."""
    if not patterns:
        raise InputError("no results files given (--results)")
    paths: list[Path] = []
    for pattern in patterns:
        if glob.has_magic(pattern):
            found = [Path(p) for p in sorted(glob.glob(pattern, recursive=True))]
            files = [p for p in found if p.is_file()]
            if not files:
                windows = f"; {WINDOWS_PATH_HINT}" if windows_path(pattern) else ""
                raise InputError(f"results glob {pattern!r} matched no file{windows}")
            paths.extend(files)
        else:
            paths.append(Path(pattern))
    unique = list({identity(path): path for path in reversed(paths)}.values())[::-1]
    return [
        load_results(path, name, max_bytes=max_bytes)
        for path, name in zip(unique, name_results_files(unique), strict=True)
    ]


def name_results_files(paths: Sequence[Path]) -> list[str]:
    """Names for reports, GradeOutcome keys and the files of an `--output` folder: the file
    name, or, where two files share one, each path relative to the folder they all share.

    Such a name is never absolute and never climbs with `..`, so it stays inside a folder.
    """
    names = [path.name for path in paths]
    if len(set(names)) == len(names):
        return names
    resolved = [path.resolve() for path in paths]
    common = Path(os.path.commonpath([str(path.parent) for path in resolved]))
    return [path.relative_to(common).as_posix() for path in resolved]


def write_results(raw: Mapping[str, Any], stream: BinaryIO) -> None:
    """Written as Go's json.MarshalIndent(v, "", "  ") with HTML escaping, plus a newline, to
    `stream` piece by piece (never the whole text at once). NaN and Infinity are not JSON;
    writing one would be a bug, so it fails (ValueError)."""
    write_go_json(raw, stream)


def dump_json(value: Any) -> str:
    """Serialize any JSON value in the same Go-compatible form (used for GradeOutcome)."""
    return dumps_go_json(value)
