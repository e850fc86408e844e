"""The action in shard mode and in merge mode, started as the runner starts it, against the
loopback fake GitHub: shards post nothing, the merge posts what one unsharded step posts."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.action.test_entrypoint import TOKEN, ActionRun, Runner
from tests.conftest import Project, without_times
from tests.fake_github import FakeGitHub
from tests.shard.test_shard import build_suite

SUITE_INPUTS = {
    "eval": "eval.yaml",
    "results": "results.json",
    "workspace": "workspace",
}


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub(token=TOKEN) as server:  # leaving it checks every request (see fake_github)
        yield server


@pytest.fixture
def suite(project: Project) -> Project:
    return build_suite(project)


def posted(check: dict[str, Any]) -> dict[str, Any]:
    """What a reader sees of a check run (ids, times and the leg's external id left out)."""
    output = check["output"]
    return {
        "name": check["name"],
        "head_sha": check["head_sha"],
        "conclusion": check["conclusion"],
        "title": output["title"],
        "summary": without_times(output["summary"]),
        "text": without_times(output["text"]),
        "annotations": check["annotations"],
    }


def run_unsharded(tmp_path: Path, workspace: Path) -> tuple[ActionRun, dict[str, Any]]:
    with FakeGitHub(token=TOKEN) as alone:
        result = Runner(tmp_path / "unsharded", alone, workspace).run(
            {**SUITE_INPUTS, "output": "whole.json", "baseline": "results.json"}
        )
        alone.assert_no_invalid_requests()
        [check] = alone.check_runs
    return result, check


@pytest.mark.slow
def test_shards_post_nothing_and_the_merge_posts_one_unsharded_report(
    tmp_path: Path,
    fake: FakeGitHub,
    suite: Project,
) -> None:
    for folder in ("unsharded", "shard-1", "shard-2", "shard-3", "merge"):
        (tmp_path / folder).mkdir()
    whole, whole_check = run_unsharded(tmp_path, suite.root)
    assert whole.code == 3, whole.log

    for index in (1, 2, 3):
        shard = Runner(tmp_path / f"shard-{index}", fake, suite.root).run(
            {**SUITE_INPUTS, "shard": f"{index}/3", "output": f"partials/shard-{index}.json"}
        )
        assert shard.code in (0, 1, 3), shard.log
        assert fake.requests == []  # no check run, though `check-run` is true
        assert shard.outputs["check-run-id"] == ""
        assert shard.outputs["output-file"] == f"partials/shard-{index}.json"
        own = shard.summary.removeprefix("earlier step's summary\n")
        assert own.startswith(f"> **Shard {index} of 3**: this summary covers only this shard")

    merged = Runner(tmp_path / "merge", fake, suite.root).run(
        {
            "mode": "merge",
            "results": "partials/*.json",
            "output": "merged.json",
            "baseline": "results.json",
        }
    )

    assert merged.code == whole.code, merged.log
    [check] = fake.check_runs
    assert posted(check) == posted(whole_check)
    assert check["annotations"], "the suite has failures to annotate"
    assert without_times(merged.summary) == without_times(whole.summary)
    ids = {"check-run-id", "check-run-url", "output-file"}
    assert {k: v for k, v in merged.outputs.items() if k not in ids} == {
        k: v for k, v in whole.outputs.items() if k not in ids
    }
    assert merged.outputs["check-run-id"] == str(check["id"])
    assert merged.outputs["output-file"] == "merged.json"
    assert merged.outputs["gate"] in ("pass", "fail"), "the baseline was compared"


@pytest.mark.slow
def test_a_missing_shard_fails_the_merge_step_with_one_error(
    tmp_path: Path,
    fake: FakeGitHub,
    suite: Project,
) -> None:
    (tmp_path / "s").mkdir()
    (tmp_path / "m").mkdir()
    Runner(tmp_path / "s", fake, suite.root).run(
        {**SUITE_INPUTS, "shard": "2/2", "output": "partials/shard-2.json"}
    )
    merged = Runner(tmp_path / "m", fake, suite.root).run(
        {"mode": "merge", "results": "partials/*.json"}
    )
    assert merged.code == 2
    errors = [line for line in merged.stdout.splitlines() if line.startswith("::error")]
    assert errors == ["::error title=waza-ci::shard 1/2 of results.json is missing: none of "
                      "the 1 partial file(s) given holds it"]  # fmt: skip
    assert fake.check_runs == []


@pytest.mark.slow
def test_bad_mode_and_shard_inputs_are_named(
    tmp_path: Path,
    fake: FakeGitHub,
    suite: Project,
) -> None:
    runner = Runner(tmp_path, fake, suite.root)
    for inputs, message in (
        ({"mode": "join"}, "input `mode` must be `grade` or `merge`, not 'join'"),
        ({"shard": "5/4", "output": "p.json"}, "input `shard` '5/4': I must be between 1"),
        ({"mode": "merge", "shard": "1/2"}, "input `shard` is for `mode: grade`"),
        ({"shard": "1/2"}, "input `shard` needs `output`"),
    ):
        result = runner.run({**SUITE_INPUTS, **inputs})
        assert result.code == 2, inputs
        assert message in result.stdout, result.stdout
