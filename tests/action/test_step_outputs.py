"""Step outputs carry only values that were checked: GitHub's answers are forged
here, and nothing of them may reach GITHUB_OUTPUT but a plain id and a plain https address on
GITHUB_SERVER_URL's host."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.action import test_entrypoint as entry
from tests.action.test_action_yml import OUTPUTS
from tests.action.test_entrypoint import DEMO_INPUTS, Runner
from tests.fake_github import FakeGitHub, Fault
from tests.runner_files import parse_command
from waza_ci.publish.outputs import checked_id, checked_url

fake = entry.fake  # the entrypoint tests' fixtures, used here by name
demo_workspace = entry.demo_workspace

DECLARED = set(OUTPUTS)


def forged_create(body: dict[str, Any]) -> Fault:
    return Fault("POST", "*/check-runs", 201, body=body)


def warnings_of(stdout: str) -> list[str]:
    return [parse_command(line)[2] for line in stdout.splitlines() if line.startswith("::warning")]


@pytest.mark.slow
@pytest.mark.parametrize(
    "html_url",
    [
        "https://github.example/octo/repo/runs/1\npassed=true\ncheck-run-id=666\n::error::pwned",
        "https://github.example/octo/repo/runs/1\r\n::error::pwned",
        "https://evil.example/octo/repo/runs/1",
        "http://github.example/octo/repo/runs/1",
        "https://github.example/octo/repo/runs/1;id",
        "https://github.example/octo/repo/runs/$(id)",
        "https://github.example.evil.example/runs/1",
        "javascript:alert(1)",
    ],
)
def test_a_forged_check_run_address_never_reaches_the_outputs(
    tmp_path: Path, fake: FakeGitHub, demo_workspace: Path, html_url: str
) -> None:
    fake.add_fault(forged_create({"id": 42, "html_url": html_url}))
    result = Runner(tmp_path, fake, demo_workspace).run(DEMO_INPUTS)
    assert result.code == 1, result.log  # the demo's verdict, unchanged
    assert set(result.outputs) == DECLARED
    assert result.outputs["check-run-url"] == ""
    assert result.outputs["check-run-id"] == "42"
    assert result.outputs["passed"] == "false"
    assert "::error::pwned" not in result.stdout.splitlines()
    assert any("check-run-url is empty" in w for w in warnings_of(result.stdout))


@pytest.mark.slow
@pytest.mark.parametrize("run_id", [-5, 0])
def test_a_forged_check_run_id_never_reaches_the_outputs(
    tmp_path: Path, fake: FakeGitHub, demo_workspace: Path, run_id: int
) -> None:
    url = "https://github.example/octo/repo/runs/7"
    fake.add_fault(forged_create({"id": run_id, "html_url": url}))
    result = Runner(tmp_path, fake, demo_workspace).run(DEMO_INPUTS)
    assert result.code == 1, result.log
    assert result.outputs["check-run-id"] == ""
    assert result.outputs["check-run-url"] == url
    assert any("check-run-id is empty" in w for w in warnings_of(result.stdout))


@pytest.mark.slow
def test_a_real_answer_is_passed_through(
    tmp_path: Path, fake: FakeGitHub, demo_workspace: Path
) -> None:
    result = Runner(tmp_path, fake, demo_workspace).run(DEMO_INPUTS)
    (check,) = fake.check_runs
    assert result.outputs["check-run-id"] == str(check["id"])
    assert result.outputs["check-run-url"] == check["html_url"]
    assert not any("is empty" in w for w in warnings_of(result.stdout))


@pytest.mark.parametrize(
    ("url", "server", "kept"),
    [
        ("https://github.com/o/r/runs/1", "https://github.com", True),
        ("https://ghe.example:8443/o/r/runs/1", "https://ghe.example:8443", True),
        ("https://ghe.example/o/r/runs/1", "https://ghe.example:8443", False),
        ("https://GITHUB.com/o/r/runs/1", "https://github.com", True),
        ("https://github.com/o/r/runs/1?x=1", "https://github.com", False),
        ("https://github.com/o/r/runs/1#frag", "https://github.com", False),
        ("https://github.com/o/r/runs/1 ", "https://github.com", False),
        ("https://user@github.com/o/r/runs/1", "https://github.com", False),
        ("https://github.com", "https://github.com", True),
    ],
)
def test_checked_url(url: str, server: str, kept: bool) -> None:
    assert (checked_url(url, server) == url) is kept


def test_checked_id() -> None:
    assert checked_id(12) == "12"
    assert checked_id(0) is None
    assert checked_id(-1) is None
    assert checked_id(True) is None
