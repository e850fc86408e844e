"""The sticky pull-request comment: found by its hidden marker, updated in place, never doubled.

The HTTP machinery (session, token auth, retries within a total wait budget, write pacing,
redaction, reconciling a write whose outcome is unknown) is CheckRunClient's: this client
subclasses it and adds the issue-comment calls. (The shared `github/http.py` layer was not in
main yet; when it lands this should build on it instead of on the subclass.)

Which comment is ours: one written by a bot account (the job's GITHUB_TOKEN posts as
`github-actions[bot]`) whose body starts with the marker. The marker hashes the workflow and
check name, so two workflows (or two check names) keep two comments. A human's reply that
quotes ours does not start with the marker; a human's edit of ours is replaced on the next run.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import requests

from waza_ci.github.checks import CheckRunClient, GitHubError, _PublishState

MAX_COMMENT_CHARS = 65_536
"""GitHub's limit on an issue comment's body, in characters."""
PAGE_SIZE = 100
MAX_PAGES = 100
"""How many pages of comments are searched for ours (10,000 comments)."""
PERMISSION_HINT = (
    "the job's token needs `permissions: pull-requests: write`; pull requests from forks and "
    "Dependabot only get a read-only token"
)

CommentAction = Literal["created", "updated", "unchanged"]


class CommentsUnavailable(GitHubError):
    """The token may not write comments here (403/404): a notice, nothing else changes."""


@dataclass(frozen=True)
class CommentResult:
    id: int
    html_url: str
    action: CommentAction
    removed_duplicates: int = 0


def comment_marker(key: str) -> str:
    """The hidden first line of our comment for `key` (workflow and check name).

    Hashed, so no name can end the HTML comment early or collide with another marker."""
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:24]
    return f"<!-- waza-ci:sticky-comment:{digest} -->"


class StickyCommentClient(CheckRunClient):
    """Creates or updates the one comment with a given marker on a pull request."""

    def __enter__(self) -> StickyCommentClient:
        return self

    def upsert(
        self, issue: int, marker: str, body: str, *, create: bool = True
    ) -> CommentResult | None:
        """Update our comment to `body`, or create it when there is none and `create` is set.

        `body` must start with `marker` and fit MAX_COMMENT_CHARS. Duplicates (left by a
        concurrent run) are removed, the oldest is kept. Returns None when nothing was there
        and nothing was created. Raises CommentsUnavailable on 403/404, GitHubError otherwise.
        """
        if not body.startswith(marker) or len(body) > MAX_COMMENT_CHARS:
            raise ValueError("the body must start with the marker and fit GitHub's limit")
        self._state = _PublishState()
        try:
            return self._upsert(issue, marker, body, create)
        except GitHubError as err:
            if err.status in (403, 404) and not isinstance(err, CommentsUnavailable):
                raise CommentsUnavailable(f"{err} ({PERMISSION_HINT})", status=err.status) from None
            raise

    def _upsert(self, issue: int, marker: str, body: str, create: bool) -> CommentResult | None:
        ours = self.find(issue, marker)
        action: CommentAction = "updated"
        if not ours:
            if not create:
                return None
            self._create_comment(issue, marker, body)
            # A concurrent run (a re-run, a second push) may have created one at the same
            # time: list again and keep the oldest, so there is only ever one.
            ours = self.find(issue, marker)
            action = "created" if len(ours) == 1 else "updated"
        keep, duplicates = ours[0], ours[1:]
        for extra in duplicates:
            self._call("DELETE", f"{self._repo_path}/issues/comments/{extra['id']}")
        if keep.get("body") != body:
            path = f"{self._repo_path}/issues/comments/{keep['id']}"
            keep = self._call("PATCH", path, body={"body": body}).data
        elif action == "updated":
            action = "unchanged"
        return CommentResult(_id(keep), str(keep.get("html_url") or ""), action, len(duplicates))

    def find(self, issue: int, marker: str) -> list[dict[str, Any]]:
        """Our comments with `marker` on the pull request, oldest first (every page)."""
        found: list[dict[str, Any]] = []
        for page in range(1, MAX_PAGES + 1):
            params = {"per_page": str(PAGE_SIZE), "page": str(page)}
            items = self._call("GET", self._comments_path(issue), params=params).data["items"]
            found += [c for c in items if isinstance(c, dict) and is_ours(c, marker)]
            if len(items) < PAGE_SIZE:
                break
        return sorted(found, key=_id)

    def _create_comment(self, issue: int, marker: str, body: str) -> dict[str, Any]:
        def landed() -> dict[str, Any] | None:
            # A create whose answer was lost: if it landed, ours is now listed; reuse it.
            ours = self.find(issue, marker)
            return ours[0] if ours else None

        return self._call(
            "POST", self._comments_path(issue), body={"body": body}, reconcile=landed
        ).data

    def _comments_path(self, issue: int) -> str:
        return f"{self._repo_path}/issues/{int(issue)}/comments"

    def _decode(self, method: str, path: str, response: requests.Response) -> dict[str, Any]:
        # Comment lists are JSON arrays and a delete answers 204 with no body; the check-run
        # calls only ever get objects.
        if response.status_code == 204 or not response.content:
            return {}
        try:
            data = response.json()
        except ValueError:
            return super()._decode(method, path, response)
        if isinstance(data, list):
            return {"items": data}
        return super()._decode(method, path, response)


def is_ours(comment: Mapping[str, Any], marker: str) -> bool:
    user = comment.get("user")
    by_bot = isinstance(user, Mapping) and user.get("type") == "Bot"
    body = comment.get("body")
    return by_bot and isinstance(body, str) and body.startswith(marker)


def _id(comment: Mapping[str, Any]) -> int:
    value = comment.get("id")
    if not isinstance(value, int) or isinstance(value, bool):
        raise GitHubError("a comment in GitHub's answer has no integer id")
    return value
