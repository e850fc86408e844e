"""Sharded grading against one unsharded grading, and what the merge itself costs.

Part 1, speed-up: a throwaway eval (TASKS x RUNS x GRADERS program graders, each `sleep
SLEEP_S`, like a grader waiting on a remote build; it needs next to no CPU, so four shards on
one shared machine behave like four runners) is graded once unsharded with
`--jobs 1`, then as SHARDS `waza-ci grade --shard I/N --jobs 1` processes started side by side
(as a job matrix runs them) followed by `waza-ci merge`. Median of REPEATS; the speed-up is
the unsharded wall time over (slowest shard + merge), both measured in this run.

Part 2, the merge's own cost: for each suite shape of MERGE_SHAPES (10,000 grader executions
each; `true` as the grader, so making the partials is quick), the partials of SHARDS shards are
made once (their wall time is printed for scale), then `waza-ci merge` is timed (median of
REPEATS, a whole process, interpreter start-up included). The shape with several runs per
task includes the top-level bootstrap interval over every task (waza's `statistics`), which
an unsharded grading computes too.

    .venv/bin/python benchmarks/shard_merge.py
"""

from __future__ import annotations

import json
import resource
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from _project import Row, waza_ci

TASKS, RUNS, GRADERS = 16, 2, 2
SLEEP_S = 0.5
SHARDS = 4
REPEATS = 3
# (tasks, runs per task, graders): 10,000 executions each
MERGE_SHAPES = ((2500, 1, 4), (500, 5, 4))


def build_suite(root: Path, tasks: int, runs: int, graders: int, command: list[str]) -> None:
    (root / "tasks").mkdir(parents=True)
    (root / "workspace").mkdir()
    config = json.dumps({"command": command[0], "args": command[1:]})
    entries = "".join(
        f"  - type: program\n    name: g{g}\n    config: {config}\n" for g in range(graders)
    )
    (root / "eval.yaml").write_text(f"name: bench\ntasks: ['tasks/*.yaml']\ngraders:\n{entries}")
    saved = []
    for t in range(tasks):
        (root / "tasks" / f"t{t:04d}.yaml").write_text(f"id: t{t:04d}\n")
        saved.append(
            {
                "test_id": f"t{t:04d}",
                "status": "passed",
                "runs": [
                    {
                        "run_number": r + 1,
                        "status": "passed",
                        "duration_ms": 1000,
                        "final_output": f"answer {t} {r}",
                        "transcript": [{"type": "assistant.message", "content": "x" * 500}],
                        "validations": {},
                    }
                    for r in range(runs)
                ],
            }
        )
    doc = {
        "schemaVersion": "1.4",
        "config": {"runs_per_test": runs},
        "summary": {"duration_ms": 1},
        "tasks": saved,
    }
    (root / "results.json").write_text(json.dumps(doc))


def grade_args(root: Path) -> list[str]:
    return [
        "grade",
        str(root / "eval.yaml"),
        "--results",
        str(root / "results.json"),
        "--workspace",
        str(root / "workspace"),
        "--working-directory",
        str(root),
    ]


def start(args: list[str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        waza_ci(args),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def finish(process: subprocess.Popen[bytes]) -> None:
    _, stderr = process.communicate()
    if process.returncode != 0:
        raise SystemExit(f"waza-ci failed ({process.returncode}): {stderr.decode()}")


def timed(args: list[str]) -> float:
    return timed_with_cpu(args)[0]


def timed_with_cpu(args: list[str]) -> tuple[float, float]:
    """Wall seconds, and the CPU seconds (user + system) the process used: on a shared
    machine the second one does not grow with the other tenants' load."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    finish(start(args))
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def make_partials(root: Path, jobs: int) -> tuple[float, list[str]]:
    """All shards side by side; returns the wall time until the last one ended."""
    partials = [str(root / f"partial-{i}.json") for i in range(1, SHARDS + 1)]
    started = time.perf_counter()
    shards = [
        start([*grade_args(root), "--shard", f"{i}/{SHARDS}", "--jobs", str(jobs), "--output", p])
        for i, p in zip(range(1, SHARDS + 1), partials, strict=True)
    ]
    for process in shards:
        finish(process)
    return time.perf_counter() - started, partials


def speed_up(root: Path) -> tuple[float, float, float]:
    """(unsharded, shards side by side, merge) seconds; printed as it goes."""
    root.mkdir()
    build_suite(root, TASKS, RUNS, GRADERS, [shutil.which("sleep") or "sleep", str(SLEEP_S)])
    executions = TASKS * RUNS * GRADERS
    print(
        f"Part 1: {executions} grader executions ({TASKS} tasks x {RUNS} runs x {GRADERS} "
        f"graders, each sleeping {SLEEP_S} s), median of {REPEATS}"
    )
    whole = statistics.median(timed([*grade_args(root), "--jobs", "1"]) for _ in range(REPEATS))
    shard_times, merge_times = [], []
    for _ in range(REPEATS):
        seconds, partials = make_partials(root, jobs=1)
        shard_times.append(seconds)
        merge_times.append(timed(["merge", *partials]))
    shards, merge = statistics.median(shard_times), statistics.median(merge_times)
    print(f"  unsharded, --jobs 1:                        {whole:7.2f} s")
    print(f"  {SHARDS} shards side by side, --jobs 1 each:       {shards:7.2f} s")
    print(f"  merge:                                      {merge:7.2f} s")
    print(f"  speed-up (unsharded / (shards + merge)):    {whole / (shards + merge):7.2f}x\n")
    return whole, shards, merge


def merge_cost(root: Path, tasks: int, runs: int, graders: int) -> tuple[float, float]:
    """(merge wall seconds, the shards' seconds side by side); printed too."""
    root.mkdir()
    build_suite(root, tasks, runs, graders, ["true"])
    shards, partials = make_partials(root, jobs=2)
    size = sum(Path(p).stat().st_size for p in partials)
    samples = [timed_with_cpu(["merge", *partials]) for _ in range(REPEATS)]
    wall = statistics.median(s[0] for s in samples)
    cpu = statistics.median(s[1] for s in samples)
    print(
        f"  {tasks * runs * graders:,} executions ({tasks} tasks x {runs} runs x {graders} "
        f"graders), {SHARDS} partials of {size / SHARDS / 1e6:.1f} MB each: merge {wall:.2f} s "
        f"wall, {cpu:.2f} s CPU (the {SHARDS} shards took {shards:.1f} s side by side)"
    )
    return wall, shards


def rows() -> list[Row]:
    with tempfile.TemporaryDirectory() as temp:
        whole, shards, merge = speed_up(Path(temp) / "speed")
        result = [
            Row(
                f"{SHARDS} shards + merge vs one grading (sleeping graders)",
                f"{shards + merge:.2f} s",
                f"unsharded {whole:.2f} s",
                whole / (shards + merge),
                "speed-up",
                None,
            )
        ]
        for number, (tasks, runs, graders) in enumerate(MERGE_SHAPES):
            wall, shards_s = merge_cost(Path(temp) / f"merge-{number}", tasks, runs, graders)
            result.append(
                Row(
                    f"merge of {tasks * runs * graders:,} executions ({runs} runs/task)",
                    f"{wall:.2f} s",
                    f"the shards {shards_s:.2f} s",
                    wall / shards_s,
                    "-",
                    None,
                )
            )
    return result


def main() -> None:
    with tempfile.TemporaryDirectory() as temp:
        speed_up(Path(temp) / "speed")
        print(f"Part 2: the cost of a whole `waza-ci merge` process, median of {REPEATS}")
        for number, shape in enumerate(MERGE_SHAPES):
            merge_cost(Path(temp) / f"merge-{number}", *shape)


if __name__ == "__main__":
    main()
