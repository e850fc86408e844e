"""summary.usage summed over the runs as waza's AggregateUsageStats sums it."""

from __future__ import annotations

from typing import Any

from waza_ci.waza.usage import aggregate_usage, run_usages


def test_usage_sums_like_waza() -> None:
    # internal/models/outcome_test.go TestAggregateUsageStats
    first = {
        "input_tokens": 1000,
        "output_tokens": 500,
        "premium_requests": 2,
        "model_metrics": {
            "gpt-4o": {"input_tokens": 1000, "output_tokens": 500, "request_cost": 2}
        },
    }
    second = {
        "input_tokens": 800,
        "output_tokens": 300,
        "cache_read_tokens": 100,
        "premium_requests": 1,
        "model_metrics": {
            "gpt-4o": {"input_tokens": 400, "output_tokens": 150, "request_cost": 0.5},
            "claude-sonnet-4": {"input_tokens": 400, "output_tokens": 150, "request_cost": 0.5},
        },
    }
    total = aggregate_usage([first, second, None])
    assert total is not None
    assert (total["input_tokens"], total["output_tokens"], total["cache_read_tokens"]) == (
        1800,
        800,
        100,
    )
    assert total["premium_requests"] == 3.0
    assert list(total["model_metrics"]) == ["claude-sonnet-4", "gpt-4o"]  # Go map: sorted
    assert total["model_metrics"]["gpt-4o"]["input_tokens"] == 1400
    assert total["model_metrics"]["gpt-4o"]["request_cost"] == 2.5
    assert list(total) == [
        "turns",
        "input_tokens",
        "output_tokens",
        "cache_read_tokens",
        "cache_write_tokens",
        "premium_requests",
        "model_metrics",
    ]


def test_nothing_recorded_is_no_usage() -> None:
    assert aggregate_usage([None, None]) is None
    assert aggregate_usage([]) is None
    assert aggregate_usage([{"input_tokens": 0}]) is None


def test_credits_only_when_every_session_reported_them() -> None:
    assert aggregate_usage([{"turns": 1, "ai_credits": 0.5}, {"turns": 1, "ai_credits": 0.25}]) == {
        "turns": 2,
        "input_tokens": 0,
        "output_tokens": 0,
        "cache_read_tokens": 0,
        "cache_write_tokens": 0,
        "premium_requests": 0.0,
        "ai_credits": 0.75,
    }
    partial = aggregate_usage([{"turns": 1, "ai_credits": 0.5}, {"turns": 1}])
    assert partial is not None and "ai_credits" not in partial


def test_provider_kept_when_consistent_and_mixed_otherwise() -> None:
    custom = {"turns": 1, "provider": "custom", "provider_host": "llm.example"}
    same = aggregate_usage([custom, custom])
    assert same is not None and (same["provider"], same["provider_host"]) == (
        "custom",
        "llm.example",
    )
    mixed = aggregate_usage([custom, {"turns": 1}])
    assert mixed is not None and mixed["provider"] == "mixed" and "provider_host" not in mixed


def test_a_run_contributes_its_session_and_other_judge_sessions() -> None:
    run: dict[str, Any] = {
        "session_digest": {"session_id": "s1", "usage": {"turns": 2}},
        "grader_sessions": [
            {"session_id": "s1", "usage": {"turns": 100}},  # the run's own session again
            {"session_id": "j1", "usage": {"turns": 3}},
        ],
    }
    assert list(run_usages(run)) == [{"turns": 2}, {"turns": 3}]
    assert list(run_usages({})) == [None]
