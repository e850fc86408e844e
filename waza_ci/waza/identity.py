"""Which eval a results file belongs to, from the evidence waza writes: the one rule every
comparison reads (results against the spec, a baseline against the graded eval).

waza writes the eval's `name` as `eval_name` and its `skill` as `skill` in every results file
(`waza run --output`). Two evals are *another eval* of each other when either of the two,
present on both sides, differs: scaffolded sibling evals share their task ids (every skill's
eval has `positive-trigger-001`), so matching tasks by id says nothing about whose they are;
file names say nothing either, and are never read. A side without the field (an old results
file, a spec with no `skill:`) leaves that field out of the comparison.

A deliberate rename is accepted only when the user names the old value (`--renamed-from`,
input `renamed-from`): a field whose other value is one of the names given does not differ.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass


@dataclass(frozen=True)
class EvalIdentity:
    """Who wrote a results file, or which eval a spec is: waza's `eval_name` and `skill`."""

    name: str
    skill: str

    def __str__(self) -> str:
        shown = repr(self.name) if self.name else "(no name)"
        return f"{shown} (skill {self.skill!r})" if self.skill else shown


@dataclass(frozen=True)
class AnotherEval:
    """A file of another eval: what it says it is, and what was expected."""

    file: str
    found: EvalIdentity
    expected: EvalIdentity

    def __str__(self) -> str:
        return f"{self.file} is of eval {self.found}, not of eval {self.expected}"

    @property
    def old_names(self) -> tuple[str, ...]:
        """The values a `--renamed-from` would have to name to accept this file."""
        pairs = ((self.found.name, self.expected.name), (self.found.skill, self.expected.skill))
        return tuple(dict.fromkeys(f for f, e in pairs if f and e and f != e))


FIX_ANOTHER_EVAL = (
    "pass the results of this eval (check the artifact's name and path); if the eval was "
    "renamed since, name its old name with --renamed-from (the action: `renamed-from`)"
)


def another_eval(
    file: str,
    found: EvalIdentity,
    expected: EvalIdentity,
    renamed_from: Collection[str] = (),
) -> AnotherEval | None:
    """The mismatch when `found` (a results file's) is not `expected` (the spec's, or the
    graded eval's), else None. See the module's docstring for the rule."""
    pairs = ((found.name, expected.name), (found.skill, expected.skill))
    differs = any(f and e and f != e and f not in renamed_from for f, e in pairs)
    return AnotherEval(file, found, expected) if differs else None
