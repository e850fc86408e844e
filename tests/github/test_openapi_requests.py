"""Every request the action sends matches GitHub's own REST description.

The description is npm `@octokit/openapi` (`bash .ci/openapi.sh`); `tests/github_description.py`
derives what the checks need and `tests/fake_github.py` checks every request it receives. Here:
the check is not vacuous (a check run without `name`, 51 annotations, an unknown
`annotation_level`, an unknown route are refused, by the description and by the fake, and a test
whose product code sends one fails), every call the product makes is exercised and passes, and
the fake's answers match GitHub's response schemas.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.fake_github import FakeGitHub, Fault, RemoteFakeGitHub
from tests.github.conftest import REPOSITORY, TOKEN, FakeTime, MakeClient
from tests.github_description import (
    ENV_VAR,
    DescriptionMissing,
    RestDescription,
    to_json_schema,
)
from waza_ci.github import checks
from waza_ci.github.checks import CheckRunRequest, GitHubApiError
from waza_ci.github.comments import StickyCommentClient, comment_marker
from waza_ci.github.http import GitHubHttp
from waza_ci.report.annotations import Annotation

SHA = "0123456789abcdef0123456789abcdef01234567"
REPO = f"/repos/{REPOSITORY}"
AUTH = {"Authorization": f"Bearer {TOKEN}"}

ANNOTATION: dict[str, Any] = {
    "path": "evals/eval.yaml",
    "start_line": 3,
    "end_line": 3,
    "annotation_level": "failure",
    "message": "expected a greeting",
}
CREATE: dict[str, Any] = {
    "name": "waza program graders",
    "head_sha": SHA,
    "status": "completed",
    "conclusion": "failure",
    "output": {"title": "1 failed", "summary": "s", "annotations": [ANNOTATION]},
}


def _without(body: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in body.items() if k != key}


def _with_annotations(*annotations: dict[str, Any]) -> dict[str, Any]:
    return {**CREATE, "output": {**CREATE["output"], "annotations": list(annotations)}}


# (method, path with query, JSON body or None, the status GitHub answers, words of the reason)
INVALID: dict[str, tuple[str, str, Any, int, str]] = {
    "a check run without name": (
        "POST",
        f"{REPO}/check-runs",
        _without(CREATE, "name"),
        422,
        "'name' is a required property",
    ),
    "51 annotations in one request": (
        "POST",
        f"{REPO}/check-runs",
        _with_annotations(*[ANNOTATION] * 51),
        422,
        "$.output.annotations: a list of 51 items fails maxItems: 50",
    ),
    "an unknown annotation_level": (
        "POST",
        f"{REPO}/check-runs",
        _with_annotations({**ANNOTATION, "annotation_level": "error"}),
        422,
        "annotation_level: 'error' is not one of ['notice', 'warning', 'failure']",
    ),
    "an update with 51 annotations": (
        "PATCH",
        f"{REPO}/check-runs/5000000001",
        {"output": {"title": "t", "summary": "s", "annotations": [ANNOTATION] * 51}},
        422,
        "fails maxItems: 50",
    ),
    "an unknown route": (
        "POST",
        f"{REPO}/check-run",
        CREATE,
        404,
        "no path of GitHub's REST description",
    ),
    "a method the path does not have": (
        "DELETE",
        f"{REPO}/check-runs/5000000001",
        None,
        404,
        "no DELETE operation for this path (it has GET, PATCH)",
    ),
    "a check-run id that is not a number": (
        "GET",
        f"{REPO}/check-runs/latest",
        None,
        404,
        "path parameter check_run_id",
    ),
    "an unknown filter when listing for a ref": (
        "GET",
        f"{REPO}/commits/{SHA}/check-runs?filter=newest",
        None,
        422,
        "'newest' is not one of ['latest', 'all']",
    ),
    "a query parameter the operation does not take": (
        "GET",
        f"{REPO}/issues/7/comments?per-page=100",
        None,
        422,
        "query parameter 'per-page' is not one the operation takes",
    ),
    "a comment without body": (
        "POST",
        f"{REPO}/issues/7/comments",
        {"text": "hello"},
        422,
        "'body' is a required property",
    ),
    "a comment update with no body at all": (
        "PATCH",
        f"{REPO}/issues/comments/7000000001",
        None,
        422,
        "the request body is required",
    ),
}


def _check(description: RestDescription, method: str, target: str, body: Any) -> Any:
    path, _, query = target.partition("?")
    params = dict(part.split("=", 1) for part in query.split("&") if part)
    raw = b"" if body is None else json.dumps(body).encode()
    return description.check(
        method,
        path,
        {name: [value] for name, value in params.items()},
        content_type="application/json" if body is not None else None,
        body=body,
        raw_body=raw,
    )


# --- the check is not vacuous -------------------------------------------------------------------


def test_a_valid_create_and_each_product_operation_pass(description: RestDescription) -> None:
    verdict = _check(description, "POST", f"{REPO}/check-runs", CREATE)
    assert verdict.ok and verdict.operation_id == "checks/create", verdict.describe()
    assert len(description.operations) > 1000  # the complete description, not an extract


@pytest.mark.parametrize("case", INVALID, ids=list(INVALID))
def test_the_description_refuses_an_invalid_request(
    description: RestDescription, case: str
) -> None:
    method, target, body, status, reason = INVALID[case]
    verdict = _check(description, method, target, body)
    assert not verdict.ok and verdict.status == status
    assert any(reason in problem for problem in verdict.problems), verdict.problems


@pytest.mark.parametrize("case", INVALID, ids=list(INVALID))
def test_the_fake_answers_an_invalid_request_as_github_and_records_it(
    description: RestDescription, case: str
) -> None:
    method, target, body, status, reason = INVALID[case]
    with FakeGitHub(token=TOKEN) as fake:
        answer = requests.request(method, fake.url + target, json=body, headers=AUTH, timeout=5)
        (refused,) = fake.take_invalid_requests()
        assert not fake.check_runs and not fake.comments  # refused before anything was applied
    assert answer.status_code == status
    assert answer.json()["status"] == str(status)
    if status == 422:
        assert answer.json()["message"].startswith("Invalid request.")
        assert reason in answer.json()["message"]
    assert refused.status == status and any(reason in p for p in refused.problems)


def test_leaving_the_fake_after_an_invalid_request_fails(description: RestDescription) -> None:
    method, target, body, _, _ = INVALID["51 annotations in one request"]
    refused = r"(?s)GitHub would refuse.*fails maxItems: 50"
    with pytest.raises(AssertionError, match=refused), FakeGitHub(token=TOKEN) as fake:
        requests.request(method, fake.url + target, json=body, headers=AUTH, timeout=5)


def test_a_product_that_sends_51_annotations_fails_its_test(
    description: RestDescription, monkeypatch: pytest.MonkeyPatch, fake_time: FakeTime
) -> None:
    """A product bug (batches of 51) is refused as GitHub would, and fails the test using it."""
    monkeypatch.setattr(checks, "ANNOTATIONS_PER_REQUEST", 51)
    annotations = [Annotation(f"e{i}.yaml", 1, "failure", "t", "m") for i in range(51)]
    request = CheckRunRequest("n", SHA, "x", "failure", "t", "s", annotations)
    with pytest.raises(AssertionError, match="maxItems"), FakeGitHub(token=TOKEN) as fake:
        client = checks.CheckRunClient.connect(fake.url, REPOSITORY, TOKEN, sleep=fake_time.sleep)
        with client, pytest.raises(GitHubApiError, match="422"):
            client.publish(request)


def test_the_fake_script_exits_1_listing_what_it_refused(
    tmp_path: Path, description: RestDescription
) -> None:
    script = Path(__file__).resolve().parents[1] / "fake_github.py"
    port_file = tmp_path / "port"
    process = subprocess.Popen(
        [sys.executable, str(script), "--port-file", str(port_file)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 10
        while not port_file.exists():
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.02)
        origin = f"http://127.0.0.1:{int(port_file.read_text())}"
        method, target, body, status, reason = INVALID["a check run without name"]
        answer = requests.request(method, origin + target, json=body, timeout=5)
        assert answer.status_code == status
        (refused,) = RemoteFakeGitHub(origin).invalid_requests
        assert refused.operation_id == "checks/create" and reason in refused.problems[0]
    finally:
        process.terminate()
        _, stderr = process.communicate(timeout=10)
    assert process.returncode == 1
    assert "1 request(s) GitHub would refuse" in stderr and reason in stderr


# --- every call the product makes ----------------------------------------------------------------

PRODUCT_OPERATIONS = {
    "checks/create",
    "checks/update",
    "checks/get",
    "checks/list-for-ref",
    "issues/list-comments",
    "issues/create-comment",
    "issues/update-comment",
    "issues/delete-comment",
}


def test_every_call_the_product_makes_is_exercised_and_valid(
    description: RestDescription,
    github: FakeGitHub,
    make_client: MakeClient,
    fake_time: FakeTime,
) -> None:
    # Check runs: the create lands but its answer is lost (so the client lists the ref's runs
    # to find it), then a PATCH lands unanswered (so it gets the run to read its count).
    github.add_fault(Fault.apply_then_drop("POST"), Fault.apply_then_drop("PATCH"))
    annotations = [Annotation(f"e{i}.yaml", i + 1, "failure", "t", "m") for i in range(60)]
    make_client().publish(CheckRunRequest("n", SHA, "x", "failure", "t", "s", annotations))
    # Comments: a concurrent run's copy is missed by the first listing, so ours is created, the
    # second listing finds two, the newer is deleted and the older updated.
    marker = comment_marker("CI\nwaza program graders")
    github.add_comment(7, f"{marker}\nother", login="github-actions[bot]", repository=REPOSITORY)
    github.add_fault(Fault("GET", "*/comments", status=200, body=[]))
    with GitHubHttp(github.url, TOKEN, sleep=fake_time.sleep, write_interval_s=0) as http:
        StickyCommentClient(http, REPOSITORY).upsert(7, marker, f"{marker}\nthis run")

    verdicts = [
        description.check(
            r.method,
            r.path,
            r.query,
            content_type=r.headers.get("content-type"),
            body=r.body,
            raw_body=r.raw_body,
        )
        for r in github.requests
    ]
    assert [v.describe() for v in verdicts if not v.ok] == []
    assert {v.operation_id for v in verdicts} == PRODUCT_OPERATIONS
    assert github.invalid_requests == []


# --- the fake's answers and GET /user -------------------------------------------------------------


def test_the_fakes_answers_match_githubs_response_schemas(description: RestDescription) -> None:
    with FakeGitHub(token=TOKEN, login="octocat") as fake:

        def call(method: str, path: str, body: Any = None, **params: str) -> Any:
            answer = requests.request(
                method, fake.url + path, json=body, params=params, headers=AUTH, timeout=5
            )
            assert answer.ok, answer.text
            return answer.json()

        answers = {
            ("checks/create", "201"): call("POST", f"{REPO}/check-runs", CREATE),
        }
        run_id = answers["checks/create", "201"]["id"]
        answers["checks/update", "200"] = call(
            "PATCH", f"{REPO}/check-runs/{run_id}", {"output": {"title": "t", "summary": "s"}}
        )
        answers["checks/get", "200"] = call("GET", f"{REPO}/check-runs/{run_id}")
        answers["checks/list-annotations", "200"] = call(
            "GET", f"{REPO}/check-runs/{run_id}/annotations"
        )
        answers["checks/list-for-ref", "200"] = call(
            "GET", f"{REPO}/commits/{SHA}/check-runs", filter="all"
        )
        created = call("POST", f"{REPO}/issues/7/comments", {"body": "hi"})
        answers["issues/create-comment", "201"] = created
        answers["issues/update-comment", "200"] = call(
            "PATCH", f"{REPO}/issues/comments/{created['id']}", {"body": "hello"}
        )
        answers["issues/list-comments", "200"] = call("GET", f"{REPO}/issues/7/comments")
        answers["users/get-authenticated", "200"] = call("GET", "/user")
    problems = {
        key: description.response_errors(*key, answer)
        for key, answer in answers.items()
        if description.response_errors(*key, answer)
    }
    assert problems == {}
    # ...and the response check is not vacuous either.
    assert description.response_errors("checks/get", "200", {"id": "1"})
    assert answers["checks/list-for-ref", "200"]["total_count"] == 1
    assert answers["issues/list-comments", "200"][0]["user"]["login"] == "octocat"


def test_get_user_names_a_persons_token_and_refuses_the_actions_token(
    description: RestDescription,
) -> None:
    with FakeGitHub(token=TOKEN, login="octocat") as person:
        me = requests.get(f"{person.url}/user", headers=AUTH, timeout=5)
        assert me.status_code == 200 and me.json()["login"] == "octocat"
        assert me.json()["type"] == "User"
    with FakeGitHub(token=TOKEN) as actions:  # github-actions[bot], an installation token
        refused = requests.get(f"{actions.url}/user", headers=AUTH, timeout=5)
        assert refused.status_code == 403
        assert refused.json()["message"] == "Resource not accessible by integration"
        # Comments it creates are by that bot, as the Actions token's are.
        requests.post(
            f"{actions.url}{REPO}/issues/7/comments", json={"body": "x"}, headers=AUTH, timeout=5
        )
        (comment,) = actions.comments
        assert comment["user"]["login"] == "github-actions[bot]"
        assert comment["user"]["type"] == "Bot"


# --- the description: matching, conversion, where it comes from ----------------------------------


@pytest.mark.parametrize(
    ("method", "path", "operation_id", "args"),
    [
        ("GET", f"{REPO}/issues/comments", "issues/list-comments-for-repo", {}),
        ("GET", f"{REPO}/issues/12/comments", "issues/list-comments", {"issue_number": "12"}),
        ("GET", f"{REPO}/commits/{SHA}/check-runs", "checks/list-for-ref", {"ref": SHA}),
        # A ref with a slash, encoded: still one argument of list-for-ref, not get-commit's.
        (
            "GET",
            f"{REPO}/commits/feature%2Fx/check-runs",
            "checks/list-for-ref",
            {"ref": "feature/x"},
        ),
        ("GET", "/user", "users/get-authenticated", {}),
    ],
)
def test_paths_match_the_most_specific_operation(
    description: RestDescription, method: str, path: str, operation_id: str, args: dict[str, str]
) -> None:
    verdict = description.check(method, path, {})
    assert verdict.ok and verdict.operation_id == operation_id
    assert {k: v for k, v in verdict.path_args.items() if k not in ("owner", "repo")} == args


def test_openapi_nullable_becomes_json_schema() -> None:
    assert to_json_schema({"type": "string", "nullable": True, "description": "d"}) == {
        "type": ["string", "null"]
    }
    assert to_json_schema({"type": "string", "enum": ["a"], "nullable": True}) == {
        "type": ["string", "null"],
        "enum": ["a", None],
    }
    composed = {"allOf": [{"type": "object"}], "nullable": True}
    assert to_json_schema(composed) == {
        "anyOf": [{"type": "null"}, {"allOf": [{"type": "object"}]}]
    }
    # Schema keywords go, property names stay; `discriminator` and extensions go.
    schema = {
        "type": "object",
        "discriminator": {"propertyName": "status"},
        "x-github": {},
        "properties": {"description": {"type": "string", "example": "x"}},
    }
    assert to_json_schema(schema) == {
        "type": "object",
        "properties": {"description": {"type": "string"}},
    }


def test_a_missing_description_fails_in_ci_and_is_skipped_elsewhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "nowhere.json"))
    monkeypatch.setenv("CI", "true")
    with pytest.raises(DescriptionMissing, match=r"(?s)bash \.ci/openapi\.sh.*failure, not a skip"):
        FakeGitHub().start()
    monkeypatch.delenv("CI")
    with FakeGitHub() as unchecked:  # a developer's clone without npm: served, not checked
        answer = requests.get(f"{unchecked.url}/no/such/route", timeout=5)
        assert answer.status_code == 404 and unchecked.description is None
        assert unchecked.invalid_requests == []
