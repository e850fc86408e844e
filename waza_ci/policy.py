"""What the user asks the step to gate on: the vocabulary every stage and both shells share.

Kept apart from `errors.py` (what went wrong with the input) and from the decision itself
(`report/decision.py`, which applies it): the shells parse it, the engine carries it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class FailOn(StrEnum):
    """What fails the step besides errors, which always do: any failing task (`failures`),
    nothing more (`errors`), or the regression gate against the baseline (`regressions`)."""

    FAILURES = "failures"
    ERRORS = "errors"
    REGRESSIONS = "regressions"


@dataclass(frozen=True)
class GatePolicy:
    """The user's rules for the step's decision."""

    fail_on: FailOn = FailOn.FAILURES
    allow_missing_baseline: bool = False
    """With `fail_on` regressions: a baseline that is missing, of another eval, or sharing no
    compared task with the results, passes the gate (the first run on a repository has no
    baseline artifact). Without it the gate fails closed."""
    allow_tasks_without_runs: bool = False
    """A task of the spec with no saved run (absent from the results, or `runs: []`) is listed
    and does not fail the step (a task added before its first `waza run`). Without it such a
    task is *not evaluated*, which fails the step under every `fail_on`."""
    renamed_from: tuple[str, ...] = ()
    """Old names of the eval (or its skill): results and baselines that carry one of them
    still count as this eval's (see waza/identity.py)."""


DEFAULT_POLICY = GatePolicy()


class ListMode(StrEnum):
    """How much the report lists: what did not pass in detail (passing tasks on one line), or
    every task and grader."""

    FAILURES = "failures"
    ALL = "all"
