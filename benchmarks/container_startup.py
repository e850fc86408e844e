"""How much the action's image costs over its base: size on disk and container cold start.

    python benchmarks/container_startup.py [--runs 5] [--image waza-ci:test]

Prints, for the action image and `python:3.12-slim`:
- the image size (bytes, from `docker image inspect`);
- cold start: the time from starting `docker run` to the action's first line of output, grading
  a copy of examples/demo with GITHUB_ACTIONS unset (so no API call is made), and the time until
  that container exits; for the base image, the time until `docker run ... python -c pass` exits;
- each as the median of --runs runs after one unmeasured warm-up run, with the ratio.

Build the image first (`bash .ci/docker.sh`). Nothing is written into the repository: the demo
is copied to a temporary folder that is removed afterwards.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "examples" / "demo"
BASE_IMAGE = "python:3.12-slim"
RUN_TIMEOUT_S = 300


@dataclass(frozen=True)
class Timing:
    first_line_s: float
    exit_s: float
    exit_code: int


def image_size(image: str) -> int:
    done = subprocess.run(
        ["docker", "image", "inspect", "--format", "{{.Size}}", image],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        sys.exit(f"image {image} not found ({done.stderr.strip()}); run `bash .ci/docker.sh`")
    return int(done.stdout.strip())


def timed_run(command: Sequence[str]) -> Timing:
    """Start `command`; time its first stdout line and its exit."""
    start = time.perf_counter()
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    ) as process:
        assert process.stdout is not None
        first = process.stdout.readline()
        first_line_s = time.perf_counter() - start
        process.stdout.read()
        exit_code = process.wait(timeout=RUN_TIMEOUT_S)
    exit_s = time.perf_counter() - start
    return Timing(first_line_s if first else exit_s, exit_s, exit_code)


def action_command(image: str, workspace: Path) -> list[str]:
    """The runner's way of starting the action, on the demo, outside GitHub Actions."""
    inputs = {
        "EVAL": "demo/eval.yaml",
        "RESULTS": "demo/results.json",
        "WORKSPACE": "demo/workspace",
        "WORKING-DIRECTORY": "demo",
        "CHECK-RUN": "false",
        "JOB-SUMMARY": "true",
        "FAIL-ON": "failures",
    }
    command = ["docker", "run", "--rm", "--network", "none", "--workdir", "/github/workspace"]
    command += ["-v", f"{workspace}:/github/workspace", "-e", "CI=true"]
    for name, value in inputs.items():
        command += ["-e", f"INPUT_{name}={value}"]
    return [*command, image]


def measure(command: Sequence[str], runs: int) -> list[Timing]:
    warm_up = timed_run(command)
    if warm_up.exit_code != 0:
        sys.exit(f"{' '.join(command)} exited with {warm_up.exit_code}")
    return [timed_run(command) for _ in range(runs)]


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=5, help="measured runs per command")
    parser.add_argument("--image", default="waza-ci:test", help="the action image")
    parser.add_argument("--base", default=BASE_IMAGE, help="the base image to compare with")
    args = parser.parse_args(argv)

    action_size, base_size = image_size(args.image), image_size(args.base)
    with tempfile.TemporaryDirectory(prefix="waza-ci-bench-") as tmp:
        workspace = Path(tmp)
        shutil.copytree(DEMO, workspace / "demo")
        action = measure(action_command(args.image, workspace), args.runs)
    base = measure(
        ["docker", "run", "--rm", "--network", "none", args.base, "python", "-c", "pass"],
        args.runs,
    )

    first_line = median([t.first_line_s for t in action])
    action_exit = median([t.exit_s for t in action])
    base_exit = median([t.exit_s for t in base])
    rows = [
        ("image size (bytes)", f"{action_size:,}", f"{base_size:,}", action_size / base_size),
        (
            "docker run -> first line (s)",
            f"{first_line:.3f}",
            f"{base_exit:.3f}",
            first_line / base_exit,
        ),
        (
            "docker run -> exit (s)",
            f"{action_exit:.3f}",
            f"{base_exit:.3f}",
            action_exit / base_exit,
        ),
    ]
    header = ("", args.image, args.base, "ratio")
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(3)]
    print(f"{header[0]:<{widths[0]}}  {header[1]:>{widths[1]}}  {header[2]:>{widths[2]}}  ratio")
    for label, ours, theirs, ratio in rows:
        print(f"{label:<{widths[0]}}  {ours:>{widths[1]}}  {theirs:>{widths[2]}}  {ratio:5.2f}")
    print(
        f"\nmedian of {args.runs} runs after one warm-up; the action grades examples/demo with "
        f"GITHUB_ACTIONS unset; the base runs `python -c pass` (its time to exit)."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
