"""Peak memory and time against the results file's size: `waza-ci grade --output` on a large
file.

400 runs (100 tasks x 4 runs) with 260 kB transcripts make a results file of about 104 MB; one
trivial grader per run. waza-ci's peak resident set size is compared with the file's size and
with the peak of a plain Python process that only `json.load`s the same file; its wall time
with the load + spawn + dump floor: a plain Python process that loads the file, spawns the same
400 graders on the same pool and writes the document once (`_project.bare_pool` with an
output). Both baselines are measured in the same run; waza-ci and the floor run alternately,
`--repeats` times: the fastest of each counts, and waza-ci's largest peak.

    python benchmarks/memory_peak.py [--scale 1.0]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from _project import Row, bare_pool, run_measured, true_grader, waza_ci, write_project

TASKS, RUNS = 100, 4
TRANSCRIPT_BYTES = 260_000


@dataclass(frozen=True)
class MemoryFigures:
    file_bytes: int
    waza_ci_peak: int
    json_load_peak: int
    seconds: float
    floor_seconds: float


def measure(scale: float = 1.0, repeats: int = 3) -> MemoryFigures:
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp)
        graders = [true_grader()]
        args = write_project(
            root,
            tasks=max(1, int(TASKS * scale)),
            runs=RUNS,
            graders=graders,
            transcript_bytes=TRANSCRIPT_BYTES,
        )
        size = (root / "results.json").stat().st_size
        graded_runs, floor_runs = [], []
        for _ in range(repeats):  # alternately; the fastest of each counts, the largest peak
            graded_runs.append(
                run_measured(waza_ci(args, "--jobs", "2", "--output", "regraded.json"), root)
            )
            floor = bare_pool(graders, 2, "dumped.json")
            floor_runs.append(run_measured(floor, root, ok_codes=(0,)))
        loaded = run_measured(
            [sys.executable, "-c", "import json; json.load(open('results.json'))"], root
        )
    return MemoryFigures(
        size,
        max(run.peak_rss_bytes for run in graded_runs),
        loaded.peak_rss_bytes,
        min(run.seconds for run in graded_runs),
        min(run.seconds for run in floor_runs),
    )


GOAL = 2.5
WALL_GOAL = 1.5


def rows(scale: float, repeats: int = 3) -> list[Row]:
    figures = measure(scale, repeats)
    ratio = figures.waza_ci_peak / figures.file_bytes
    mb = figures.file_bytes / 1e6
    return [
        Row(
            f"grading a {mb:.0f} MB file: wall",
            f"{figures.seconds:.2f} s",
            f"load + spawn + dump {figures.floor_seconds:.2f} s",
            figures.seconds / figures.floor_seconds,
            "<= 1.5x",
            figures.seconds / figures.floor_seconds <= WALL_GOAL,
        ),
        Row(
            f"grading a {mb:.0f} MB file: peak RSS",
            f"{figures.waza_ci_peak / 1e6:.0f} MB = {ratio:.2f}x file",
            f"json.load {figures.json_load_peak / figures.file_bytes:.2f}x file",
            figures.waza_ci_peak / figures.json_load_peak,
            "<= 2.5x file",
            ratio <= GOAL,
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the 100 tasks")
    parser.add_argument("--repeats", type=int, default=3)
    options = parser.parse_args()
    figures = measure(options.scale, options.repeats)
    mb = 1e6
    print(f"results file {figures.file_bytes / mb:.1f} MB")
    print(
        f"waza-ci grade --output: peak RSS {figures.waza_ci_peak / mb:.1f} MB = "
        f"{figures.waza_ci_peak / figures.file_bytes:.2f}x the file ({figures.seconds:.1f} s)"
    )
    print(f"load + spawn + dump floor: {figures.floor_seconds:.1f} s")
    print(
        f"json.load alone: peak RSS {figures.json_load_peak / mb:.1f} MB = "
        f"{figures.json_load_peak / figures.file_bytes:.2f}x the file"
    )


if __name__ == "__main__":
    main()
