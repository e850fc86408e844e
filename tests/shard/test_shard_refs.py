"""Shards of an eval with `ref:` graders: each shard resolves the refs through waza.lock, its
partial records what they resolved to, and the merge refuses shards that graded with another
commit or digest of a module."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import CliResult, Project, make_results, make_run, run_cli_process
from tests.grader_modules import GraderModule, lock_module

MODULE = GraderModule()
OTHER = GraderModule(commit="b" * 40)  # the same preset at another commit
REF = MODULE.ref()
pytestmark = pytest.mark.slow  # each test starts waza-ci three times


def _grade(project: Project, shard: str, cache: Path) -> CliResult:
    args = [*project.grade_args(), "--module-cache", str(cache), "--shard", shard]
    args += ["--output", f"partials/{shard.replace('/', '-')}"]
    return run_cli_process(args, cwd=project.root, env={"GITHUB_API_URL": "http://127.0.0.1:9"})


def _merge(project: Project) -> CliResult:
    args = ["merge", "partials/*", "--report-json", "r.json"]
    return run_cli_process(args, cwd=project.root)


def _suite(project: Project, tmp_path: Path) -> Path:
    project.write_eval(f"- ref: {REF}\n  name: mentions\n")
    for task in ("t1", "t2"):
        project.write_task(task)
    runs = {task: [make_run(1, "CHANGELOG updated")] for task in ("t1", "t2")}
    project.write_results(make_results(runs))
    cache = tmp_path / "cache"
    MODULE.put_in_cache(cache)
    OTHER.put_in_cache(cache)
    lock_module(project.root, MODULE)
    return cache


def test_shards_with_one_lock_merge_and_keep_the_pins(project: Project, tmp_path: Path) -> None:
    cache = _suite(project, tmp_path)
    assert _grade(project, "1/2", cache).code == 0
    assert _grade(project, "2/2", cache).code == 0
    merged = _merge(project)
    assert merged.code == 0, merged.stderr
    report = json.loads((project.root / "r.json").read_text())
    assert [(m["ref"], m["commit"]) for m in report["modules"]] == [(REF, MODULE.commit)]
    assert {row["source"].get("ref") for t in report["tasks"] for row in t["graders"]} == {REF}


def test_shards_that_resolved_a_ref_differently_are_refused(
    project: Project, tmp_path: Path
) -> None:
    cache = _suite(project, tmp_path)
    assert _grade(project, "1/2", cache).code == 0
    lock_module(project.root, OTHER)  # the lock changed between the shards
    assert _grade(project, "2/2", cache).code == 0
    merged = _merge(project)
    assert merged.code == 2
    (line,) = merged.stderr.strip().splitlines()
    assert f"the shards resolved `ref: {REF}` differently" in line
    assert MODULE.commit in line and OTHER.commit in line and "same waza.lock" in line
