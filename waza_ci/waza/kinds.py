"""waza's grader kinds (the `type` of a grader entry), and the ones that need a model."""

from __future__ import annotations

GRADER_KINDS = frozenset(
    {
        "action_sequence",
        "behavior",
        "code",
        "diff",
        "file",
        "json_schema",
        "program",
        "prompt",
        "skill_invocation",
        "text",
        "tool_calls",
        "tool_constraint",
        "trigger",
    }
)
"""Every kind waza's grader factory accepts (its "Valid grader types" list)."""

MODEL_KINDS = frozenset({"prompt"})
"""Kinds that ask a model (an LLM judge): they cannot be graded again offline, so waza-ci keeps
their saved verdicts."""

PROCESS_KINDS = frozenset({"program", "code"})
"""Kinds that start a process (a grader program, an interpreter): the ones a broken setup (a
missing interpreter, a wrong working directory) fails all alike."""
