"""The history file: JSON Lines, one record per recorded grading, oldest first.

Read whole before any grader runs: a line that is not a record (not JSON, a wrong type, a newer
schema, too long) is an InputError naming the file and the line (exit 2), and the file is not
used — never a line silently skipped, which would judge against a history nobody wrote. A file
that does not exist is an empty history (the first run, or an evicted cache).

Writing appends one record and keeps the newest `keep` records of the graded eval; every other
line stays as it was, byte for byte. The engine writes the text whole (a temporary sibling,
renamed into place) with the other outputs, so no reader sees half a file.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from waza_ci.errors import InputError, Location
from waza_ci.files import read_regular_file
from waza_ci.gate.baseline import PassCount, Side
from waza_ci.gate.history_limits import (
    DEFAULT_KEEP,
    DEFAULT_WINDOW,
    MAX_HISTORY_BYTES,
    MAX_LINE_BYTES,
    MAX_TASKS_PER_RECORD,
    SCHEMA_VERSION,
)
from waza_ci.waza.identity import EvalIdentity, another_eval
from waza_ci.waza.scoring import GradeSummary, Status, TaskGrade
from waza_ci.waza.usage import aggregate_usage, run_usages

# --- the record, as written and read -------------------------------------------------------------


class _Strict(BaseModel):
    # Unknown fields are tolerated (a later version may add some); the known ones are strict.
    model_config = ConfigDict(extra="ignore", strict=True, frozen=True)


class GraderTally(_Strict):
    passed: int = Field(ge=0)
    failed: int = Field(ge=0)


class TaskEntry(_Strict):
    """One task of one recorded grading."""

    id: str
    runs: int = Field(ge=0)
    passed: int = Field(ge=0)
    errored: int = Field(default=0, ge=0)
    score: float = Field(default=0.0, allow_inf_nan=False)
    tokens: int = Field(default=0, ge=0)
    golden: bool = False
    graders: dict[str, GraderTally] = Field(default_factory=dict)

    @property
    def count(self) -> PassCount:
        return PassCount(min(self.passed, self.runs), self.runs)


class EvalEntry(_Strict):
    name: str = ""
    skill: str = ""


class HistoryRecord(_Strict):
    """One recorded grading: which eval, where it ran, and per task what it found."""

    schema_version: int
    eval: EvalEntry
    commit: str = ""
    ref: str = ""
    event: str = ""
    run_id: str = ""
    run_attempt: str = ""
    time: str = ""
    tasks: list[TaskEntry] = Field(max_length=MAX_TASKS_PER_RECORD)

    @property
    def identity(self) -> EvalIdentity:
        return EvalIdentity(self.eval.name, self.eval.skill)

    @property
    def runs(self) -> PassCount:
        """Every task's runs, pooled: the eval's share of runs passed in this grading."""
        return PassCount(sum(t.count.passed for t in self.tasks), sum(t.runs for t in self.tasks))


@dataclass(frozen=True)
class HistoryLine:
    """A line of the file: its number (from 1), its text as read, and its record."""

    number: int
    text: str
    record: HistoryRecord


@dataclass(frozen=True)
class HistoryFile:
    """The file as read: every record, oldest first; `exists` is False for a file not there."""

    path: Path
    lines: tuple[HistoryLine, ...] = ()
    exists: bool = False


# --- reading ---------------------------------------------------------------------------------


def load_history(path: Path) -> HistoryFile:
    """The records at `path`, or an empty history when no file is there. Raises InputError
    naming the file and the line for a line that is not a record."""
    if not path.exists() and not path.is_symlink():
        return HistoryFile(path)
    data = read_regular_file(
        path,
        what="the history file",
        max_bytes=MAX_HISTORY_BYTES,
        hint="lower --history-keep (input `history-keep`), or start a new file",
    )
    lines: list[HistoryLine] = []
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if not raw.strip():
            continue
        lines.append(HistoryLine(number, *_record(raw, path, number)))
    return HistoryFile(path, tuple(lines), exists=True)


_FIX = (
    "the history file is waza-ci's own (--history, input `history`): remove the line, or the file "
    "to start the history again"
)


def _record(raw: bytes, path: Path, number: int) -> tuple[str, HistoryRecord]:
    where = Location(str(path), number)
    if len(raw) > MAX_LINE_BYTES:
        raise InputError(
            f"history line {number} is longer than {MAX_LINE_BYTES:,} bytes; {_FIX}", where
        )
    try:
        text = raw.decode("utf-8")
        value = json.loads(text)
    except UnicodeDecodeError as err:
        raise InputError(
            f"history line {number} is not valid UTF-8 (byte {err.start}); {_FIX}", where
        ) from None
    except (ValueError, RecursionError) as err:
        why = err.msg if isinstance(err, json.JSONDecodeError) else "not JSON"
        raise InputError(f"history line {number} is not JSON ({why}); {_FIX}", where) from None
    if not isinstance(value, dict):
        raise InputError(f"history line {number} is not a JSON object; {_FIX}", where)
    version = value.get("schema_version")
    if isinstance(version, int) and not isinstance(version, bool) and version > SCHEMA_VERSION:
        raise InputError(
            f"history line {number} has schema_version {version}, newer than this waza-ci "
            f"reads ({SCHEMA_VERSION}): use the waza-ci that wrote it, or start a new file",
            where,
        )
    try:
        record = HistoryRecord.model_validate(value)
    except ValidationError as err:
        first = err.errors()[0]
        at = ".".join(str(part) for part in first["loc"]) or "(the record)"
        raise InputError(
            f"history line {number} is not a history record: at {at}: {first['msg']}; {_FIX}",
            where,
        ) from None
    return text, record


# --- recording -------------------------------------------------------------------------------


@dataclass(frozen=True)
class RunContext:
    """Where the recorded grading ran (GitHub's variables; "" outside Actions)."""

    commit: str = ""
    ref: str = ""
    event: str = ""
    run_id: str = ""
    run_attempt: str = ""
    default_branch: str = ""
    """The repository's default branch, when the event says it: only its records judge."""

    @classmethod
    def of(cls, runner: _Runner) -> RunContext:
        """From the runner's environment (github/environment.py's RunnerEnv)."""
        return cls(
            commit=runner.sha,
            ref=runner.ref,
            event=runner.event_name,
            run_id=runner.run_id,
            run_attempt=runner.run_attempt,
            default_branch=runner.default_branch,
        )


class _Runner(Protocol):
    """What a record reads of the runner (RunnerEnv has it; gate/ does not import github/)."""

    @property
    def sha(self) -> str: ...
    @property
    def ref(self) -> str: ...
    @property
    def event_name(self) -> str: ...
    @property
    def run_id(self) -> str: ...
    @property
    def run_attempt(self) -> str: ...
    @property
    def default_branch(self) -> str: ...


@dataclass(frozen=True)
class HistoryOptions:
    """`--history FILE` (input `history`) and what goes with it."""

    path: Path | None = None
    record: bool = False
    """Append this grading's record (`--record`, input `history-record`)."""
    keep: int = DEFAULT_KEEP
    window: int = DEFAULT_WINDOW
    context: RunContext = field(default_factory=RunContext)


def build_record(
    summary: GradeSummary,
    sides: Sequence[Side],
    identity: EvalIdentity,
    raw_files: Mapping[str, Mapping[str, Any]],
    *,
    context: RunContext,
    time: str,
) -> HistoryRecord:
    """The record of one grading: `sides` are the graded tasks as the gate sees them
    (`baseline_io.current_sides`), `raw_files` the regraded files by results name (tokens)."""
    by_key = {task.key: task for task in summary.tasks}
    tasks = [
        _entry(side, by_key[side.key], raw_files)
        for side in sides
        if side.compared and side.key in by_key
    ]
    return HistoryRecord(
        schema_version=SCHEMA_VERSION,
        eval=EvalEntry(name=identity.name, skill=identity.skill),
        commit=context.commit,
        ref=context.ref,
        event=context.event,
        run_id=context.run_id,
        run_attempt=context.run_attempt,
        time=time,
        tasks=tasks,
    )


def _entry(side: Side, task: TaskGrade, raw_files: Mapping[str, Mapping[str, Any]]) -> TaskEntry:
    return TaskEntry(
        id=side.key,
        runs=side.runs.total,
        passed=side.runs.passed,
        errored=sum(1 for run in task.runs if run.status == Status.ERROR),
        score=round(task.overall_score, 6),
        tokens=_tokens(raw_files.get(task.results_name), task.test_id),
        golden=side.golden,
        graders={
            name: GraderTally(passed=count.passed, failed=count.total - count.passed)
            for name, count in side.graders.items()
        },
    )


def _tokens(raw: Mapping[str, Any] | None, test_id: str) -> int:
    """Input and output tokens of the task's runs, as waza's usage sums them."""
    tasks = raw.get("tasks") if raw is not None else None
    for task in tasks if isinstance(tasks, list) else ():
        if isinstance(task, Mapping) and task.get("test_id") == test_id:
            runs = task.get("runs")
            runs = runs if isinstance(runs, list) else []
            total = aggregate_usage(
                usage for run in runs if isinstance(run, Mapping) for usage in run_usages(run)
            )
            if total is None:
                return 0
            return int(total.get("input_tokens", 0)) + int(total.get("output_tokens", 0))
    return 0


def record_line(record: HistoryRecord) -> str:
    """The record as one line of JSON (no newline inside: strings escape theirs)."""
    return json.dumps(record.model_dump(mode="json"), ensure_ascii=False, separators=(",", ":"))


def appended_text(
    history: HistoryFile,
    record: HistoryRecord,
    *,
    keep: int,
    renamed_from: Collection[str] = (),
) -> str:
    """The file's new text: its lines, the record appended, and of the graded eval's records
    only the newest `keep` (older ones of the eval are dropped, every other line kept)."""
    same = [
        line.number
        for line in history.lines
        if another_eval("", line.record.identity, record.identity, renamed_from) is None
    ]
    dropped = set(same[: max(0, len(same) + 1 - keep)])
    kept = (line.text for line in history.lines if line.number not in dropped)
    return _joined((*kept, record_line(record)))


def _joined(lines: Iterable[str]) -> str:
    return "".join(f"{line}\n" for line in lines)


def recorded_text(
    history: HistoryFile,
    summary: GradeSummary,
    sides: Sequence[Side],
    identity: EvalIdentity,
    raw_files: Mapping[str, Mapping[str, Any]],
    *,
    options: HistoryOptions,
    renamed_from: Collection[str] = (),
    time: str,
) -> str:
    """The history's new text with this grading's record appended (see `appended_text`)."""
    record = build_record(summary, sides, identity, raw_files, context=options.context, time=time)
    return appended_text(history, record, keep=options.keep, renamed_from=renamed_from)
