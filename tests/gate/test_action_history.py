"""The action with a history: the default branch records (commit, ref, run), a pull request is
judged against the default branch's records only, and the inputs' mistakes stop the step.
Runs entrypoint.py as the runner does, against the loopback GitHub API."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.action.test_entrypoint import HEAD_SHA, TOKEN, Runner
from tests.conftest import Project
from tests.fake_github import FakeGitHub
from tests.gate.test_history import write_project

INPUTS = {
    "eval": "eval.yaml",
    "results": "results.json",
    "workspace": "workspace",
    "comment": "off",
    "history": "history/h.jsonl",
}
REPOSITORY = {"repository": {"default_branch": "main"}}


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub(token=TOKEN) as server:
        yield server


@pytest.mark.slow
def test_the_default_branch_records_and_a_pull_request_is_judged_against_it(
    tmp_path: Path, github: FakeGitHub, project: Project
) -> None:
    runner = Runner(tmp_path, github, project.root)
    record = {**INPUTS, "history-record": "true", "fail-on": "errors"}
    write_project(project, {"t": ["good", "good"]})
    main = {"GITHUB_REF": "refs/heads/main", **runner.event("push", REPOSITORY)}
    for _ in range(3):
        done = runner.run(record, env=main)
        assert done.code == 0, done.log
    # A branch that records by mistake: its failing runs are left out of the judgement.
    write_project(project, {"t": ["bad", "bad"]})
    assert runner.run(record, env={**main, "GITHUB_REF": "refs/heads/feature"}).code == 0
    lines = (project.root / "history" / "h.jsonl").read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    assert (first["commit"], first["ref"], first["event"]) == (HEAD_SHA, "refs/heads/main", "push")
    assert (first["run_id"], first["run_attempt"]) == ("1234", "1")

    event = {**REPOSITORY, "pull_request": {"number": 7, "head": {"sha": HEAD_SHA}}}
    pull = {"GITHUB_REF": "refs/pull/7/merge", **runner.event("pull_request", event)}
    done = runner.run({**INPUTS, "fail-on": "regressions"}, env=pull)
    assert done.code == 1, done.log
    assert done.outputs["gate"] == "fail" and done.outputs["regressions"] == "1"
    assert "### History" in done.summary and "```mermaid" in done.summary
    assert "3 of up to 10 records of this eval" in done.summary
    assert "1 of other branches left out" in done.summary
    assert len((project.root / "history" / "h.jsonl").read_text().splitlines()) == 4  # read only


@pytest.mark.slow
@pytest.mark.parametrize(
    ("inputs", "said"),
    [
        ({"history-record": "true", "history": ""}, "input `history-record: true` appends"),
        ({"history-keep": "0"}, "input `history-keep` must be a whole number"),
        ({"history-window": "ten"}, "input `history-window` must be a whole number"),
        ({"shard": "1/2", "output": "o"}, "inputs `history` and `benchmark-json` take a whole"),
    ],
)
def test_history_input_mistakes_stop_the_step(
    tmp_path: Path, github: FakeGitHub, project: Project, inputs: dict[str, str], said: str
) -> None:
    write_project(project, {"t": ["good"]})
    done = Runner(tmp_path, github, project.root).run({**INPUTS, **inputs})
    assert done.code == 2, done.log
    assert said in done.log


@pytest.mark.slow
def test_the_action_writes_the_benchmark_json(
    tmp_path: Path, github: FakeGitHub, project: Project
) -> None:
    write_project(project, {"t": ["good"]})
    done = Runner(tmp_path, github, project.root).run({**INPUTS, "benchmark-json": "b.json"})
    assert done.code == 0, done.log
    names = [e["name"] for e in json.loads((project.root / "b.json").read_text())]
    assert names[0] == "test eval: runs passed" and "test eval / t: score" in names
