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
from collections.abc import Iterator, Sequence
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
    each distinct value (a multinomial draw), and its mean follows from those counts; so the
    resamples are drawn as counts, not value by value, and the cost does not grow with the
    number of values. `rng` defaults to a source seeded from the values themselves (see
    `data_seed`).
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

_DRAWS_PER_BINOMIAL = 10
"""A binomial draw costs about as much as this many plain draws of one value."""
_TAIL_SDS = 10
"""A binomial count further than this many standard deviations from its mean has a probability
far below 1e-15: none of 10,000 resamples lands there, so such counts are not visited."""


def _resample_histogram(
    values: Sequence[float], distinct: Sequence[tuple[float, int]], rng: random.Random
) -> Histogram:
    count = len(values)
    kinds = len(distinct)
    nearly_all_distinct = count <= _DRAWS_PER_BINOMIAL * (kinds - 1)
    if nearly_all_distinct and math.comb(count + kinds - 1, kinds - 1) > BOOTSTRAP_RESAMPLES:
        # The digest's per-task scores, say: so many possible count vectors that drawing the
        # values themselves is the cheaper way.
        means = (sum(rng.choices(values, k=count)) / count for _ in range(BOOTSTRAP_RESAMPLES))
        return sorted(Counter(means).items())
    return _count_histogram(distinct, count, rng)


def _count_histogram(
    distinct: Sequence[tuple[float, int]], count: int, rng: random.Random
) -> Histogram:
    """The 10,000 resamples as count vectors, drawn together rather than one by one.

    How many times a resample takes the first distinct value is Binomial(count, share); the
    10,000 resamples are spread over the possible counts at once (one binomial draw per count,
    or one per resample when there are fewer resamples than counts). Each group of resamples
    with the same count so far is then spread over the next value's count in the same way,
    given what is left; the last value takes the rest. Groups with no resample vanish, so the
    work is bounded by 10,000 draws per distinct value whatever `count` is, and is far less
    when the counts are concentrated.
    """
    groups: list[tuple[float, int, int]] = [(0.0, count, BOOTSTRAP_RESAMPLES)]
    weight_left = count
    for value, times in distinct[:-1]:
        share = times / weight_left
        groups = [
            (total + value * taken, remaining - taken, hits)
            for total, remaining, group in groups
            for taken, hits in _spread_binomial(remaining, share, group, rng)
        ]
        weight_left -= times
    last = distinct[-1][0]
    hits_by_mean: Counter[float] = Counter()
    for total, remaining, hits in groups:
        hits_by_mean[(total + last * remaining) / count] += hits
    return sorted(hits_by_mean.items())


def _spread_binomial(
    trials: int, share: float, resamples: int, rng: random.Random
) -> Iterator[tuple[int, int]]:
    """(k, how many of `resamples` draws of Binomial(trials, share) gave k), for k that occur."""
    if trials == 0 or share <= 0:
        yield 0, resamples
        return
    if share >= 1:
        yield trials, resamples
        return
    spread = _TAIL_SDS * math.sqrt(trials * share * (1 - share)) + 1
    first = max(0, math.floor(trials * share - spread))
    last = min(trials, math.ceil(trials * share + spread))
    if resamples <= last - first:
        yield from Counter(_binomial(rng, trials, share) for _ in range(resamples)).items()
        return
    left = resamples
    mass_left = 1.0
    for k in range(first, last + 1):
        if left == 0:
            return
        mass = _binomial_pmf(trials, k, share)
        if mass * left < _NEGLIGIBLE and k != last:
            continue  # no resample lands here (p < 1e-12): no draw spent on it
        hits = left if k == last else _binomial(rng, left, min(1.0, mass / mass_left))
        if hits:
            yield k, hits
        left -= hits
        mass_left = max(mass_left - mass, 1e-300)


_NEGLIGIBLE = 1e-12


def _binomial(rng: random.Random, trials: int, share: float) -> int:
    """One draw of Binomial(trials, share): `random.binomialvariate` where Python has it (3.12+),
    else an exact inverse-transform draw (Python 3.11; the intervals are then as valid but the
    digits differ from a 3.12 run's)."""
    if share <= 0:
        return 0
    if share >= 1:
        return trials
    native = getattr(rng, "binomialvariate", None)
    if native is not None:
        return int(native(trials, share))
    return binomial_by_inversion(rng, trials, share)


def binomial_by_inversion(rng: random.Random, trials: int, share: float) -> int:
    """Binomial(trials, share) from one uniform draw, walking outward from the mode.

    Any fixed order of the outcomes gives an exact draw; starting at the mode and alternating
    down and up visits the likely outcomes first, so a draw costs about one standard deviation
    of steps, and no probability underflows on the way (the mode's is the largest)."""
    mode = min(trials, math.floor((trials + 1) * share))
    odds = share / (1 - share)
    left = rng.random()
    low = high = mode
    p_low = p_high = _binomial_pmf(trials, mode, share)
    left -= p_low
    while left >= 0 and (low > 0 or high < trials):
        if low > 0:  # P(k-1) = P(k) * k / (n-k+1) / odds
            p_low *= low / (trials - low + 1) / odds
            low -= 1
            left -= p_low
            if left < 0:
                return low
        if high < trials:  # P(k+1) = P(k) * (n-k) / (k+1) * odds
            p_high *= (trials - high) / (high + 1) * odds
            high += 1
            left -= p_high
            if left < 0:
                return high
    return mode  # only rounding can leave a sliver of [0, 1) unassigned


def _binomial_pmf(n: int, k: int, p: float) -> float:
    log = math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
    return math.exp(log + k * math.log(p) + (n - k) * math.log1p(-p))


def _order_statistic(histogram: Histogram, index: int) -> float:
    """The `index`-th smallest resample mean."""
    seen = 0
    for value, hits in histogram:
        seen += hits
        if seen > index:
            return value
    return histogram[-1][0]
