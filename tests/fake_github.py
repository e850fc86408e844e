"""A fake GitHub REST API (check runs, issue comments, the token's user) over HTTP on loopback.

In-process, as a context manager or the `fake_github` pytest fixture:

    with FakeGitHub() as fake:                      # binds 127.0.0.1, a free port
        fake.add_fault(Fault.server_error("POST"))  # the next create answers 500
        client = CheckRunClient(fake.url, "octo/repo", "t0ken", write_interval_s=0)
        ...
        fake.requests      # every API request: method, path, query, headers, parsed JSON body
        fake.check_runs    # the stored runs, each with its full "annotations" list
        fake.invalid_requests  # the requests GitHub would refuse (see below)

Every request is checked against GitHub's own REST API description (`tests/github_description.py`,
npm `@octokit/openapi`, installed by `bash .ci/openapi.sh`): its method and path must be an
operation of the description, its path and query parameters and its body must match that
operation's schemas. One that does not is answered as GitHub would (404 for an operation GitHub
does not have, 422 for a bad parameter or body, 400 for a body that is not JSON) and recorded,
and so is one the fake's own rules refuse (GitHub's limits the description does not state: bytes
rather than characters, no characters outside the Basic Multilingual Plane). Leaving the `with`
block with recorded invalid requests fails (AssertionError), so any test whose product code sends
one fails; a test that sends one on purpose takes them with `fake.take_invalid_requests()`. The
script exits 1, listing them, when stopped. Without the description the fake refuses to start
when `CI` is set and serves unchecked otherwise (`require_description`).

From another process (an entrypoint subprocess, or a container on host networking):

    python tests/fake_github.py --port-file /tmp/port [--host 127.0.0.1] [--prefix /api/v3]

It writes the port to the file once it is listening and serves until SIGTERM/SIGINT. The test then
drives and inspects it over HTTP with `RemoteFakeGitHub(url)`, or directly through the control
endpoints (never recorded, always at the root, whatever the prefix):
    GET  /_fake/requests          the recorded requests as JSON
    GET  /_fake/check-runs        the stored check runs
    GET  /_fake/invalid-requests  the refused requests (see `InvalidRequest.to_json`)
    POST /_fake/faults            a fault object or a list of them (see `Fault.to_json`)
    POST /_fake/reset             forget requests, runs, comments, faults and refusals

By default it implements check runs (create 201, get, update 200 with annotations appended, list
annotations, "list check runs for a Git reference"), issue comments (list with pages, create,
update, delete), `GET /user` (the token's user; 403 "Resource not accessible by integration"
for a bot's token, as GitHub answers the Actions token) and repository contents at a commit
(`GET /repos/{owner}/{repo}/contents/{path}?ref=SHA`, the files a test adds with
`fake.add_file(...)`; a private repository answers 404 to a request without its token, as
GitHub does). Faults are consumed in order; the first
whose method and path pattern (fnmatch, over the full path) match a request answers it. A request
the description refuses is answered before any fault is consulted.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import copy
import fnmatch
import hashlib
import json
import os
import re
import signal
import socket
import sys
import threading
import urllib.request
import zlib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import FrameType
from typing import Any, Literal, cast
from urllib.parse import parse_qs, quote, unquote, urlsplit

if __name__ == "__main__" and not __package__:  # run as a script: import `tests.` as a package
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.github_description import RestDescription, Verdict, require_description

DOCS_URL = "https://docs.github.com/rest/checks/runs"
INTEGRATION_REFUSED = "Resource not accessible by integration"
# GitHub's documented per-annotation limits ("64 KB", 255 characters).
ANNOTATION_TEXT_MAX_BYTES = 64 * 1024
ANNOTATION_TITLE_MAX_CHARS = 255
SUMMARY_MAX_BYTES = 65_535

FaultAction = Literal["respond", "drop", "apply_then_drop", "apply_then_respond"]
JsonObject = dict[str, Any]


# --- recorded requests and scripted faults ----------------------------------------------------


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the server saw it. Header names are lower-cased."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any
    raw_body: bytes = field(repr=False)

    def to_json(self) -> JsonObject:
        return {
            "method": self.method,
            "path": self.path,
            "query": self.query,
            "headers": self.headers,
            "body": self.body,
            "raw_body": self.raw_body.decode("utf-8", "replace"),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RecordedRequest:
        return cls(
            method=data["method"],
            path=data["path"],
            query=dict(data["query"]),
            headers=dict(data["headers"]),
            body=data["body"],
            raw_body=str(data["raw_body"]).encode("utf-8"),
        )


@dataclass(frozen=True)
class InvalidRequest:
    """A request GitHub would refuse: what it was, the operation it matched (None: GitHub has no
    such operation), the status it was answered with, and every reason."""

    method: str
    path: str
    operation_id: str | None
    status: int
    problems: tuple[str, ...]

    @classmethod
    def from_verdict(cls, verdict: Verdict) -> InvalidRequest:
        return cls(
            verdict.method, verdict.path, verdict.operation_id, verdict.status, verdict.problems
        )

    def describe(self) -> str:
        head = f"{self.method} {self.path} ({self.operation_id or 'no such operation'})"
        return head + f" answered {self.status}:" + "".join(f"\n    {p}" for p in self.problems)

    def to_json(self) -> JsonObject:
        return {
            "method": self.method,
            "path": self.path,
            "operation_id": self.operation_id,
            "status": self.status,
            "problems": list(self.problems),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> InvalidRequest:
        return cls(
            method=str(data["method"]),
            path=str(data["path"]),
            operation_id=data["operation_id"],
            status=int(data["status"]),
            problems=tuple(str(p) for p in data["problems"]),
        )


def invalid_requests_message(invalid: Iterable[InvalidRequest]) -> str:
    found = list(invalid)
    return (
        f"{len(found)} request(s) GitHub would refuse (its REST description, or its limits):\n"
        + ("\n".join(item.describe() for item in found))
    )


@dataclass
class Fault:
    """A scripted answer for the next `times` requests matching `method` and `path`.

    action: "respond" answers with status/headers/body without touching state; "drop" closes the
    connection without answering; "apply_then_drop" / "apply_then_respond" first apply the request
    normally (a run is created or updated) and then drop, or answer with status/headers/body.
    """

    method: str
    path: str = "*"
    status: int = 500
    headers: dict[str, str] = field(default_factory=dict)
    body: Any = None
    action: FaultAction = "respond"
    times: int = 1

    @classmethod
    def server_error(
        cls, method: str, path: str = "*", *, status: int = 500, times: int = 1
    ) -> Fault:
        return cls(method, path, status, body={"message": "Server Error"}, times=times)

    @classmethod
    def integration_refused(cls, method: str = "POST", path: str = "*") -> Fault:
        body = {
            "message": INTEGRATION_REFUSED,
            "documentation_url": f"{DOCS_URL}#create-a-check-run",
            "status": "403",
        }
        return cls(method, path, 403, body=body)

    @classmethod
    def rate_limited(
        cls,
        method: str,
        path: str = "*",
        *,
        status: int = 403,
        retry_after: int | None = None,
        reset: int | None = None,
        times: int = 1,
    ) -> Fault:
        """A primary (`reset`: remaining 0 until that epoch) or secondary rate limit."""
        headers: dict[str, str] = {}
        if retry_after is not None:
            headers["retry-after"] = str(retry_after)
        if reset is not None:
            headers.update(
                {
                    "x-ratelimit-limit": "1000",
                    "x-ratelimit-remaining": "0",
                    "x-ratelimit-used": "1000",
                    "x-ratelimit-reset": str(reset),
                    "x-ratelimit-resource": "core",
                }
            )
            message = "API rate limit exceeded for installation ID 1."
        else:
            message = "You have exceeded a secondary rate limit. Please wait a few minutes."
        body = {"message": message, "documentation_url": "https://docs.github.com/rest/rate-limit"}
        return cls(method, path, status, headers, body, times=times)

    @classmethod
    def unprocessable(
        cls, method: str, path: str = "*", message: str = "Validation Failed"
    ) -> Fault:
        body = {
            "message": message,
            "errors": [{"resource": "CheckRun", "code": "invalid", "field": "head_sha"}],
            "documentation_url": DOCS_URL,
            "status": "422",
        }
        return cls(method, path, 422, body=body)

    @classmethod
    def drop(cls, method: str, path: str = "*", *, times: int = 1) -> Fault:
        return cls(method, path, action="drop", times=times)

    @classmethod
    def apply_then_drop(cls, method: str, path: str = "*") -> Fault:
        return cls(method, path, action="apply_then_drop")

    @classmethod
    def apply_then_fail(cls, method: str, path: str = "*", *, status: int = 502) -> Fault:
        return cls(
            method, path, status, body={"message": "Bad Gateway"}, action="apply_then_respond"
        )

    def matches(self, method: str, path: str) -> bool:
        return self.method.upper() == method and fnmatch.fnmatchcase(path, self.path)

    def to_json(self) -> JsonObject:
        return {
            "method": self.method,
            "path": self.path,
            "status": self.status,
            "headers": self.headers,
            "body": self.body,
            "action": self.action,
            "times": self.times,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Fault:
        action = data.get("action", "respond")
        if action not in ("respond", "drop", "apply_then_drop", "apply_then_respond"):
            raise ValueError(f"unknown fault action {action!r}")
        return cls(
            method=str(data["method"]),
            path=str(data.get("path", "*")),
            status=int(data.get("status", 500)),
            headers={str(k): str(v) for k, v in dict(data.get("headers") or {}).items()},
            body=data.get("body"),
            action=cast(FaultAction, action),
            times=int(data.get("times", 1)),
        )


# --- the fake API's state ---------------------------------------------------------------------


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _error(status: int, message: str, **extra: Any) -> tuple[int, JsonObject]:
    return status, {"message": message, "documentation_url": DOCS_URL, **extra}


def _annotation_problem(annotation: Any) -> str | None:  # noqa: PLR0911 - one return per rule
    """Why GitHub would refuse this annotation, or None."""
    if not isinstance(annotation, dict):
        return "annotation is not an object"
    for key in ("path", "start_line", "end_line", "annotation_level", "message"):
        if key not in annotation:
            return f"annotation is missing {key}"
    if not isinstance(annotation["path"], str) or not annotation["path"]:
        return "annotation path is empty"
    if annotation["annotation_level"] not in ("notice", "warning", "failure"):
        return f"annotation_level {annotation['annotation_level']!r} is not allowed"
    for key in ("start_line", "end_line"):
        if not isinstance(annotation[key], int) or annotation[key] < 1:
            return f"annotation {key} must be a positive integer"
    texts = [
        annotation["message"],
        annotation.get("title") or "",
        annotation.get("raw_details", ""),
    ]
    if any(not isinstance(text, str) for text in texts):
        return "annotation texts must be strings"
    if any(ord(char) > 0xFFFF for text in texts for char in text):
        return "annotation contains characters outside the Basic Multilingual Plane"
    if len(annotation["message"].encode("utf-8")) > ANNOTATION_TEXT_MAX_BYTES:
        return "annotation message is larger than 64 KB"
    if len(annotation.get("title") or "") > ANNOTATION_TITLE_MAX_CHARS:
        return "annotation title is longer than 255 characters"
    return None


def _output_problem(output: Any, *, creating: bool) -> str | None:  # noqa: PLR0911
    if output is None:
        return None
    if not isinstance(output, dict):
        return "output is not an object"
    required = ("title", "summary") if creating else ("summary",)
    for key in required:
        if not isinstance(output.get(key), str):
            return f"output.{key} is required"
    for key in ("summary", "text"):
        if len(str(output.get(key) or "").encode("utf-8")) > SUMMARY_MAX_BYTES:
            return f"output.{key} exceeds a maximum bytesize of 65535"
    for key in ("title", "summary", "text"):
        if any(ord(char) > 0xFFFF for char in str(output.get(key) or "")):
            return f"output.{key} contains characters outside the Basic Multilingual Plane"
    annotations = output.get("annotations") or []
    if not isinstance(annotations, list):
        return "output.annotations is not an array"
    if len(annotations) > 50:
        return (
            f"Invalid request. No more than 50 items are allowed; {len(annotations)} were supplied."
        )
    for annotation in annotations:
        problem = _annotation_problem(annotation)
        if problem:
            return problem
    return None


class _State:
    """Stored check runs; every method is called with the server's lock held."""

    def __init__(self, server_url: str) -> None:
        self.server_url = server_url
        self.runs: dict[int, JsonObject] = {}
        self.next_id = 5_000_000_001  # larger than 2**32: the id is an int64

    def create(self, owner: str, repo: str, body: Any, api_url: str) -> tuple[int, JsonObject]:
        if not isinstance(body, dict):
            return _error(400, "Problems parsing JSON")
        for key in ("name", "head_sha"):
            if not isinstance(body.get(key), str) or not body[key]:
                return _error(422, f"Invalid request. {key} wasn't supplied.")
        status = "completed" if "conclusion" in body else body.get("status", "queued")
        if status == "completed" and not body.get("conclusion"):
            return _error(422, "Invalid request. conclusion wasn't supplied.")
        problem = _output_problem(body.get("output"), creating=True)
        if problem:
            return _error(422, problem)
        run_id = self.next_id
        self.next_id += 1
        output = body.get("output") or {}
        run: JsonObject = {
            "id": run_id,
            "owner": owner,
            "repo": repo,
            "name": body["name"],
            "head_sha": body["head_sha"],
            "external_id": body.get("external_id"),
            "details_url": body.get("details_url"),
            "status": status,
            "conclusion": body.get("conclusion"),
            "started_at": body.get("started_at") or _now(),
            "completed_at": body.get("completed_at") or (_now() if status == "completed" else None),
            "title": output.get("title"),
            "summary": output.get("summary"),
            "text": output.get("text"),
            "annotations": list(output.get("annotations") or []),
        }
        self.runs[run_id] = run
        return 201, self.to_api(run, api_url)

    def update(self, run: JsonObject, body: Any, api_url: str) -> tuple[int, JsonObject]:
        if not isinstance(body, dict):
            return _error(400, "Problems parsing JSON")
        problem = _output_problem(body.get("output"), creating=False)
        if problem:
            return _error(422, problem)
        for key in ("name", "details_url", "external_id", "started_at", "completed_at"):
            if key in body:
                run[key] = body[key]
        if "conclusion" in body:
            run["conclusion"] = body["conclusion"]
            run["status"] = "completed"
        elif "status" in body:
            run["status"] = body["status"]
        output = body.get("output")
        if isinstance(output, dict):
            for key in ("title", "summary", "text"):
                if key in output:
                    run[key] = output[key]
            # GitHub appends: each update adds to the annotations already on the run.
            run["annotations"].extend(output.get("annotations") or [])
        return 200, self.to_api(run, api_url)

    def find(self, owner: str, repo: str, run_id: int) -> JsonObject | None:
        run = self.runs.get(run_id)
        if run is None or (run["owner"], run["repo"]) != (owner, repo):
            return None
        return run

    def list_for_ref(
        self, owner: str, repo: str, ref: str, query: Mapping[str, list[str]], api_url: str
    ) -> tuple[int, JsonObject]:
        def arg(name: str) -> str | None:
            values = query.get(name)
            return values[-1] if values else None

        runs = [
            run
            for run in self.runs.values()
            if (run["owner"], run["repo"], run["head_sha"]) == (owner, repo, ref)
            and arg("check_name") in (None, run["name"])
            and arg("status") in (None, run["status"])
        ]
        runs.sort(key=lambda run: run["id"], reverse=True)
        if (arg("filter") or "latest") == "latest":
            latest: dict[str, JsonObject] = {}
            for run in runs:
                latest.setdefault(run["name"], run)
            runs = list(latest.values())
        per_page = min(int(arg("per_page") or 30), 100)
        page = max(int(arg("page") or 1), 1)
        chunk = runs[(page - 1) * per_page : page * per_page]
        return 200, {
            "total_count": len(runs),
            "check_runs": [self.to_api(run, api_url) for run in chunk],
        }

    def to_api(self, run: Mapping[str, Any], api_url: str) -> JsonObject:
        """The run as GitHub's `check-run` schema describes it."""
        owner, repo, run_id = run["owner"], run["repo"], run["id"]
        url = f"{api_url}/repos/{owner}/{repo}/check-runs/{run_id}"
        return {
            "id": run_id,
            "node_id": f"CR_fake{run_id}",
            "head_sha": run["head_sha"],
            "external_id": run["external_id"],
            "url": url,
            "html_url": f"{self.server_url}/{owner}/{repo}/runs/{run_id}",
            "details_url": run["details_url"],
            "status": run["status"],
            "conclusion": run["conclusion"],
            "started_at": run["started_at"],
            "completed_at": run["completed_at"],
            "output": {
                "title": run["title"],
                "summary": run["summary"],
                "text": run["text"],
                "annotations_count": len(run["annotations"]),
                "annotations_url": f"{url}/annotations",
            },
            "name": run["name"],
            "check_suite": {"id": 1},
            "app": None,
            "pull_requests": [],
        }


def simple_user(login: str, server_url: str, api_url: str) -> JsonObject:
    """A user as GitHub's `simple-user` schema shows one; `[bot]` logins are bots."""
    bot = login.endswith("[bot]")
    user_id = 41_898_282 if login == COMMENT_BOT else 1_000 + zlib.crc32(login.encode()) % 10**8
    url = f"{api_url}/users/{quote(login, safe='')}"
    return {
        "login": login,
        "id": user_id,
        "node_id": f"{'BOT' if bot else 'U'}_fake{user_id}",
        "avatar_url": f"https://avatars.example/u/{user_id}?v=4",
        "gravatar_id": "",
        "url": url,
        "html_url": f"{server_url}/{'apps/' + login.removesuffix('[bot]') if bot else login}",
        "followers_url": f"{url}/followers",
        "following_url": f"{url}/following{{/other_user}}",
        "gists_url": f"{url}/gists{{/gist_id}}",
        "starred_url": f"{url}/starred{{/owner}}{{/repo}}",
        "subscriptions_url": f"{url}/subscriptions",
        "organizations_url": f"{url}/orgs",
        "repos_url": f"{url}/repos",
        "events_url": f"{url}/events{{/privacy}}",
        "received_events_url": f"{url}/received_events",
        "type": "Bot" if bot else "User",
        "site_admin": False,
    }


def authenticated_user(login: str, server_url: str, api_url: str) -> JsonObject:
    """`GET /user` for a person's token: the `public-user` form of the account."""
    return {
        **simple_user(login, server_url, api_url),
        "name": None,
        "company": None,
        "blog": "",
        "location": None,
        "email": None,
        "hireable": None,
        "bio": None,
        "public_repos": 0,
        "public_gists": 0,
        "followers": 0,
        "following": 0,
        "created_at": "2020-01-01T00:00:00Z",
        "updated_at": "2020-01-01T00:00:00Z",
    }


def _annotation_to_api(
    run: Mapping[str, Any], annotation: Mapping[str, Any], server: str
) -> JsonObject:
    """A stored annotation as GitHub lists it (`check-annotation`: every field, null when unset)."""
    blob = f"{server}/{run['owner']}/{run['repo']}/blob/{run['head_sha']}/{annotation['path']}"
    return {
        "path": annotation["path"],
        "start_line": annotation["start_line"],
        "end_line": annotation["end_line"],
        "start_column": annotation.get("start_column"),
        "end_column": annotation.get("end_column"),
        "annotation_level": annotation["annotation_level"],
        "title": annotation.get("title"),
        "message": annotation["message"],
        "raw_details": annotation.get("raw_details"),
        "blob_href": blob,
    }


class _Comments:
    """Issue (pull-request) comments: list with pages, create, update, delete."""

    def __init__(self, server_url: str, login: str) -> None:
        self.server_url = server_url
        self.login = login  # the token's account: the author of the comments it creates
        self.items: dict[int, JsonObject] = {}
        self.next_id = 7_000_000_001

    def add(self, owner: str, repo: str, issue: int, body: str, login: str) -> JsonObject:
        comment_id, self.next_id = self.next_id, self.next_id + 1
        now = _now()
        comment = {
            "id": comment_id,
            "owner": owner,
            "repo": repo,
            "issue": issue,
            "body": body,
            "login": login,
            "created_at": now,
            "updated_at": now,
        }
        self.items[comment_id] = comment
        return comment

    def to_api(self, comment: Mapping[str, Any], api_url: str) -> JsonObject:
        """The comment as GitHub's `issue-comment` schema describes it."""
        owner, repo, issue, comment_id = (
            comment["owner"],
            comment["repo"],
            comment["issue"],
            comment["id"],
        )
        repo_url = f"{api_url}/repos/{owner}/{repo}"
        return {
            "id": comment_id,
            "node_id": f"IC_fake{comment_id}",
            "url": f"{repo_url}/issues/comments/{comment_id}",
            "html_url": f"{self.server_url}/{owner}/{repo}/pull/{issue}#issuecomment-{comment_id}",
            "body": comment["body"],
            "user": simple_user(comment["login"], self.server_url, api_url),
            "created_at": comment["created_at"],
            "updated_at": comment["updated_at"],
            "issue_url": f"{repo_url}/issues/{issue}",
            "author_association": "NONE",
            "performed_via_github_app": None,
        }

    def route(
        self,
        name: str,
        args: Mapping[str, str],
        body: Any,
        query: Mapping[str, list[str]],
        api_url: str,
    ) -> tuple[int, JsonObject | list[Any]]:
        owner, repo = args["owner"], args["repo"]
        if name == "comments-list":
            return 200, self._page(owner, repo, int(args["issue"]), query, api_url)
        problem = _comment_body_problem(body) if name != "comments-delete" else None
        if problem:
            return _error(422, problem)
        if name == "comments-create":
            created = self.add(owner, repo, int(args["issue"]), body["body"], self.login)
            return 201, self.to_api(created, api_url)
        comment = self.items.get(int(args["id"]))
        if comment is None or (comment["owner"], comment["repo"]) != (owner, repo):
            return _error(404, "Not Found")
        if name == "comments-delete":
            del self.items[comment["id"]]
            return 204, cast(JsonObject, None)  # no body, as GitHub answers
        comment["body"] = body["body"]
        comment["updated_at"] = _now()
        return 200, self.to_api(comment, api_url)

    def _page(
        self, owner: str, repo: str, issue: int, query: Mapping[str, list[str]], api_url: str
    ) -> list[Any]:
        per_page = min(int((query.get("per_page") or ["30"])[-1]), 100)
        page = max(int((query.get("page") or ["1"])[-1]), 1)
        found = [
            c
            for c in sorted(self.items.values(), key=lambda c: c["id"])
            if (c["owner"], c["repo"], c["issue"]) == (owner, repo, issue)
        ]
        return [self.to_api(c, api_url) for c in found[(page - 1) * per_page : page * per_page]]


def _comment_body_problem(body: Any) -> str | None:
    if not isinstance(body, dict) or not isinstance(body.get("body"), str):
        return "Validation Failed"
    if len(body["body"]) > COMMENT_MAX_CHARS:
        return "Body is too long (maximum is 65536 characters)"
    return None


@dataclass
class _Repository:
    files: dict[tuple[str, str], bytes] = field(default_factory=dict)
    """(commit, path) -> content."""
    token: str | None = None
    """A private repository: only `Bearer <token>` reads it (None: public)."""


class _Contents:
    """Files of repositories at commits, as the contents API serves them."""

    def __init__(self, server_url: str) -> None:
        self.server_url = server_url
        self.repositories: dict[tuple[str, str], _Repository] = {}

    def route(
        self, args: Mapping[str, str], request: RecordedRequest, api_url: str
    ) -> tuple[int, JsonObject]:
        owner, repo, path = args["owner"], args["repo"], unquote(args["path"])
        stored = self.repositories.get((owner, repo))
        readable = stored is not None and (
            stored.token is None or request.headers.get("authorization") == f"Bearer {stored.token}"
        )
        commit = (request.query.get("ref") or [""])[-1]
        content = stored.files.get((commit, path)) if stored is not None and readable else None
        if content is None:
            return _error(404, "Not Found")
        name = path.rsplit("/", 1)[-1]
        url = f"{api_url}/repos/{owner}/{repo}/contents/{path}?ref={commit}"
        blob = hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()
        html = f"{self.server_url}/{owner}/{repo}/blob/{commit}/{path}"
        git = f"{api_url}/repos/{owner}/{repo}/git/blobs/{blob}"
        encoded = base64.b64encode(content).decode("ascii")
        return 200, {
            "type": "file",
            "encoding": "base64",
            "size": len(content),
            "name": name,
            "path": path,
            # GitHub breaks the base64 text into lines of 60 characters.
            "content": "\n".join(encoded[i : i + 60] for i in range(0, len(encoded), 60)) + "\n",
            "sha": blob,
            "url": url,
            "git_url": git,
            "html_url": html,
            "download_url": f"https://raw.example/{owner}/{repo}/{commit}/{path}",
            "_links": {"self": url, "git": git, "html": html},
        }


COMMENT_MAX_CHARS = 65_536
COMMENT_BOT = "github-actions[bot]"

_REPO = r"/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)"
_ROUTES: list[tuple[str, re.Pattern[str], str]] = [
    ("GET", re.compile(_REPO + r"/issues/(?P<issue>\d+)/comments"), "comments-list"),
    ("POST", re.compile(_REPO + r"/issues/(?P<issue>\d+)/comments"), "comments-create"),
    ("PATCH", re.compile(_REPO + r"/issues/comments/(?P<id>\d+)"), "comments-update"),
    ("DELETE", re.compile(_REPO + r"/issues/comments/(?P<id>\d+)"), "comments-delete"),
    ("POST", re.compile(_REPO + r"/check-runs"), "create"),
    ("GET", re.compile(_REPO + r"/check-runs/(?P<id>\d+)"), "get"),
    ("PATCH", re.compile(_REPO + r"/check-runs/(?P<id>\d+)"), "update"),
    ("GET", re.compile(_REPO + r"/check-runs/(?P<id>\d+)/annotations"), "annotations"),
    ("GET", re.compile(_REPO + r"/commits/(?P<ref>[^/]+)/check-runs"), "list"),
    ("GET", re.compile(r"/user"), "user"),
    ("GET", re.compile(_REPO + r"/contents/(?P<path>.+)"), "contents"),
]


# --- the server -------------------------------------------------------------------------------


class FakeGitHub:
    """The fake API on a background thread. `url` is the API base (prefix included)."""

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        prefix: str = "",
        token: str | None = None,
        server_url: str = "https://github.example",
        login: str = COMMENT_BOT,
    ) -> None:
        self._host = host
        self._port = port
        self.prefix = "/" + prefix.strip("/") if prefix.strip("/") else ""
        # When set, API requests without `Authorization: Bearer <token>` get 401.
        self.token = token
        # The token's account: `GET /user` and the author of the comments it creates.
        self.login = login
        self._lock = threading.Lock()
        self._state = _State(server_url)
        self._comments = _Comments(server_url, login)
        self._contents = _Contents(server_url)
        self._requests: list[RecordedRequest] = []
        self._invalid: list[InvalidRequest] = []
        self._faults: list[Fault] = []
        # GitHub's REST description, set by start(); None when it is not installed (not in CI).
        self.description: RestDescription | None = None
        self._server: ThreadingHTTPServer | None = None
        self._bound_port: int | None = None
        self._thread: threading.Thread | None = None

    # lifecycle

    def start(self) -> FakeGitHub:
        self.description = require_description()  # raises when CI is set and it is missing
        server = ThreadingHTTPServer((self._host, self._port), _handler_for(self))
        server.daemon_threads = True
        self._server = server
        self._bound_port = int(server.server_address[1])
        # A short poll interval keeps stop() (and so every test's teardown) fast.
        self._thread = threading.Thread(
            target=server.serve_forever, args=(0.02,), name="fake-github", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> FakeGitHub:
        return self.start()

    def __exit__(self, exc_type: object, *exc_info: object) -> None:
        self.stop()
        if exc_type is None:
            self.assert_no_invalid_requests()

    @property
    def port(self) -> int:
        """The bound port; still readable after stop() (a test may want a dead address)."""
        if self._bound_port is None:
            raise RuntimeError("the fake GitHub server has not been started")
        return self._bound_port

    @property
    def origin(self) -> str:
        return f"http://{self._host}:{self.port}"

    @property
    def url(self) -> str:
        """What GITHUB_API_URL would be: origin plus prefix (e.g. /api/v3 for GHES)."""
        return self.origin + self.prefix

    # scripting and inspection

    def add_fault(self, *faults: Fault) -> None:
        with self._lock:
            self._faults.extend(faults)

    @property
    def pending_faults(self) -> list[Fault]:
        with self._lock:
            return [copy.deepcopy(fault) for fault in self._faults]

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    @property
    def invalid_requests(self) -> list[InvalidRequest]:
        """The requests refused so far, by GitHub's description or the fake's own rules."""
        with self._lock:
            return list(self._invalid)

    def take_invalid_requests(self) -> list[InvalidRequest]:
        """The refused requests, forgotten: for a test that sends invalid ones on purpose."""
        with self._lock:
            taken, self._invalid = self._invalid, []
            return taken

    def assert_no_invalid_requests(self) -> None:
        invalid = self.invalid_requests
        assert not invalid, invalid_requests_message(invalid)

    def requests_for(self, method: str) -> list[RecordedRequest]:
        return [request for request in self.requests if request.method == method]

    @property
    def check_runs(self) -> list[JsonObject]:
        """Stored runs in creation order: the API fields plus the full `annotations` list."""
        with self._lock:
            return [
                {
                    **self._state.to_api(run, self.url),
                    "annotations": copy.deepcopy(run["annotations"]),
                }
                for run in self._state.runs.values()
            ]

    @property
    def comments(self) -> list[JsonObject]:
        """Stored issue comments in creation order, as the API shows them plus `issue`."""
        with self._lock:
            return [
                {**self._comments.to_api(c, self.url), "issue": c["issue"]}
                for c in sorted(self._comments.items.values(), key=lambda c: c["id"])
            ]

    def add_comment(
        self, issue: int, body: str, *, login: str = "someone", repository: str = "octo/repo"
    ) -> int:
        """Seed a comment (a human's, or an earlier run's); returns its id."""
        owner, _, repo = repository.partition("/")
        with self._lock:
            return int(self._comments.add(owner, repo, issue, body, login)["id"])

    def add_file(
        self,
        repository: str,
        commit: str,
        path: str,
        content: bytes,
        *,
        private_token: str | None = None,
    ) -> None:
        """A file of `owner/name` at `commit`, for the contents API; with `private_token` the
        repository is private and only that token reads it (others get GitHub's 404)."""
        owner, _, repo = repository.partition("/")
        with self._lock:
            stored = self._contents.repositories.setdefault((owner, repo), _Repository())
            stored.files[(commit, path)] = content
            if private_token is not None:
                stored.token = private_token

    def reset(self) -> None:
        with self._lock:
            self._requests.clear()
            self._invalid.clear()
            self._faults.clear()
            self._state = _State(self._state.server_url)
            self._comments = _Comments(self._state.server_url, self.login)

    # request handling (called from handler threads)

    def _take_fault(self, method: str, path: str) -> Fault | None:
        with self._lock:
            for index, fault in enumerate(self._faults):
                if fault.matches(method, path):
                    fault.times -= 1
                    if fault.times <= 0:
                        del self._faults[index]
                    return copy.deepcopy(fault)
        return None

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(request)

    def _refuse(self, invalid: InvalidRequest) -> None:
        with self._lock:
            self._invalid.append(invalid)

    def _verdict(self, request: RecordedRequest) -> Verdict | None:
        """The description's verdict on a request, None when there is no description."""
        if self.description is None:
            return None
        path = request.path
        if not path.startswith(self.prefix + "/"):
            # Outside the API's prefix (/api/v3): no operation of GitHub's can match it.
            path = "/ (outside the prefix " + self.prefix + ") " + path
        else:
            path = path[len(self.prefix) :]
        return self.description.check(
            request.method,
            path,
            request.query,
            content_type=request.headers.get("content-type"),
            body=request.body,
            raw_body=request.raw_body,
        )

    def _answer(self, request: RecordedRequest) -> tuple[int, JsonObject | list[Any]]:
        """The fake's own answer; a 400 or 422 from its GitHub rules is recorded as refused."""
        status, body = self._dispatch(request)
        if status in (400, 422):
            message = body.get("message") if isinstance(body, dict) else None
            operation = self._operation_id(request)
            self._refuse(
                InvalidRequest(
                    request.method,
                    request.path,
                    operation,
                    status,
                    (f"the fake's GitHub rules: {message}",),
                )
            )
        return status, body

    def _operation_id(self, request: RecordedRequest) -> str | None:
        verdict = self._verdict(request)
        return None if verdict is None else verdict.operation_id

    def _dispatch(  # noqa: PLR0911 - one answer per route family
        self, request: RecordedRequest
    ) -> tuple[int, JsonObject | list[Any]]:
        if (
            self.token is not None
            and request.headers.get("authorization") != f"Bearer {self.token}"
        ):
            return _error(401, "Bad credentials")
        if not request.path.startswith(self.prefix + "/"):
            return _error(404, "Not Found")
        path = request.path[len(self.prefix) :]
        for method, pattern, name in _ROUTES:
            match = pattern.fullmatch(path)
            if method == request.method and match:
                with self._lock:
                    if name.startswith("comments-"):
                        return self._comments.route(
                            name, match.groupdict(), request.body, request.query, self.url
                        )
                    if name == "user":
                        return self._user()
                    if name == "contents":
                        return self._contents.route(match.groupdict(), request, self.url)
                    return self._route(name, match.groupdict(), request)
        return _error(404, "Not Found")

    def _user(self) -> tuple[int, JsonObject]:
        if self.login.endswith("[bot]"):
            # An app's installation token, such as the job's GITHUB_TOKEN, has no user.
            body = {
                "message": INTEGRATION_REFUSED,
                "documentation_url": "https://docs.github.com/rest/users/users#get-the-authenticated-user",
                "status": "403",
            }
            return 403, body
        return 200, authenticated_user(self.login, self._state.server_url, self.url)

    def _route(
        self, name: str, args: Mapping[str, str], request: RecordedRequest
    ) -> tuple[int, JsonObject | list[Any]]:
        state, owner, repo = self._state, args["owner"], args["repo"]
        if name == "create":
            return state.create(owner, repo, request.body, self.url)
        if name == "list":
            return state.list_for_ref(owner, repo, args["ref"], request.query, self.url)
        run = state.find(owner, repo, int(args["id"]))
        if run is None:
            return _error(404, "Not Found")
        if name == "update":
            return state.update(run, request.body, self.url)
        if name == "annotations":
            return 200, [
                _annotation_to_api(run, a, self._state.server_url) for a in run["annotations"]
            ]
        return 200, state.to_api(run, self.url)

    def _control(self, method: str, path: str, body: Any) -> tuple[int, Any]:
        if method == "GET" and path == "/_fake/requests":
            return 200, [request.to_json() for request in self.requests]
        if method == "GET" and path == "/_fake/check-runs":
            return 200, self.check_runs
        if method == "GET" and path == "/_fake/invalid-requests":
            return 200, [item.to_json() for item in self.invalid_requests]
        if method == "POST" and path == "/_fake/faults":
            items = body if isinstance(body, list) else [body]
            self.add_fault(*(Fault.from_json(item) for item in items))
            return 200, {"queued": len(items)}
        if method == "POST" and path == "/_fake/reset":
            self.reset()
            return 200, {}
        return _error(404, "Not Found")


def _handler_for(fake: FakeGitHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        # HTTP/1.1 keep-alive, like GitHub: the client reuses one connection, so a dropped
        # connection is noticed the way it would be in production.
        protocol_version = "HTTP/1.1"
        server_version = "FakeGitHub/1"

        def log_message(self, format: str, *args: Any) -> None:
            """Stay quiet: pytest shows the requests through `fake.requests` instead."""

        def do_GET(self) -> None:
            self._handle()

        def do_POST(self) -> None:
            self._handle()

        def do_PATCH(self) -> None:
            self._handle()

        def do_PUT(self) -> None:
            self._handle()

        def do_DELETE(self) -> None:
            self._handle()

        def _handle(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            parts = urlsplit(self.path)
            not_json = False
            try:
                body = json.loads(raw) if raw else None
            except ValueError:
                body, not_json = None, True
            if parts.path.startswith("/_fake/"):
                if not_json:
                    self._send(*_error(400, "Problems parsing JSON"))
                    return
                try:
                    self._send(*fake._control(self.command, parts.path, body))
                except (KeyError, TypeError, ValueError) as exc:
                    self._send(*_error(400, f"bad control request: {exc}"))
                return
            request = RecordedRequest(
                method=self.command,
                path=parts.path,
                query=parse_qs(parts.query, keep_blank_values=True),
                headers={name.lower(): value for name, value in self.headers.items()},
                body=body,
                raw_body=raw,
            )
            fake._record(request)
            verdict = fake._verdict(request)
            if verdict is not None and not verdict.ok:
                fake._refuse(InvalidRequest.from_verdict(verdict))
                self._send(verdict.status, verdict.answer())
                return
            if not_json:
                fake._refuse(
                    InvalidRequest(request.method, request.path, None, 400, ("body is not JSON",))
                )
                self._send(*_error(400, "Problems parsing JSON"))
                return
            fault = fake._take_fault(request.method, request.path)
            if fault is None:
                self._send(*fake._answer(request))
                return
            if fault.action in ("apply_then_drop", "apply_then_respond"):
                fake._answer(request)
            if fault.action in ("drop", "apply_then_drop"):
                self._drop()
                return
            self._send(fault.status, fault.body, fault.headers)

        def _send(self, status: int, body: Any, headers: Mapping[str, str] | None = None) -> None:
            payload = b"" if body is None else json.dumps(body).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(payload)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)

        def _drop(self) -> None:
            # Close without a status line: the client cannot tell whether the request landed.
            self.close_connection = True
            with contextlib.suppress(OSError):
                self.connection.shutdown(socket.SHUT_RDWR)

    return Handler


class RemoteFakeGitHub:
    """Drives a fake started in another process (`python tests/fake_github.py`), over HTTP."""

    def __init__(self, origin: str) -> None:
        self.origin = origin.rstrip("/")

    def _call(self, method: str, path: str, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body).encode("utf-8")
        request = urllib.request.Request(self.origin + path, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        with urllib.request.urlopen(request, timeout=10) as response:  # loopback only
            return json.loads(response.read() or b"null")

    @property
    def requests(self) -> list[RecordedRequest]:
        return [RecordedRequest.from_json(item) for item in self._call("GET", "/_fake/requests")]

    @property
    def check_runs(self) -> list[JsonObject]:
        return list(self._call("GET", "/_fake/check-runs"))

    @property
    def invalid_requests(self) -> list[InvalidRequest]:
        items = self._call("GET", "/_fake/invalid-requests")
        return [InvalidRequest.from_json(item) for item in items]

    def add_fault(self, *faults: Fault) -> None:
        self._call("POST", "/_fake/faults", [fault.to_json() for fault in faults])

    def reset(self) -> None:
        self._call("POST", "/_fake/reset", {})


# --- pytest fixture ----------------------------------------------------------------------------

if __name__ != "__main__":  # the script needs no fixture, nor pytest's import time (~0.15 s)
    try:
        import pytest
    except ImportError:  # imported without pytest installed
        pass
    else:

        @pytest.fixture
        def fake_github() -> Iterator[FakeGitHub]:
            """A running fake on 127.0.0.1 (free port); stopped after the test."""
            with FakeGitHub() as fake:
                yield fake


# --- script mode --------------------------------------------------------------------------------


class SilentServer:
    """A loopback TCP server that accepts every connection and never answers a byte, or (with
    `trickle_s`) sends a status line and headers and then one body byte every `trickle_s`
    seconds, forever: an API that hangs. `url` is its address; `connections` counts accepts."""

    def __init__(self, trickle_s: float | None = None) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._trickle_s = trickle_s
        self._stop = threading.Event()
        self._held: list[socket.socket] = []
        self.connections = 0
        self.url = f"http://127.0.0.1:{self._listener.getsockname()[1]}"
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def __enter__(self) -> SilentServer:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._listener.close()
        for held in self._held:
            held.close()
        self._thread.join(timeout=5)

    def _serve(self) -> None:
        self._listener.settimeout(0.05)
        while not self._stop.is_set():
            try:
                connection, _address = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.connections += 1
            self._held.append(connection)  # kept open, never answered
            if self._trickle_s is not None:
                threading.Thread(target=self._trickle, args=(connection,), daemon=True).start()

    def _trickle(self, connection: socket.socket) -> None:
        with contextlib.suppress(OSError):
            connection.sendall(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                b"Content-Length: 1000000\r\n\r\n"
            )
            while not self._stop.wait(self._trickle_s):
                connection.sendall(b" ")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Serve the fake GitHub API until SIGTERM/SIGINT.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--port-file", type=Path, help="write the bound port here when listening")
    parser.add_argument("--prefix", default="", help="API path prefix, e.g. /api/v3 for GHES")
    parser.add_argument("--token", help="require `Authorization: Bearer TOKEN` (else 401)")
    parser.add_argument(
        "--server-url",
        default="https://github.example",
        help="the web server its `html_url`s point at (the runner's GITHUB_SERVER_URL)",
    )
    args = parser.parse_args(argv)
    stopping = threading.Event()

    def stop(signum: int, frame: FrameType | None) -> None:
        stopping.set()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    fake = FakeGitHub(
        host=args.host,
        port=args.port,
        prefix=args.prefix,
        token=args.token,
        server_url=args.server_url,
    )
    fake.start()
    try:
        if args.port_file is not None:
            # Write then rename, so a reader polling for the file never sees it half-written.
            partial = args.port_file.with_name(args.port_file.name + ".partial")
            partial.write_text(f"{fake.port}\n", encoding="utf-8")
            os.replace(partial, args.port_file)
        checked = f"checked against {fake.description!r}" if fake.description else "unchecked"
        print(f"fake GitHub API listening on {fake.url} ({checked})", flush=True)
        stopping.wait()
    finally:
        fake.stop()
    # Stopped: the requests GitHub would have refused make the exit status 1.
    invalid = fake.invalid_requests
    if invalid:
        print(invalid_requests_message(invalid), file=sys.stderr, flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
