"""The grader kinds waza-ci runs again, one module each behind `base.GraderKind`, and the
registry that picks one by the spec's `type`.

base.py        the interface: a job in (grader, task, saved run, config, setup), a verdict out
inprocess.py   what the kinds graded inside this process share (result shape, Go errors)
params.py      a grader's `config`, decoded strictly as waza's factory decodes it
gofmt.py       Go's spellings (`%q`, `%v`, JSON, ToLower) that waza's texts are made of
goregex.py     regular expressions with Go's semantics and error texts (RE2)
program.py     `program`: an external program in the sandbox, judged by its exit code

A `prompt` grader (an LLM judge) is not run again: it needs a model, so its saved verdict is
kept. So is the verdict of a kind waza-ci does not know.
"""

from __future__ import annotations

from collections.abc import Mapping

from waza_ci.graders.base import GraderKind
from waza_ci.graders.diff import DiffGrader
from waza_ci.graders.file import FileGrader
from waza_ci.graders.json_schema import JsonSchemaGrader
from waza_ci.graders.program import ProgramGrader
from waza_ci.graders.text import TextGrader
from waza_ci.waza.spec import GraderSpec

KEPT_KINDS = frozenset({"prompt"})
"""Kinds whose saved verdict is kept: they need a model."""

KINDS: Mapping[str, GraderKind] = {
    grader.kind: grader
    for grader in (
        ProgramGrader(),
        TextGrader(),
        FileGrader(),
        DiffGrader(),
        JsonSchemaGrader(),
    )
}
SYNTHETIC_KINDS: Mapping[str, GraderKind] = {}
"""Kinds of the checks waza makes from a task's `expected:` block (never written as `type`)."""


def kind_of(grader: GraderSpec) -> GraderKind | None:
    """The kind that grades this grader again, or None (its saved verdict is kept)."""
    if grader.synthetic:
        return SYNTHETIC_KINDS.get(grader.kind)
    return KINDS.get(grader.kind)
