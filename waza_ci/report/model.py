"""The Report: the machine-readable report every renderer starts from, and its JSON. Pure.

One row per (task, grader) with its status, the one-line reason, runs failed out of runs
graded, durations, the grader's YAML line (and its URL at the commit, when known) and its
distinct feedback texts with the runs that produced each. Above the rows: the counts, a
banner when every execution failed the same way, graders failing on every task, the slowest
graders (build.py fills them in). `report_json(report, decision)` is the `report-json` file
(the step's decision, made from the Report by decision.py, beside it); the Markdown,
annotations and terminal renderers only format what is here, so they agree with the file.

Texts are kept as the grader wrote them (cleaned of control characters); escaping is the
renderers' job, each for its own medium.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from waza_ci.judge.spend import JudgeReport
from waza_ci.verdict import Decision
from waza_ci.waza.identity import AnotherEval
from waza_ci.waza.kinds import PROCESS_KINDS
from waza_ci.waza.scoring import (
    NotEvaluated,
    Problem,
    SkippedTask,
    Status,
)

REPORT_VERSION = 1
SLOWEST_GRADERS = 5


@dataclass(frozen=True)
class SourceLinks:
    """Where the graders' YAML can be seen on GitHub: `<server>/<repo>/blob/<sha>/<path>#L<n>`."""

    server_url: str
    repository: str
    sha: str

    def url(self, path: str, line: int) -> str:
        where = f"{quote(self.repository, safe='/')}/blob/{quote(self.sha)}/{quote(path)}"
        return f"{self.server_url.rstrip('/')}/{where}#L{line}"


@dataclass(frozen=True)
class Source:
    """A YAML line: the repository-relative path, the 1-based line, its URL when known."""

    path: str
    """Repository-relative; "" for a file outside the repository (then `shown` names it)."""
    line: int
    url: str | None = None
    shown: str = ""
    ref: str = ""
    """A `ref:` grader's module reference (the line is its entry), shown beside the line."""

    def __str__(self) -> str:
        line = f"{self.path or self.shown}:{self.line}"
        return f"{line} (ref {self.ref})" if self.ref else line


@dataclass(frozen=True)
class FeedbackGroup:
    """One distinct text and the runs that produced it (identical texts are shown once)."""

    text: str
    runs: tuple[int, ...]


@dataclass(frozen=True)
class Flip:
    """A run whose regraded verdict is the opposite of the one the results file holds: the
    grader (or what it reads) changed since the run."""

    run: int
    saved_passed: bool
    passed: bool


@dataclass(frozen=True)
class KindCount:
    """How many verdicts of one grader kind this grading produced again, and how many it kept."""

    kind: str
    regraded: int
    kept: int


@dataclass(frozen=True)
class GraderRow:
    """One grader on one task, over all the task's graded runs."""

    task_key: str
    grader: str
    kind: str
    status: Status
    problem: Problem | None
    """For `error`: not-started, timed-out, cancelled or cleanup."""
    reason: str
    hint: str | None
    runs_failed: int
    """Runs where it did not pass (errors included)."""
    runs_total: int
    regraded: bool
    """False for a saved verdict kept unchanged (a prompt grader, …)."""
    duration_ms: int
    max_duration_ms: int
    source: Source
    feedback: tuple[FeedbackGroup, ...]
    """The distinct texts of the runs that did not pass, most frequent first."""
    notes: tuple[str, ...] = ()
    """waza-ci's notes on any run (output cut to the cap, …), distinct, passing runs too."""
    graded: bool = True
    """False when no grader said anything about the task: the row says why (its reason)."""
    flips: tuple[Flip, ...] = ()
    setup: bool = False
    """The grader could not run (a missing command, script, module or file): the setup's
    fault, which fails the step under every `fail-on` (see decision.py)."""

    @property
    def ran_a_program(self) -> bool:
        """Whether this grader was re-graded here by starting a process: only such a grader's
        time says something. In-process graders take a millisecond or none, so their time
        would come and go between two gradings of the same inputs."""
        return self.regraded and self.kind in PROCESS_KINDS

    @property
    def not_run(self) -> str | None:
        """How a row waza-ci did not run is marked: `kept` (a saved verdict) or `not graded`."""
        if self.regraded:
            return None
        return "kept" if self.graded else "not graded"


@dataclass(frozen=True)
class DroppedGrader:
    """A grader whose saved verdicts this grading dropped: it is no longer in the spec. Shown
    under "Changed since the run", so that removing a failing grader is never silent."""

    task_key: str
    grader: str
    runs: int
    saved_failed: int
    """Of `runs`, how many saved verdicts had failed."""


@dataclass(frozen=True)
class ErroredRuns:
    """Runs of a task that errored in the original `waza run`: not graded, they fail the task."""

    count: int
    feedback: tuple[FeedbackGroup, ...]


@dataclass(frozen=True)
class TaskResult:
    key: str
    test_id: str
    name: str
    results_name: str
    status: Status
    runs_total: int
    runs_passed: int
    score: float
    duration_ms: int
    source: Source
    graders: tuple[GraderRow, ...]
    errored_runs: ErroredRuns | None = None

    @property
    def ran_programs(self) -> bool:
        """Whether any of its graders ran a program: only then is the task's time worth
        showing (see GraderRow.ran_a_program)."""
        return any(row.ran_a_program for row in self.graders)


@dataclass(frozen=True)
class Counts:
    tasks: int
    runs: int
    runs_graded: int
    runs_failed: int
    """Runs that did not pass, errored runs included."""
    runs_errored: int
    failures: int
    """(task, grader) pairs that failed (without a grader error)."""
    grader_errors: int
    """Executions that could not start, timed out or were cancelled."""
    cleanup_errors: int
    """Executions whose grading-context directory could not be written, verified or removed."""
    elapsed_ms: int
    overall_score: float
    kinds: tuple[KindCount, ...] = ()
    """Verdicts per grader kind, regraded and kept, by kind name."""


@dataclass(frozen=True)
class CommonFailure:
    """Every grader execution failed the same way: one banner instead of N identical rows."""

    executions: int
    reason: str
    hint: str
    processes_only: bool = False
    """Graders checked in process ran too (and are not counted): the banner says "program"."""
    setup: bool = False
    """The graders could not run: the reason is a setup problem (a missing script, command or
    module), or graders of several names (build.SAME_FAILURE_GRADERS) all failed alike, which
    their own checks would not do. Fails the step under every `fail-on` (decision.py)."""

    @property
    def what(self) -> str:
        """What failed alike, as the banner names it."""
        return "program grader execution" if self.processes_only else "grader execution"


@dataclass(frozen=True)
class GlobalFailure:
    """A grader defined once (a global grader) that did not pass on any task it ran on."""

    grader: str
    source: Source
    status: Status
    tasks: tuple[str, ...]
    reason: str


@dataclass(frozen=True)
class GraderTime:
    grader: str
    source: Source
    executions: int
    total_ms: int
    max_ms: int
    tasks: tuple[str, ...] = ()
    """The tasks it ran on (keys), in report order."""


@dataclass(frozen=True)
class AnotherEvalFile:
    """A file that says it is of another eval: the results graded (`results`), the baseline
    (`baseline`), …; both evals are shown, escaped as untrusted text."""

    role: str
    found: AnotherEval


@dataclass(frozen=True)
class ModuleUse:
    """A grader module that `ref:` graders came from, as waza.lock pinned it, and the graders
    that used it (name, YAML line): the provenance of what graded."""

    ref: str
    commit: str
    digest: str
    graders: tuple[tuple[str, Source], ...]


@dataclass(frozen=True)
class Report:
    eval_name: str
    eval_path: str
    results_names: tuple[str, ...]
    counts: Counts
    tasks: tuple[TaskResult, ...]
    problems: tuple[GraderRow, ...]
    """Every (task, grader) that did not pass: grader errors first, then failures, each in
    task order then grader name."""
    common_failure: CommonFailure | None
    global_failures: tuple[GlobalFailure, ...]
    slowest: tuple[GraderTime, ...]
    skipped: tuple[SkippedTask, ...]
    dropped: tuple[DroppedGrader, ...] = ()
    not_evaluated: tuple[NotEvaluated, ...] = ()
    """Tasks of the spec with no graded run that fail the step (decision.py)."""
    accepted_without_runs: tuple[NotEvaluated, ...] = ()
    """Tasks with no saved run that `--allow-tasks-without-runs` accepted: listed, not failed."""
    another_eval: tuple[AnotherEvalFile, ...] = ()
    judge: JudgeReport | None = None
    """What the LLM judge did and spent (`--judge`); None when it was not asked for."""
    modules: tuple[ModuleUse, ...] = ()
    """The grader modules of `ref:` graders, by ref."""

    @property
    def flipped(self) -> tuple[GraderRow, ...]:
        """Rows with a run whose verdict changed since the results were saved."""
        return tuple(row for task in self.tasks for row in task.graders if row.flips)

    @property
    def failed_tasks(self) -> list[str]:
        """Task keys that did not pass (or had a grader error), in report order."""
        return [task.key for task in self.tasks if task.status is not Status.PASSED]


# --- JSON -------------------------------------------------------------------------------------


def report_json_text(report: Report, decision: Decision) -> str:
    """The report file's text: indented JSON, characters as themselves, a final newline."""
    return json.dumps(report_json(report, decision), indent=2, ensure_ascii=False) + "\n"


def _source_json(source: Source) -> dict[str, Any]:
    where = {"path": source.path, "line": source.line, "url": source.url}
    return {**where, "ref": source.ref} if source.ref else where


def _grader_json(row: GraderRow) -> dict[str, Any]:
    return {
        "grader": row.grader,
        "kind": row.kind,
        "status": row.status,
        "problem": row.problem,
        **({"setup": True} if row.setup else {}),
        "reason": row.reason or None,
        "hint": row.hint,
        "runs_failed": row.runs_failed,
        "runs_total": row.runs_total,
        "regraded": row.regraded,
        **({} if row.graded else {"graded": False}),
        "duration_ms": row.duration_ms,
        "max_duration_ms": row.max_duration_ms,
        "source": _source_json(row.source),
        "feedback": [{"text": g.text, "runs": list(g.runs)} for g in row.feedback],
        "notes": list(row.notes),
        "flips": [
            {"run": f.run, "saved": _passed_word(f.saved_passed), "now": _passed_word(f.passed)}
            for f in row.flips
        ],
    }


def _passed_word(passed: bool) -> str:
    return "passed" if passed else "failed"


def report_json(report: Report, decision: Decision) -> dict[str, Any]:
    """The `report-json` document: the Report and the step's decision on it."""
    counts = report.counts
    data: dict[str, Any] = {
        "version": REPORT_VERSION,
        "eval": {"name": report.eval_name, "path": report.eval_path},
        "results_files": list(report.results_names),
        "verdict": str(decision.verdict),
        "decision": _decision_json(decision),
        "counts": {
            "tasks": counts.tasks,
            "runs": counts.runs,
            "runs_graded": counts.runs_graded,
            "runs_failed": counts.runs_failed,
            "runs_errored": counts.runs_errored,
            "failures": counts.failures,
            "grader_errors": counts.grader_errors,
            "cleanup_errors": counts.cleanup_errors,
            "elapsed_ms": counts.elapsed_ms,
            "overall_score": counts.overall_score,
            "kinds": {k.kind: {"regraded": k.regraded, "kept": k.kept} for k in counts.kinds},
            "flipped": sum(len(row.flips) for row in report.flipped),
        },
        "failed_tasks": report.failed_tasks,
        **({} if report.judge is None else {"judge": report.judge.to_json()}),
        "common_failure": None
        if report.common_failure is None
        else {
            "executions": report.common_failure.executions,
            "reason": report.common_failure.reason,
            "hint": report.common_failure.hint,
            "setup": report.common_failure.setup,
        },
        "global_failures": [
            {
                "grader": g.grader,
                "status": g.status,
                "source": _source_json(g.source),
                "tasks": list(g.tasks),
                "reason": g.reason,
            }
            for g in report.global_failures
        ],
        "slowest_graders": [
            {
                "grader": t.grader,
                "source": _source_json(t.source),
                "executions": t.executions,
                "total_ms": t.total_ms,
                "max_ms": t.max_ms,
                "tasks": list(t.tasks),
            }
            for t in report.slowest
        ],
        "tasks": [
            {
                "key": task.key,
                "test_id": task.test_id,
                "name": task.name,
                "results_file": task.results_name,
                "status": task.status,
                "runs_passed": task.runs_passed,
                "runs_total": task.runs_total,
                "score": task.score,
                "duration_ms": task.duration_ms,
                "source": _source_json(task.source),
                "errored_runs": None
                if task.errored_runs is None
                else {
                    "count": task.errored_runs.count,
                    "feedback": [
                        {"text": g.text, "runs": list(g.runs)} for g in task.errored_runs.feedback
                    ],
                },
                "graders": [_grader_json(row) for row in task.graders],
            }
            for task in report.tasks
        ],
        "skipped": [
            {"results_file": s.results_name, "test_id": s.test_id, "reason": s.reason}
            for s in report.skipped
        ],
        "not_evaluated": [_not_evaluated_json(t, accepted=False) for t in report.not_evaluated]
        + [_not_evaluated_json(t, accepted=True) for t in report.accepted_without_runs],
        "another_eval": [
            {
                "role": f.role,
                "file": f.found.file,
                "found": {"name": f.found.found.name, "skill": f.found.found.skill},
                "expected": {"name": f.found.expected.name, "skill": f.found.expected.skill},
            }
            for f in report.another_eval
        ],
        "dropped": [
            {"task": d.task_key, "grader": d.grader, "runs": d.runs, "saved_failed": d.saved_failed}
            for d in report.dropped
        ],
        "modules": [
            {
                "ref": m.ref,
                "commit": m.commit,
                "digest": m.digest,
                "graders": [{"grader": name, "source": _source_json(s)} for name, s in m.graders],
            }
            for m in report.modules
        ],
    }
    return data


def _not_evaluated_json(task: NotEvaluated, *, accepted: bool) -> dict[str, Any]:
    return {
        "test_id": task.test_id,
        "why": str(task.why),
        "runs_errored": task.runs_errored,
        "first_error": task.first_error or None,
        "accepted": accepted,
    }


def _decision_json(decision: Decision) -> dict[str, Any]:
    return {
        "passed": decision.passed,
        "exit_code": decision.exit_code,
        "conclusion": decision.conclusion,
        "gate": str(decision.gate),
        "fail_on": str(decision.policy.fail_on),
        "tasks_passed": decision.tasks_passed,
        "reasons": list(decision.reasons),
    }
