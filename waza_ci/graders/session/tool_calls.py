"""`tool_calls`: which tools the agent called, from `session_digest.tool_calls`.

One check each: every `required_tools` name called, no `forbidden_tools` name called (exact,
case-sensitive names), `min_calls` / `max_calls` on the number of calls (0 is a real bound),
and every `expect` entry satisfied by some call: its `tool` is an RE2 pattern searched in the
call's name without regard to case, and all its `args` matchers must hold on that same call.
Score: the share of checks that held. waza writes this kind's verdicts with an empty `type`.

Argument values come from the call's `tool_events` entry when one belongs to it (a results
file keeps only five known argument keys in `tool_calls`; an MCP tool's `query` survives only
in `tool_events[].args`), else from the call's own known arguments. Names and counts never
come from `tool_events`.

Decisions where waza's source was not available (see the notes): an event belongs to a call
when its `tool_call_id` is the call's `id`, else when it sits at the call's position and names
the same tool; event `args` that are not a JSON object give the reason
`unmarshaling tool event args: json: cannot unmarshal <kind> into Go value of type
map[string]interface {}`. `unique_tools` lists names in first-call order (waza: random order).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from waza_ci.golang.regexp import GoPattern, GoRegexError, compile_go, matches
from waza_ci.golang.strconv import go_quote
from waza_ci.golang.strings import go_trim_space
from waza_ci.graders.base import GraderJob
from waza_ci.graders.inprocess import GraderError, InProcessGrader, Outcome
from waza_ci.graders.params import decode_params
from waza_ci.graders.session.argmatcher import ArgMatchers, argument_failures
from waza_ci.graders.session.argmatcher_decode import listed_arg_matchers
from waza_ci.graders.session.digest import ToolCall, ToolEvent, tool_calls_of, tool_events_of
from waza_ci.waza.spec import GraderSpec
from waza_ci.waza.spec_schema import ANY, INT, STR, ListOf, MapOf, Struct

_GO_TYPE = "ToolCallsGraderParameters"
_PARAMETERS = Struct(
    {
        "required_tools": ListOf(STR),
        "forbidden_tools": ListOf(STR),
        "min_calls": INT,
        "max_calls": INT,
        "expect": ListOf(Struct({"tool": STR, "args": MapOf(ANY)}, strict=True)),
    }
)
_JSON_KINDS = {str: "string", bool: "bool", int: "number", float: "number", list: "array"}


@dataclass(frozen=True)
class Expectation:
    tool: str
    """The pattern as written (waza quotes it in feedback and echoes it in details)."""
    pattern: GoPattern | None
    matchers: ArgMatchers


@dataclass(frozen=True)
class ToolCallsConfig:
    required: list[str]
    forbidden: list[str]
    min_calls: int | None
    max_calls: int | None
    expectations: tuple[Expectation, ...]
    construction_error: str | None = None


class ToolCallsGrader(InProcessGrader[ToolCallsConfig]):
    kind = "tool_calls"
    written_type = ""

    def configure(self, grader: GraderSpec) -> ToolCallsConfig:
        matchers = listed_arg_matchers(grader, "expect", _GO_TYPE)
        params = decode_params(grader, _GO_TYPE, _PARAMETERS)
        expect = params.get("expect") or []
        tools = [((entry or {}).get("tool") or "") for entry in expect]
        config = ToolCallsConfig(
            required=[name or "" for name in params.get("required_tools") or ()],
            forbidden=[name or "" for name in params.get("forbidden_tools") or ()],
            min_calls=params.get("min_calls"),
            max_calls=params.get("max_calls"),
            expectations=(),
        )
        try:
            return replace(config, expectations=_constructed(grader.name, config, tools, matchers))
        except GraderError as err:
            return replace(config, construction_error=err.message)

    def evaluate(self, config: ToolCallsConfig, job: GraderJob) -> Outcome:
        if config.construction_error is not None:
            raise GraderError(config.construction_error, at_creation=True)
        calls = tool_calls_of(job.run)
        called = dict.fromkeys(call.name for call in calls)  # first-seen order
        checks, failures = _list_and_count_checks(config, called, len(calls))
        events = _Events(tool_events_of(job.run) if config.expectations else ())
        results = []
        for expectation in config.expectations:
            checks += 1
            detail = _evaluate(expectation, calls, events, job.setup.working_directory)
            results.append(detail)
            if "reason" in detail:
                failures.append(
                    f"expectation tool={go_quote(expectation.tool)} not satisfied: "
                    f"{detail['reason']}"
                )
        details: dict[str, Any] = {
            "total_calls": len(calls),
            "unique_tools": list(called),
            "passed_checks": checks - len(failures),
            "total_checks": checks,
        }
        if results:
            details["expect"] = results
        return Outcome(
            score=(checks - len(failures)) / checks,
            passed=not failures,
            feedback="; ".join(failures) if failures else "all tool_calls checks passed",
            details=details,
        )


def _list_and_count_checks(
    config: ToolCallsConfig, called: dict[str, None], count: int
) -> tuple[int, list[str]]:
    """The required, forbidden, min and max checks: how many, and the failures."""
    failures = [
        f"required tool {go_quote(t)} was not called" for t in config.required if t not in called
    ]
    failures += [
        f"forbidden tool {go_quote(t)} was called" for t in config.forbidden if t in called
    ]
    checks = len(config.required) + len(config.forbidden)
    if config.min_calls is not None:
        checks += 1
        if count < config.min_calls:
            failures.append(f"expected at least {config.min_calls} tool calls, got {count}")
    if config.max_calls is not None:
        checks += 1
        if count > config.max_calls:
            failures.append(f"expected at most {config.max_calls} tool calls, got {count}")
    return checks, failures


def _constructed(
    name: str, config: ToolCallsConfig, tools: list[str], matchers: dict[int, ArgMatchers]
) -> tuple[Expectation, ...]:
    """The compiled expectations; raises GraderError for what waza's constructor refuses, in its
    order: no constraint at all, then the counts, then each expectation."""
    prefix = f"tool_calls grader {go_quote(name)}:"
    low, high = config.min_calls, config.max_calls
    if not (config.required or config.forbidden or low is not None or high is not None or tools):
        raise GraderError(
            f"{prefix} at least one constraint (required_tools, forbidden_tools, min_calls, "
            "max_calls, expect) must be specified"
        )
    if low is not None and low < 0:
        raise GraderError(f"{prefix} min_calls must be non-negative, got {low}")
    if high is not None and high < 0:
        raise GraderError(f"{prefix} max_calls must be non-negative, got {high}")
    if low is not None and high is not None and low > high:
        raise GraderError(f"{prefix} min_calls ({low}) must be <= max_calls ({high})")
    return tuple(
        _expectation(name, index, tool, matchers.get(index, ())) for index, tool in enumerate(tools)
    )


def _expectation(name: str, index: int, tool: str, matchers: ArgMatchers) -> Expectation:
    prefix = f"tool_calls grader {go_quote(name)}: expect[{index}]"
    if go_trim_space(tool) == "":
        raise GraderError(f"{prefix}.tool: required non-empty string")
    try:
        pattern = compile_go("(?i)" + tool)
    except GoRegexError as err:
        raise GraderError(f"{prefix}.tool: invalid regex: {err}") from None
    for key, matcher in matchers:
        if matcher.construction_error is not None:
            raise GraderError(f"{prefix}.args[{key}]: {matcher.construction_error}")
    return Expectation(tool, pattern, matchers)


def _evaluate(
    expectation: Expectation,
    calls: tuple[ToolCall, ...],
    events: _Events,
    working_directory: str,
) -> dict[str, Any]:
    """One expectation against the calls in order: the first call that satisfies it, or the
    reason the last call with a matching name gave."""
    detail: dict[str, Any] = {"tool": expectation.tool}
    if expectation.matchers:
        detail["args"] = {key: matcher.as_json() for key, matcher in expectation.matchers}
    named = 0
    reason = ""
    for index, call in enumerate(calls):
        if expectation.pattern is not None and not matches(expectation.pattern, call.name):
            continue
        named += 1
        if expectation.matchers:
            args, reason = _arguments(call, index, events)
            if args is None:
                continue
            reason = "; ".join(argument_failures(expectation.matchers, args, working_directory))
            if reason:
                continue
        detail["matched_call_index"] = index
        detail["matched_call_id"] = call.id
        return detail
    if named == 0:
        detail["reason"] = "no tool call with matching name"
    else:
        detail["reason"] = reason or "no matching call"
    return detail


def _arguments(call: ToolCall, index: int, events: _Events) -> tuple[dict[str, Any] | None, str]:
    """The argument map the matchers see for this call, or None and the reason it has none."""
    event = events.of_call(call, index)
    if event is None:
        return call.matcher_arguments(), ""
    if event.args is None:
        return {}, ""
    if isinstance(event.args, dict):
        return event.args, ""
    kind = _JSON_KINDS.get(type(event.args), "value")
    return None, (
        f"unmarshaling tool event args: json: cannot unmarshal {kind} "
        "into Go value of type map[string]interface {}"
    )


class _Events:
    """A run's tool events, indexed by call id (the first event with an id wins)."""

    def __init__(self, events: tuple[ToolEvent, ...]) -> None:
        self.events = events
        self.by_id: dict[str, ToolEvent] = {}
        for event in events:
            self.by_id.setdefault(event.tool_call_id, event)

    def of_call(self, call: ToolCall, index: int) -> ToolEvent | None:
        """The event recorded for this call: the one with its id, else the one at its
        position when it names the same tool."""
        if call.id and call.id in self.by_id:
            return self.by_id[call.id]
        if index < len(self.events) and self.events[index].tool_name == call.name:
            return self.events[index]
        return None
