"""The sticky pull-request comment: found by its hidden marker, updated in place, never doubled.

Built on `github/http.py` (auth, retries, rate limits, the step's total deadline); this module
holds only the issue-comment calls and the rules for which comment is ours.

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
from urllib.parse import quote

from waza_ci.github.http import AccessRefused, GitHubApiError, GitHubHttp

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


class CommentsUnavailable(AccessRefused):
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


def is_ours(comment: Mapping[str, Any], marker: str) -> bool:
    user = comment.get("user")
    by_bot = isinstance(user, Mapping) and user.get("type") == "Bot"
    body = comment.get("body")
    return by_bot and isinstance(body, str) and body.startswith(marker)


class StickyCommentClient:
    """Creates or updates the one comment with a given marker on a pull request."""

    def __init__(self, http: GitHubHttp, repository: str) -> None:
        owner, _, name = repository.partition("/")
        if not owner or not name or "/" in name:
            raise ValueError(f"the repository must be 'owner/name', got {repository!r}")
        self._http = http
        self._repo_path = f"/repos/{quote(owner, safe='')}/{quote(name, safe='')}"

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
        try:
            return self._upsert(issue, marker, body, create)
        except AccessRefused as err:
            raise CommentsUnavailable(f"{err} ({PERMISSION_HINT})", status=err.status) from None

    def _upsert(self, issue: int, marker: str, body: str, create: bool) -> CommentResult | None:
        ours = self.find(issue, marker)
        action: CommentAction = "updated"
        if not ours:
            if not create:
                return None
            self._create(issue, marker, body)
            # A concurrent run (a re-run, a second push) may have created one at the same
            # time: list again and keep the oldest, so there is only ever one.
            ours = self.find(issue, marker)
            action = "created" if len(ours) == 1 else "updated"
        keep, duplicates = ours[0], ours[1:]
        for extra in duplicates:
            self._request("DELETE", f"{self._repo_path}/issues/comments/{_id(extra)}")
        if keep.get("body") != body:
            path = f"{self._repo_path}/issues/comments/{_id(keep)}"
            keep = _object(self._request("PATCH", path, json={"body": body}))
        elif action == "updated":
            action = "unchanged"
        return CommentResult(_id(keep), str(keep.get("html_url") or ""), action, len(duplicates))

    def find(self, issue: int, marker: str) -> list[dict[str, Any]]:
        """Our comments with `marker` on the pull request, oldest first (every page)."""
        found: list[dict[str, Any]] = []
        for page in range(1, MAX_PAGES + 1):
            params = {"per_page": str(PAGE_SIZE), "page": str(page)}
            items = self._request("GET", self._comments_path(issue), params=params)
            if not isinstance(items, list):
                raise GitHubApiError("the comment list GitHub answered is not a JSON array")
            found += [c for c in items if isinstance(c, dict) and is_ours(c, marker)]
            if len(items) < PAGE_SIZE:
                break
        return sorted(found, key=_id)

    def _create(self, issue: int, marker: str, body: str) -> dict[str, Any]:
        def landed() -> dict[str, Any] | None:
            # A create whose answer was lost: if it landed, ours is now listed; reuse it.
            ours = self.find(issue, marker)
            return ours[0] if ours else None

        path = self._comments_path(issue)
        return _object(self._request("POST", path, json={"body": body}, reconcile=landed))

    def _request(self, method: str, path: str, **options: Any) -> Any:
        return self._http.request(method, path, refused_statuses=(403, 404), **options)

    def _comments_path(self, issue: int) -> str:
        return f"{self._repo_path}/issues/{int(issue)}/comments"


def _object(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise GitHubApiError("GitHub's answer about a comment is not a JSON object")
    return value


def _id(comment: Mapping[str, Any]) -> int:
    value = comment.get("id")
    if not isinstance(value, int) or isinstance(value, bool):
        raise GitHubApiError("a comment in GitHub's answer has no integer id")
    return value
