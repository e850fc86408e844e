"""What waza-ci adds to what the contract requires: 10,000 trivial executions against the
contract's floor, measured in the same run.

1,000 tasks x 5 runs x 2 graders (`sh -c 'cat >/dev/null'`, which reads all of stdin), 1 kB
transcripts, `--jobs 2`, `--output`, whole process. The floor (`_project.contract_floor`) is a
plain Python pool that does what waza's program grader requires of every execution and nothing
else: the run's evidence serialized once, a fresh private directory (0700) holding
context.json (0600), both checked before the grader starts and after it exits, then removed;
the results file read once and written once. The bare pool (no directory, no file, no output)
is shown beside it. The three run alternately; each figure is the fastest of --repeats.

    python benchmarks/contract_floor.py [--executions 10000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from _project import (
    Row,
    alternated,
    bare_pool,
    cat_grader,
    contract_floor,
    waza_ci,
    write_project,
)

RUNS, GRADERS, JOBS = 5, 2, 2
TRANSCRIPT_BYTES = 1000
GOAL = 1.15


def measure(executions: int, repeats: int) -> tuple[float, float, float]:
    """(waza-ci, floor, bare pool) seconds, each the fastest of `repeats`."""
    tasks = max(1, executions // (RUNS * GRADERS))
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp)
        graders = [cat_grader()] * GRADERS
        args = write_project(
            root, tasks=tasks, runs=RUNS, graders=graders, transcript_bytes=TRANSCRIPT_BYTES
        )
        harness, (floor, bare) = alternated(
            repeats,
            waza_ci(args, "--jobs", str(JOBS), "--output", "regraded.json"),
            [contract_floor(graders, JOBS, "floor.json"), bare_pool(graders, JOBS)],
            root,
        )
    return harness.seconds, floor.seconds, bare.seconds


def rows(executions: int, repeats: int) -> list[Row]:
    harness, floor, bare = measure(executions, repeats)
    return [
        Row(
            f"{executions:,} trivial executions vs the contract's floor",
            f"{harness:.2f} s",
            f"floor {floor:.2f} s (bare pool {bare:.2f} s)",
            harness / floor,
            "<= 1.15x floor",
            harness / floor <= GOAL,
        )
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--executions", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3)
    options = parser.parse_args()
    harness, floor, bare = measure(options.executions, options.repeats)
    print(f"{options.executions:,} executions of sh -c 'cat >/dev/null', --jobs {JOBS}")
    print(
        f"waza-ci {harness:.2f} s, contract floor {floor:.2f} s, bare pool {bare:.2f} s: "
        f"{harness / floor:.3f}x the floor ({(harness - floor) / options.executions * 1e3:.2f} "
        f"ms per execution), the floor {floor / bare:.3f}x the bare pool"
    )


if __name__ == "__main__":
    main()
