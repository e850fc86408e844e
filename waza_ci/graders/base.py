"""The one small interface every grader kind implements, and the verdict shapes it returns."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from waza_ci.golang.json import go_number
from waza_ci.waza.results import SavedRun
from waza_ci.waza.scoring import Diagnosis, GraderVerdict, effective_weight
from waza_ci.waza.spec import GraderSpec, TaskSpec


@dataclass(frozen=True)
class GraderSetup:
    """What every grader execution shares: where, with which environment."""

    workspace_dir: str
    working_directory: str
    env: Mapping[str, str]
    temp_dir: str
    workspace_as_given: str | None = None
    """The workspace as the user wrote it, where `workspace_dir` is it made absolute."""

    @property
    def workspace_shown(self) -> str:
        """The workspace in verdicts' details: as given, as `waza grade` passes it on."""
        return self.workspace_dir if self.workspace_as_given is None else self.workspace_as_given


@dataclass(slots=True)  # not frozen: made for every execution, and frozen inits cost 4x
class GraderJob:
    """One grader against one saved run."""

    grader: GraderSpec
    task: TaskSpec
    config: Any
    """What the kind's `configure` made of the grader's `config`, once per grader."""
    run: SavedRun
    context: bytes
    """The run's grading-context file (`context.json`), for kinds that ask for it."""
    timeout_s: int
    timeout_source: str
    setup: GraderSetup
    would_write: dict[str, bytes] = field(default_factory=dict)
    """Files waza would have written so far in this grading, by absolute path (a `diff`
    grader's `update_snapshots`): read back in their place, as later runs read what waza
    wrote; nothing is ever written. Shared by the in-process jobs of one grading."""


@dataclass(slots=True)  # not frozen: made for every verdict, and frozen inits cost 4x
class GraderResult:
    """A verdict twice: in waza's results-file shape (`raw`) and as the report reads it."""

    raw: dict[str, Any]
    verdict: GraderVerdict


class GraderKind(Protocol):
    """A grader kind: waza's `type` name and how to grade one saved run with it."""

    @property
    def kind(self) -> str: ...

    @property
    def needs_context(self) -> bool:
        """Whether `GraderJob.context` must hold the run's serialized context."""
        ...

    @property
    def in_process(self) -> bool:
        """True when grading costs microseconds in this process, not a program's start."""
        ...

    def configure(self, grader: GraderSpec) -> Any:
        """Decode and check the grader's `config` as waza does when it loads the spec; raises
        InputError naming the YAML line. The value returned reaches every job as `config`."""
        ...

    def warnings(self, grader: GraderSpec, config: Any) -> tuple[str, ...]:
        """What the user should know about this grader's config before it runs (shown once)."""
        ...

    def grade(self, job: GraderJob) -> GraderResult: ...

    def cancelled(self, job: GraderJob, message: str) -> GraderResult:
        """The verdict of a job that never ran because grading was cancelled."""
        ...


def raw_verdict(
    grader: GraderSpec,
    passed: bool,
    feedback: str,
    details: dict[str, Any] | None,
    duration_ms: int,
    *,
    score: float | None = None,
    written_type: str | None = None,
    details_in_go_order: bool = False,
) -> dict[str, Any]:
    """A validations entry exactly as waza writes it: `score` defaults to pass/fail, `type`
    to the grader's kind, and `details` is left out when None (Go's `omitempty` on a nil map).
    `details_in_go_order`: the caller built them as `sort_keys` would leave them."""
    raw: dict[str, Any] = {
        "identifier": grader.name,
        "type": grader.kind if written_type is None else written_type,
        "score": go_number((1.0 if passed else 0.0) if score is None else score),
        "weight": go_number(effective_weight(grader.weight)),
        "passed": passed,
        "feedback": feedback,
    }
    if details is not None:
        raw["details"] = details if details_in_go_order else sort_keys(details)
    raw["duration_ms"] = duration_ms
    return raw


class GoStruct(dict[str, Any]):
    """A Go struct inside `details`: Go prints its fields in declaration order, where it prints a
    map's keys sorted. A kind builds one with its fields in waza's struct order."""


def sort_keys(value: Any) -> Any:
    """`value` as Go prints it: every map's keys sorted, every struct's fields in their order,
    whole floats as ints (see `go_number`), at any depth. (Written for speed, type checks by
    identity and inline: it runs for every verdict.)"""
    kind = type(value)
    if kind is dict:
        return {
            key: sort_keys(item) if type(item) in _CONVERTED else item
            for key, item in sorted(value.items())
        }
    if kind is list or kind is tuple:
        return [sort_keys(item) if type(item) in _CONVERTED else item for item in value]
    if kind is float:
        return go_number(value)
    if kind is GoStruct:
        return GoStruct(
            {
                key: sort_keys(item) if type(item) in _CONVERTED else item
                for key, item in value.items()
            }
        )
    return value


_CONVERTED = frozenset({dict, list, tuple, GoStruct, float})


def regraded_verdict(
    raw: Mapping[str, Any],
    *,
    error: str | None = None,
    notes: tuple[str, ...] = (),
    diagnosis: Diagnosis | None = None,
    kind: str | None = None,
) -> GraderVerdict:
    """The report's view of a verdict this grading produced (`raw` is our own dict); `kind`
    is the grader's kind where the written `type` differs (waza writes "" for some)."""
    return GraderVerdict(
        name=str(raw.get("identifier", "")),
        kind=str(raw.get("type", "")) if kind is None else kind,
        score=float(raw.get("score", 0.0)),
        weight=float(raw.get("weight", 0.0)),
        passed=bool(raw.get("passed", False)),
        feedback=str(raw.get("feedback", "")),
        regraded=True,
        error=error,
        notes=notes,
        duration_ms=int(raw.get("duration_ms", 0)),
        diagnosis=diagnosis,
    )
