"""Start-up: how long `import waza_ci.cli.main` and `waza-ci grade --help` take.

The import is read from `python -X importtime` (cumulative microseconds of `waza_ci.cli.main`); the
command's wall time is compared with a bare `python -c pass` measured alternately in the same
run (median of --repeats).

    python benchmarks/import_time.py [--repeats 7]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from collections.abc import Sequence

from _project import Row, installed_bytecode, median, waza_ci

GOAL_S = 0.15


def _wall(argv: Sequence[str]) -> float:
    started = time.perf_counter()
    subprocess.run(list(argv), capture_output=True, check=True)
    return time.perf_counter() - started


def import_seconds() -> float:
    installed_bytecode()
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import waza_ci.cli.main"],
        capture_output=True,
        text=True,
        check=True,
    )
    for line in done.stderr.splitlines():
        parts = [part.strip() for part in line.removeprefix("import time:").split("|")]
        if len(parts) == 3 and parts[2] == "waza_ci.cli.main":
            return int(parts[1]) / 1e6
    raise SystemExit("waza_ci.cli.main not in the -X importtime output")


def rows(repeats: int) -> list[Row]:
    imports = median([import_seconds() for _ in range(repeats)])
    helps, bares = [], []
    for _ in range(repeats):
        helps.append(_wall(waza_ci(["grade", "--help"])))
        bares.append(_wall([sys.executable, "-c", "pass"]))
    help_s, bare_s = median(helps), median(bares)
    return [
        Row(
            "import waza_ci.cli.main",
            f"{imports:.3f} s",
            "-",
            imports / GOAL_S,
            "<= 0.15 s",
            imports <= GOAL_S,
        ),
        Row(
            "waza-ci grade --help minus bare Python (wall)",
            f"{help_s:.3f} s - {bare_s:.3f} s = {help_s - bare_s:.3f} s",
            f"python -c pass {bare_s:.3f} s",
            help_s / bare_s,
            "<= 0.15 s",
            help_s - bare_s <= GOAL_S,
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    for row in rows(parser.parse_args().repeats):
        print(f"{row.figure}: {row.value} (baseline {row.baseline}; goal {row.goal})")


if __name__ == "__main__":
    main()
