"""The judge's own spend, apart from the agent's: tokens and premium requests per model, from
the runtime's usage events. A figure the runtime did not give is unknown (None), never 0."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from waza_ci.english import plural


@dataclass(frozen=True)
class Usage:
    """One model call (the runtime's `assistant.usage` event)."""

    model: str
    input_tokens: int | None
    output_tokens: int | None
    premium_requests: float | None
    """The runtime's `cost`: the premium-request multiplier of the call."""


@dataclass(frozen=True)
class ModelSpend:
    model: str
    calls: int
    input_tokens: int | None
    output_tokens: int | None
    premium_requests: float | None


def by_model(usages: Iterable[Usage]) -> tuple[ModelSpend, ...]:
    """Summed per model; a sum is unknown when any of its calls did not say."""
    grouped: dict[str, list[Usage]] = {}
    for usage in usages:
        grouped.setdefault(usage.model or "(runtime default)", []).append(usage)
    return tuple(
        ModelSpend(
            model,
            len(calls),
            _int(_sum(u.input_tokens for u in calls)),
            _int(_sum(u.output_tokens for u in calls)),
            _sum(u.premium_requests for u in calls),
        )
        for model, calls in sorted(grouped.items())
    )


def _sum(values: Iterable[float | None]) -> float | None:
    items = list(values)
    if not items or any(v is None for v in items):
        return None
    return sum(v for v in items if v is not None)


def _int(value: float | None) -> int | None:
    return None if value is None else int(value)


@dataclass(frozen=True)
class JudgeReport:
    """What the judge did in one grading, for every report."""

    provider: str
    sessions: int = 0
    """Judge sessions run (paid for)."""
    cached: int = 0
    """Judgements taken from the cache (free)."""
    rejudged: int = 0
    """Verdicts judged again (from a session or the cache)."""
    kept: int = 0
    """Prompt verdicts kept: the judge did not run for them."""
    kept_why: tuple[str, ...] = ()
    """Why, distinct (no credential, a built-in rubric, …)."""
    models: tuple[ModelSpend, ...] = ()
    notes: tuple[str, ...] = ()
    """What the user should know of the judge's setup (an unreadable timeout, …)."""

    def spend_text(self) -> str:
        """`judge-model: 2 calls, 2,000 input + 100 output tokens, premium requests unknown`."""
        if not self.models:
            return (
                "no model call" if self.sessions == 0 else "unknown (the runtime reported no usage)"
            )
        return "; ".join(_model_text(m) for m in self.models)

    def to_json(self) -> dict[str, object]:
        return {
            "provider": self.provider,
            "sessions": self.sessions,
            "cached": self.cached,
            "rejudged": self.rejudged,
            "kept": self.kept,
            "kept_why": list(self.kept_why),
            "notes": list(self.notes),
            "models": [
                {
                    "model": m.model,
                    "calls": m.calls,
                    "input_tokens": _known(m.input_tokens),
                    "output_tokens": _known(m.output_tokens),
                    "premium_requests": _known(m.premium_requests),
                }
                for m in self.models
            ],
        }


def _known(value: float | None) -> float | str:
    return "unknown" if value is None else value


def _model_text(m: ModelSpend) -> str:
    tokens = f"{_n(m.input_tokens)} input + {_n(m.output_tokens)} output tokens"
    premium = (
        "premium requests unknown"
        if m.premium_requests is None
        else f"{m.premium_requests:g} premium requests"
    )
    return f"{m.model}: {plural(m.calls, 'call')}, {tokens}, {premium}"


def _n(value: int | None) -> str:
    return "unknown" if value is None else f"{value:,}"
