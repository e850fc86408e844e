"""The grader kinds waza-ci grades again, one module each behind `base.GraderKind`, grouped by
what they read, and the registry that picks one by the spec's `type`.

base.py        the interface: a job in (grader, task, saved run, config, setup), a verdict out
inprocess.py   what the kinds graded inside this process share (result shape, Go errors)
params.py      a grader's `config`, decoded strictly as waza's factory decodes it
gofmt.py       Go's spellings (`%q`, `%v`, JSON, ToLower) that waza's texts are made of
goregex.py     regular expressions with Go's semantics and error texts (RE2)
gofiles.py     Go's os.ReadFile and its error texts
output/        the final output: `text`, `json_schema`, the task's `expected:` checks
workspace/     the workspace: `file`, `diff`
session/       the saved session: `behavior`, `tool_calls`, `tool_constraint`,
               `action_sequence`, `skill_invocation`
skill/         the task's prompt against SKILL.md: `trigger`
programs/      a process: `program` (the sandbox), `code` (python3 or node)

A `prompt` grader (an LLM judge) is not graded again: it needs a model, so its saved verdict is
kept. A `type` that names no kind is refused when the spec is loaded (grading/plan.py).
"""

from __future__ import annotations

from collections.abc import Mapping

from waza_ci.graders.base import GraderKind
from waza_ci.graders.output.expected import ExpectedChecks
from waza_ci.graders.output.json_schema.grader import JsonSchemaGrader
from waza_ci.graders.output.text import TextGrader
from waza_ci.graders.programs.code import CodeGrader
from waza_ci.graders.programs.program import ProgramGrader
from waza_ci.graders.session.action_sequence import ActionSequenceGrader
from waza_ci.graders.session.behavior import BehaviorGrader
from waza_ci.graders.session.skill_invocation import SkillInvocationGrader
from waza_ci.graders.session.tool_calls import ToolCallsGrader
from waza_ci.graders.session.tool_constraint import ToolConstraintGrader
from waza_ci.graders.skill.trigger import TriggerGrader
from waza_ci.graders.workspace.diff import DiffGrader
from waza_ci.graders.workspace.file import FileGrader
from waza_ci.waza.spec import GraderSpec

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
