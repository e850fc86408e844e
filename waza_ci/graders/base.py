"""The one small interface every grader kind implements, and the verdict shapes it returns."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from waza_ci.waza.results import SavedRun
from waza_ci.waza.scoring import Diagnosis, Verdict, effective_weight
from waza_ci.waza.spec import GraderSpec


@dataclass(frozen=True)
class GraderSetup:
    """What every grader execution shares: where, with which environment."""

    workspace_dir: str
    working_directory: str
    env: Mapping[str, str]
    temp_dir: str


@dataclass(frozen=True)
class GraderJob:
    """One grader against one saved run."""

    grader: GraderSpec
    run: SavedRun
    context: bytes
    """The run's grading-context file (`context.json`), for kinds that ask for it."""
    timeout_s: int
    timeout_source: str
    setup: GraderSetup


@dataclass(frozen=True)
class GraderResult:
    """A verdict twice: in waza's results-file shape (`raw`) and as the report reads it."""

    raw: dict[str, Any]
    verdict: Verdict


class GraderKind(Protocol):
    """A grader kind: waza's `type` name and how to grade one saved run with it."""

    @property
    def kind(self) -> str: ...

    @property
    def needs_context(self) -> bool:
        """Whether `GraderJob.context` must hold the run's serialized context."""
        ...

    def grade(self, job: GraderJob) -> GraderResult: ...

    def cancelled(self, job: GraderJob, message: str) -> GraderResult:
        """The verdict of a job that never ran because grading was cancelled."""
        ...


def raw_verdict(
    grader: GraderSpec, passed: bool, feedback: str, details: dict[str, Any], duration_ms: int
) -> dict[str, Any]:
    """A validations entry exactly as waza writes it."""
    return {
        "identifier": grader.name,
        "type": grader.kind,
        "score": 1.0 if passed else 0.0,
        "weight": effective_weight(grader.weight),
        "passed": passed,
        "feedback": feedback,
        "details": dict(sorted(details.items())),  # Go prints map keys sorted
        "duration_ms": duration_ms,
    }


def regraded_verdict(
    raw: Mapping[str, Any],
    *,
    error: str | None = None,
    notes: tuple[str, ...] = (),
    diagnosis: Diagnosis | None = None,
) -> Verdict:
    """The report's view of a verdict this grading produced (`raw` is our own dict)."""
    return Verdict(
        name=str(raw.get("identifier", "")),
        kind=str(raw.get("type", "")),
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
