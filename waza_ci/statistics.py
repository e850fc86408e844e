"""The intervals and curves of waza's `internal/statistics`: Wilson, pass^k, bootstrap.

Everything is a pure function of its arguments. The bootstrap is the one place that draws
random numbers: waza draws them from an unseeded source, so its intervals change from run to
run; here the source is seeded from the data, so the same scores always give the same interval.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections import Counter
from collections.abc import Iterable, Sequence
from statistics import NormalDist
from typing import Any

BOOTSTRAP_RESAMPLES = 10_000
"""waza's DefaultBootstrapIterations; also written as `num_bootstraps`."""
DEFAULT_CONFIDENCE = 0.95


def wilson_ci(
    successes: int, trials: int, confidence: float = DEFAULT_CONFIDENCE
) -> dict[str, Any]:
    """The Wilson score interval of `successes` out of `trials` (waza's WilsonCI).

    `mean` is the observed rate. Unlike a bootstrap it stays inside [0, 1] and keeps its
    coverage at the handful of trials agent evals have.
    """
    if trials < 1:
        return {"lower": 0.0, "upper": 0.0, "mean": 0.0, "confidence_level": 0.0}
    n = float(trials)
    rate = successes / n
    z = NormalDist().inv_cdf(0.5 + confidence / 2)  # = sqrt(2)·erfinv(confidence)
    z2 = z * z
    denominator = 1 + z2 / n
    center = (rate + z2 / (2 * n)) / denominator
    half = z / denominator * math.sqrt(rate * (1 - rate) / n + z2 / (4 * n * n))
    return {
        "lower": max(0.0, center - half),
        "upper": min(1.0, center + half),
        "mean": rate,
        "confidence_level": confidence,
    }


def pass_hat_k(successes: int, trials: int, k: int) -> float:
    """τ-bench's unbiased pass^k, C(successes, k) / C(trials, k): the chance that k fresh
    trials of a task all pass. 0 when k is outside [1, trials]."""
    if k < 1 or k > trials or successes < k:
        return 0.0
    product = 1.0
    for i in range(k):
        product *= (successes - i) / (trials - i)
    return product


def pass_hat_k_curve(tasks: Sequence[tuple[int, int]]) -> list[float]:
    """pass^k for k = 1..K, averaged over tasks given as (passed, total) runs, where K is the
    fewest runs any task has; tasks with no runs are left out. Empty when none has runs."""
    counted = [(passed, total) for passed, total in tasks if total > 0]
    if not counted:
        return []
    fewest = min(total for _, total in counted)
    return [
        sum(pass_hat_k(passed, total, k) for passed, total in counted) / len(counted)
        for k in range(1, fewest + 1)
    ]


def bootstrap_ci(
    values: Sequence[float],
    confidence: float = DEFAULT_CONFIDENCE,
    rng: random.Random | None = None,
) -> dict[str, Any]:
    """A percentile bootstrap interval of the mean, as waza's BootstrapCI computes it, over
    10,000 resamples.

    A resample of n values drawn with replacement is fully described by how many times it took
    each distinct value (a multinomial draw), and its mean follows from those counts; so no
    resample is drawn value by value, and 10,000 runs cost about what 10 do. `rng` defaults to
    a source seeded from the values themselves (see `data_seed`).
    """
    count = len(values)
    mean = sum(values) / count if count else 0.0
    if count < 2:
        return {"lower": mean, "upper": mean, "mean": mean, "confidence_level": confidence}
    distinct = sorted(Counter(values).items())
    source = rng if rng is not None else random.Random(data_seed(distinct))  # noqa: S311
    if len(distinct) == 2:
        histogram = _two_value_histogram(distinct, count, source)
    elif count <= _DRAWS_PER_BINOMIAL * (len(distinct) - 1):
        # Nearly every value distinct (the digest's per-task scores): drawing the values
        # themselves is the cheaper way.
        histogram = _histogram(
            sum(source.choices(values, k=count)) / count for _ in range(BOOTSTRAP_RESAMPLES)
        )
    else:
        histogram = _histogram(
            _resample_mean(distinct, count, source) for _ in range(BOOTSTRAP_RESAMPLES)
        )
    tail = (1 - confidence) / 2
    lower_index = math.floor(tail * BOOTSTRAP_RESAMPLES)
    upper_index = min(math.floor((1 - tail) * BOOTSTRAP_RESAMPLES), BOOTSTRAP_RESAMPLES - 1)
    return {
        "lower": _order_statistic(histogram, lower_index),
        "upper": _order_statistic(histogram, upper_index),
        "mean": mean,
        "confidence_level": confidence,
        "num_bootstraps": BOOTSTRAP_RESAMPLES,
    }


def data_seed(distinct: Sequence[tuple[float, int]]) -> int:
    """A seed that depends only on the multiset of values (not their order), so the same
    scores always resample the same way."""
    text = ";".join(f"{float(value)!r}x{times}" for value, times in distinct)
    return int.from_bytes(hashlib.sha256(text.encode("ascii")).digest()[:8], "big")


_DRAWS_PER_BINOMIAL = 10
"""A binomial draw costs about as much as this many plain draws of one value."""


def _histogram(means: Iterable[float]) -> list[tuple[float, int]]:
    return sorted(Counter(means).items())


def _order_statistic(histogram: Sequence[tuple[float, int]], index: int) -> float:
    """The `index`-th smallest resample mean, from (mean, how many resamples) sorted by mean."""
    seen = 0
    for value, hits in histogram:
        seen += hits
        if seen > index:
            return value
    return histogram[-1][0]


def _resample_mean(distinct: Sequence[tuple[float, int]], count: int, rng: random.Random) -> float:
    # Multinomial(count, times/count) as a chain of conditional binomials: one draw per
    # distinct value but the last, which takes whatever is left.
    remaining = count
    remaining_weight = count
    total = 0.0
    for value, times in distinct[:-1]:
        if remaining == 0:
            break
        taken = rng.binomialvariate(remaining, times / remaining_weight)
        total += value * taken
        remaining -= taken
        remaining_weight -= times
    total += distinct[-1][0] * remaining
    return total / count


_TAIL_SDS = 40
"""Resample counts further than this many standard deviations from their mean have a
probability below 1e-300: no resample can land there."""


def _two_value_histogram(
    distinct: Sequence[tuple[float, int]], count: int, rng: random.Random
) -> list[tuple[float, int]]:
    """With two distinct values (pass/fail graders: the usual case) a resample is fixed by how
    often it took the higher value, k ~ Binomial(count, p). How many of the 10,000 resamples
    have each k is itself multinomial, drawn cell by cell over the k that can occur."""
    (low, _), (high, high_times) = distinct
    p = high_times / count
    spread = _TAIL_SDS * math.sqrt(count * p * (1 - p)) + 1
    first = max(0, math.floor(count * p - spread))
    last = min(count, math.ceil(count * p + spread))
    left = BOOTSTRAP_RESAMPLES
    mass_left = 1.0
    histogram: list[tuple[float, int]] = []
    for k in range(first, last + 1):
        if left == 0:
            break
        mass = _binomial_pmf(count, k, p)
        hits = left if k == last else rng.binomialvariate(left, min(1.0, mass / mass_left))
        if hits:
            histogram.append(((low * (count - k) + high * k) / count, hits))
        left -= hits
        mass_left = max(mass_left - mass, 1e-300)
    return histogram


def _binomial_pmf(n: int, k: int, p: float) -> float:
    log = math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
    return math.exp(log + k * math.log(p) + (n - k) * math.log1p(-p))
