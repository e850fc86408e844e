"""Annotations point into the repository: paths relative to GITHUB_WORKSPACE, never
an absolute container path, never a file outside the repository."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.action.test_entrypoint import TOKEN, Runner
from tests.conftest import Project, make_results, make_run
from tests.fake_github import FakeGitHub


def failing_project(project: Project) -> Path:
    """A repo whose task file inside fails one grader, plus a task file outside the repository
    (reached by a `../` glob) that fails another. Returns the repository root."""
    repo = project.root / "repo"
    (repo / "evals" / "tasks").mkdir(parents=True)
    (repo / "workspace").mkdir()
    outside = project.root / "outside"
    outside.mkdir()
    fail = repo / "fail.py"
    fail.write_text("import sys\nprint('nope')\nsys.exit(1)\n")
    grader = (
        "graders:\n  - type: program\n    name: {name}\n    config:\n"
        "      command: python3\n      args: [{script}]\n"
    )
    (repo / "evals" / "eval.yaml").write_text(
        "name: test eval\ntasks:\n  - tasks/*.yaml\n  - ../../outside/*.yaml\n"
    )
    (repo / "evals" / "tasks" / "inside.yaml").write_text(
        "id: inside\n" + grader.format(name="in-grader", script=fail)
    )
    (outside / "outside.yaml").write_text(
        "id: outside\n" + grader.format(name="out-grader", script=fail)
    )
    results = make_results({"inside": [make_run()], "outside": [make_run()]})
    (repo / "results.json").write_text(json.dumps(results))
    return repo


@pytest.mark.slow
@pytest.mark.parametrize("absolute", [False, True], ids=["relative-inputs", "absolute-inputs"])
def test_log_annotations_name_repository_paths_only(
    tmp_path: Path, project: Project, absolute: bool
) -> None:
    repo = failing_project(project)
    prefix = f"{repo}/" if absolute else ""
    with FakeGitHub(token=TOKEN) as fake:
        result = Runner(tmp_path, fake, repo).run(
            {
                "eval": prefix + "evals/eval.yaml",
                "results": prefix + "results.json",
                "workspace": "workspace",
                "github-token": "",
            }
        )
    assert result.code == 1, result.log
    errors = [line for line in result.stdout.splitlines() if line.startswith("::error ")]
    files = [e.split("file=")[1].split(",")[0].split("::")[0] for e in errors if "file=" in e]
    assert "evals/tasks/inside.yaml" in files, errors
    assert all(not f.startswith(("/", "%2F", "..")) for f in files), files
    assert str(tmp_path) not in "\n".join(errors)
    outside = [e for e in errors if "out-grader" in e]
    assert len(outside) == 1 and "file=" not in outside[0], "outside the repo: no file"


@pytest.mark.slow
def test_check_run_annotations_name_repository_paths_only(tmp_path: Path, project: Project) -> None:
    repo = failing_project(project)
    with FakeGitHub(token=TOKEN) as fake:
        result = Runner(tmp_path, fake, repo).run(
            {
                "eval": f"{repo}/evals/eval.yaml",
                "results": f"{repo}/results.json",
                "workspace": "workspace",
            }
        )
        assert result.code == 1, result.log
        (run,) = fake.check_runs
    paths = sorted(a["path"] for a in run["annotations"])
    assert "evals/tasks/inside.yaml" in paths, paths
    # The task outside the repository cannot be placed: it goes on the placeholder path.
    assert set(paths) == {"evals/tasks/inside.yaml", ".github"}, paths
