"""Harness overhead: `waza-ci grade` against a bare Python thread pool spawning the same commands.

1,000 executions (250 tasks x 2 runs x 2 trivial graders, 64 KiB transcripts, --jobs 2). The
baseline is a plain Python process that reads the same results file and runs the same argv with
the same stdin on a 2-thread pool, measured in the same run, in turn with waza-ci. For the
Python grader the contract's floor (`_project.contract_floor`) is measured in the same turns:
the bare pool plus what waza's contract requires of every execution.

    python benchmarks/pool_overhead.py [--repeats 3] [--grader python|true]
"""

from __future__ import annotations

import argparse
import tempfile
from dataclasses import dataclass
from pathlib import Path

from _project import (
    Row,
    alternated,
    bare_pool,
    contract_floor,
    python_grader,
    true_grader,
    waza_ci,
    write_project,
)

TASKS, RUNS, JOBS = 250, 2, 2
TRANSCRIPT_BYTES = 64 * 1024
GOAL = 1.05


@dataclass(frozen=True)
class Series:
    """One alternated series: the fastest run of each command, in seconds."""

    harness: float
    bare: float
    floor: float | None  # the contract's floor, measured with the Python grader only


def measure(repeats: int, grader_kind: str = "python") -> Series:
    """waza-ci, the bare pool and (for the Python grader) the contract's floor, run in turn,
    each the fastest of `repeats`. None of them writes the results back, so the three differ
    only in what each does per execution and at start-up."""
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp)
        grader = python_grader(root) if grader_kind == "python" else true_grader()
        graders = [grader, grader]
        args = write_project(
            root, tasks=TASKS, runs=RUNS, graders=graders, transcript_bytes=TRANSCRIPT_BYTES
        )
        baselines = [bare_pool(graders, JOBS)]
        if grader_kind == "python":
            baselines.append(contract_floor(graders, JOBS))
        harness, fastest = alternated(repeats, waza_ci(args, "--jobs", str(JOBS)), baselines, root)
    floor = fastest[1].seconds if len(fastest) > 1 else None
    return Series(harness.seconds, fastest[0].seconds, floor)


def rows(repeats: int, grader_kind: str) -> list[Row]:
    series = measure(repeats, grader_kind)
    # The goal is the Python grader's. A grader that exits in a millisecond (`true`)
    # only shows the contract's own work per execution, which the bare pool skips: that row is
    # context, and contract_floor.py measures what waza-ci adds to the contract.
    judged = grader_kind == "python"
    ratio = series.harness / series.bare
    table = [
        Row(
            f"overhead: 1,000 executions ({grader_kind} grader)",
            f"{series.harness:.2f} s",
            f"bare pool {series.bare:.2f} s",
            ratio,
            f"<= {GOAL}x" if judged else "-",
            ratio <= GOAL if judged else None,
        )
    ]
    if series.floor is not None:
        # Context for the row above: what the contract alone costs beyond the bare pool on
        # this machine (the private directory and context.json made, checked and removed for
        # every execution; each run's context serialized), and what waza-ci adds to that.
        table += [
            Row(
                "the contract's floor: 1,000 executions (python grader) vs the bare pool",
                f"floor {series.floor:.2f} s",
                f"bare pool {series.bare:.2f} s",
                series.floor / series.bare,
                "-",
                None,
            ),
            Row(
                "overhead: 1,000 executions (python grader) vs the contract's floor",
                f"{series.harness:.2f} s",
                f"floor {series.floor:.2f} s",
                series.harness / series.floor,
                "-",
                None,
            ),
        ]
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--grader", choices=("python", "true"), default="python")
    options = parser.parse_args()
    print(f"{TASKS * RUNS * 2} executions, --jobs {JOBS}, {options.grader} grader")
    for row in rows(options.repeats, options.grader):
        print(f"{row.figure}: {row.value}, {row.baseline}, ratio {row.ratio:.3f}x")


if __name__ == "__main__":
    main()
