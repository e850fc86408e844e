"""The intervals and curves of waza's `internal/statistics`: Wilson, pass^k, bootstrap.

Everything is a pure function of its arguments. The bootstrap is the one place that draws
random numbers: waza draws them from an unseeded source, so its intervals change from run to
run; here the source is seeded from the data, so the same scores always give the same interval.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import random
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
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
    histogram = _resample_histogram(values, distinct, source)
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


Histogram = list[tuple[float, int]]
"""(resample mean, how many of the 10,000 resamples had it), sorted by mean."""

_CELLS_PER_DRAW = 10_000
"""Listing one possible resample (a count vector) exactly costs about what one binomial draw
per resample costs over 10,000 resamples, divided by this: while there are fewer than this
many count vectors per distinct value, listing them all is the cheaper way."""
_DRAWS_PER_BINOMIAL = 10
"""A binomial draw costs about as much as this many plain draws of one value."""
_TAIL_SDS = 40
"""A count further than this many standard deviations from its mean has a probability below
1e-300: no resample lands there, so it is not listed."""


def _resample_histogram(
    values: Sequence[float], distinct: Sequence[tuple[float, int]], rng: random.Random
) -> Histogram:
    count = len(values)
    kinds = len(distinct)
    if kinds == 1:
        return [(distinct[0][0], BOOTSTRAP_RESAMPLES)]
    if kinds == 2:  # pass/fail graders: the usual case, at any number of runs
        return _spread(_two_value_cells(distinct, count), rng)
    if math.comb(count + kinds - 1, kinds - 1) <= _CELLS_PER_DRAW * (kinds - 1):
        return _spread(_all_cells(distinct, count), rng)
    if count <= _DRAWS_PER_BINOMIAL * (kinds - 1):
        # Nearly every value distinct (the digest's per-task scores): drawing the values
        # themselves is the cheaper way.
        means = (sum(rng.choices(values, k=count)) / count for _ in range(BOOTSTRAP_RESAMPLES))
    else:
        means = (_resample_mean(distinct, count, rng) for _ in range(BOOTSTRAP_RESAMPLES))
    return sorted(Counter(means).items())


def _spread(cells: Iterable[tuple[float, float]], rng: random.Random) -> Histogram:
    """How many of the 10,000 resamples fall in each (mean, probability) cell: a multinomial
    draw, made as one conditional binomial per cell."""
    left = BOOTSTRAP_RESAMPLES
    mass_left = 1.0
    hits_by_mean: Counter[float] = Counter()
    listed = list(cells)
    for index, (mean, mass) in enumerate(listed):
        if left == 0:
            break
        last = index == len(listed) - 1
        hits = left if last else rng.binomialvariate(left, min(1.0, mass / mass_left))
        hits_by_mean[mean] += hits
        left -= hits
        mass_left = max(mass_left - mass, 1e-300)
    return sorted((mean, hits) for mean, hits in hits_by_mean.items() if hits)


def _two_value_cells(
    distinct: Sequence[tuple[float, int]], count: int
) -> Iterator[tuple[float, float]]:
    """A resample of two distinct values is fixed by k, how often it took the higher one:
    k ~ Binomial(count, p), listed only where it can occur."""
    (low, _), (high, high_times) = distinct
    p = high_times / count
    spread = _TAIL_SDS * math.sqrt(count * p * (1 - p)) + 1
    first = max(0, math.floor(count * p - spread))
    last = min(count, math.ceil(count * p + spread))
    for k in range(first, last + 1):
        yield (low * (count - k) + high * k) / count, _multinomial_pmf((count - k, k), (1 - p, p))


def _all_cells(distinct: Sequence[tuple[float, int]], count: int) -> Iterator[tuple[float, float]]:
    """Every count vector a resample can have (count balls in len(distinct) boxes)."""
    kinds = len(distinct)
    shares = [times / count for _, times in distinct]
    for bars in itertools.combinations(range(count + kinds - 1), kinds - 1):
        edges = (-1, *bars, count + kinds - 1)
        taken = [edges[i + 1] - edges[i] - 1 for i in range(kinds)]
        total = sum(value * k for (value, _), k in zip(distinct, taken, strict=True))
        yield total / count, _multinomial_pmf(taken, shares)


def _multinomial_pmf(taken: Sequence[int], shares: Sequence[float]) -> float:
    log = math.lgamma(sum(taken) + 1)
    for k, share in zip(taken, shares, strict=True):
        log += k * math.log(share) - math.lgamma(k + 1) if k else 0.0
    return math.exp(log)


def _order_statistic(histogram: Histogram, index: int) -> float:
    """The `index`-th smallest resample mean."""
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
