"""Which of waza's grader kinds (the `type` of a grader entry) need a model, and which start a
process; graders/__init__.py's registry holds the kinds graded again."""

from __future__ import annotations

MODEL_KINDS = frozenset({"prompt"})
"""Kinds that ask a model (an LLM judge): they cannot be graded again offline, so waza-ci keeps
their saved verdicts."""

PROCESS_KINDS = frozenset({"program", "code"})
"""Kinds that start a process (a grader program, an interpreter): the ones a broken setup (a
missing interpreter, a wrong working directory) fails all alike."""

WORKSPACE_KINDS = frozenset({"file", "diff"})
"""Kinds that read the agent's workspace by definition: a grading of a spec that has them needs
the workspace named (`--workspace`), never the current folder by default (engine/)."""
