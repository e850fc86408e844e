"""examples/workflows/matrix-shards.yml run end to end in the real image.

The test reads the example workflow and plays its grade and merge jobs with the inputs it
gives the action (matrix values and `env` substituted): each matrix leg runs the container in
shard mode, its `upload-artifact` path is stored under the artifact's name, and the merge job's
`download-artifact` (`pattern` + `merge-multiple`) puts every matching artifact's files into
one folder before the container runs in merge mode. The merge must post what one unsharded run
of the same action posts.
"""

from __future__ import annotations

import contextlib
import fnmatch
import re
import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.action.test_container import (
    DEMO,
    IMAGE,
    ROOT,
    Runner,
    _docker,
    assert_no_context_dir_left,
    ensure_image,
)
from tests.conftest import without_times
from tests.fake_github import FakeGitHub

pytestmark = pytest.mark.docker


def remove_as_the_container(path: Path) -> None:
    """Delete a file the action wrote, and its folder once empty, as the next job's fresh
    workspace would not have them. The container runs as root, so as an unprivileged user
    (uid 1001, as on GitHub) that folder is not ours to change: then remove them as root."""
    try:
        path.unlink()
        with contextlib.suppress(OSError):
            path.parent.rmdir()
    except PermissionError:
        folder = path.parent.name
        done = _docker(
            "run", "--rm", "-v", f"{path.parent.parent}:/w", "--entrypoint", "sh", IMAGE, "-c",
            f'rm -f "/w/{folder}/{path.name}" && (rmdir "/w/{folder}" 2>/dev/null || true)',
        )  # fmt: skip
        assert done.returncode == 0, done.stderr


WORKFLOW = ROOT / "examples" / "workflows" / "matrix-shards.yml"
AGENT_WORKSPACE = "waza-results/workspace"
ACTION = "your-org/waza-ci"  # the placeholder the examples use


@pytest.fixture(scope="module")
def image() -> str:
    return ensure_image()


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:  # leaving it checks every request against GitHub's description
        yield server


def step(job: Mapping[str, Any], uses: str) -> dict[str, Any]:
    found: list[dict[str, Any]] = [
        s for s in job["steps"] if str(s.get("uses", "")).split("@")[0] == uses
    ]
    assert len(found) == 1, f"{len(found)} steps use {uses}"
    return found[0]


def substitute(value: Any, variables: Mapping[str, str]) -> str:
    def replace(match: re.Match[str]) -> str:
        return variables[match.group(1)]

    return re.sub(r"\$\{\{\s*([\w.]+)\s*\}\}", replace, str(value))


def lay_out_repository(workspace: Path, eval_file: str, results_path: Path) -> None:
    """The demo as the example expects a repository: the spec at EVAL_FILE, the graders at
    the root (the example leaves `working-directory` at `.`), and results.json with the
    agent's workspace beside it where the grade job downloads them (AGENT_WORKSPACE)."""
    spec_dir = (workspace / eval_file).parent
    spec_dir.mkdir(parents=True)
    shutil.copy(DEMO / "eval.yaml", workspace / eval_file)
    shutil.copytree(DEMO / "tasks", spec_dir / "tasks")
    shutil.copytree(DEMO / "graders", workspace / "graders")
    results_path.parent.mkdir(parents=True)
    shutil.copytree(DEMO / "workspace", results_path.parent / "workspace")
    shutil.copy(DEMO / "results.json", results_path)


def test_the_matrix_example_runs_end_to_end_in_the_image(
    tmp_path: Path, image: str, fake: FakeGitHub
) -> None:
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    env = {f"env.{name}": str(value) for name, value in workflow["env"].items()}
    grade_job, merge_job = workflow["jobs"]["grade"], workflow["jobs"]["merge"]
    assert merge_job["needs"] == "grade" and merge_job["if"] == "always()"
    shards = grade_job["strategy"]["matrix"]["shard"]
    assert shards == [1, 2, 3, 4]
    download = step(grade_job, "actions/download-artifact")["with"]
    runner = Runner(tmp_path, image, fake)
    lay_out_repository(
        runner.workspace,
        env["env.EVAL_FILE"],
        runner.workspace / download["path"] / "results.json",
    )

    artifacts: dict[str, list[Path]] = {}
    store = tmp_path / "artifacts"
    for shard in shards:
        variables = {**env, "matrix.shard": str(shard)}
        inputs = {k: substitute(v, variables) for k, v in step(grade_job, ACTION)["with"].items()}
        # The demo's file graders read the agent's files: the input the example's comment names.
        assert f"workspace: {AGENT_WORKSPACE}" in WORKFLOW.read_text(encoding="utf-8")
        inputs["workspace"] = AGENT_WORKSPACE
        result = runner.run(inputs)
        assert result.exit_code in (0, 1), result.log  # the demo fails on one task
        assert fake.check_runs == [], "a shard must not post a check run"
        assert result.summary.strip(), "a shard writes its own step summary"
        assert_no_context_dir_left(result)
        upload = step(grade_job, "actions/upload-artifact")["with"]
        produced = runner.workspace / substitute(upload["path"], variables)
        kept = store / substitute(upload["name"], variables) / produced.name
        kept.parent.mkdir(parents=True)
        shutil.copy2(produced, kept)  # uploaded; the merge job's runner starts without it
        remove_as_the_container(produced)
        artifacts[kept.parent.name] = [kept]

    fetch = step(merge_job, "actions/download-artifact")["with"]
    assert fetch["merge-multiple"] is True
    folder = runner.workspace / fetch["path"]
    for name in fnmatch.filter(artifacts, fetch["pattern"]):
        for file in artifacts[name]:
            folder.mkdir(exist_ok=True)
            shutil.copy(file, folder / file.name)
    merged = runner.run({k: str(v) for k, v in step(merge_job, ACTION)["with"].items()})

    assert merged.exit_code == 1, merged.log  # the demo's one failing grader
    [check] = fake.check_runs
    alone = runner.run(
        {
            "eval": env["env.EVAL_FILE"],
            "results": f"{download['path']}/results.json",
            "workspace": AGENT_WORKSPACE,
            "check-name": "unsharded",
            # the same report as the merge job asks for, so summaries and outputs compare
            "html-report": str(step(merge_job, ACTION)["with"]["html-report"]),
        }
    )
    assert alone.exit_code == 1, alone.log
    [_, unsharded] = fake.check_runs
    assert check["conclusion"] == unsharded["conclusion"] == "failure"
    for field in ("title", "summary", "text"):
        assert without_times(check["output"][field]) == without_times(unsharded["output"][field])
    assert without_times(merged.summary) == without_times(alone.summary)
    assert {k: v for k, v in merged.outputs.items() if not k.startswith("check-run")} == {
        k: v for k, v in alone.outputs.items() if not k.startswith("check-run")
    }
