"""`tool_constraint`: tool specs checked against every call in `session_digest.tool_calls`.

A spec names a `tool` and may narrow it with `command_pattern`, `skill_pattern`,
`path_pattern` (RE2 searches, case-insensitive, on the call's `command`, `skill`, `path`
arguments) and `args` matchers (on the call's known, non-empty arguments). Each `expect_tools`
spec must match some call and each `reject_tools` spec no call (there `tool` is a
case-insensitive RE2 search: `bash` also matches `bashful`). `allow_only` is an allow-list:
every call must match an entry, whose `tool` is an exact tool name (waza's canonical names,
`tool_names.py`); `allow_only: []` denies every call. Score: the share of checks that held,
one per expect/reject spec and one per call under `allow_only` (one when there are none).

This kind never reads `tool_events`: an `args` matcher on an MCP argument (present only there)
never matches when regrading, exactly as in `waza grade`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from waza_ci.errors import InputError
from waza_ci.golang.regexp import GoPattern, GoRegexError, compile_go, matches
from waza_ci.golang.strconv import go_quote
from waza_ci.golang.strings import go_trim_space
from waza_ci.graders.base import GraderJob
from waza_ci.graders.inprocess import GraderError, InProcessGrader, Outcome
from waza_ci.graders.params import decode_params
from waza_ci.graders.session.argmatcher import ArgMatchers, argument_failures
from waza_ci.graders.session.argmatcher_decode import listed_arg_matchers
from waza_ci.graders.session.digest import Session, ToolCall, session_of, tool_calls_of
from waza_ci.graders.session.tool_names import matches_tool_call_name
from waza_ci.waza.spec import GraderSpec
from waza_ci.waza.spec_schema import ANY, STR, ListOf, MapOf, Struct

_GO_TYPE = "ToolConstraintGraderParameters"
_SPEC = Struct(
    {
        "tool": STR,
        "command_pattern": STR,
        "skill_pattern": STR,
        "path_pattern": STR,
        "args": MapOf(ANY),
    },
    strict=True,
)
_FIELDS = ("expect_tools", "reject_tools", "allow_only")
_PARAMETERS = Struct(dict.fromkeys(_FIELDS, ListOf(_SPEC)))
_QUALIFIERS = (  # (key, argument checked): waza checks command, path, skill in this order
    ("command_pattern", "command"),
    ("path_pattern", "path"),
    ("skill_pattern", "skill"),
)
_DESCRIBED = ("command_pattern", "skill_pattern", "path_pattern")  # waza's description order


@dataclass(frozen=True)
class ToolSpec:
    tool: str
    """Trimmed; a pattern for expect/reject, a tool name for allow_only."""
    tool_pattern: GoPattern | None
    qualifiers: tuple[tuple[str, GoPattern], ...]
    """(argument, pattern) for the set `*_pattern` keys, in waza's checking order."""
    matchers: ArgMatchers
    description: str

    def matches(self, call: ToolCall, working_directory: str) -> bool:
        if self.tool_pattern is not None:
            if not matches(self.tool_pattern, call.name):
                return False
        elif not matches_tool_call_name(self.tool, call.name):
            return False
        if not all(matches(pattern, call.argument(arg)) for arg, pattern in self.qualifiers):
            return False
        if not self.matchers:
            return True
        return not argument_failures(self.matchers, call.matcher_arguments(), working_directory)


@dataclass(frozen=True)
class ToolConstraintConfig:
    expect: tuple[ToolSpec, ...] = ()
    reject: tuple[ToolSpec, ...] = ()
    allow_only: tuple[ToolSpec, ...] | None = None
    """None when not declared; () denies every call."""
    construction_error: str | None = None


class ToolConstraintGrader(InProcessGrader[ToolConstraintConfig]):
    kind = "tool_constraint"

    def configure(self, grader: GraderSpec) -> ToolConstraintConfig:
        matchers = {field: listed_arg_matchers(grader, field, _GO_TYPE) for field in _FIELDS}
        params = decode_params(grader, _GO_TYPE, _PARAMETERS)
        entries = {field: [entry or {} for entry in params.get(field) or ()] for field in _FIELDS}
        declared = params.get("allow_only") is not None  # `allow_only: []` declares deny-all
        if not entries["expect_tools"] and not entries["reject_tools"] and not declared:
            raise InputError(
                f"tool_constraint grader {go_quote(grader.name)}: must configure "
                "config.expect_tools, config.reject_tools, or config.allow_only",
                grader.location,
            )
        try:
            specs = {
                field: tuple(
                    _spec(field, index, entry, matchers[field].get(index, ()))
                    for index, entry in enumerate(entries[field])
                )
                for field in _FIELDS
            }
        except GraderError as err:
            message = f"tool_constraint grader '{grader.name}': {err.message}"
            return ToolConstraintConfig(construction_error=message)
        return ToolConstraintConfig(
            expect=specs["expect_tools"],
            reject=specs["reject_tools"],
            allow_only=specs["allow_only"] if declared else None,
        )

    def evaluate(self, config: ToolConstraintConfig, job: GraderJob) -> Outcome:
        if config.construction_error is not None:
            raise GraderError(config.construction_error, at_creation=True)
        session = session_of(job.run)
        calls = tool_calls_of(job.run)
        cwd = job.setup.working_directory
        failures = [
            f"Expected tool not used: {spec.description}"
            for spec in config.expect
            if not any(spec.matches(call, cwd) for call in calls)
        ]
        failures += [
            f"Rejected tool was used: {spec.description}"
            for spec in config.reject
            if any(spec.matches(call, cwd) for call in calls)
        ]
        checks = len(config.expect) + len(config.reject)
        failed_checks = len(failures)
        violations: list[str] = []
        if config.allow_only is not None:
            violators = _violators(config.allow_only, calls, cwd)
            checks += max(len(calls), 1)  # one vacuous check when there was no call
            failed_checks += len(violators)
            failures += _allow_only_messages(config.allow_only, violators)
            violations = list(dict.fromkeys(violators))
        return Outcome(
            score=1.0 if checks == 0 else (checks - failed_checks) / checks,
            passed=not failures,
            feedback="; ".join(failures) if failures else "All tool constraint checks passed",
            details=_details(config, session, failures, violations),
        )


def _spec(field: str, index: int, entry: dict[str, Any], matchers: ArgMatchers) -> ToolSpec:
    """One compiled spec; raises GraderError with waza's text (without the grader prefix)."""
    where = f"config.{field}[{index}]"
    tool = go_trim_space(entry.get("tool") or "")
    if tool == "":
        raise GraderError(f"{where}.tool: required non-empty string")
    tool_pattern = None
    if field != "allow_only":  # an allow-list names tools exactly: no regex
        tool_pattern = _compiled(f"{where}.tool", tool)
    patterns = {
        key: _compiled(f"{where}.{key}", entry[key])
        for key in _DESCRIBED  # compiled in waza's order: command, skill, path
        if entry.get(key)
    }
    for key, matcher in matchers:
        if matcher.construction_error is not None:
            raise GraderError(f"{where}.args[{key}]: {matcher.construction_error}")
    return ToolSpec(
        tool=tool,
        tool_pattern=tool_pattern,
        qualifiers=tuple((arg, patterns[key]) for key, arg in _QUALIFIERS if key in patterns),
        matchers=matchers,
        description=_describe(tool, entry, matchers),
    )


def _compiled(where: str, pattern: str) -> GoPattern:
    try:
        return compile_go("(?i)" + pattern)
    except GoRegexError as err:
        raise GraderError(f"{where}: invalid regex: {err}") from None


def _describe(tool: str, entry: dict[str, Any], matchers: ArgMatchers) -> str:
    """`tool (command_pattern: p, skill_pattern: p, path_pattern: p, args: [a, b])`."""
    qualifiers = [f"{key}: {entry[key]}" for key in _DESCRIBED if entry.get(key)]
    if matchers:
        qualifiers.append(f"args: [{', '.join(key for key, _ in matchers)}]")
    return f"{tool} ({', '.join(qualifiers)})" if qualifiers else tool


def _violators(
    allowed: Sequence[ToolSpec], calls: Sequence[ToolCall], working_directory: str
) -> list[str]:
    """The name of each call no allow-list entry matches, in call order."""
    return [
        call.name or "<unnamed>"
        for call in calls
        if not any(spec.matches(call, working_directory) for spec in allowed)
    ]


def _allow_only_messages(allowed: Sequence[ToolSpec], violators: list[str]) -> list[str]:
    declared = ", ".join(spec.description for spec in allowed)
    messages = []
    for name, count in Counter(violators).items():  # first-seen order
        calls = f"{count} calls; " if count > 1 else ""
        messages.append(f"Undeclared tool used: {name} ({calls}not in allow_only: [{declared}])")
    return messages


def _details(
    config: ToolConstraintConfig, session: Session, failures: list[str], violations: list[str]
) -> dict[str, Any]:
    details: dict[str, Any] = {
        "expect_tools": [spec.description for spec in config.expect],
        "reject_tools": [spec.description for spec in config.reject],
        "failures": failures or None,  # a Go nil slice when nothing failed
        "tools_used": session.tools_used,
    }
    if config.allow_only is not None:
        details["allow_only"] = [spec.description for spec in config.allow_only]
        details["allow_only_declared"] = True
        details["allow_only_violations"] = violations or None
    if session.usage is not None:
        details["tokens_total"] = session.tokens_total
        details["total_turns"] = session.usage.turns
    return details
