"""Load errors of results files in waza's words.

Two kinds. A JSON file that is not a results file at all (a task snapshot, a dashboard export,
a preflight report, an object with no `tasks`) is named for what it is, with what waza-ci reads
instead. A results file that does not fit waza's structs is named by its JSON path, what waza
wants there (its Go struct's name for an object: "an object (waza's MeasureResult)") and what
the file holds, never by a Python class.
"""

from __future__ import annotations

import re
import types
import typing
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel
from pydantic_core import ErrorDetails

WANTED_FILE = (
    "waza-ci's --results and --baseline (action inputs `results`, `baseline`) take the results "
    "file `waza run --output` writes: an object whose `tasks` hold each task's `runs`"
)

# Each model's struct in waza (internal/models/outcome.go); every model is listed, so no
# message can fall back to a Python class name (tests/waza/test_results_errors.py checks it).
GO_STRUCTS: Mapping[str, str] = {
    "SavedResults": "EvaluationOutcome",
    "OutcomeFields": "EvaluationOutcome",
    "BaselineOutcome": "EvaluationOutcome",
    "SavedTask": "TestOutcome",
    "TaskFields": "TestOutcome",
    "BaselineTask": "TestOutcome",
    "SavedRun": "RunResult",
    "RunFields": "RunResult",
    "GraderResults": "GraderResults",
    "SessionDigest": "SessionDigest",
    "UsageStats": "UsageStats",
    "ModelUsage": "ModelUsage",
    "ToolPolicyDenial": "ToolPolicyDenial",
    "SkillInvocation": "SkillInvocation",
    "FailureArtifacts": "FailureArtifacts",
    "ResponderInfo": "ResponderInfo",
    "CheckpointOutcome": "CheckpointOutcome",
    "TestStats": "TestStats",
    "ConfidenceInterval": "statistics.ConfidenceInterval",
    "PairwiseResult": "PairwiseResult",
    "SkillImpactMetric": "SkillImpactMetric",
    "OutcomeSetup": "OutcomeSetup",
    "OutcomeDigest": "OutcomeDigest",
    "GroupStats": "GroupStats",
    "StatisticalSummary": "StatisticalSummary",
    "MeasureResult": "MeasureResult",
    "EvaluationUsage": "EvaluationUsage",
    "EvaluationSessionUsage": "EvaluationSessionUsage",
}

_SNAPSHOT_KIND = "task-snapshot"
_DASHBOARD_KEYS = ("passCount", "taskCount")


def not_results(raw: Any) -> str | None:
    """What this parsed JSON is when it is plainly not a results file, or None."""
    if isinstance(raw, list):
        dashboard = bool(raw) and all(_dashboard_run(item) for item in raw)
        return (
            "a waza dashboard export (the list of runs `waza serve` shows)" if dashboard else None
        )
    if not isinstance(raw, Mapping):
        return None
    by_kind = _by_kind(raw.get("kind"))
    if by_kind is None and _dashboard_run(raw):
        return (
            "a waza dashboard export (one run as `waza serve` shows it: `passCount`, "
            "`tasks[].graderResults`)"
        )
    return by_kind


def _by_kind(kind: Any) -> str | None:
    """The artifacts waza marks with a `kind` (a results file has none)."""
    if kind == _SNAPSHOT_KIND:
        return (
            "a waza task snapshot (`kind: task-snapshot`: one run of one task, written by "
            "`waza run --snapshot` for `waza replay`)"
        )
    for prefix, what in _KIND_PREFIXES:
        if isinstance(kind, str) and kind.startswith(prefix):
            return f"{what} (`kind: {kind}`)"
    return None


_KIND_PREFIXES = (
    ("waza.preflight", "a waza preflight report"),
    ("waza.release-", "a waza release record"),
)


def missing_tasks(raw: Mapping[str, Any]) -> str | None:
    """Why an object that passed `not_results` is still none: it has no `tasks` at all."""
    if "tasks" in raw:
        return None
    return (
        "not evaluation results: this JSON object has no `tasks`, which every results file of "
        f"`waza run` has; {WANTED_FILE}"
    )


def _dashboard_run(raw: Any) -> bool:
    if not isinstance(raw, Mapping) or "test_id" in raw or "eval_id" in raw:
        return False
    if any(key in raw for key in _DASHBOARD_KEYS):
        return True
    tasks = raw.get("tasks")
    return (
        isinstance(tasks, list)
        and bool(tasks)
        and all(isinstance(t, Mapping) and "test_id" not in t for t in tasks)
        and any(isinstance(t, Mapping) and "graderResults" in t for t in tasks)
    )


def describe_error(
    root: type[BaseModel],
    error: ErrorDetails,
    *,
    structs: Mapping[str, str] = GO_STRUCTS,
    owner: str = "waza's",
) -> tuple[str, str]:
    """One validation error as (message, JSON path), in waza's words (or, with `structs` and
    `owner`, in the words of another format's own names)."""
    loc = tuple(error["loc"])
    where = json_path(loc)
    kind = error["type"]
    if kind == "missing":
        parent = _struct_name(_shape_at(root, loc[:-1]), structs)
        return f"required: {owner} {parent} needs `{loc[-1]}` here", where
    wanted = _wanted(_shape_at(root, loc), structs, owner)
    got = _json_kind(error["input"])
    if kind in ("less_than", "greater_than_equal", "less_than_equal", "greater_than"):
        return f"want {wanted} that fits Go's 64-bit integer, got {got}", where
    if kind == "value_error":
        reason = str(error.get("ctx", {}).get("error", error["msg"]))
        if "RFC 3339" in reason:
            wanted = "an RFC 3339 date and time (waza's time.Time)"
        return f"want {wanted}, got {got}", where
    return f"want {wanted}, got {got}", where


def json_path(loc: Sequence[int | str]) -> str:
    """`$.tasks[0].runs[1].validations.name`, with a key that is not a plain word quoted."""
    parts = ["$"]
    for item in loc:
        if isinstance(item, int):
            parts.append(f"[{item}]")
        elif _PLAIN_KEY.fullmatch(item):
            parts.append(f".{item}")
        else:
            parts.append("[" + _quote(item) + "]")
    return "".join(parts)


_PLAIN_KEY = re.compile(r"[A-Za-z0-9_-]+")


def _quote(key: str) -> str:
    return '"' + key.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _shape_at(root: Any, loc: Sequence[int | str]) -> Any:
    """The declared type at `loc`, walking the models' annotations (Any when unknown)."""
    current: Any = root
    for item in loc:
        current = _unwrap(current)
        if isinstance(current, type) and issubclass(current, BaseModel):
            field = current.model_fields.get(str(item))
            if field is None:
                return Any
            current = field.annotation
        elif typing.get_origin(current) in (list, dict):
            current = typing.get_args(current)[-1]
        else:
            return Any
    return _unwrap(current)


def _unwrap(annotation: Any) -> Any:
    """Strip Annotated[...] and `X | None` down to the type itself."""
    while True:
        origin = typing.get_origin(annotation)
        if origin is typing.Annotated:
            annotation = typing.get_args(annotation)[0]
        elif origin in (typing.Union, types.UnionType):
            members = [a for a in typing.get_args(annotation) if a is not type(None)]
            if len(members) != 1:
                return annotation
            annotation = members[0]
        else:
            return annotation


def _wanted(shape: Any, structs: Mapping[str, str], owner: str) -> str:
    if isinstance(shape, type) and issubclass(shape, BaseModel):
        return f"an object ({owner} {_struct_name(shape, structs)})"
    origin = typing.get_origin(shape)
    if origin is list:
        return "a list"
    if origin is dict or shape is dict:
        return "an object"
    return _SCALARS.get(shape, "another value")


_SCALARS: Mapping[Any, str] = {
    str: "a string",
    int: "a whole number",
    float: "a number",
    bool: "true or false",
}


def _struct_name(shape: Any, structs: Mapping[str, str]) -> str:
    name = getattr(shape, "__name__", "")
    return structs.get(name, "struct")


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return f"the number {value!r}"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"
