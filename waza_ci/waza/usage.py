"""`summary.usage`: token and request usage summed over every run, as waza rebuilds it.

waza's BuildDigest sums each run's `session_digest.usage` and the usage of its judge sessions
(`grader_sessions`, except one that is the run's own session) with AggregateUsageStats. The
same rules here, on the parsed JSON: a missing number counts as zero, AI credits are summed only
when every session reported them, and sessions on different provider routes make the provider
"mixed".
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

_INT_FIELDS = ("turns", "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")
_MODEL_INT_FIELDS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")
_MODEL_FLOAT_FIELDS = ("request_count", "request_cost")
MIXED_PROVIDER = "mixed"


def run_usages(run: Mapping[str, Any]) -> Iterator[Mapping[str, Any] | None]:
    """The usage records one saved run contributes (None where a session recorded none)."""
    digest = run.get("session_digest")
    digest = digest if isinstance(digest, Mapping) else {}
    yield _usage_of(digest)
    sessions = run.get("grader_sessions")
    for session in sessions if isinstance(sessions, list) else ():
        if not isinstance(session, Mapping):
            continue
        session_id = session.get("session_id") or ""
        if session_id and session_id == (digest.get("session_id") or ""):
            continue  # the run's own session, already counted
        yield _usage_of(session)


def aggregate_usage(usages: Iterable[Mapping[str, Any] | None]) -> dict[str, Any] | None:
    """The sum of `usages` in waza's UsageStats shape and key order; None when nothing was
    recorded (all counters zero, no credits, no per-model figures)."""
    total = _UsageTotal()
    for usage in usages:
        total.add(usage)
    return total.result()


class _UsageTotal:
    """AggregateUsageStats, one record at a time."""

    def __init__(self) -> None:
        self.counters: dict[str, Any] = dict.fromkeys(_INT_FIELDS, 0)
        self.counters["premium_requests"] = 0.0
        self.credits: float | None = None
        self.credits_complete = True
        self.seen_any = False
        self.models: dict[str, dict[str, Any]] = {}
        self.models_complete = True
        self.models_missing_credits: set[str] = set()
        self.routes: list[tuple[str, str]] = []

    def add(self, usage: Mapping[str, Any] | None) -> None:
        self.seen_any = True
        if usage is None:
            self.credits_complete = self.models_complete = False
            return
        self.routes.append((_text(usage, "provider"), _text(usage, "provider_host")))
        for key in self.counters:
            self.counters[key] += _number(usage, key)
        if _has_number(usage, "ai_credits"):
            self.credits = (self.credits or 0.0) + _number(usage, "ai_credits")
        else:
            self.credits_complete = False
        metrics = usage.get("model_metrics")
        if not isinstance(metrics, Mapping) or not metrics:
            self.models_complete = False
            return
        for model, figures in metrics.items():
            if isinstance(figures, Mapping):
                if not _has_number(figures, "ai_credits"):
                    self.models_missing_credits.add(model)
                _add_model(self.models.setdefault(model, _empty_model()), figures)

    def result(self) -> dict[str, Any] | None:
        credits = self.credits if self.seen_any and self.credits_complete else None
        for model, figures in self.models.items():
            if model in self.models_missing_credits or not self.models_complete:
                figures.pop("ai_credits", None)
        nothing = all(value == 0 for value in self.counters.values()) and credits is None
        if nothing and not self.models:
            return None
        result = dict(self.counters)
        if credits is not None:
            result["ai_credits"] = credits
        provider, host = self.routes[0] if self.routes else ("", "")
        if len(set(self.routes)) > 1:
            provider, host = MIXED_PROVIDER, ""
        if provider:
            result["provider"] = provider
        if host:
            result["provider_host"] = host
        if self.models:
            result["model_metrics"] = {name: self.models[name] for name in sorted(self.models)}
        return result


def _usage_of(session: Mapping[str, Any]) -> Mapping[str, Any] | None:
    usage = session.get("usage")
    return usage if isinstance(usage, Mapping) else None


def _empty_model() -> dict[str, Any]:
    figures: dict[str, Any] = dict.fromkeys(_MODEL_INT_FIELDS, 0)
    figures.update(dict.fromkeys(_MODEL_FLOAT_FIELDS, 0.0))
    return figures


def _add_model(total: dict[str, Any], figures: Mapping[str, Any]) -> None:
    for key in (*_MODEL_INT_FIELDS, *_MODEL_FLOAT_FIELDS):
        total[key] += _number(figures, key)
    if _has_number(figures, "ai_credits"):
        total["ai_credits"] = total.get("ai_credits", 0.0) + _number(figures, "ai_credits")


def _has_number(record: Mapping[str, Any], key: str) -> bool:
    value = record.get(key)
    return isinstance(value, int | float) and not isinstance(value, bool)


def _number(record: Mapping[str, Any], key: str) -> Any:
    return record.get(key) if _has_number(record, key) else 0


def _text(record: Mapping[str, Any], key: str) -> str:
    value = record.get(key)
    return value if isinstance(value, str) else ""
