"""Scaling: seconds per grader execution from 10 to 10,000 executions, against a bare pool.

Each size is N executions of the cheapest grader (coreutils `true`) over N/10 tasks x 5 runs x
2 graders with 1 kB transcripts, `--jobs 2`, whole process. The baseline at each size is a bare
Python thread pool that reads the same results file and spawns the same commands with the same
stdin (`_project.bare_pool`), run alternately with waza-ci; each figure is the fastest of
`--repeats` runs (of two from 10,000 executions up).

Linear scaling means a flat marginal cost: the seconds one more execution adds, measured as the
slope between consecutive sizes from 100 up, (T(b) - T(a)) / (b - a). The start-up both pay once
cancels out of a slope, which a whole-process per-execution figure at 100 executions cannot
leave out.

    python benchmarks/scaling.py [--sizes 10,100,1000,10000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import itertools
import tempfile
from pathlib import Path

from _project import Row, bare_pool, interleaved, true_grader, waza_ci, write_project

RUNS, GRADERS, JOBS = 5, 2, 2
MAX_SPREAD = 1.2
LARGE = 10_000
"""Sizes from here up are measured twice, not `repeats` times: a run is long, and one run alone
was once 1.6 times its usual time on this machine."""


def measure(executions: int, repeats: int = 1) -> tuple[float, float]:
    """(waza-ci seconds, bare pool seconds) for `executions` executions."""
    tasks = max(1, executions // (RUNS * GRADERS))
    runs = RUNS if executions >= RUNS * GRADERS else max(1, executions // GRADERS)
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp)
        graders = [true_grader()] * GRADERS
        args = write_project(root, tasks=tasks, runs=runs, graders=graders, transcript_bytes=1000)
        harness, bare = interleaved(
            repeats, waza_ci(args, "--jobs", str(JOBS)), bare_pool(graders, JOBS), root
        )
    return harness.seconds, bare.seconds


def rows(sizes: list[int], repeats: int = 3) -> list[Row]:
    """One row per size (whole-process ms per execution, waza-ci and bare), then the slopes
    between consecutive sizes from 100 up and their spread (max / min)."""
    timings = {size: measure(size, 2 if size >= LARGE else repeats) for size in sizes}
    result = []
    for size, (harness, bare) in timings.items():
        # Context: against the bare pool a `true` grader shows the contract's own work per
        # execution; contract_floor.py judges 10,000 executions against what the contract needs.
        result.append(
            Row(
                f"scaling: {size:,} executions (true)",
                f"{harness / size * 1000:.2f} ms/exec",
                f"bare {bare / size * 1000:.2f} ms/exec",
                harness / bare,
                "-",
                None,
            )
        )
    result.extend(_slope_rows(timings))
    return result


def _slope_rows(timings: dict[int, tuple[float, float]]) -> list[Row]:
    steps = sorted(size for size in timings if size >= 100)
    pairs = list(itertools.pairwise(steps))
    slopes = {(a, b): (timings[b][0] - timings[a][0]) / (b - a) for a, b in pairs}
    bare_slopes = {(a, b): (timings[b][1] - timings[a][1]) / (b - a) for a, b in pairs}
    if len(slopes) < 2:
        return []
    spread = max(slopes.values()) / min(slopes.values())
    detail = ", ".join(
        f"{a:,}->{b:,}: {slope * 1000:.2f} (bare {bare_slopes[a, b] * 1000:.2f})"
        for (a, b), slope in slopes.items()
    )
    return [
        Row(
            "scaling: marginal ms/exec spread",
            f"{spread:.2f}x ({detail})",
            "-",
            spread,
            "<= 1.2x (flat +-20 %)",
            spread <= MAX_SPREAD,
        )
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10,100,1000,10000")
    parser.add_argument("--repeats", type=int, default=3)
    options = parser.parse_args()
    sizes = [int(size) for size in options.sizes.split(",")]
    table = rows(sizes, options.repeats)
    for row in table:
        print(f"{row.figure}: {row.value} | {row.baseline} | ratio {row.ratio:.2f}")


if __name__ == "__main__":
    main()
