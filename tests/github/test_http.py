"""GitHubHttp, the one HTTP layer: the total deadline against APIs that hang, and its contract."""

from __future__ import annotations

import time

import pytest

from tests.fake_github import FakeGitHub, Fault, SilentServer
from tests.github.conftest import TOKEN, FakeTime
from waza_ci.github.http import (
    AccessRefused,
    DeadlineExceeded,
    GitHubApiError,
    GitHubHttp,
    GitHubSetupError,
)


@pytest.mark.slow
@pytest.mark.parametrize("method", ["GET", "POST"])
def test_an_api_that_accepts_and_never_answers_is_given_up_at_the_deadline(method: str) -> None:
    with SilentServer() as silent, GitHubHttp(silent.url, TOKEN, deadline_s=1.5) as http:
        started = time.monotonic()
        with pytest.raises(DeadlineExceeded, match=r"deadline of 1\.5 s") as caught:
            http.request(method, "/repos/o/r/check-runs", json={} if method == "POST" else None)
        elapsed = time.monotonic() - started
    assert 1.4 <= elapsed < 4, elapsed  # the deadline, not the 30 s read timeout nor retries
    assert silent.connections >= 1
    assert TOKEN not in str(caught.value)


@pytest.mark.slow
def test_a_body_that_trickles_in_is_abandoned_at_the_deadline() -> None:
    with (
        SilentServer(trickle_s=0.2) as trickling,
        GitHubHttp(trickling.url, TOKEN, deadline_s=1) as http,
    ):
        started = time.monotonic()
        with pytest.raises(DeadlineExceeded):
            http.request("GET", "/repos/o/r")
        assert time.monotonic() - started < 3


def test_retry_waits_never_run_past_the_deadline(fake_time: FakeTime) -> None:
    with FakeGitHub(token=TOKEN) as github:
        github.add_fault(Fault.server_error("GET", times=100))
        http = GitHubHttp(
            github.url,
            TOKEN,
            deadline_s=10,
            max_retries=50,
            sleep=fake_time.sleep,
            clock=fake_time.clock,
            monotonic=fake_time.clock,
        )
        with http, pytest.raises(DeadlineExceeded, match="retry in 8 s would pass it"):
            http.request("GET", "/repos/o/r")
    assert fake_time.sleeps == [1.0, 2.0, 4.0]  # 7 s waited; 8 more would pass the 10 s


def test_the_deadline_counts_from_the_start_of_the_session(fake_time: FakeTime) -> None:
    with FakeGitHub(token=TOKEN) as github:
        github.add_fault(Fault("GET", status=200, body={"ok": True}))
        http = GitHubHttp(github.url, TOKEN, deadline_s=5, monotonic=fake_time.clock)
        assert http.request("GET", "/repos/o/r") == {"ok": True}
        fake_time.now += 5
        with http, pytest.raises(DeadlineExceeded):
            http.request("GET", "/repos/o/r/check-runs/1")
    assert len(github.requests) == 1, "nothing is sent once the deadline has passed"


@pytest.mark.slow
def test_answers_are_decoded_json_of_any_shape_and_refusals_are_typed() -> None:
    with FakeGitHub(token=TOKEN) as github, GitHubHttp(github.url, TOKEN) as http:
        github.add_fault(Fault("GET", status=200, body=[1, 2]))
        assert http.request("GET", "/repos/o/r/issues/1/comments") == [1, 2]
        github.add_fault(Fault("DELETE", status=404, body={"message": "Not Found"}))
        with pytest.raises(AccessRefused):
            http.request("DELETE", "/repos/o/r/issues/comments/1", refused_statuses=(404,))
        github.add_fault(Fault("DELETE", status=404, body={"message": "Not Found"}))
        with pytest.raises(GitHubApiError) as caught:
            http.request("DELETE", "/repos/o/r/issues/comments/1")
        assert caught.value.status == 404 and not isinstance(caught.value, AccessRefused)


def test_an_oversized_answer_is_refused_not_read_whole() -> None:
    with FakeGitHub(token=TOKEN) as github:
        github.add_fault(Fault("GET", status=200, body={"blob": "x" * 5000}))
        with (
            GitHubHttp(github.url, TOKEN, max_response_bytes=1000) as http,
            pytest.raises(GitHubApiError, match="exceeds 1,000 bytes"),
        ):
            http.request("GET", "/repos/o/r")


@pytest.mark.parametrize("deadline", [0, -1, float("nan")])
def test_a_deadline_that_is_not_positive_is_refused(deadline: float) -> None:
    with pytest.raises(GitHubSetupError, match="deadline"):
        GitHubHttp("https://api.github.com", TOKEN, deadline_s=deadline)
