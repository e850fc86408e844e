"""The grader kinds waza-ci runs again, one module each behind `base.GraderKind`, and the
registry that picks one by the spec's `type`.

base.py        the interface: a job in (grader, task, saved run, config, setup), a verdict out
inprocess.py   what the kinds graded inside this process share (result shape, Go errors)
params.py      a grader's `config`, decoded strictly as waza's factory decodes it
gofmt.py       Go's spellings (`%q`, `%v`, JSON, ToLower) that waza's texts are made of
goregex.py     regular expressions with Go's semantics and error texts (RE2)
program.py     `program`: an external program in the sandbox, judged by its exit code
text.py        `text`: substrings and RE2 patterns in the final output
json_schema.py `json_schema`: the final output against a JSON Schema (json_schema_*.py: parse,
               compile, validate, texts and formats as waza's Go library has them)
file.py        `file`: files that must (not) exist and content patterns, in the workspace
diff.py        `diff`: workspace files against snapshots and fragments (never written)
workspace_paths.py  the workspace path rules `file` and `diff` share (rooted reads)
code.py        `code`: inline assertions run by python3 or node (our runners in code_wrappers/)
trigger.py     `trigger`: the task prompt against the skill's SKILL.md (skill_md.py reads it)
expected.py    the task's `expected.output_*` checks, as waza synthesises them
behavior.py, tool_calls.py, tool_constraint.py, action_sequence.py, skill_invocation.py
               the agent's session: tool use, limits, sequences, skills (session.py reads the
               saved run's digest; argmatcher.py, argmatcher_decode.py and tool_names.py
               serve the tool kinds)

A `prompt` grader (an LLM judge) is not run again: it needs a model, so its saved verdict is
kept. So is the verdict of a kind waza-ci does not know.
"""

from __future__ import annotations

from collections.abc import Mapping

from waza_ci.graders.action_sequence import ActionSequenceGrader
from waza_ci.graders.base import GraderKind
from waza_ci.graders.behavior import BehaviorGrader
from waza_ci.graders.code import CodeGrader
from waza_ci.graders.diff import DiffGrader
from waza_ci.graders.expected import ExpectedChecks
from waza_ci.graders.file import FileGrader
from waza_ci.graders.json_schema import JsonSchemaGrader
from waza_ci.graders.program import ProgramGrader
from waza_ci.graders.skill_invocation import SkillInvocationGrader
from waza_ci.graders.text import TextGrader
from waza_ci.graders.tool_calls import ToolCallsGrader
from waza_ci.graders.tool_constraint import ToolConstraintGrader
from waza_ci.graders.trigger import TriggerGrader
from waza_ci.waza.kinds import MODEL_KINDS
from waza_ci.waza.spec import GraderSpec

KEPT_KINDS = MODEL_KINDS
"""Kinds whose saved verdict is kept: they need a model."""

KINDS: Mapping[str, GraderKind] = {
    grader.kind: grader
    for grader in (
        ProgramGrader(),
        TextGrader(),
        FileGrader(),
        DiffGrader(),
        JsonSchemaGrader(),
        BehaviorGrader(),
        ToolCallsGrader(),
        ToolConstraintGrader(),
        ActionSequenceGrader(),
        SkillInvocationGrader(),
        CodeGrader(),
        TriggerGrader(),
    )
}
SYNTHETIC_KINDS: Mapping[str, GraderKind] = {grader.kind: grader for grader in (ExpectedChecks(),)}
"""Kinds of the checks waza makes from a task's `expected:` block (never written as `type`)."""


def kind_of(grader: GraderSpec) -> GraderKind | None:
    """The kind that grades this grader again, or None (its saved verdict is kept)."""
    if grader.synthetic:
        return SYNTHETIC_KINDS.get(grader.kind)
    return KINDS.get(grader.kind)
