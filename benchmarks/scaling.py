"""Scaling: seconds per grader execution from 10 to 10,000 executions, against a bare pool.

Each size is N executions of the cheapest grader (coreutils `true`) over N/10 tasks x 5 runs x
2 graders with 1 kB transcripts, `--jobs 2`, whole process. The baseline at each size is a bare
Python thread pool that reads the same results file and spawns the same commands with the same
stdin (`_project.bare_pool`), run alternately with waza-ci. Flat seconds per execution means
linear scaling; the ratio is waza-ci's total over the bare pool's.

    python benchmarks/scaling.py [--sizes 10,100,1000,10000]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from _project import Row, bare_pool, interleaved, true_grader, waza_ci, write_project

RUNS, GRADERS, JOBS = 5, 2, 2
MAX_RATIO = 1.15
MAX_SPREAD = 1.2


def measure(executions: int) -> tuple[float, float]:
    """(waza-ci seconds, bare pool seconds) for `executions` executions."""
    tasks = max(1, executions // (RUNS * GRADERS))
    runs = RUNS if executions >= RUNS * GRADERS else max(1, executions // GRADERS)
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp)
        graders = [true_grader()] * GRADERS
        args = write_project(root, tasks=tasks, runs=runs, graders=graders, transcript_bytes=1000)
        harness, bare = interleaved(
            1, waza_ci(args, "--jobs", str(JOBS)), bare_pool(graders, JOBS), root
        )
    return harness.seconds, bare.seconds


def rows(sizes: list[int]) -> list[Row]:
    """One row per size (whole-process ms per execution, waza-ci and bare), then the spread of
    the marginal cost per execution, (T(n) - T(smallest)) / (n - smallest), from 100 up: the
    start-up both pay once is left out, so a flat figure means linear scaling."""
    timings = {size: measure(size) for size in sizes}
    result = []
    for size, (harness, bare) in timings.items():
        goal, met = (
            ("<= 1.15x bare", harness / bare <= MAX_RATIO) if size >= 10_000 else ("-", None)
        )
        result.append(
            Row(
                f"scaling: {size:,} executions (true)",
                f"{harness / size * 1000:.2f} ms/exec",
                f"bare {bare / size * 1000:.2f} ms/exec",
                harness / bare,
                goal,
                met,
            )
        )
    smallest = min(sizes)
    marginal = {
        size: (timings[size][0] - timings[smallest][0]) / (size - smallest)
        for size in sizes
        if size >= 100 and size > smallest
    }
    if len(marginal) >= 2:
        spread = max(marginal.values()) / min(marginal.values())
        detail = ", ".join(f"{s:,}: {m * 1000:.2f}" for s, m in marginal.items())
        result.append(
            Row(
                "scaling: marginal ms/exec spread",
                f"{spread:.2f}x ({detail})",
                "-",
                spread,
                "<= 1.2x (flat +-20 %)",
                spread <= MAX_SPREAD,
            )
        )
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10,100,1000,10000")
    sizes = [int(size) for size in parser.parse_args().sizes.split(",")]
    print(f"{'executions':>10} {'waza-ci ms/exec':>16} {'bare ms/exec':>13} {'ratio':>6}")
    for size in sizes:
        harness, bare = measure(size)
        print(
            f"{size:>10,} {harness / size * 1000:>16.2f} {bare / size * 1000:>13.2f} "
            f"{harness / bare:>6.2f}"
        )


if __name__ == "__main__":
    main()
