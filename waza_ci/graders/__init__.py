"""The grader kinds waza-ci grades again, one module each behind `base.GraderKind`, grouped by
what they read, and the registry that picks one by the spec's `type`.

base.py        the interface: a job in (grader, task, saved run, config, setup), a verdict out
inprocess.py   what the kinds graded inside this process share (result shape, Go errors)
params.py      a grader's `config`, decoded strictly as waza's factory decodes it
output/        the final output: `text`, `json_schema`, the task's `expected:` checks
workspace/     the workspace: `file`, `diff`
session/       the saved session: `behavior`, `tool_calls`, `tool_constraint`,
               `action_sequence`, `skill_invocation`
skill/         the task's prompt against SKILL.md: `trigger`
programs/      a process: `program` (the sandbox), `code` (python3 or node)
jsonschema/    the JSON Schema engine `json_schema` and the argument matchers of session/ share

A `prompt` grader (an LLM judge) is not graded again: it needs a model, so its saved verdict is
kept. A `type` that names no kind is refused when the spec is loaded (grading/plan.py).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping

from waza_ci.graders.base import GraderKind
from waza_ci.waza.spec import GraderSpec


# Each kind's module is imported the first time a spec uses the kind, not at start-up: the
# kinds and what they load (RE2, the JSON Schema library, YAML decoders) cost more to import
# than a whole grading of a small eval takes, and most specs use one or two kinds.
def _program() -> GraderKind:
    from waza_ci.graders.programs.program import ProgramGrader  # noqa: PLC0415 - see above

    return ProgramGrader()


def _text() -> GraderKind:
    from waza_ci.graders.output.text import TextGrader  # noqa: PLC0415

    return TextGrader()


def _file() -> GraderKind:
    from waza_ci.graders.workspace.file import FileGrader  # noqa: PLC0415

    return FileGrader()


def _diff() -> GraderKind:
    from waza_ci.graders.workspace.diff import DiffGrader  # noqa: PLC0415

    return DiffGrader()


def _json_schema() -> GraderKind:
    from waza_ci.graders.output.json_schema import JsonSchemaGrader  # noqa: PLC0415

    return JsonSchemaGrader()


def _behavior() -> GraderKind:
    from waza_ci.graders.session.behavior import BehaviorGrader  # noqa: PLC0415

    return BehaviorGrader()


def _tool_calls() -> GraderKind:
    from waza_ci.graders.session.tool_calls import ToolCallsGrader  # noqa: PLC0415

    return ToolCallsGrader()


def _tool_constraint() -> GraderKind:
    from waza_ci.graders.session.tool_constraint import ToolConstraintGrader  # noqa: PLC0415

    return ToolConstraintGrader()


def _action_sequence() -> GraderKind:
    from waza_ci.graders.session.action_sequence import ActionSequenceGrader  # noqa: PLC0415

    return ActionSequenceGrader()


def _skill_invocation() -> GraderKind:
    from waza_ci.graders.session.skill_invocation import SkillInvocationGrader  # noqa: PLC0415

    return SkillInvocationGrader()


def _code() -> GraderKind:
    from waza_ci.graders.programs.code import CodeGrader  # noqa: PLC0415

    return CodeGrader()


def _trigger() -> GraderKind:
    from waza_ci.graders.skill.trigger import TriggerGrader  # noqa: PLC0415

    return TriggerGrader()


def _expected() -> GraderKind:
    from waza_ci.graders.output.expected import ExpectedChecks  # noqa: PLC0415

    return ExpectedChecks()


class _Registry(Mapping[str, GraderKind]):
    """Kind name -> the kind, made (its module imported) on first use, once, from any thread.
    Which names exist is known without importing anything."""

    def __init__(self, loaders: Mapping[str, Callable[[], GraderKind]]) -> None:
        self._loaders = dict(loaders)
        self._made: dict[str, GraderKind] = {}
        self._lock = threading.Lock()

    def __getitem__(self, name: str) -> GraderKind:
        made = self._made.get(name)
        if made is not None:
            return made
        loader = self._loaders[name]  # KeyError for an unknown name, as a dict
        with self._lock:
            made = self._made.get(name)
            if made is None:
                made = self._made[name] = loader()
        return made

    def __contains__(self, name: object) -> bool:
        return name in self._loaders

    def __iter__(self) -> Iterator[str]:
        return iter(self._loaders)

    def __len__(self) -> int:
        return len(self._loaders)


KINDS: Mapping[str, GraderKind] = _Registry(
    {
        "program": _program,
        "text": _text,
        "file": _file,
        "diff": _diff,
        "json_schema": _json_schema,
        "behavior": _behavior,
        "tool_calls": _tool_calls,
        "tool_constraint": _tool_constraint,
        "action_sequence": _action_sequence,
        "skill_invocation": _skill_invocation,
        "code": _code,
        "trigger": _trigger,
    }
)
SYNTHETIC_KINDS: Mapping[str, GraderKind] = _Registry({"expected": _expected})
"""Kinds of the checks waza makes from a task's `expected:` block (never written as `type`)."""


def kind_of(grader: GraderSpec) -> GraderKind | None:
    """The kind that grades this grader again, or None (its saved verdict is kept)."""
    kinds = SYNTHETIC_KINDS if grader.synthetic else KINDS
    return kinds.get(grader.kind)


def is_regraded(grader: GraderSpec) -> bool:
    """Whether waza-ci grades this grader again (without loading its kind)."""
    return grader.kind in (SYNTHETIC_KINDS if grader.synthetic else KINDS)
