"""CheckRunClient against the loopback fake API: batching, limits, retries, duplicates, secrets."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.fake_github import (
    FakeGitHub,
    Fault,
    RecordedRequest,
    RemoteFakeGitHub,
)
from tests.github.conftest import REPOSITORY, TOKEN, FakeTime, MakeClient
from waza_ci import __version__
from waza_ci.github.check_limits import annotation_body
from waza_ci.github.checks import (
    CheckRunClient,
    CheckRunIncomplete,
    CheckRunRequest,
    ChecksUnavailable,
    GitHubApiError,
    GitHubError,
)
from waza_ci.github.http import GitHubSetupError
from waza_ci.report.annotations import Annotation
from waza_ci.report.github_limits import ANNOTATION_MESSAGE_BYTES, CHECK_OUTPUT_BYTES
from waza_ci.report.text_safety import head_tail, readable_bmp

SHA = "0123456789abcdef0123456789abcdef01234567"
CREATE_PATH = f"/repos/{REPOSITORY}/check-runs"


def make_annotations(count: int) -> list[Annotation]:
    return [
        Annotation(
            path=f"evals/tasks/task-{i}.yaml",
            line=i + 1,
            level="failure" if i % 2 else "warning",
            title=f"grader {i}",
            message=f"verdict {i}: expected a greeting",
        )
        for i in range(count)
    ]


def make_request(annotations: list[Annotation] | None = None, **fields: Any) -> CheckRunRequest:
    values: dict[str, Any] = {
        "name": "waza-ci",
        "head_sha": SHA,
        "external_id": "waza-ci/run-42/attempt-1",
        "conclusion": "failure",
        "title": "3 of 5 tasks passed",
        "summary": "## Results\n\n| task | verdict |\n|---|---|\n| a | pass |\n",
        "annotations": annotations or [],
    }
    values.update(fields)
    return CheckRunRequest(**values)


def writes(github: FakeGitHub) -> list[RecordedRequest]:
    return [r for r in github.requests if r.method in ("POST", "PATCH")]


def batch_sizes(github: FakeGitHub) -> list[tuple[str, int]]:
    return [(r.method, len(r.body["output"]["annotations"])) for r in writes(github)]


def stored_messages(github: FakeGitHub) -> list[str]:
    (run,) = github.check_runs
    return [a["message"] for a in run["annotations"]]


# --- the publish flow --------------------------------------------------------------------------


def test_publish_creates_one_completed_run(client: CheckRunClient, github: FakeGitHub) -> None:
    result = client.publish(make_request(details_url="https://example.test/run/42"))

    (post,) = github.requests
    assert (post.method, post.path) == ("POST", CREATE_PATH)
    assert post.body == {
        "name": "waza-ci",
        "head_sha": SHA,
        "external_id": "waza-ci/run-42/attempt-1",
        "status": "completed",
        "conclusion": "failure",
        "details_url": "https://example.test/run/42",
        "output": {
            "title": "3 of 5 tasks passed",
            "summary": make_request().summary,
            "annotations": [],
        },
    }
    (run,) = github.check_runs
    assert result.id == run["id"] and result.id > 2**32  # an int64 id survives the round trip
    assert result.html_url == run["html_url"]
    assert (result.requests_made, result.annotations_sent, result.adopted) == (1, 0, False)


def test_headers_carry_the_token_and_api_version(
    client: CheckRunClient, github: FakeGitHub
) -> None:
    client.publish(make_request())
    headers = github.requests[0].headers
    assert headers["authorization"] == f"Bearer {TOKEN}"
    assert headers["accept"] == "application/vnd.github+json"
    assert headers["x-github-api-version"] == "2022-11-28"
    assert headers["user-agent"] == f"waza-ci/{__version__}"


def test_123_annotations_go_out_as_50_50_23_in_order(
    client: CheckRunClient, github: FakeGitHub
) -> None:
    annotations = make_annotations(123)
    result = client.publish(make_request(annotations))

    assert batch_sizes(github) == [("POST", 50), ("PATCH", 50), ("PATCH", 23)]
    assert stored_messages(github) == [a.message for a in annotations]
    run_id = github.check_runs[0]["id"]
    for patch in github.requests_for("PATCH"):
        assert patch.path == f"{CREATE_PATH}/{run_id}"
        # Only output: conclusion and status were set once, by the create.
        assert set(patch.body) == {"output"}
        assert patch.body["output"]["title"] == "3 of 5 tasks passed"
        assert patch.body["output"]["summary"] == make_request().summary
    assert (result.requests_made, result.annotations_sent) == (3, 123)


@pytest.mark.parametrize("count", [0, 1, 49, 50, 51, 100, 101, 150])
def test_every_annotation_is_sent_in_batches_of_at_most_50(
    client: CheckRunClient, github: FakeGitHub, count: int
) -> None:
    client.publish(make_request(make_annotations(count)))

    sizes = batch_sizes(github)
    assert sizes[0][0] == "POST" and all(method == "PATCH" for method, _ in sizes[1:])
    assert len(sizes) == max(1, math.ceil(count / 50))
    assert all(size <= 50 for _, size in sizes)
    assert sum(size for _, size in sizes) == count == len(github.check_runs[0]["annotations"])


def test_the_caller_mutating_its_list_does_not_change_the_request() -> None:
    annotations = make_annotations(2)
    request = make_request(annotations)
    annotations.clear()
    assert len(request.annotations) == 2


@pytest.mark.parametrize(
    "fields",
    [{"name": ""}, {"head_sha": ""}, {"external_id": ""}, {"conclusion": "skipped"}],
)
def test_a_malformed_request_is_refused_before_any_http(fields: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        make_request(**fields)


# --- GitHub's per-annotation limits ------------------------------------------------------------


def test_annotation_texts_are_cut_to_githubs_limits(
    client: CheckRunClient, github: FakeGitHub
) -> None:
    head, tail = "HEAD-OF-THE-MESSAGE ", " END-OF-THE-MESSAGE"
    long_message = head + "x" * 100_000 + tail
    annotations = [
        Annotation("tasks/a.yaml", 3, "failure", "T" * 300, long_message),
        Annotation("/tasks/b.yaml", 0, "notice", "smile 😀 please", "done 🎉 ok"),
        Annotation("./tasks/c.yaml", -4, "warning", "", ""),
        Annotation("", 7, "warning", "no path", "é" * 40_000),
    ]
    client.publish(make_request(annotations))

    sent = github.requests[0].body["output"]["annotations"]
    first, emoji, dotted, no_path = sent
    assert len(first["title"]) == 255 and first["title"].endswith("…")
    message_bytes = first["message"].encode("utf-8")
    assert len(message_bytes) <= ANNOTATION_MESSAGE_BYTES
    assert first["message"].startswith(head) and first["message"].endswith(tail)
    # One cut (report/text_safety.py's head_tail), whose marker counts what was left out.
    assert "… 1 lines cut (" in first["message"]
    assert emoji["title"] == "smile U+1F600 please"
    assert emoji["message"] == "done U+1F389 ok"
    assert (emoji["path"], emoji["start_line"], emoji["end_line"]) == ("tasks/b.yaml", 1, 1)
    assert (dotted["path"], dotted["start_line"]) == ("tasks/c.yaml", 1)
    assert "title" not in dotted and dotted["message"]  # GitHub requires a non-empty message
    assert no_path["path"] == ".github"
    assert len(no_path["message"].encode("utf-8")) <= ANNOTATION_MESSAGE_BYTES
    # The fake refuses what GitHub refuses (BMP, 64 KB, 255 chars): the run exists, all 4 on it.
    assert len(github.check_runs[0]["annotations"]) == 4


def test_cutting_is_deterministic_and_keeps_utf8_whole() -> None:
    text = "\u00df" * 50_000 + "tail"  # 100,004 bytes: the cut points fall inside 2-byte characters
    once, twice = head_tail(text, 64_001), head_tail(text, 64_001)
    assert once == twice
    assert len(once.encode("utf-8")) <= 64_001
    assert once.endswith("tail") and "\ufffd" not in once
    assert head_tail("short", 10) == "short"
    assert readable_bmp("a\U0010ffffb\uffff") == "aU+10FFFFb\uffff"


def test_an_oversized_summary_is_cut_with_a_note(
    client: CheckRunClient, github: FakeGitHub
) -> None:
    client.publish(make_request(summary="## big\n" + "ü" * 40_000))  # 80,008 bytes

    summary = github.requests[0].body["output"]["summary"]
    assert len(summary.encode("utf-8")) <= CHECK_OUTPUT_BYTES
    assert summary.startswith("## big\n")
    assert "exceeded GitHub's limit of 65,535 bytes" in summary
    assert len(github.check_runs) == 1


# --- retries and duplicate prevention ----------------------------------------------------------


def test_a_500_on_create_is_retried_into_exactly_one_run(
    client: CheckRunClient, github: FakeGitHub, fake_time: FakeTime
) -> None:
    github.add_fault(Fault.server_error("POST"))
    result = client.publish(make_request(make_annotations(3)))

    methods = [(r.method, r.path.rsplit("/", 1)[-1]) for r in github.requests]
    # Outcome unknown after a 500, so the client looks for the run before sending again.
    assert methods == [("POST", "check-runs"), ("GET", "check-runs"), ("POST", "check-runs")]
    lookup = github.requests[1]
    assert lookup.path == f"/repos/{REPOSITORY}/commits/{SHA}/check-runs"
    assert lookup.query["check_name"] == ["waza-ci"] and lookup.query["filter"] == ["all"]
    assert len(github.check_runs) == 1 and result.id == github.check_runs[0]["id"]
    assert fake_time.sleeps == [1.0]
    assert result.requests_made == 3 and not result.adopted


@pytest.mark.parametrize("fault", [Fault.apply_then_drop("POST"), Fault.apply_then_fail("POST")])
def test_a_create_that_landed_but_went_unanswered_is_adopted_not_repeated(
    client: CheckRunClient, github: FakeGitHub, fault: Fault
) -> None:
    github.add_fault(fault)
    annotations = make_annotations(123)
    result = client.publish(make_request(annotations))

    assert len(github.requests_for("POST")) == 1
    assert len(github.check_runs) == 1
    assert result.adopted and result.id == github.check_runs[0]["id"]
    # The adopted run already held the first 50; the PATCHes add the rest, none twice.
    assert batch_sizes(github) == [("POST", 50), ("PATCH", 50), ("PATCH", 23)]
    assert stored_messages(github) == [a.message for a in annotations]


def test_a_dropped_create_that_did_not_land_is_sent_again(
    client: CheckRunClient, github: FakeGitHub
) -> None:
    github.add_fault(Fault.drop("POST"))
    result = client.publish(make_request(make_annotations(2)))

    assert [r.method for r in github.requests] == ["POST", "GET", "POST"]
    assert len(github.check_runs) == 1 and not result.adopted


def test_adoption_finds_our_run_behind_a_newer_sibling_of_the_same_name(
    client: CheckRunClient, github: FakeGitHub, fake_time: FakeTime
) -> None:
    """A matrix sibling publishing the same check name would hide our run from filter=latest."""
    github.add_fault(Fault.apply_then_drop("POST"))

    def sibling_publishes(_: float) -> None:
        sibling = dict(github.requests[0].body, external_id="waza-ci/run-42/attempt-1/sibling")
        requests.post(
            f"{github.url}{CREATE_PATH}",
            json=sibling,
            headers={"Authorization": f"Bearer {TOKEN}"},
            timeout=5,
        ).raise_for_status()

    fake_time.on_sleep = sibling_publishes
    result = client.publish(make_request())

    ours = [run for run in github.check_runs if run["external_id"] == "waza-ci/run-42/attempt-1"]
    assert len(ours) == 1 and result.id == ours[0]["id"] and result.adopted


def test_a_502_on_patch_is_checked_then_replayed(
    client: CheckRunClient, github: FakeGitHub, fake_time: FakeTime
) -> None:
    github.add_fault(Fault.server_error("PATCH", status=502))
    annotations = make_annotations(123)
    client.publish(make_request(annotations))

    methods = [r.method for r in github.requests]
    assert methods == ["POST", "PATCH", "GET", "PATCH", "PATCH"]
    assert stored_messages(github) == [a.message for a in annotations]
    assert fake_time.sleeps == [1.0]


@pytest.mark.parametrize("fault", [Fault.apply_then_fail("PATCH"), Fault.apply_then_drop("PATCH")])
def test_a_patch_that_landed_but_went_unanswered_is_not_replayed(
    client: CheckRunClient, github: FakeGitHub, fault: Fault
) -> None:
    github.add_fault(fault)
    annotations = make_annotations(123)
    client.publish(make_request(annotations))

    assert [r.method for r in github.requests] == ["POST", "PATCH", "GET", "PATCH"]
    assert stored_messages(github) == [a.message for a in annotations]  # no batch twice


def test_an_unexplained_annotation_count_stops_the_publish(
    client: CheckRunClient, github: FakeGitHub, fake_time: FakeTime
) -> None:
    github.add_fault(Fault.apply_then_fail("PATCH"))

    def someone_else_appends(_: float) -> None:
        run_id = github.check_runs[0]["id"]
        extra = annotation_body(make_annotations(1)[0])
        requests.patch(
            f"{github.url}{CREATE_PATH}/{run_id}",
            json={"output": {"title": "x", "summary": "x", "annotations": [extra]}},
            headers={"Authorization": f"Bearer {TOKEN}"},
            timeout=5,
        ).raise_for_status()

    fake_time.on_sleep = someone_else_appends
    with pytest.raises(CheckRunIncomplete, match="risk duplicates") as caught:
        client.publish(make_request(make_annotations(123)))
    assert caught.value.run_id == github.check_runs[0]["id"]
    assert isinstance(caught.value.__cause__, GitHubApiError)
    assert len(github.requests_for("PATCH")) == 2  # our one PATCH, plus the other writer's


def test_retry_after_on_a_403_is_honoured(
    client: CheckRunClient, github: FakeGitHub, fake_time: FakeTime
) -> None:
    github.add_fault(Fault.rate_limited("POST", retry_after=1))
    client.publish(make_request())

    # A rate-limited request was refused before it was applied: no lookup, just a re-send.
    assert [r.method for r in github.requests] == ["POST", "POST"]
    assert fake_time.sleeps == [1.0]
    assert len(github.check_runs) == 1


@pytest.mark.parametrize("status", [403, 429])
def test_an_exhausted_rate_limit_waits_until_the_reset(
    client: CheckRunClient, github: FakeGitHub, fake_time: FakeTime, status: int
) -> None:
    reset = int(fake_time.now) + 42
    github.add_fault(Fault.rate_limited("POST", status=status, reset=reset))
    client.publish(make_request())

    assert fake_time.sleeps == [42.0]
    assert len(github.check_runs) == 1


def test_a_429_naming_no_wait_backs_off_from_a_minute(
    make_client: MakeClient, github: FakeGitHub, fake_time: FakeTime
) -> None:
    github.add_fault(Fault("POST", status=429, body={"message": "Too Many Requests"}, times=2))
    make_client(max_total_wait_s=600).publish(make_request())

    assert fake_time.sleeps == [60.0, 120.0]
    assert len(github.check_runs) == 1


def test_transient_failures_back_off_exponentially_within_the_budget(
    make_client: MakeClient, github: FakeGitHub, fake_time: FakeTime
) -> None:
    github.add_fault(Fault.server_error("GET", times=100), Fault.server_error("POST", times=100))
    with pytest.raises(GitHubApiError, match="retry budget of 10 s") as caught:
        make_client(max_total_wait_s=10, max_retries=50).publish(make_request())

    assert fake_time.sleeps == [1.0, 2.0, 4.0]  # 8 more would make 15 > 10
    assert sum(fake_time.sleeps) <= 10
    assert caught.value.status == 500


def test_a_wait_beyond_the_budget_fails_at_once(
    client: CheckRunClient, github: FakeGitHub, fake_time: FakeTime
) -> None:
    github.add_fault(Fault.rate_limited("POST", retry_after=3600))
    with pytest.raises(GitHubApiError, match="3600 s") as caught:
        client.publish(make_request())
    assert fake_time.sleeps == []
    assert caught.value.status == 403
    assert not isinstance(caught.value, ChecksUnavailable)


def test_retries_are_capped_per_request(
    make_client: MakeClient, github: FakeGitHub, fake_time: FakeTime
) -> None:
    github.add_fault(Fault.rate_limited("POST", retry_after=1, times=10))
    with pytest.raises(GitHubApiError, match="gave up after 3 attempts"):
        make_client(max_retries=2).publish(make_request())
    assert len(github.requests_for("POST")) == 3
    assert fake_time.sleeps == [1.0, 1.0]


def test_a_422_is_reported_with_githubs_message_and_not_retried(
    client: CheckRunClient, github: FakeGitHub, fake_time: FakeTime
) -> None:
    github.add_fault(Fault.unprocessable("POST", message="No commit found for SHA: 0123"))
    with pytest.raises(GitHubApiError) as caught:
        client.publish(make_request())

    error = caught.value
    assert error.status == 422
    assert (
        error.github_message is not None and "No commit found for SHA: 0123" in error.github_message
    )
    assert "No commit found for SHA: 0123" in str(error) and "invalid" in str(error)
    assert len(github.requests) == 1 and fake_time.sleeps == []


def test_integration_refusal_means_checks_unavailable_without_retry(
    client: CheckRunClient, github: FakeGitHub, fake_time: FakeTime
) -> None:
    github.add_fault(Fault.integration_refused("POST"))
    with pytest.raises(ChecksUnavailable) as caught:
        client.publish(make_request(make_annotations(3)))

    message = str(caught.value)
    assert "Resource not accessible by integration" in message
    assert "checks: write" in message and "workflow_run" in message
    assert caught.value.status == 403 and not isinstance(caught.value, CheckRunIncomplete)
    assert len(github.requests) == 1 and fake_time.sleeps == []
    assert github.check_runs == []


@pytest.mark.parametrize(
    "fault",
    [
        Fault("POST", status=403, body={"message": "Must have admin rights to Repository."}),
        Fault("POST", status=404, body={"message": "Not Found"}),
    ],
)
def test_other_refusals_of_the_create_are_checks_unavailable(
    client: CheckRunClient, github: FakeGitHub, fault: Fault
) -> None:
    github.add_fault(fault)
    with pytest.raises(ChecksUnavailable):
        client.publish(make_request())
    assert len(github.requests) == 1


def test_a_404_on_patch_is_an_api_error(client: CheckRunClient, github: FakeGitHub) -> None:
    github.add_fault(Fault("PATCH", status=404, body={"message": "Not Found"}))
    with pytest.raises(CheckRunIncomplete) as caught:
        client.publish(make_request(make_annotations(60)))
    assert isinstance(caught.value.__cause__, GitHubApiError)
    assert not isinstance(caught.value.__cause__, ChecksUnavailable)
    assert (caught.value.run_id, caught.value.annotations_sent) == (github.check_runs[0]["id"], 50)


def test_bad_credentials_are_not_retried(github: FakeGitHub, fake_time: FakeTime) -> None:
    with (
        CheckRunClient.connect(
            github.url, REPOSITORY, "ghs_wrong", sleep=fake_time.sleep, write_interval_s=0
        ) as wrong,
        pytest.raises(GitHubApiError, match="Bad credentials") as caught,
    ):
        wrong.publish(make_request())
    assert caught.value.status == 401 and len(github.requests) == 1


def test_a_success_without_a_json_object_is_an_api_error(
    client: CheckRunClient, github: FakeGitHub
) -> None:
    github.add_fault(Fault("POST", status=201, body=["not", "an", "object"]))
    with pytest.raises(GitHubApiError, match="not an object"):
        client.publish(make_request())


def test_an_unreachable_api_fails_after_bounded_retries(fake_time: FakeTime) -> None:
    with FakeGitHub() as gone:
        dead_url = gone.url  # a loopback port that was free a moment ago and is now closed
    with (
        CheckRunClient.connect(
            dead_url, REPOSITORY, TOKEN, sleep=fake_time.sleep, clock=fake_time.clock, max_retries=1
        ) as unreachable,
        pytest.raises(GitHubApiError, match="no complete response"),
    ):
        unreachable.publish(make_request())
    assert 0 < sum(fake_time.sleeps) <= 300


def test_writes_are_paced_but_reads_are_not(
    make_client: MakeClient, github: FakeGitHub, fake_time: FakeTime
) -> None:
    make_client(write_interval_s=1.0).publish(make_request(make_annotations(123)))
    assert fake_time.sleeps == [1.0, 1.0]  # before each of the two PATCHes


# --- GitHub Enterprise Server ------------------------------------------------------------------


@pytest.mark.parametrize("trailing_slash", ["", "/"])
def test_an_api_url_with_a_path_prefix_is_honoured(
    fake_time: FakeTime, trailing_slash: str
) -> None:
    with FakeGitHub(prefix="/api/v3", token=TOKEN) as ghes:
        with CheckRunClient.connect(
            ghes.url + trailing_slash, REPOSITORY, TOKEN, sleep=fake_time.sleep, write_interval_s=0
        ) as client:
            client.publish(make_request(make_annotations(51)))
        paths = [r.path for r in ghes.requests]
    assert ghes.url.endswith("/api/v3")
    assert paths[0] == f"/api/v3/repos/{REPOSITORY}/check-runs"
    assert paths[1].startswith(f"/api/v3/repos/{REPOSITORY}/check-runs/")


# --- secrets -----------------------------------------------------------------------------------


def test_the_token_never_shows_in_repr_or_errors(
    client: CheckRunClient, github: FakeGitHub
) -> None:
    assert TOKEN not in repr(client) and TOKEN not in str(client)
    assert REPOSITORY in repr(client)
    # A server that echoes the token back must not get it into our exception texts.
    github.add_fault(Fault("POST", status=422, body={"message": f"bad token {TOKEN}"}))
    with pytest.raises(GitHubError) as caught:
        client.publish(make_request())
    error = caught.value
    for text in (str(error), repr(error), repr(error.args), str(error.github_message)):
        assert TOKEN not in text
    assert "<redacted>" in str(error)


def test_a_token_with_whitespace_is_refused_without_echoing_it() -> None:
    with pytest.raises(GitHubSetupError) as caught:
        CheckRunClient.connect("https://api.github.com", REPOSITORY, TOKEN + "\n")
    assert TOKEN not in str(caught.value)


@pytest.mark.parametrize(
    ("api_url", "repository"),
    [
        ("ftp://example.test", REPOSITORY),
        ("https://api.github.com", "no-slash"),
        ("https://x", "a/b/c"),
    ],
)
def test_bad_client_settings_are_refused(api_url: str, repository: str) -> None:
    with pytest.raises(GitHubSetupError):
        CheckRunClient.connect(api_url, repository, TOKEN)


# --- the fake from another process -------------------------------------------------------------


@pytest.mark.slow
def test_the_fake_runs_as_a_script_and_is_driven_over_http(
    tmp_path: Path, fake_time: FakeTime
) -> None:
    script = Path(__file__).resolve().parents[1] / "fake_github.py"
    port_file = tmp_path / "port"
    process = subprocess.Popen(
        [sys.executable, str(script), "--port-file", str(port_file), "--prefix", "/api/v3"],
        stdout=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while not port_file.exists():
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.02)
        origin = f"http://127.0.0.1:{int(port_file.read_text())}"
        remote = RemoteFakeGitHub(origin)
        remote.add_fault(Fault.server_error("POST"))
        with CheckRunClient.connect(
            origin + "/api/v3", REPOSITORY, TOKEN, sleep=fake_time.sleep, write_interval_s=0
        ) as client:
            client.publish(make_request(make_annotations(60)))
        assert [r.method for r in remote.requests] == ["POST", "GET", "POST", "PATCH"]
        (run,) = remote.check_runs
        assert len(run["annotations"]) == 60
        assert json.loads(json.dumps(remote.requests[0].to_json()))["path"].startswith("/api/v3/")
        remote.reset()
        assert remote.requests == [] and remote.check_runs == []
    finally:
        process.terminate()
        assert process.wait(timeout=10) == 0
