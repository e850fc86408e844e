"""`ref:` graders through the command and the action, end to end: a module repository on the
loopback fake GitHub (its files at a commit), a waza.lock written as `waza get` writes it, and
an eval that uses it, graded from the network, then from the cache with the network gone, with
the verdicts of the same grader written inline; and every way it is refused."""

from __future__ import annotations

import json
import socket
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from tests.action_process import run_action
from tests.conftest import CliResult, Project, make_results, make_run
from tests.fake_github import FakeGitHub
from tests.grader_modules import COMMIT, GraderModule, lock_module

MODULE = GraderModule()
REF = MODULE.ref()
INLINE = '- type: text\n  name: mentions_changelog\n  config:\n    regex_match: ["CHANGELOG"]\n'
BY_REF = f"- ref: {REF}\n  name: mentions_changelog\n"
TOKEN = "ghs_moduleReader0123456789abcdef"

Grade = Callable[..., CliResult]
pytestmark = pytest.mark.slow  # every test starts waza-ci (or the action) as a process


def dead_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}"


@pytest.fixture
def refs_project(project: Project, tmp_path: Path) -> Project:
    project.write_eval()
    runs = [make_run(1, "Updated CHANGELOG.md"), make_run(2, "Bumped the version")]
    project.write_results(make_results({"t1": runs}))
    return project


@pytest.fixture
def grade(refs_project: Project, grade_project: Grade, tmp_path: Path) -> Grade:
    """`waza-ci grade` with the module cache in tmp, no token, GitHub at `api`."""

    def run(api: str, *extra: str, env: Mapping[str, str] | None = None) -> CliResult:
        base = {"GITHUB_API_URL": api, "GH_TOKEN": "", "GITHUB_TOKEN": "", "HOME": str(tmp_path)}
        args = ("--module-cache", str(tmp_path / "cache"), "--output", "out.json", *extra)
        return grade_project(*args, env={**base, **(env or {})})

    return run


def verdicts(project: Project) -> list[Any]:
    doc = json.loads((project.root / "out.json").read_text())
    found = []
    for run in doc["tasks"][0]["runs"]:
        verdict = dict(run["validations"]["mentions_changelog"])
        verdict.pop("duration_ms", None)
        found.append(verdict)
    return found


def test_from_github_then_from_the_cache_offline_the_verdicts_are_the_inline_graders(
    refs_project: Project, grade: Grade, tmp_path: Path
) -> None:
    refs_project.write_task("t1", graders=INLINE)
    inline = grade(dead_url())
    assert inline.code == 1, inline.stderr  # run 2 does not mention the changelog
    expected = verdicts(refs_project)
    assert [v["passed"] for v in expected] == [True, False]

    refs_project.write_task("t1", graders=BY_REF)
    lock_module(refs_project.root, MODULE)
    with FakeGitHub() as github:
        MODULE.publish(github)
        fetched = grade(github.url, "--summary", "s.md", "--report-json", "r.json")
        asked = [(r.path, r.query) for r in github.requests]
    assert fetched.code == inline.code, fetched.stderr
    assert verdicts(refs_project) == expected
    assert asked == [
        ("/repos/acme/wazamods/contents/waza.registry.yaml", {"ref": [COMMIT]}),
        ("/repos/acme/wazamods/contents/graders/mentions.yaml", {"ref": [COMMIT]}),
    ]
    folder = MODULE.folder(tmp_path / "cache")
    assert (folder / "graders" / "mentions.yaml").read_bytes() == MODULE.files()[
        "graders/mentions.yaml"
    ]
    # Every report names the ref beside the grader's line, and the pin.
    summary = (refs_project.root / "s.md").read_text()
    assert f"`{REF}`" in summary and COMMIT[:12] in summary
    assert f"tasks/t1.yaml:4 (ref {REF})" in fetched.stderr
    report = json.loads((refs_project.root / "r.json").read_text())
    assert report["modules"] == [
        {
            "ref": REF,
            "commit": COMMIT,
            "digest": MODULE.digest(),
            "graders": [
                {
                    "grader": "mentions_changelog",
                    "source": {"path": "tasks/t1.yaml", "line": 4, "url": None},
                }
            ],
        }
    ]
    row = report["tasks"][0]["graders"][0]
    assert row["source"]["ref"] == REF and row["kind"] == "text"

    offline = grade(dead_url())  # the fake is gone: the cache alone
    assert offline.code == inline.code, offline.stderr
    assert verdicts(refs_project) == expected


def test_the_default_cache_is_waza_module_cache_else_home(
    refs_project: Project, grade_project: Grade, tmp_path: Path
) -> None:
    refs_project.write_task("t1", graders=BY_REF)
    lock_module(refs_project.root, MODULE)
    MODULE.put_in_cache(tmp_path / "home" / ".waza" / "cache")
    MODULE.put_in_cache(tmp_path / "elsewhere")
    env = {"GITHUB_API_URL": dead_url(), "HOME": str(tmp_path / "home"), "WAZA_MODULE_CACHE": ""}
    assert grade_project(env=env).code == 1
    empty_home = {**env, "HOME": str(tmp_path / "nohome")}
    assert grade_project(env=empty_home).code == 3
    moved = {**empty_home, "WAZA_MODULE_CACHE": str(tmp_path / "elsewhere")}
    assert grade_project(env=moved).code == 1


def test_a_private_module_is_read_with_the_token_waza_reads(
    refs_project: Project, grade: Grade
) -> None:
    refs_project.write_task("t1", graders=BY_REF)
    lock_module(refs_project.root, MODULE)
    with FakeGitHub() as github:
        MODULE.publish(github, private_token=TOKEN)
        without = grade(github.url)
        with_token = grade(github.url, env={"GH_TOKEN": TOKEN})
    assert without.code == 3
    assert (
        "no token was given" in without.stderr and "/contents/waza.registry.yaml" in without.stderr
    )
    assert with_token.code == 1, with_token.stderr
    assert TOKEN not in without.stderr + with_token.stderr + without.stdout + with_token.stdout


def test_a_module_github_does_not_have_is_exit_3_naming_the_url(
    refs_project: Project, grade: Grade
) -> None:
    refs_project.write_task("t1", graders=BY_REF)
    lock_module(refs_project.root, MODULE)
    with FakeGitHub() as github:
        result = grade(github.url)
    assert result.code == 3
    line = result.stderr.strip().splitlines()[-1]
    assert line.startswith("waza-ci: error: ") and "waza.lock:" in line
    assert f"{github.url}/repos/acme/wazamods/contents/waza.registry.yaml?ref={COMMIT}" in line
    assert "HTTP 404" in line
    assert not (refs_project.root / "out.json").exists()


def test_no_network_and_an_empty_cache_is_exit_3_naming_the_url(
    refs_project: Project, grade: Grade
) -> None:
    refs_project.write_task("t1", graders=BY_REF)
    lock_module(refs_project.root, MODULE)
    api = dead_url()
    result = grade(api)
    assert result.code == 3
    assert f"{api}/repos/acme/wazamods/contents/waza.registry.yaml" in result.stderr


@pytest.mark.parametrize(
    ("case", "said"),
    [
        ("no lock", "run `waza get"),
        ("changed preset", "digest mismatch"),
        ("bad config", 'invalid grader config for "mentions_changelog" (type "text")'),
    ],
)
def test_refusals_are_one_line_and_exit_2(
    refs_project: Project, grade: Grade, tmp_path: Path, case: str, said: str
) -> None:
    refs_project.write_task("t1", graders=BY_REF)
    if case != "no lock":
        lock_module(refs_project.root, MODULE)
    module = MODULE
    if case == "changed preset":
        module = GraderModule(presets={"mentions": ("graders/mentions.yaml", b"type: text\n")})
    if case == "bad config":
        preset = b"type: text\nconfig: {regex_match: CHANGELOG}\n"
        module = GraderModule(presets={"mentions": ("graders/mentions.yaml", preset)})
        lock_module(refs_project.root, module)
    module.put_in_cache(tmp_path / "cache")
    result = grade(dead_url())
    assert result.code == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and said in lines[0], lines
    assert "unsupported grader type" not in result.stderr and "Traceback" not in result.stderr
    assert not (refs_project.root / "out.json").exists()


def test_the_action_fetches_with_its_token_into_its_module_cache_input(
    refs_project: Project, tmp_path: Path
) -> None:
    refs_project.write_task("t1", graders=BY_REF)
    lock_module(refs_project.root, MODULE)
    inputs = {
        "eval": "eval.yaml",
        "results": "results.json",
        "workspace": "workspace",
        "module-cache": ".waza-modules",
        "github-token": TOKEN,
    }
    with FakeGitHub() as github:
        MODULE.publish(github, private_token=TOKEN)
        done = run_action(tmp_path, refs_project.root, inputs, env={"GITHUB_API_URL": github.url})
    assert done.returncode == 1, done.stdout + done.stderr
    assert (MODULE.folder(refs_project.root / ".waza-modules") / "waza.registry.yaml").is_file()
    assert f"ref {REF}" in done.stdout
    shown = [line for line in (done.stdout + done.stderr).splitlines() if TOKEN in line]
    assert shown == [f"::add-mask::{TOKEN}"]  # the runner masks it everywhere after that
