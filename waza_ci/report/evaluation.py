"""The Evaluation: what one grading (or merge) decided, as every renderer and shell reads it:
the summary, the report model, the comparison with the baseline, and the exit code."""

from __future__ import annotations

from dataclasses import dataclass

from waza_ci.errors import FailOn
from waza_ci.gate.baseline import BaselineComparison
from waza_ci.gate.baseline_io import gated_exit_code
from waza_ci.gate.flaky import FlakyTask
from waza_ci.report.model import Report
from waza_ci.waza.scoring import GradeSummary
from waza_ci.waza.spec import LoadWarning


@dataclass(frozen=True)
class Evaluation:
    summary: GradeSummary
    model: Report
    comparison: BaselineComparison | None
    flaky: tuple[FlakyTask, ...]
    baseline_note: str | None
    """Why there is no comparison although one may have been wanted, if so."""
    fail_on: FailOn
    warnings: tuple[LoadWarning, ...] = ()
    """What loading the spec (or the partials) found worth a warning."""
    shard_note: str = ""
    """A shard's heading for its reports ("" for a whole grading or a merge)."""

    @property
    def exit_code(self) -> int:
        """0 passed, 1 failed (or the gate failed), 3 grader or clean-up errors."""
        return gated_exit_code(self.summary, self.fail_on, self.comparison)
