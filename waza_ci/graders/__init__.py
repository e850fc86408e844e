"""The grader kinds waza-ci runs again, one module each behind `base.GraderKind`, and the
registry that picks one by the spec's `type`.

base.py     the interface: a job in (grader, saved run, context, setup), a verdict out
program.py  `program`: an external program in the sandbox, judged by its exit code

A grader whose kind is not registered keeps the verdict saved in the results file.
"""

from __future__ import annotations

from collections.abc import Mapping

from waza_ci.graders.base import GraderKind
from waza_ci.graders.program import ProgramGrader

KINDS: Mapping[str, GraderKind] = {grader.kind: grader for grader in (ProgramGrader(),)}


def kind_of(kind: str) -> GraderKind | None:
    """The registered grader kind for a spec's `type`, or None (its saved verdict is kept)."""
    return KINDS.get(kind)
