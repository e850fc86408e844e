"""Shared by the benchmarks: a throwaway eval project on disk, and timed, measured processes.

Nothing here is waza-ci code: a project is plain files (eval.yaml, task files, a results file
shaped like `waza run --output`), and waza-ci runs as a subprocess, as a user would run it.
"""

from __future__ import annotations

import compileall
import functools
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# The interpreter's own folder first: graders that run `python3` must not go through a version
# manager's shim (pyenv) on PATH, which would add a fraction of a second to every start.
FAST_PATH = os.pathsep.join((str(Path(sys.executable).parent), os.environ.get("PATH", "")))


@dataclass(frozen=True)
class Grader:
    """One program grader: argv as eval.yaml gives it (command + args)."""

    command: str
    args: tuple[str, ...] = ()


def python_grader(root: Path) -> Grader:
    """A trivial grader as most are written: a Python script that reads stdin and prints ok."""
    script = root / "grader.py"
    script.write_text("import sys\nsys.stdin.read()\nprint('ok')\n")
    return Grader(sys.executable, (str(script),))


def true_grader() -> Grader:
    """The cheapest possible grader: coreutils `true` (about a millisecond to start)."""
    found = shutil.which("true")
    if found is None:
        raise SystemExit("no `true` on PATH")
    return Grader(found)


def cat_grader() -> Grader:
    """A trivial grader that reads all of stdin: `sh -c 'cat >/dev/null'` (two execs)."""
    found = shutil.which("sh")
    if found is None:
        raise SystemExit("no `sh` on PATH")
    return Grader(found, ("-c", "cat >/dev/null"))


def sleep_grader(seconds: float) -> Grader:
    found = shutil.which("sleep")
    if found is None:
        raise SystemExit("no `sleep` on PATH")
    return Grader(found, (str(seconds),))


def transcript(size_bytes: int) -> list[dict[str, Any]]:
    """Events shaped like a Copilot session's, about `size_bytes` of JSON in all."""
    events: list[dict[str, Any]] = []
    written = 0
    index = 0
    while written < size_bytes:
        call = f"call-{index}"
        chunk: list[dict[str, Any]] = [
            {"type": "assistant.message", "content": f"step {index}: " + "thinking " * 100},
            {
                "type": "tool.execution_start",
                "tool_name": "bash",
                "tool_call_id": call,
                "arguments": {"command": f"grep -rn pattern src/ # {index}"},
            },
            {
                "type": "tool.execution_complete",
                "tool_call_id": call,
                "success": True,
                "tool_result": "src/a.py:1: pattern <match> & more\n" * 20,
            },
        ]
        events.extend(chunk)
        written += len(json.dumps(chunk))
        index += 1
    return events


def write_project(
    root: Path,
    *,
    tasks: int,
    runs: int,
    graders: Sequence[Grader],
    transcript_bytes: int,
) -> list[str]:
    """Write eval.yaml, the task files and results.json; returns the `waza-ci` arguments."""
    (root / "tasks").mkdir(parents=True, exist_ok=True)
    (root / "workspace").mkdir(exist_ok=True)
    grader_yaml = "".join(
        f"  - type: program\n    name: g{index}\n    config:\n"
        f"      command: {json.dumps(grader.command)}\n"
        f"      args: {json.dumps(list(grader.args))}\n"
        for index, grader in enumerate(graders)
    )
    (root / "eval.yaml").write_text(
        f"name: bench\ntasks: ['tasks/*.yaml']\ngraders:\n{grader_yaml}"
    )
    events = transcript(transcript_bytes)
    saved_tasks = []
    for task in range(tasks):
        (root / "tasks" / f"t{task:05d}.yaml").write_text(f"id: t{task:05d}\n")
        saved_runs = [
            {
                "run_number": run + 1,
                "status": "passed",
                "duration_ms": 1000,
                "final_output": f"answer {task}/{run}: " + "done. " * 50,
                "transcript": events,
                "validations": {},
            }
            for run in range(runs)
        ]
        saved_tasks.append({"test_id": f"t{task:05d}", "status": "passed", "runs": saved_runs})
    doc = {
        "schemaVersion": "1.4",
        "eval_name": "bench",
        "config": {"runs_per_test": runs},
        "summary": {"duration_ms": 1},
        "tasks": saved_tasks,
    }
    with (root / "results.json").open("w", encoding="utf-8") as stream:
        json.dump(doc, stream)
    return ["grade", "eval.yaml", "--results", "results.json", "--workspace", "workspace"]


@dataclass(frozen=True)
class Measured:
    seconds: float
    peak_rss_bytes: int


def run_measured(argv: Sequence[str], cwd: Path, *, ok_codes: Sequence[int] = (0, 1)) -> Measured:
    """Run a process to its end: its wall time and its own peak resident set size."""
    env = {**os.environ, "PATH": FAST_PATH}
    started = time.perf_counter()
    process = subprocess.Popen(
        list(argv), cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    assert process.stderr is not None
    errors = process.stderr.read()
    _pid, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    process.stderr.close()
    if process.returncode not in ok_codes:
        raise SystemExit(f"{argv[:4]} exited {process.returncode}: {errors.decode()[-2000:]}")
    return Measured(seconds, usage.ru_maxrss * 1024)


def waza_ci(args: Sequence[str], *extra: str) -> list[str]:
    installed_bytecode()
    return [sys.executable, "-m", "waza_ci", *args, *extra]


@functools.cache
def installed_bytecode() -> None:
    """Byte-compile waza-ci's modules, once, as installing it does.

    `pip install` writes every module's bytecode, and the action's image ships it; a source
    checkout has none until Python caches it, which PYTHONDONTWRITEBYTECODE (set on the
    project's machine) forbids: every start then compiled all of waza-ci's modules again, 70 ms
    that no user pays. compileall writes regardless of that setting, into `__pycache__/` beside
    the sources (ignored by git)."""
    spec = importlib.util.find_spec("waza_ci")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("waza_ci is not importable: pip install -e . first")
    for folder in spec.submodule_search_locations:
        compileall.compile_dir(folder, quiet=1)


BARE_POOL = """\
import json, subprocess, sys
from concurrent.futures import ThreadPoolExecutor
doc = json.load(open("results.json"))
argvs = json.loads(sys.argv[2])
work = [(argv, run["final_output"].encode()) for task in doc["tasks"] for run in task["runs"]
        for argv in argvs]
def spawn(item):
    argv, stdin = item
    return subprocess.run(argv, input=stdin, capture_output=True).returncode
with ThreadPoolExecutor(int(sys.argv[1])) as pool:
    codes = list(pool.map(spawn, work))
if len(sys.argv) > 3:  # and write the document once, as `--output` does
    with open(sys.argv[3], "w", encoding="utf-8") as stream:
        json.dump(doc, stream)
sys.exit(1 if any(codes) else 0)
"""


def bare_pool(graders: Sequence[Grader], jobs: int, output: str | None = None) -> list[str]:
    """The baseline: a plain Python process that reads the same results file and spawns every
    grader for every run, with the run's final output on stdin, on a `jobs`-thread pool (and,
    given `output`, writes the document there once: load + spawn + dump)."""
    argvs = [[grader.command, *grader.args] for grader in graders]
    return [
        sys.executable,
        "-c",
        BARE_POOL,
        str(jobs),
        json.dumps(argvs),
        *([output] if output is not None else []),
    ]


CONTRACT_FLOOR = """\
import json, os, secrets, subprocess, sys
from concurrent.futures import ThreadPoolExecutor
jobs, argvs = int(sys.argv[1]), json.loads(sys.argv[2])
output = sys.argv[3] if len(sys.argv) > 3 else None
with open("results.json", "rb") as stream:
    doc = json.load(stream)
temp = os.environ.get("TMPDIR") or "/tmp"
env = {**os.environ, "WAZA_WORKSPACE_DIR": os.path.abspath("workspace")}
EVIDENCE = ("tool_events", "host_lifecycle", "command_invocations", "user_input_requests")

def context(run):
    events = run.get("transcript") or []
    done = {e.get("tool_call_id"): e for e in events if e.get("type") == "tool.execution_complete"}
    calls = [
        {"name": e["tool_name"], "arguments": e.get("arguments"),
         "result": done.get(e["tool_call_id"], {}).get("tool_result"),
         "success": bool(done.get(e["tool_call_id"], {}).get("success", False))}
        for e in events if e.get("type") == "tool.execution_start"
    ]
    evidence = {name: run.get(name) for name in EVIDENCE}
    return json.dumps({"version": 1, "output": run.get("final_output") or "", "outcome": {},
                       "transcript": events, "tool_calls": calls, **evidence,
                       "duration_ms": run.get("duration_ms", 0)}).encode()

def same(path, made):
    now = os.lstat(path)
    return (now.st_dev, now.st_ino) == (made.st_dev, made.st_ino)

def grade(argv, stdin, payload):
    directory = os.path.join(temp, "floor-" + secrets.token_hex(8))
    os.mkdir(directory, 0o700)
    path = os.path.join(directory, "context.json")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    os.write(fd, payload)
    os.close(fd)
    made_dir, made_file = os.lstat(directory), os.lstat(path)  # checked before
    if made_dir.st_mode & 0o777 != 0o700 or made_file.st_mode & 0o777 != 0o600:
        os.chmod(directory, 0o700)  # only under a umask that takes owner bits
        os.chmod(path, 0o600)
    done = subprocess.run(argv, input=stdin, capture_output=True,
                          env={**env, "WAZA_GRADING_CONTEXT": path})
    assert same(directory, made_dir) and same(path, made_file)  # and after the grader
    os.unlink(path)
    os.rmdir(directory)
    return done.returncode, done.stdout.decode(errors="replace").strip()

def grade_run(run):
    payload, stdin = context(run), (run.get("final_output") or "").encode()
    run["validations"] = {}
    for index, argv in enumerate(argvs):
        code, out = grade(argv, stdin, payload)
        run["validations"][f"g{index}"] = {"identifier": f"g{index}", "type": "program",
            "score": 1 if code == 0 else 0, "passed": code == 0, "feedback": out}
    return all(code["passed"] for code in run["validations"].values())

with ThreadPoolExecutor(jobs) as pool:
    passed = list(pool.map(grade_run, [run for task in doc["tasks"] for run in task["runs"]]))
if output is not None:  # the verdicts written back once, as `--output` does
    with open(output, "w", encoding="utf-8") as stream:
        json.dump(doc, stream)
sys.exit(0 if all(passed) else 1)
"""


def contract_floor(graders: Sequence[Grader], jobs: int, output: str | None = None) -> list[str]:
    """The contract's floor: the bare pool plus what waza's program grader requires of every
    execution (program-grader.md) and nothing else. Per run, its evidence serialized once
    (context.json's fields, tool calls derived from the transcript); per execution, a fresh
    private directory (0700) holding context.json (0600), both checked before the grader
    starts and after it exits, then removed; the results file read once (and, given
    `output`, the verdicts written there once). What waza-ci does beyond this is overhead."""
    argvs = [[grader.command, *grader.args] for grader in graders]
    return [
        sys.executable,
        "-c",
        CONTRACT_FLOOR,
        str(jobs),
        json.dumps(argvs),
        *([output] if output is not None else []),
    ]


def median_of(repeats: int, argv: Sequence[str], cwd: Path) -> Measured:
    samples = [run_measured(argv, cwd) for _ in range(repeats)]
    samples.sort(key=lambda m: m.seconds)
    return samples[len(samples) // 2]


def interleaved(
    repeats: int, first: Sequence[str], second: Sequence[str], cwd: Path
) -> tuple[Measured, Measured]:
    """The fastest of `repeats` runs of each of two commands, run alternately: waza-ci
    (`first`, which may exit 1 for a failing grader) and its baseline (which must exit 0)."""
    harness, baseline = alternated(repeats, first, [second], cwd)
    return harness, baseline[0]


def alternated(
    repeats: int, first: Sequence[str], baselines: Sequence[Sequence[str]], cwd: Path
) -> tuple[Measured, list[Measured]]:
    """The fastest of `repeats` runs of waza-ci (`first`) and of each baseline, run in turn.

    On a shared machine other work only ever adds time, so the fastest run is the best
    estimate of a command's own cost (as `timeit` reports); taking the commands in turn
    spreads a burst of load over all of them."""
    harness: list[Measured] = []
    others: list[list[Measured]] = [[] for _ in baselines]
    for _ in range(repeats):
        harness.append(run_measured(first, cwd))
        for samples, argv in zip(others, baselines, strict=True):
            samples.append(run_measured(argv, cwd, ok_codes=(0,)))
    fastest = [min(samples, key=lambda m: m.seconds) for samples in others]
    return min(harness, key=lambda m: m.seconds), fastest


@dataclass(frozen=True)
class Row:
    """One line of `run_all.py`'s table: a figure, its same-run baseline, the ratio, the goal."""

    figure: str
    value: str
    baseline: str
    ratio: float
    goal: str
    met: bool | None
    """None where the row is context for another row's goal."""


def median(values: Sequence[float]) -> float:
    ordered = sorted(values)
    return ordered[len(ordered) // 2]
