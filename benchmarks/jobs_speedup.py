"""--jobs speed-up, whole process: 40 graders that sleep 0.25 s, `--jobs 8` against `--jobs 1`.

10 tasks x 1 run x 4 graders (`sleep 0.25`), no transcript to speak of; each figure is the wall
time of the whole `waza-ci grade` process (start-up included), fastest of --repeats, the two
settings run alternately. 8x is the limit.

    python benchmarks/jobs_speedup.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from _project import Row, interleaved, sleep_grader, waza_ci, write_project

GOAL = 7.0


def measure(repeats: int) -> tuple[float, float]:
    """(seconds at --jobs 1, seconds at --jobs 8)."""
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp)
        args = write_project(
            root, tasks=10, runs=1, graders=[sleep_grader(0.25)] * 4, transcript_bytes=200
        )
        one, eight = interleaved(
            repeats, waza_ci(args, "--jobs", "1"), waza_ci(args, "--jobs", "8"), root
        )
    return one.seconds, eight.seconds


def rows(repeats: int) -> list[Row]:
    one, eight = measure(repeats)
    return [
        Row(
            "--jobs 8 vs --jobs 1 (40 x sleep 0.25 s)",
            f"{eight:.2f} s",
            f"{one:.2f} s",
            one / eight,
            ">= 7x speed-up",
            one / eight >= GOAL,
        )
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    one, eight = measure(parser.parse_args().repeats)
    print(f"--jobs 1 {one:.2f} s, --jobs 8 {eight:.2f} s: {one / eight:.2f}x")


if __name__ == "__main__":
    main()
