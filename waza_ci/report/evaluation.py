"""The Evaluation: what one grading (or merge) found and decided, as every renderer and shell
reads it: the summary, the report model and, beside it, the step's one decision on it, the
comparison with the baseline."""

from __future__ import annotations

from dataclasses import dataclass, replace

from waza_ci.gate.baseline import BaselineComparison
from waza_ci.gate.baseline_io import BaselineUse
from waza_ci.gate.flaky import FlakyTask, flaky_of
from waza_ci.gate.history import HistoryView
from waza_ci.judge.spend import JudgeReport
from waza_ci.policy import DEFAULT_POLICY, GatePolicy
from waza_ci.report.build import build_report
from waza_ci.report.decision import decide
from waza_ci.report.model import AnotherEvalFile, Report, SourceLinks
from waza_ci.verdict import Decision
from waza_ci.waza.scoring import GradeSummary
from waza_ci.waza.spec import LoadWarning


@dataclass(frozen=True)
class Evaluation:
    summary: GradeSummary
    model: Report
    decision: Decision
    """The step's one decision on `model` (decision.py), made once, when the evaluation is
    built; every renderer and shell reads it here."""
    comparison: BaselineComparison | None
    flaky: tuple[FlakyTask, ...]
    baseline_note: str | None
    """Why there is no comparison although one may have been wanted, if so."""
    warnings: tuple[LoadWarning, ...] = ()
    """What loading the spec (or the partials) found worth a warning."""
    shard_note: str = ""
    """A shard's heading for its reports ("" for a whole grading or a merge)."""
    history: HistoryView | None = None
    """What the history said (trends, flaky bands, which records judged), when one was given."""

    @classmethod
    def build(
        cls,
        summary: GradeSummary,
        *,
        baseline: BaselineUse | None = None,
        history: HistoryView | None = None,
        policy: GatePolicy = DEFAULT_POLICY,
        baseline_asked: bool = False,
        warnings: tuple[LoadWarning, ...] = (),
        shard_note: str = "",
        repo_root: str = "",
        links: SourceLinks | None = None,
        judge: JudgeReport | None = None,
    ) -> Evaluation:
        """The evaluation of a graded summary: its report, with the step's decision under
        `policy` and the baseline's use (its comparison, or why it cannot serve), and its
        flaky tasks (see `build_report` for the rest)."""
        baseline = baseline or BaselineUse()
        model = build_report(
            summary,
            policy=policy,
            another_eval=(
                *(AnotherEvalFile("baseline", f) for f in baseline.another_eval),
                *(AnotherEvalFile("history", f) for f in baseline.history_another_eval),
            ),
            repo_root=repo_root,
            links=links,
        )
        if judge is not None:
            model = replace(model, judge=judge)
        decision = decide(
            model,
            summary,
            baseline.comparison,
            policy=policy,
            baseline_asked=baseline_asked,
            baseline_problem=baseline.problem,
        )
        return cls(
            summary=summary,
            model=model,
            decision=decision,
            comparison=baseline.comparison,
            flaky=tuple(flaky_of(summary.tasks)),
            baseline_note=baseline.note,
            warnings=warnings,
            shard_note=shard_note,
            history=history,
        )

    @property
    def exit_code(self) -> int:
        return self.decision.exit_code
