"""What a saved run says about the agent's session, read as `waza grade` hands it to the
behaviour and tool graders: `session_digest`, `tool_events` and `skill_invocations`.

`waza grade` passes the run's digest as a pointer to the parsed struct, so it is never nil: an
absent `session_digest` is an empty one (no calls, `tools_used` nil, no usage). One field is
never repaired from another (a hand-made file whose `tool_call_count` disagrees with
`tool_calls` is graded as it says).

One thing is derived: a run saved before waza wrote `skill_invocations` has no such field
(absent or null; `[]` says no skill was invoked), though the run invoked skills, and `waza
grade` would then fail every `skill_invocation` grader the run passed. Its skills are read from
the evidence the file does hold, in order: the transcript's `skill.invoked` events (one per
invocation, as waza records them; the name from the `name:` of the SKILL.md the event holds),
else the digest's `skill` tool calls (`arguments.skill`). The plan says so once per file
(`derived_skills`).

Deliberate difference: waza refuses a whole results file when a known tool-call field holds the
wrong JSON type (say `"name": 5`); the results model keeps `tool_calls` and `tool_events` as
raw JSON, and here such a value reads as Go's zero value ("").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from waza_ci.graders.skill.skill_md import SkillError, parse_skill_md
from waza_ci.waza.results import SavedRun
from waza_ci.waza.results_schema import UsageStats

KNOWN_ARGUMENTS = ("path", "file_text", "command", "description", "skill")
"""The argument keys a results file keeps for a tool call; any other key (an MCP tool's
`query`) is not written to `session_digest.tool_calls[].arguments` and exists only in
`tool_events[].args`."""


@dataclass(frozen=True)
class ToolCall:
    """One `session_digest.tool_calls[]` entry."""

    id: str
    name: str
    given: Mapping[str, Any]
    """The `arguments` object as written; only the known keys are ever read."""

    def argument(self, key: str) -> str:
        """A known argument as waza's struct holds it: "" when absent."""
        return _text(self.given.get(key))

    def matcher_arguments(self) -> dict[str, Any]:
        """The arguments argument matchers see: the known ones, empty strings left out (an
        empty `command` is "not present on tool call")."""
        return {key: value for key in KNOWN_ARGUMENTS if (value := self.argument(key)) != ""}


@dataclass(frozen=True)
class Session:
    """The run's session digest, with Go's zero values where the file says nothing. The
    calls are read separately (`tool_calls_of`): most kinds never look at them."""

    tool_call_count: int
    tools_used: list[str] | None
    """As written; None for a Go nil slice (null), which `details` echo as null."""
    usage: UsageStats | None

    @property
    def tokens_total(self) -> int | None:
        """Input plus output tokens (cache tokens do not count); None without usage data."""
        if self.usage is None:
            return None
        return self.usage.input_tokens + self.usage.output_tokens


@dataclass(frozen=True)
class ToolEvent:
    """One `tool_events[]` entry: the canonical record of a call, with its raw arguments."""

    tool_call_id: str
    tool_name: str
    args: Any
    """The JSON value as stored; None when absent or null."""


def session_of(run: SavedRun) -> Session:
    digest = run.session_digest
    if digest is None:
        return Session(tool_call_count=0, tools_used=None, usage=None)
    return Session(digest.tool_call_count, digest.tools_used, digest.usage)


def tool_calls_of(run: SavedRun) -> tuple[ToolCall, ...]:
    """`session_digest.tool_calls`, in order (none without a digest)."""
    digest = run.session_digest
    if digest is None or not digest.tool_calls:
        return ()
    return tuple(_tool_call(raw) for raw in digest.tool_calls)


def tool_events_of(run: SavedRun) -> tuple[ToolEvent, ...]:
    return tuple(_tool_event(raw) for raw in run.tool_events or ())


def skill_names(run: SavedRun) -> list[str]:
    """The invoked skills' names in invocation order (empty names kept, as waza keeps them);
    derived from the run's evidence when the file predates `skill_invocations`."""
    if run.skill_invocations is None:
        return derived_skills(run)
    return [invocation.name for invocation in run.skill_invocations]


def derived_skills(run: SavedRun) -> list[str]:
    """The skills a run without `skill_invocations` invoked, from its transcript's
    `skill.invoked` events, else its digest's `skill` tool calls."""
    calls = [call.argument("skill") for call in tool_calls_of(run) if call.name == "skill"]
    events = [e for e in run.transcript or () if e.get("type") == SKILL_INVOKED]
    if not events:
        return calls
    names = [_skill_md_name(event.get("content")) for event in events]
    if len(calls) == len(names):  # a SKILL.md without a readable name: the call names it
        names = [name or call for name, call in zip(names, calls, strict=True)]
    return names


SKILL_INVOKED = "skill.invoked"


def _skill_md_name(content: Any) -> str:
    if not isinstance(content, str) or not content.strip():
        return ""
    try:
        return parse_skill_md(content)[0]
    except SkillError:
        return ""


def _tool_call(raw: Any) -> ToolCall:
    entry = raw if isinstance(raw, dict) else {}
    arguments = entry.get("arguments")
    return ToolCall(
        id=_text(entry.get("id")),
        name=_text(entry.get("name")),
        given=arguments if isinstance(arguments, dict) else {},
    )


def _tool_event(raw: Any) -> ToolEvent:
    entry = raw if isinstance(raw, dict) else {}
    return ToolEvent(
        tool_call_id=_text(entry.get("tool_call_id")),
        tool_name=_text(entry.get("tool_name")),
        args=entry.get("args"),
    )


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""
