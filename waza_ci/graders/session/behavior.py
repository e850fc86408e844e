"""`behavior`: limits on the agent's session, checked against the run's session digest.

Checks, in waza's order: `max_tool_calls` against `tool_call_count`; `max_tokens` against
input + output tokens of `usage` (no usage data: the check passes); each `required_tools`
name must be in `tools_used`; each `forbidden_tools` name must not be; `max_duration_ms`
against the run's `duration_ms`. A limit of 0 or less is no check; limits are inclusive.
Score: the share of checks that held (1 with none). A grader with no rule at all fails to
construct: `behavior grader '<name>' must have at least one rule configured`.

`waza grade` never grades without a digest (an absent one is empty), so waza's "no session
digest" verdict has no counterpart here.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from waza_ci.graders.base import GraderJob
from waza_ci.graders.inprocess import GraderError, InProcessGrader, Outcome, fraction
from waza_ci.graders.params import decode_params
from waza_ci.graders.session.digest import Session, session_of
from waza_ci.waza.spec import GraderSpec
from waza_ci.waza.spec_schema import INT, STR, ListOf, Struct

_PARAMETERS = Struct(
    {
        "max_tool_calls": INT,
        "max_tokens": INT,
        "required_tools": ListOf(STR),
        "forbidden_tools": ListOf(STR),
        "max_duration_ms": INT,
    }
)


@dataclass(frozen=True)
class BehaviorConfig:
    max_tool_calls: int
    max_tokens: int
    required_tools: list[str] | None
    """None when not configured (a Go nil slice: null in details)."""
    forbidden_tools: list[str] | None
    max_duration_ms: int
    construction_error: str | None

    @property
    def total_checks(self) -> int:
        limits = (self.max_tool_calls, self.max_tokens, self.max_duration_ms)
        return (
            sum(1 for limit in limits if limit > 0)
            + len(self.required_tools or ())
            + len(self.forbidden_tools or ())
        )


class BehaviorGrader(InProcessGrader[BehaviorConfig]):
    kind = "behavior"

    def configure(self, grader: GraderSpec) -> BehaviorConfig:
        params = decode_params(grader, "BehaviorGraderParameters", _PARAMETERS)
        config = BehaviorConfig(
            max_tool_calls=params.get("max_tool_calls") or 0,
            max_tokens=params.get("max_tokens") or 0,
            required_tools=_names(params.get("required_tools")),
            forbidden_tools=_names(params.get("forbidden_tools")),
            max_duration_ms=params.get("max_duration_ms") or 0,
            construction_error=None,
        )
        no_rule = (
            config.max_tool_calls == 0
            and config.max_tokens == 0
            and not config.required_tools
            and not config.forbidden_tools
            and config.max_duration_ms == 0
        )  # "== 0", as waza tests it: a negative limit alone is a rule that checks nothing
        if no_rule:
            message = f"behavior grader '{grader.name}' must have at least one rule configured"
            return replace(config, construction_error=message)
        return config

    def evaluate(self, config: BehaviorConfig, job: GraderJob) -> Outcome:
        if config.construction_error is not None:
            raise GraderError(config.construction_error, at_creation=True)
        session = session_of(job.run)
        duration = job.run.duration_ms
        failures = _failures(config, session, duration)
        details: dict[str, Any] = {
            "max_tool_calls": config.max_tool_calls,
            "max_tokens": config.max_tokens,
            "required_tools": config.required_tools,
            "forbidden_tools": config.forbidden_tools,
            "max_duration_ms": config.max_duration_ms,
            "failures": failures or None,  # a Go nil slice when nothing failed
            "tool_call_count": session.tool_call_count,
            "tools_used": session.tools_used,
            "actual_duration": duration,
        }
        if session.tokens_total is not None:
            details["tokens_total"] = session.tokens_total
        return Outcome(
            score=fraction(config.total_checks, len(failures)),
            passed=not failures,
            feedback="; ".join(failures) if failures else "All behavior checks passed",
            details=details,
        )


def _names(value: Any) -> list[str] | None:
    if value is None:
        return None
    return [name or "" for name in value]  # a null item decodes to "" in Go


def _failures(config: BehaviorConfig, session: Session, duration: int) -> list[str]:
    failures: list[str] = []
    count = session.tool_call_count
    if 0 < config.max_tool_calls < count:
        failures.append(f"Tool call count {count} exceeds max allowed {config.max_tool_calls}")
    tokens = session.tokens_total
    if config.max_tokens > 0 and tokens is not None and tokens > config.max_tokens:
        failures.append(f"Token usage {tokens} exceeds max allowed {config.max_tokens}")
    used = set(session.tools_used or ())
    required = config.required_tools or ()
    failures.extend(f"Required tool not used: {tool}" for tool in required if tool not in used)
    forbidden = config.forbidden_tools or ()
    failures.extend(f"Forbidden tool was used: {tool}" for tool in forbidden if tool in used)
    if 0 < config.max_duration_ms < duration:
        failures.append(f"Duration {duration}ms exceeds max allowed {config.max_duration_ms}ms")
    return failures
