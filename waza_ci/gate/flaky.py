"""Flaky tasks: some of their runs passed and some did not."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from waza_ci.gate.baseline import PassCount
from waza_ci.waza.scoring import TaskGrade


@dataclass(frozen=True)
class FlakyTask:
    """A task some of whose runs passed and some not, with its pass count."""

    key: str
    count: PassCount


def flaky_of(tasks: Sequence[TaskGrade]) -> list[FlakyTask]:
    found = [FlakyTask(t.key, PassCount(t.runs_passed, len(t.runs))) for t in tasks]
    return [f for f in found if f.count.flaky]
