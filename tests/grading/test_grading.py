"""Planning and running grader executions: order, one context per run, environment."""

from __future__ import annotations

import os
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Project, make_results, make_run
from waza_ci.grading import run as grading_run
from waza_ci.grading.plan import GradingPlan, plan_grading
from waza_ci.grading.run import GradingSetup, run_plan
from waza_ci.sandbox import orphans
from waza_ci.sandbox.isolation import grader_environment
from waza_ci.waza.context import serialize_context
from waza_ci.waza.results import load_results
from waza_ci.waza.spec import load_eval


def _plan(project: Project, graders: int, runs: int) -> GradingPlan:
    script = project.write_grader("ok.py", "import sys\nsys.stdin.read()\nprint('ok')\n")
    project.write_eval("".join(project.program_grader(f"g{i}", script) for i in range(graders)))
    project.write_task("t1")
    project.write_task("t2")
    runs_list = [
        make_run(n, transcript=[{"type": "x", "content": "y" * 1000}]) for n in range(runs)
    ]
    project.write_results(make_results({"t1": runs_list, "t2": runs_list}))
    spec = load_eval(project.eval_path, working_directory=project.root)
    return plan_grading(spec, [load_results(project.results_path)], None)


def _setup(project: Project, tmp_path: Path, jobs: int) -> GradingSetup:
    (tmp_path / "ctx").mkdir(exist_ok=True)
    return GradingSetup(
        workspace_dir=str(project.workspace),
        working_directory=str(project.root),
        env={"PATH": "/usr/bin:/bin"},
        temp_dir=str(tmp_path / "ctx"),
        jobs=jobs,
    )


def test_plan_order_is_results_task_run_grader(project: Project) -> None:
    plan = _plan(project, graders=2, runs=2)
    order = [(e.match.task.id, e.run_index, e.grader.name) for e in plan.executions]
    assert order == [
        (task, run, grader) for task in ("t1", "t2") for run in (0, 1) for grader in ("g0", "g1")
    ]


def test_each_run_is_serialized_once_and_dropped_after_its_last_grader(
    project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plan = _plan(project, graders=3, runs=2)
    calls: list[Any] = []
    lock = threading.Lock()
    real = serialize_context

    def counting(raw_run: Any) -> bytes:
        with lock:
            calls.append(raw_run["run_number"])
        return real(raw_run)

    monkeypatch.setattr("waza_ci.grading.run.serialize_context", counting)
    cache = grading_run._ContextCache(plan.executions)
    monkeypatch.setattr(grading_run, "_ContextCache", lambda executions: cache)
    results = run_plan(plan, _setup(project, tmp_path, jobs=3))
    assert len(results) == 12 and all(r.verdict.passed for r in results)
    assert len(calls) == 4, "one serialization per run (2 tasks x 2 runs), not per grader"
    assert cache.held == 0
    assert list((tmp_path / "ctx").iterdir()) == [], "every context directory was removed"


@pytest.mark.slow
def test_results_come_back_in_plan_order_whatever_the_jobs(
    project: Project, tmp_path: Path
) -> None:
    plan = _plan(project, graders=3, runs=3)
    one = [r.execution for r in run_plan(plan, _setup(project, tmp_path, jobs=1))]
    many = [r.execution for r in run_plan(plan, _setup(project, tmp_path, jobs=4))]
    assert one == many == list(plan.executions)


def test_grader_environment_drops_inputs_and_runner_tokens() -> None:
    env = {
        "PATH": "/bin",
        "INPUT_GITHUB-TOKEN": "t",
        "INPUT_EVAL": "e",
        "GITHUB_TOKEN": "t",
        "GH_TOKEN": "t",
        "ACTIONS_RUNTIME_TOKEN": "t",
        "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "t",
        "ACTIONS_ID_TOKEN_REQUEST_URL": "u",
        "GITHUB_SHA": "kept",
        "GITHUB_OUTPUT": "/github/file_commands/set_output",
        "GITHUB_ENV": "/github/file_commands/set_env",
        "GITHUB_PATH": "/github/file_commands/add_path",
        "GITHUB_STATE": "/github/file_commands/save_state",
        "GITHUB_STEP_SUMMARY": "/github/file_commands/step_summary",
    }
    assert grader_environment(env) == {"PATH": "/bin", "GITHUB_SHA": "kept"}


def test_children_the_caller_already_had_are_spared(project: Project, tmp_path: Path) -> None:
    plan = _plan(project, graders=1, runs=1)
    bystander = subprocess.Popen(["sleep", "30"])
    try:
        run_plan(plan, _setup(project, tmp_path, jobs=1))
        assert bystander.poll() is None, "a process the caller started is not a grader's orphan"
    finally:
        bystander.kill()
        bystander.wait()


def _open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs Linux /proc")
def test_pool_bookkeeping_is_constant_per_execution_and_leaves_no_descriptor(
    project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The complexity guard: the process table is scanned (for escaped grader children) a
    # fixed number of times per grading, never once per execution, and the descriptors of
    # removed context files closed in the background are all closed when run_plan returns.
    scans: list[int] = []
    real_scan = orphans._child_pids

    def counting_scan() -> list[int]:
        scans.append(1)
        return real_scan()

    monkeypatch.setattr(orphans, "_child_pids", counting_scan)
    counts = []
    for graders, runs in ((1, 2), (3, 4)):
        scans.clear()
        plan = _plan(project, graders=graders, runs=runs)
        before = _open_descriptors()
        results = run_plan(plan, _setup(project, tmp_path, jobs=2))
        assert len(results) == 2 * graders * runs and all(r.verdict.passed for r in results)
        assert _open_descriptors() == before
        counts.append(len(scans))
    assert counts[0] == counts[1] <= 3, f"process-table scans for 4 and 24 executions: {counts}"
