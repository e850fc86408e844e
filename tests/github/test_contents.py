"""Files of a repository at a commit, through the contents API (github/contents.py): against
the loopback fake GitHub, checked against GitHub's own REST description."""

from __future__ import annotations

import base64
import socket
from pathlib import Path

import pytest
import requests

from tests.fake_github import FakeGitHub, Fault
from tests.github.conftest import TOKEN
from tests.github_description import RestDescription
from waza_ci.github.contents import FileUnavailable, RepositoryFiles

SHA = "3f2a9c1e0b7d4a5f6e8c9b0a1d2e3f4a5b6c7d8e"
PRESET = b'type: text\nconfig:\n  regex_match: ["CHANGELOG"]\n' * 5  # several base64 lines


def test_a_public_file_is_read_at_the_commit_without_a_token() -> None:
    with FakeGitHub() as fake:
        fake.add_file("acme/mods", SHA, "graders/mentions.yaml", PRESET)
        with RepositoryFiles(fake.url, None) as files:
            assert files.file_at("acme", "mods", SHA, "graders/mentions.yaml") == PRESET
        (request,) = fake.requests
    assert request.path == "/repos/acme/mods/contents/graders/mentions.yaml"
    assert request.query == {"ref": [SHA]}
    assert "authorization" not in request.headers


def test_without_a_token_no_netrc_credentials_are_sent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    netrc = tmp_path / "netrc"
    netrc.write_text("machine 127.0.0.1 login someone password hunter2\n")
    netrc.chmod(0o600)
    monkeypatch.setenv("NETRC", str(netrc))
    with FakeGitHub() as fake:
        fake.add_file("acme/mods", SHA, "g.yaml", PRESET)
        with RepositoryFiles(fake.url, None) as files:
            assert files.file_at("acme", "mods", SHA, "g.yaml") == PRESET
        assert "authorization" not in fake.requests[0].headers


def test_a_private_file_is_read_with_a_token_that_can_read_it() -> None:
    with FakeGitHub() as fake:
        fake.add_file("acme/private", SHA, "g.yaml", PRESET, private_token=TOKEN)
        with RepositoryFiles(fake.url, TOKEN) as files:
            assert files.file_at("acme", "private", SHA, "g.yaml") == PRESET
        assert fake.requests[0].headers["authorization"] == f"Bearer {TOKEN}"


def test_github_enterprise_servers_api_prefix_is_kept() -> None:
    with FakeGitHub(prefix="/api/v3") as fake:
        fake.add_file("acme/mods", SHA, "g.yaml", PRESET)
        with RepositoryFiles(fake.url, None) as files:
            assert files.file_at("acme", "mods", SHA, "g.yaml") == PRESET
        assert fake.requests[0].path == "/api/v3/repos/acme/mods/contents/g.yaml"


@pytest.mark.parametrize(
    ("token", "said"),
    [
        (None, "acme/private is private and no token was given (GITHUB_TOKEN or GH_TOKEN"),
        ("ghs_other", "the token cannot read acme/private (a private repository needs a token"),
    ],
)
def test_a_private_repository_the_token_cannot_read_names_the_url_and_the_fix(
    token: str | None, said: str
) -> None:
    with FakeGitHub() as fake:
        fake.add_file("acme/private", SHA, "g.yaml", PRESET, private_token=TOKEN)
        with RepositoryFiles(fake.url, token) as files, pytest.raises(FileUnavailable) as caught:
            files.file_at("acme", "private", SHA, "g.yaml")
        assert len(fake.requests) == 1  # a 404 is not retried
    assert caught.value.status == 404
    assert caught.value.url == f"{fake.url}/repos/acme/private/contents/g.yaml?ref={SHA}"
    assert said in caught.value.message and "HTTP 404" in caught.value.message
    assert "ghs_other" not in caught.value.message and TOKEN not in caught.value.message


def test_a_file_missing_at_the_commit_is_a_404() -> None:
    with FakeGitHub() as fake:
        fake.add_file("acme/mods", SHA, "g.yaml", PRESET)
        with RepositoryFiles(fake.url, None) as files, pytest.raises(FileUnavailable) as caught:
            files.file_at("acme", "mods", "b" * 40, "g.yaml")
    assert caught.value.status == 404 and "no such file at that commit" in caught.value.message


@pytest.mark.slow  # one backoff second
def test_a_server_error_is_retried_then_reported() -> None:
    with FakeGitHub() as fake:
        fake.add_file("acme/mods", SHA, "g.yaml", PRESET)
        fake.add_fault(Fault.server_error("GET", times=1))
        with RepositoryFiles(fake.url, None) as files:
            assert files.file_at("acme", "mods", SHA, "g.yaml") == PRESET


@pytest.mark.slow  # retried until the deadline
def test_no_server_is_a_failure_naming_the_url_within_the_deadline() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    with (
        RepositoryFiles(url, None, deadline_s=2) as files,
        pytest.raises(FileUnavailable) as caught,
    ):
        files.file_at("acme", "mods", SHA, "g.yaml")
    assert caught.value.url.startswith(f"{url}/repos/acme/mods/contents/g.yaml")
    assert caught.value.status is None


def test_a_folder_is_not_a_file() -> None:
    with FakeGitHub() as fake:
        body = [{"type": "file", "name": "a"}]
        fake.add_fault(Fault("GET", status=200, body=body))
        with RepositoryFiles(fake.url, None) as files, pytest.raises(FileUnavailable) as caught:
            files.file_at("acme", "mods", SHA, "graders")
    assert "folder" in caught.value.message


def test_the_fakes_contents_answer_matches_githubs_schema(description: RestDescription) -> None:
    with FakeGitHub() as fake:
        fake.add_file("acme/mods", SHA, "graders/mentions.yaml", PRESET)
        answer = requests.get(
            f"{fake.url}/repos/acme/mods/contents/graders/mentions.yaml",
            params={"ref": SHA},
            timeout=5,
        ).json()
    assert description.response_errors("repos/get-content", "200", answer) == []
    assert base64.b64decode(answer["content"]) == PRESET
