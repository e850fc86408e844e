"""The step's verdict and its one `Decision`: the words every stage shares. A leaf.

What the decision *is* lives here, below every stage, so the Report, the renderers, the GitHub
client (a check run's conclusion), the engine and the shells can all name it without importing
how it is made. How it is made, from what the grading found, is `report/decision.py`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from waza_ci.errors import EXIT_PASSED
from waza_ci.policy import GatePolicy

Conclusion = Literal["success", "failure", "neutral"]
"""A check run's conclusion, as the step decides it."""


class Verdict(StrEnum):
    """The step's verdict, as the first line of every report says it."""

    PASSED = "passed"
    FAILED = "failed"
    ERRORS = "errors"
    """Grader or clean-up errors."""
    SETUP = "setup"
    """Graders could not run: the job's setup, not the agent's work."""
    NOTHING = "nothing"
    """No run to grade (a shard with no task, every task filtered out)."""
    ANOTHER_EVAL = "another-eval"
    """A results file says it is of another eval than the spec."""
    NOT_EVALUATED = "not-evaluated"
    """A task of the spec has no graded run: no run saved, or every run errored."""


class GateState(StrEnum):
    """The regression gate's state (the `gate` output)."""

    PASS = "pass"  # noqa: S105 - a gate state, not a secret
    FAIL = "fail"
    NO_BASELINE = "no-baseline"
    """No baseline file, or one that shares no task with the results: nothing compared."""


@dataclass(frozen=True)
class Decision:
    """What the step says. `reasons` are waza-ci's own words (no text from the results)."""

    policy: GatePolicy
    verdict: Verdict
    exit_code: int
    conclusion: Conclusion
    gate: GateState
    tasks_passed: bool
    """Every task passed, fully graded, with no grader error: whatever `fail-on` gates on."""
    reasons: tuple[str, ...]
    """Why the step failed, or what it let pass; empty for a clean pass."""

    @property
    def passed(self) -> bool:
        """The step passed (exit 0): the `passed` output."""
        return self.exit_code == EXIT_PASSED
