"""What keeping a long output's head and tail costs: one grader that prints N bytes of lines.

For each size (10 KiB, 1.4 MiB, 100 MiB) it times waza-ci's `run_program` (capture: the first
512 KiB, the last 512 KiB in a ring buffer, the rest counted, the text with its cut line) and,
as the baseline in the same run, a bare `subprocess.Popen` of the same argv whose two pipes
are read to the end and thrown away (the least any capture must do). Runs alternate; the
fastest of `--runs` counts. Also prints the peak of Python allocations during the 100 MiB run.

    .venv/bin/python benchmarks/output_capture.py [--runs 5]
"""

from __future__ import annotations

import argparse
import selectors
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _project import Row

from waza_ci.sandbox.program import run_program

PRINTER = r"""
import sys
left = {size}
line = b"filler %08d " + b"y" * 80 + b"\n"
out, n, block = sys.stderr.buffer, 0, []
while left > 0:
    piece = (line % n)[:left]
    n += 1
    left -= len(piece)
    block.append(piece)
    if len(block) == 20000:
        out.write(b"".join(block))
        block = []
out.write(b"".join(block))
"""


def argv(size: int) -> list[str]:
    return [sys.executable, "-c", PRINTER.format(size=size)]


def waza_ci(size: int) -> None:
    run_program(argv(size), stdin=b"", env={}, cwd="/", timeout_s=120)


def bare(size: int) -> None:
    process = subprocess.Popen(
        argv(size), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    with selectors.DefaultSelector() as selector:
        for pipe in (process.stdout, process.stderr):
            assert pipe is not None
            selector.register(pipe, selectors.EVENT_READ)
        while selector.get_map():
            for key, _ in selector.select():
                if not key.fileobj.read1(65_536):  # type: ignore[union-attr]
                    selector.unregister(key.fileobj)
    process.wait()


def fastest(action: Callable[[], object], times: list[float]) -> None:
    started = time.perf_counter()
    action()
    times.append(time.perf_counter() - started)


SIZES = (("10 KiB", 10 * 1024), ("1.4 MiB", 1_468_006), ("100 MiB", 100 * 1024 * 1024))


def measure(runs: int) -> list[tuple[str, float, float]]:
    """(output size, waza-ci seconds, bare drain seconds), the fastest of `runs` each."""
    timed = []
    for label, size in SIZES:
        ours: list[float] = []
        theirs: list[float] = []
        for _ in range(runs):
            fastest(lambda s=size: waza_ci(s), ours)  # type: ignore[misc]
            fastest(lambda s=size: bare(s), theirs)  # type: ignore[misc]
        timed.append((label, min(ours), min(theirs)))
    return timed


def rows(runs: int) -> list[Row]:
    return [
        Row(
            f"capture: a grader printing {label}",
            f"{ours:.3f} s",
            f"bare drain {theirs:.3f} s",
            ours / theirs,
            "-",
            None,
        )
        for label, ours, theirs in measure(runs)
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    print("| grader output | waza-ci run_program (s) | bare drain (s) | ratio |")
    print("|---|---:|---:|---:|")
    for label, ours, theirs in measure(runs):
        print(f"| {label} | {ours:.3f} | {theirs:.3f} | {ours / theirs:.2f} |")
    tracemalloc.start()
    waza_ci(100 * 1024 * 1024)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(f"\npeak Python allocations while capturing 100 MiB: {peak / 1024 / 1024:.1f} MiB")


if __name__ == "__main__":
    main()
