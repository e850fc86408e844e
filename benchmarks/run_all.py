"""Every benchmark, one table: each figure beside its baseline measured in the same run.

    python benchmarks/run_all.py --quick [--image waza-ci:test]

`--quick` (under three minutes on a 2-core machine) takes fewer repeats and stops the scaling
series at 3,000 executions; without it, every figure gets more repeats and the scaling series
goes on to 10,000 executions. Each timed figure is the fastest of its repeats (see
`_project.interleaved`). The container rows need Docker and the image (build it first);
without them they are reported as skipped, never as met.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import container_startup
import html_report
import import_time
import inprocess_graders
import jobs_speedup
import memory_peak
import pool_overhead
import scaling
import writer
from _project import Row, median

CONTAINER_GOAL_S = 0.3


def container_rows(image: str, runs: int) -> list[Row]:
    if (
        shutil.which("docker") is None
        or subprocess.run(
            ["docker", "image", "inspect", image], capture_output=True, check=False
        ).returncode
    ):
        return [
            Row(
                "container: docker run -> first line",
                "skipped",
                f"no image {image}",
                float("nan"),
                "<= python + 0.3 s",
                False,
            )
        ]
    base = container_startup.BASE_IMAGE
    with tempfile.TemporaryDirectory(prefix="waza-ci-bench-") as temp:
        workspace = Path(temp)
        shutil.copytree(container_startup.DEMO, workspace / "demo")
        action = container_startup.action_command(image, workspace)
        bare = ["docker", "run", "--rm", "--network", "none", base, "python", "-c", "pass"]
        container_startup.timed_run(action)  # warm-up, not counted
        container_startup.timed_run(bare)
        firsts, bares = [], []
        for _ in range(runs):
            firsts.append(container_startup.timed_run(action).first_line_s)
            bares.append(container_startup.timed_run(bare).exit_s)
    first, bare_s = median(firsts), median(bares)
    return [
        Row(
            "container: docker run -> first line",
            f"{first:.2f} s",
            f"{base} python -c pass {bare_s:.2f} s",
            first / bare_s,
            "<= python + 0.3 s",
            first - bare_s <= CONTAINER_GOAL_S,
        )
    ]


def machine() -> str:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (
        f"{platform.machine()}, {os.cpu_count()} CPUs, {platform.system()} "
        f"{platform.release()}, Python {platform.python_version()}, load average "
        f"{load:.1f} at start"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--image", default="waza-ci:test")
    options = parser.parse_args()
    quick = options.quick
    started = time.perf_counter()
    print(f"machine: {machine()}", flush=True)
    steps: list[Callable[[], list[Row]]] = [
        lambda: import_time.rows(5 if quick else 9),
        lambda: container_rows(options.image, 3 if quick else 5),
        lambda: jobs_speedup.rows(1 if quick else 3),
        # A Python script is the common trivial grader; `true` (a millisecond) shows the
        # harness's whole cost per execution, the private context directory included.
        lambda: pool_overhead.rows(2 if quick else 3, "python"),
        lambda: pool_overhead.rows(3, "true"),
        lambda: scaling.rows([10, 100, 1000, 3000] if quick else [10, 100, 1000, 10000]),
        lambda: memory_peak.rows(1.0),
        lambda: writer.rows(3),
        lambda: inprocess_graders.rows(2 if quick else 3),
        lambda: html_report.rows(2 if quick else 3),
    ]
    table: list[Row] = []
    for step in steps:
        for row in step():
            table.append(row)
            print(
                f"  measured: {row.figure} ({time.perf_counter() - started:.0f} s)",
                file=sys.stderr,
                flush=True,
            )
    print_table(table)
    print(f"\n{len(table)} figures in {time.perf_counter() - started:.0f} s")


def _verdict(met: bool | None) -> str:
    return "-" if met is None else "yes" if met else "NO"


def print_table(table: list[Row]) -> None:
    header = ("figure", "waza-ci", "baseline (same run)", "ratio", "goal", "met")
    lines = [header] + [
        (
            r.figure,
            r.value,
            r.baseline,
            f"{r.ratio:.2f}",
            r.goal,
            "-" if r.met is None else "yes" if r.met else "NO",
        )
        for r in table
    ]
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" for _ in header) + "|")
    for line in lines[1:]:
        print("| " + " | ".join(line) + " |")


if __name__ == "__main__":
    main()
