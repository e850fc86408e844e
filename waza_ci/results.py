"""waza results files (`waza run --output`): tolerant loading and waza-shaped writing.

The file is kept as parsed JSON (so unknown fields and key order survive a round trip
untouched) and validated with pydantic models of the parts waza-ci reads. Writing follows Go's
`json.MarshalIndent`: two-space indent, `<>&` escaped, integral floats printed as integers.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, BinaryIO

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError

from waza_ci.errors import InputError, Location
from waza_ci.gojson import dumps_go_json, map_json, write_go_json
from waza_ci.jsonstream import parse_streamed

SUPPORTED_SCHEMA_MAJOR = 1
CURRENT_SCHEMA_VERSION = "1.4"
_SCHEMA_VERSION = re.compile(r"^(\d+)\.(\d+)$")
_NOT_RESULTS_KINDS = ("waza.preflight", "waza.release-")


def _go_zero(zero: Any) -> BeforeValidator:
    # Go's decoder leaves a field at its zero value for JSON null; it does not fail.
    return BeforeValidator(lambda value: zero if value is None else value)


GoStr = Annotated[str, _go_zero("")]
GoInt = Annotated[int, _go_zero(0)]
GoFloat = Annotated[float, _go_zero(0.0)]
GoBool = Annotated[bool, _go_zero(False)]


class _Tolerant(BaseModel):
    # Unknown fields are tolerated: newer waza versions add fields within a major version.
    # Types are strict, as Go's decoder is: "false" is not a bool, "1" is not a number.
    model_config = ConfigDict(extra="allow", populate_by_name=True, strict=True)


class SavedVerdict(_Tolerant):
    """A saved `validations.<name>` entry (waza's GraderResults)."""

    identifier: GoStr = ""
    type: GoStr = ""
    score: GoFloat = 0.0
    weight: GoFloat = 0.0
    passed: GoBool = False
    feedback: GoStr = ""
    details: dict[str, Any] | None = None
    duration_ms: GoInt = 0


class SavedRun(_Tolerant):
    """One trial of a task (waza's RunResult), the fields grading reads."""

    run_number: GoInt = 0
    status: GoStr = ""
    duration_ms: GoInt = 0
    validations: dict[str, SavedVerdict] | None = None
    final_output: GoStr = ""
    error_msg: GoStr = ""
    transcript: list[dict[str, Any]] | None = None
    tool_events: list[Any] | None = None
    host_lifecycle: Any = None
    command_invocations: list[Any] | None = None
    user_input_requests: list[Any] | None = None

    @property
    def errored(self) -> bool:
        """waza does not regrade a run that errored in its original execution."""
        return self.status == "error" or bool(self.error_msg)


class SavedTask(_Tolerant):
    """One task's outcome (waza's TestOutcome)."""

    test_id: str
    display_name: GoStr = ""
    status: GoStr = ""
    group: GoStr = ""
    runs: Annotated[list[SavedRun], _go_zero([])] = Field(default_factory=list)


class SavedResults(_Tolerant):
    """The top level of a results file (waza's EvaluationOutcome)."""

    schema_version: str | None = Field(default=None, alias="schemaVersion")
    kind: str | None = None
    eval_id: GoStr = ""
    skill: GoStr = ""
    eval_name: GoStr = ""
    summary: dict[str, Any] | None = None
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

    def tasks_by_id(self) -> dict[str, tuple[int, SavedTask]]:
        return {task.test_id: (index, task) for index, task in enumerate(self.model.tasks)}


def load_results(path: Path, name: str | None = None) -> ResultsFile:
    """Read and validate one results file; every problem is an InputError naming the place."""
    streamed = parse_streamed(
        path, parse_constant=_refuse_constant, flag=_LONE_SURROGATE_ESCAPE
    )  # a piece at a time; None leaves the decision (and any error) to the whole-text parse
    raw, lone_surrogate_escapes = streamed if streamed is not None else _parse_whole(path)
    if lone_surrogate_escapes:
        raw = _replace_lone_surrogates(raw)
    if not isinstance(raw, dict):
        raise InputError(
            "a results file must hold a JSON object", Location(str(path), json_path="$")
        )
    _check_kind_and_version(raw, path)
    try:
        model = SavedResults.model_validate(raw)
    except ValidationError as err:
        first = err.errors()[0]
        raise InputError(
            f"{first['msg'].lower()}", Location(str(path), json_path=_json_path(first["loc"]))
        ) from None
    return ResultsFile(path=path, name=name or path.name, raw=raw, model=model)


def _parse_whole(path: Path) -> tuple[Any, bool]:
    """The whole text parsed at once; the error messages for every malformed file."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError("results file not found", Location(str(path))) from None
    except (OSError, UnicodeDecodeError) as err:
        raise InputError(f"cannot read results file: {err}", Location(str(path))) from None
    try:
        raw = json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as err:
        raise InputError(
            f"invalid JSON: {err.msg} (column {err.colno})", Location(str(path), line=err.lineno)
        ) from None
    except ValueError as err:  # NaN / Infinity: not JSON, and Go refuses them too
        raise InputError(f"invalid JSON: {err}", Location(str(path))) from None
    except RecursionError:
        raise InputError("invalid JSON: nested too deeply", Location(str(path))) from None
    return raw, bool(_LONE_SURROGATE_ESCAPE.search(text))


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


# A \\uD800-\\uDFFF escape; only then can the parsed strings hold lone surrogates.
_LONE_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _replace_lone_surrogates(value: Any) -> Any:
    """Go decodes an unpaired surrogate escape as U+FFFD; Python keeps it, and it cannot be
    encoded as UTF-8 later (stdin, context.json, the regraded file)."""

    def fix(item: Any) -> Any:
        return _SURROGATE.sub("\ufffd", item) if isinstance(item, str) else item

    return map_json(value, fix, fix)


def _check_kind_and_version(raw: Mapping[str, Any], path: Path) -> None:
    kind = raw.get("kind")
    if isinstance(kind, str) and kind.startswith(_NOT_RESULTS_KINDS):
        raise InputError(
            f"not evaluation results (kind {kind!r})", Location(str(path), json_path="$.kind")
        )
    version = raw.get("schemaVersion")
    if version is None or version == "":
        return  # missing means current, as waza reads it
    match = _SCHEMA_VERSION.match(version) if isinstance(version, str) else None
    if match is None:
        raise InputError(
            f"schemaVersion {version!r} is not MAJOR.MINOR",
            Location(str(path), json_path="$.schemaVersion"),
        )
    if int(match.group(1)) != SUPPORTED_SCHEMA_MAJOR:
        raise InputError(
            f"results schemaVersion {version} is not supported (major "
            f"{SUPPORTED_SCHEMA_MAJOR} expected); convert it with `waza migrate {path}`",
            Location(str(path), json_path="$.schemaVersion"),
        )


def _json_path(loc: Sequence[int | str]) -> str:
    parts = ["$"]
    for item in loc:
        parts.append(f"[{item}]" if isinstance(item, int) else f".{item}")
    return "".join(parts)


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


def dump_results(raw: Mapping[str, Any]) -> str:
    """Serialize like Go's json.MarshalIndent(v, "", "  ") with HTML escaping, plus a newline."""
    return dumps_go_json(raw)


def write_results(raw: Mapping[str, Any], stream: BinaryIO) -> None:
    """`dump_results`, written to `stream` piece by piece (never the whole text at once)."""
    write_go_json(raw, stream)


def dump_json(value: Any) -> str:
    """Serialize any JSON value in the same Go-compatible form (used for GradeOutcome)."""
    return dumps_go_json(value)


def iter_runs(results: ResultsFile) -> Iterator[tuple[int, SavedTask, int, SavedRun]]:
    for task_index, task in enumerate(results.model.tasks):
        for run_index, run in enumerate(task.runs):
            yield task_index, task, run_index, run
