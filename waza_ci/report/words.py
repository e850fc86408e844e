"""The shared words of every report: verdict labels and icons, the verdict line's counts, why a
task was not evaluated, another eval named, what was re-graded or kept, flips and dropped
graders, each hint said once. Plain words; each caller makes untrusted names safe for its
medium (`quote`). Pure."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from waza_ci.english import plural
from waza_ci.report.decision import FIX_ERRORED, FIX_NOT_EVALUATED
from waza_ci.report.model import AnotherEvalFile, DroppedGrader, GraderRow, Report
from waza_ci.report.reasons import format_duration
from waza_ci.verdict import Decision, Verdict
from waza_ci.waza.identity import EvalIdentity
from waza_ci.waza.scoring import NotEvaluated, NotEvaluatedWhy

ICON_PASSED = "✅"
ICON_FAILED = "❌"
ICON_ERROR = "⚠️"
ICON_NOTHING = "⚪"

UNNAMED_KIND = "(no type)"


_VERDICT_LABELS = {
    Verdict.PASSED: (ICON_PASSED, "Passed"),
    Verdict.FAILED: (ICON_FAILED, "Failed"),
    Verdict.ERRORS: (ICON_ERROR, "Grader errors"),
    Verdict.SETUP: (ICON_ERROR, "Graders could not run"),
    Verdict.NOTHING: (ICON_NOTHING, "Nothing graded"),
    Verdict.ANOTHER_EVAL: (ICON_ERROR, "Results of another eval"),
    Verdict.NOT_EVALUATED: (ICON_ERROR, "Not evaluated"),
}


def not_evaluated_fix(tasks: Sequence[NotEvaluated]) -> str:
    """The fix for the tasks listed as not evaluated (our words)."""
    if any(task.why is NotEvaluatedWhy.NO_RUN for task in tasks):
        return FIX_NOT_EVALUATED
    return FIX_ERRORED


def not_evaluated_words(task: NotEvaluated) -> str:
    """Why a task was not evaluated, in our words (its first error is shown apart)."""
    if task.why is NotEvaluatedWhy.NO_RUN:
        return "no saved run (absent from the results, or `runs: []`)"
    return f"every run errored in execution ({plural(task.runs_errored, 'run')}, 0 graded)"


def another_eval_parts(item: AnotherEvalFile, quote: Callable[[str], str]) -> tuple[str, str, str]:
    """(what the file is, the eval it says, the eval expected), `quote` making the untrusted
    names safe for the medium: `the baseline x.json`, `'a' (skill 'b')`, …"""

    def named(identity: EvalIdentity) -> str:
        name = quote(identity.name) if identity.name else "(no name)"
        return f"{name} (skill {quote(identity.skill)})" if identity.skill else name

    what = "the results file" if item.role == "results" else f"the {item.role}"
    return f"{what} {quote(item.found.file)}", named(item.found.found), named(item.found.expected)


def verdict_parts(report: Report, *, with_time: bool = True) -> list[str]:
    """The counts of the verdict line, as plain words (no untrusted text)."""
    counts = report.counts
    if counts.runs == 0:
        parts = ["no task of the eval had runs to grade in the results"]
    else:
        runs = plural(counts.runs, "run")
        failed = counts.runs_failed - counts.runs_errored  # an errored run counts as failed
        if counts.runs_errored:
            graded = f"{counts.runs_errored} errored in execution, {counts.runs_graded} graded"
            runs += f" ({graded}{f', {failed} failed' if failed else ''})"
        elif counts.runs_failed:
            runs += f" ({counts.runs_failed} failed)"
        parts = [plural(counts.tasks, "task"), runs]
        if counts.runs_graded:  # with no run graded, "0 failing graders" would read as a pass
            parts += [
                plural(counts.failures, "failing grader"),
                plural(counts.grader_errors, "grader error"),
                plural(counts.cleanup_errors, "clean-up error"),
            ]
    if report.not_evaluated:
        parts.append(f"{plural(len(report.not_evaluated), 'task')} not evaluated")
    if report.skipped:
        parts.append(f"{plural(len(report.skipped), 'task')} skipped")
    if counts.elapsed_ms and with_time:
        parts.append(format_duration(counts.elapsed_ms))
    return parts


def kinds_parts(report: Report, quote: Callable[[str], str]) -> list[str]:
    """What was graded again and what was kept, per grader kind: `40 text, 2 program
    re-graded`, `3 prompt kept (they need a model)`. `quote` makes a kind name safe."""
    kinds = report.counts.kinds
    regraded = [f"{k.regraded} {quote(k.kind or UNNAMED_KIND)}" for k in kinds if k.regraded]
    kept = [f"{k.kept} {quote(k.kind or UNNAMED_KIND)}" for k in kinds if k.kept]
    parts = []
    if regraded:
        parts.append("re-graded: " + ", ".join(regraded))
    if kept:
        parts.append("kept from the results file: " + ", ".join(kept))
    return parts


def dropped_words(gone: DroppedGrader) -> str:
    """`2 failed`, `1 passed, 1 failed`: what the dropped saved verdicts had said."""
    passed = gone.runs - gone.saved_failed
    parts = [f"{passed} passed"] if passed else []
    return ", ".join([*parts, *([f"{gone.saved_failed} failed"] if gone.saved_failed else [])])


def flip_words(row: GraderRow) -> str:
    """How the verdicts flipped: `passed → failed`, `failed → passed`, or both."""
    pairs = dict.fromkeys((flip.saved_passed, flip.passed) for flip in row.flips)
    words = {True: "passed", False: "failed"}
    return ", ".join(f"{words[saved]} → {words[now]}" for saved, now in pairs)


def verdict_label(decision: Decision) -> tuple[str, str]:
    return _VERDICT_LABELS[decision.verdict]


def hints_once(report: Report, rows: Sequence[GraderRow]) -> list[str]:
    """Each row's hint, said once: on the first row that has it, and on none when the banner
    of a failure common to every execution says it already ("" where it is not said)."""
    said = {report.common_failure.hint} if report.common_failure else set()
    hints = []
    for row in rows:
        hints.append("" if row.hint in said else row.hint or "")
        said.add(row.hint or "")
    return hints
