"""Harness overhead: `waza-ci grade` against a bare Python thread pool spawning the same commands.

1,000 executions (250 tasks x 2 runs x 2 trivial graders, 64 KiB transcripts, --jobs 2). The
baseline is a plain Python process that reads the same results file and runs the same argv with
the same stdin on a 2-thread pool, measured in the same run, alternately with waza-ci.

    python benchmarks/pool_overhead.py [--repeats 3] [--grader python|true]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from _project import (
    Row,
    bare_pool,
    contract_floor,
    interleaved,
    python_grader,
    true_grader,
    waza_ci,
    write_project,
)

TASKS, RUNS, JOBS = 250, 2, 2
TRANSCRIPT_BYTES = 64 * 1024
GOAL = 1.05


def measure(repeats: int, grader_kind: str = "python") -> tuple[float, float]:
    """(waza-ci seconds, bare pool seconds), each the fastest of `repeats`."""
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp)
        grader = python_grader(root) if grader_kind == "python" else true_grader()
        graders = [grader, grader]
        args = write_project(
            root, tasks=TASKS, runs=RUNS, graders=graders, transcript_bytes=TRANSCRIPT_BYTES
        )
        harness, bare = interleaved(
            repeats, waza_ci(args, "--jobs", str(JOBS)), bare_pool(graders, JOBS), root
        )
    return harness.seconds, bare.seconds


def rows(repeats: int, grader_kind: str) -> list[Row]:
    harness, bare = measure(repeats, grader_kind)
    # The goal is the Python grader's (issue 27). A grader that exits in a millisecond (`true`)
    # only shows the contract's own work per execution, which the bare pool skips: that row is
    # context, and contract_floor.py measures what waza-ci adds to the contract.
    judged = grader_kind == "python"
    return [
        Row(
            f"overhead: 1,000 executions ({grader_kind} grader)",
            f"{harness:.2f} s",
            f"bare pool {bare:.2f} s",
            harness / bare,
            "<= 1.05x" if judged else "-",
            harness / bare <= GOAL if judged else None,
        )
    ]


def floor_row(repeats: int) -> Row:
    """The same 1,000 Python graders against the contract's floor (both writing the results
    once): how much of the distance to the bare pool is the contract's own work per execution
    (the private directory and context.json, made, checked and removed; the context
    serialized), which the bare pool skips and waza-ci may not."""
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp)
        graders = [python_grader(root)] * 2
        args = write_project(
            root, tasks=TASKS, runs=RUNS, graders=graders, transcript_bytes=TRANSCRIPT_BYTES
        )
        harness, floor = interleaved(
            repeats,
            waza_ci(args, "--jobs", str(JOBS), "--output", "regraded.json"),
            contract_floor(graders, JOBS, "floored.json"),
            root,
        )
    return Row(
        "overhead: 1,000 executions (python grader) vs the contract's floor",
        f"{harness.seconds:.2f} s",
        f"floor {floor.seconds:.2f} s",
        harness.seconds / floor.seconds,
        "-",
        None,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--grader", choices=("python", "true"), default="python")
    options = parser.parse_args()
    harness, bare = measure(options.repeats, options.grader)
    executions = TASKS * RUNS * 2
    print(f"{executions} executions, --jobs {JOBS}, {options.grader} grader")
    print(f"waza-ci {harness:.2f} s, bare pool {bare:.2f} s, ratio {harness / bare:.3f}x")


if __name__ == "__main__":
    main()
