"""waza's statistics with waza's own test numbers; the bootstrap's cost and reproducibility."""

from __future__ import annotations

import math
import random

import pytest

from waza_ci.waza.statistics import (
    BOOTSTRAP_RESAMPLES,
    binomial_by_inversion,
    bootstrap_ci,
    pass_hat_k,
    pass_hat_k_curve,
    wilson_ci,
)


@pytest.mark.parametrize(
    ("successes", "trials", "lower", "upper", "mean"),
    [  # internal/statistics/binomial_test.go
        (0, 3, 0.0, 0.5615, 0.0),
        (3, 3, 0.4385, 1.0, 1.0),
        (2, 3, 0.2077, 0.9385, 2 / 3),
        (5, 10, 0.2366, 0.7634, 0.5),
    ],
)
def test_wilson_interval_matches_waza(
    successes: int, trials: int, lower: float, upper: float, mean: float
) -> None:
    ci = wilson_ci(successes, trials)
    assert ci["lower"] == pytest.approx(lower, abs=1e-4)
    assert ci["upper"] == pytest.approx(upper, abs=1e-4)
    assert ci["mean"] == pytest.approx(mean, abs=1e-12)
    assert ci["confidence_level"] == 0.95
    assert "num_bootstraps" not in ci  # omitempty in waza: only bootstrap intervals carry it


def test_wilson_interval_of_no_trials_is_zero() -> None:
    assert wilson_ci(0, 0) == {"lower": 0, "upper": 0, "mean": 0, "confidence_level": 0}


@pytest.mark.parametrize(
    ("successes", "trials", "k", "expected"),
    [  # internal/statistics/binomial_test.go
        (3, 3, 3, 1.0),
        (0, 5, 1, 0.0),
        (2, 3, 1, 2 / 3),
        (2, 3, 2, 1 / 3),
        (2, 3, 3, 0.0),
        (4, 5, 2, 0.6),
        (3, 3, 4, 0.0),
        (3, 3, 0, 0.0),
    ],
)
def test_pass_hat_k_matches_waza(successes: int, trials: int, k: int, expected: float) -> None:
    assert pass_hat_k(successes, trials, k) == pytest.approx(expected, abs=1e-9)


def test_pass_hat_k_curve_runs_to_the_fewest_trials() -> None:
    assert pass_hat_k_curve([(3, 3), (1, 3)]) == pytest.approx([0.6667, 0.5, 0.5], abs=1e-4)
    assert pass_hat_k_curve([(3, 3), (2, 2)]) == [1.0, 1.0]
    assert pass_hat_k_curve([(1, 0)]) == []


def test_bootstrap_is_reproducible_and_ignores_the_order_of_the_scores() -> None:
    scores = [1.0, 0.0, 1.0, 0.5, 1.0, 0.25, 1.0]
    first = bootstrap_ci(scores)
    assert first == bootstrap_ci(scores) == bootstrap_ci(list(reversed(scores)))
    assert first["num_bootstraps"] == BOOTSTRAP_RESAMPLES
    assert first["lower"] <= first["mean"] <= first["upper"]


def test_bootstrap_of_one_value_is_that_value() -> None:
    assert bootstrap_ci([0.5]) == {
        "lower": 0.5,
        "upper": 0.5,
        "mean": 0.5,
        "confidence_level": 0.95,
    }
    ci = bootstrap_ci([0.5, 0.5, 0.5])
    assert (ci["lower"], ci["upper"]) == (0.5, 0.5)


def _direct_percentiles(values: list[float], seed: int) -> tuple[float, float]:
    """waza's method: every resample drawn value by value."""
    rng = random.Random(seed)
    n = len(values)
    means = sorted(sum(rng.choice(values) for _ in range(n)) / n for _ in range(2000))
    return means[50], means[1949]


@pytest.mark.slow
@pytest.mark.parametrize(
    "values",
    [
        [1.0] * 7 + [0.0] * 3,  # two values: binomial cells
        [1.0, 0.5, 0.0, 0.75, 1.0, 0.25, 1.0, 0.5],  # few runs: every count vector listed
        [1.0, 0.5, 0.0, 0.25] * 30,  # many runs, several values: chained binomials
        [i / 10 for i in range(25)],  # all distinct: values drawn directly
    ],
)
def test_bootstrap_agrees_with_drawing_every_value_within_resampling_noise(
    values: list[float],
) -> None:
    ci = bootstrap_ci(values)
    lower, upper = _direct_percentiles(values, seed=7)
    step = max(values) - min(values)
    assert ci["lower"] == pytest.approx(lower, abs=0.06 * step)
    assert ci["upper"] == pytest.approx(upper, abs=0.06 * step)


class CountingRandom(random.Random):
    """Counts every uniform draw, the unit that all of random's samplers are built from."""

    draws = 0

    def random(self) -> float:
        self.draws += 1
        return super().random()


def _draws(values: list[float]) -> int:
    rng = CountingRandom(1)
    bootstrap_ci(values, rng=rng)
    return rng.draws


@pytest.mark.slow
@pytest.mark.parametrize("pattern", [[1.0, 0.0], [1.0, 0.5, 0.0, 0.25]])
def test_the_bootstrap_costs_the_same_for_10000_runs_as_for_100(pattern: list[float]) -> None:
    # Not a timing test: it counts random draws. waza's method draws once per run per
    # resample, 10,000 x 10,000 = 100,000,000 draws for a task with 10,000 runs.
    small = _draws(pattern * (100 // len(pattern)))
    large = _draws(pattern * (10_000 // len(pattern)))
    assert large < 12 * BOOTSTRAP_RESAMPLES
    assert large < 3 * small + 5_000


@pytest.mark.slow
@pytest.mark.parametrize(("trials", "share"), [(1, 0.3), (7, 0.5), (40, 0.1), (5_000, 0.73)])
def test_the_binomial_fallback_for_python_3_11_has_the_binomial_mean_and_variance(
    trials: int, share: float
) -> None:
    # Python 3.11 has no random.binomialvariate; the fallback must still be Binomial(n, p).
    rng = random.Random(7)
    draws = [binomial_by_inversion(rng, trials, share) for _ in range(20_000)]
    mean = sum(draws) / len(draws)
    variance = sum((d - mean) ** 2 for d in draws) / (len(draws) - 1)
    expected_variance = trials * share * (1 - share)
    assert all(0 <= d <= trials for d in draws)
    assert abs(mean - trials * share) < 5 * math.sqrt(expected_variance / len(draws))
    assert abs(variance / expected_variance - 1) < 0.06
