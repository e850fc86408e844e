"""How grading time scales with --jobs, against --jobs 1 measured in the same run.

Builds a throwaway eval (TASKS tasks x RUNS runs x GRADERS program graders; each grader is a
small Python script that reads its context file and sleeps SLEEP_S, like a grader waiting on a
linter), runs `waza-ci grade` as a subprocess with several --jobs values and prints the median
wall time of REPEATS runs and the speed-up over --jobs 1. Also times the private-directory
overhead: one grader run with its context dir vs the same program started bare.

    .venv/bin/python benchmarks/grading_jobs.py
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _project import Row, waza_ci

from waza_ci.sandbox.privatedir import create_context_file, verify_and_remove
from waza_ci.sandbox.program import run_program

TASKS, RUNS, GRADERS = 4, 3, 4
SLEEP_S = 0.2
REPEATS = 3
JOBS = (1, 2, 4, 8)

GRADER = f"""\
import json, os, sys, time
json.load(open(os.environ["WAZA_GRADING_CONTEXT"]))
sys.stdin.read()
time.sleep({SLEEP_S})
print("ok")
"""


def build_project(root: Path) -> list[str]:
    (root / "tasks").mkdir()
    (root / "workspace").mkdir()
    (root / "grader.py").write_text(GRADER)
    graders = "".join(
        f"  - type: program\n    name: g{i}\n    config: {{command: {sys.executable}, "
        f"args: [grader.py]}}\n"
        for i in range(GRADERS)
    )
    (root / "eval.yaml").write_text(f"name: bench\ntasks: ['tasks/*.yaml']\ngraders:\n{graders}")
    tasks = []
    for t in range(TASKS):
        (root / "tasks" / f"t{t}.yaml").write_text(f"id: t{t}\n")
        transcript = [{"type": "assistant.message", "content": "x" * 2000}] * 50
        runs = [
            {
                "run_number": r + 1,
                "status": "passed",
                "final_output": "answer",
                "transcript": transcript,
                "validations": {},
            }
            for r in range(RUNS)
        ]
        tasks.append({"test_id": f"t{t}", "runs": runs})
    (root / "results.json").write_text(json.dumps({"schemaVersion": "1.4", "tasks": tasks}))
    return ["grade", "eval.yaml", "--results", "results.json", "--workspace", "workspace"]


def time_grade(root: Path, args: list[str], jobs: int) -> float:
    samples = []
    for _ in range(REPEATS):
        started = time.perf_counter()
        done = subprocess.run(
            waza_ci(args, "--jobs", str(jobs)),
            cwd=root,
            capture_output=True,
            check=False,
        )
        samples.append(time.perf_counter() - started)
        if done.returncode != 0:
            raise SystemExit(f"grading failed: {done.stderr.decode()}")
    return statistics.median(samples)


def time_private_dir_overhead(root: Path) -> tuple[float, float]:
    argv = [sys.executable, "-c", "pass"]
    payload = (root / "results.json").read_bytes()[:100_000]
    bare, private = [], []
    for _ in range(20):
        started = time.perf_counter()
        run_program(argv, stdin=b"", env={}, cwd=str(root), timeout_s=30)
        bare.append(time.perf_counter() - started)
        started = time.perf_counter()
        context = create_context_file(payload, tempfile.gettempdir())
        run_program(
            argv, stdin=b"", env={"WAZA_GRADING_CONTEXT": context.path}, cwd=str(root), timeout_s=30
        )
        verify_and_remove(context)
        private.append(time.perf_counter() - started)
    return statistics.median(bare), statistics.median(private)


def rows() -> list[Row]:
    """The speed-up at each --jobs (context for jobs_speedup.py's goal) and one grader start
    with and without its private context directory."""
    result = []
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp)
        args = build_project(root)
        baseline = time_grade(root, args, 1)
        for jobs in JOBS[1:]:
            seconds = time_grade(root, args, jobs)
            result.append(
                Row(
                    f"--jobs {jobs} vs --jobs 1 (48 x python sleeping {SLEEP_S} s)",
                    f"{seconds:.2f} s",
                    f"{baseline:.2f} s",
                    baseline / seconds,
                    f"speed-up (ideal {jobs}x)",
                    None,
                )
            )
        bare, private = time_private_dir_overhead(root)
        result.append(
            Row(
                "one grader start with its private context dir (100 kB)",
                f"{private * 1000:.1f} ms",
                f"bare start {bare * 1000:.1f} ms",
                private / bare,
                "-",
                None,
            )
        )
    return result


def main() -> None:
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp)
        args = build_project(root)
        executions = TASKS * RUNS * GRADERS
        print(
            f"{executions} grader executions ({TASKS} tasks x {RUNS} runs x {GRADERS} graders,"
            f" each sleeping {SLEEP_S} s), median of {REPEATS}"
        )
        print(f"{'jobs':>6} {'seconds':>9} {'speed-up vs jobs=1':>20}")
        baseline = time_grade(root, args, 1)
        print(f"{1:>6} {baseline:>9.2f} {1.0:>19.2f}x")
        for jobs in JOBS[1:]:
            seconds = time_grade(root, args, jobs)
            print(f"{jobs:>6} {seconds:>9.2f} {baseline / seconds:>19.2f}x")
        bare, private = time_private_dir_overhead(root)
        print(
            f"\none grader start, median of 20: bare {bare * 1000:.1f} ms, with private "
            f"context dir (100 kB) {private * 1000:.1f} ms, ratio {private / bare:.2f}x"
        )


if __name__ == "__main__":
    main()
