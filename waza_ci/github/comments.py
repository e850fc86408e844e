"""The sticky pull-request comment: found by its hidden marker and its author, updated in
place, never doubled, never someone else's.

Built on `github/http.py` (auth, retries, rate limits, the step's total deadline); this module
holds only the issue-comment calls and the rules for which comment is ours.

Which comment is ours: its body starts with the marker (a hash of the workflow and check name,
so two workflows or two check names keep two comments), and the token's own account wrote it.
That account is learnt once per step, and only when a marked comment exists: from `GET /user`
for a person's token (a personal access token posts as that user); an app's installation
token (the job's GITHUB_TOKEN posts as `github-actions[bot]`) may not read `/user`, and then any
bot account counts (also when `/user` answers 404), the marker keeping two apps' comments
apart. After a create, the comment GitHub answered names the account exactly. A human's reply
that quotes ours does not start with the marker; a comment by another account is never edited
or removed.

GitHub's lists can lag a create and can shift while they are paged through; a comment can be
deleted between the list and the update. Each is tolerated: ours is what the list shows plus
what we created, duplicates are removed oldest-kept, and a comment that vanished is treated as
absent.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from waza_ci.github.http import AccessRefused, GitHubApiError, GitHubHttp, repository_path
from waza_ci.report.github_limits import COMMENT_CHARS

PAGE_SIZE = 100
MAX_PAGES = 100
"""How many pages of comments are searched for ours (10,000 comments)."""
PERMISSION_HINT = (
    "the job's token needs `permissions: pull-requests: write`; pull requests from forks and "
    "Dependabot only get a read-only token"
)

CommentAction = Literal["created", "updated", "unchanged"]
Comment = dict[str, Any]


class CommentsUnavailable(AccessRefused):
    """The token may not write comments here (403/404): a notice, nothing else changes."""


@dataclass(frozen=True)
class CommentResult:
    id: int
    html_url: str
    action: CommentAction
    removed_duplicates: int = 0


@dataclass(frozen=True)
class Author:
    """The account the token writes as: a login, or (login None) any bot account."""

    login: str | None

    def wrote(self, comment: Mapping[str, Any]) -> bool:
        user = comment.get("user")
        if not isinstance(user, Mapping):
            return False
        if self.login is None:
            return user.get("type") == "Bot"
        login = user.get("login")
        return isinstance(login, str) and login.casefold() == self.login.casefold()


ANY_BOT = Author(None)


def comment_marker(key: str) -> str:
    """The hidden first line of our comment for `key` (workflow and check name).

    Hashed, so no name can end the HTML comment early or collide with another marker."""
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:24]
    return f"<!-- waza-ci:sticky-comment:{digest} -->"


def is_marked(comment: Mapping[str, Any], marker: str) -> bool:
    body = comment.get("body")
    return isinstance(body, str) and body.startswith(marker)


class StickyCommentClient:
    """Creates or updates the one comment with a given marker on a pull request."""

    def __init__(self, http: GitHubHttp, repository: str) -> None:
        self._http = http
        self._repo_path = repository_path(repository)
        self._author: Author | None = None

    def upsert(
        self, issue: int, marker: str, body: str, *, create: bool = True
    ) -> CommentResult | None:
        """Update our comment to `body`, or create it when there is none and `create` is set.

        `body` must start with `marker` and fit COMMENT_CHARS. Duplicates (left by a
        concurrent run) are removed, the oldest is kept. Returns None when nothing was there
        and nothing was created. Raises CommentsUnavailable on 403/404, GitHubError otherwise.
        """
        if not body.startswith(marker) or len(body) > COMMENT_CHARS:
            raise ValueError("the body must start with the marker and fit GitHub's limit")
        try:
            return self._upsert(issue, marker, body, create)
        except AccessRefused as err:
            raise CommentsUnavailable(f"{err} ({PERMISSION_HINT})", status=err.status) from None

    def _upsert(self, issue: int, marker: str, body: str, create: bool) -> CommentResult | None:
        marked = self.list_marked(issue, marker)
        ours = [c for c in marked if self.author().wrote(c)] if marked else []
        if ours:
            result = self._keep_one(ours, body, "updated")
            if result is not None:
                return result
            # Ours vanished between the list and the update: as if there had been none.
        if not create:
            return None
        created = self._create(issue, marker, body, known={_id(c) for c in marked})
        # A concurrent run (a re-run, a second push) may have created one at the same time:
        # list again and keep the oldest. The list may lag and not show ours yet.
        listed = [c for c in self.list_marked(issue, marker) if self.author().wrote(c)]
        ours = _by_id([*listed, created])
        kept = self._keep_one(ours, body, "created")
        if kept is None:  # deleted at once by someone else: what we created is what we report
            return CommentResult(_id(created), _html_url(created), "created")
        return kept

    def _keep_one(
        self, ours: list[Comment], body: str, action: CommentAction
    ) -> CommentResult | None:
        """The oldest of `ours` that still exists, brought to `body`, and the younger ones
        removed; None when every one of them is gone by now."""
        for index, keep in enumerate(ours):
            if keep.get("body") == body:
                kept: Comment | None = keep
                done: CommentAction = "unchanged" if action == "updated" else action
            else:
                kept, done = self._update(keep, body), action
            if kept is None:
                continue  # deleted since it was listed: the next oldest is kept instead
            removed = sum(self._delete(extra) for extra in ours[index + 1 :])
            return CommentResult(_id(kept), _html_url(kept), done, removed)
        return None

    def list_marked(self, issue: int, marker: str) -> list[Comment]:
        """Every comment whose body starts with `marker`, any author, oldest first, each once
        (every page; a list that shifts while it is paged may show one twice)."""
        found: list[Comment] = []
        for page in range(1, MAX_PAGES + 1):
            params = {"per_page": str(PAGE_SIZE), "page": str(page)}
            items = self._request("GET", self._comments_path(issue), params=params)
            if not isinstance(items, list):
                raise GitHubApiError("the comment list GitHub answered is not a JSON array")
            found += [c for c in items if isinstance(c, dict) and is_marked(c, marker)]
            if len(items) < PAGE_SIZE:
                break
        return _by_id(found)

    def author(self) -> Author:
        """The account the token writes as (asked once)."""
        if self._author is None:
            self._author = self._ask_author()
        return self._author

    def _ask_author(self) -> Author:
        try:
            user = self._http.request("GET", "/user", refused_statuses=(403, 404))
        except AccessRefused:
            # An app's installation token, such as the job's GITHUB_TOKEN, may not read /user
            # (403; some servers answer 404): its comments are a bot's.
            return ANY_BOT
        login = user.get("login") if isinstance(user, dict) else None
        if not isinstance(login, str) or not login:
            raise GitHubApiError("GitHub did not say which account the token belongs to")
        return Author(login)

    def _create(self, issue: int, marker: str, body: str, *, known: set[int]) -> Comment:
        def landed() -> Comment | None:
            # A create whose answer was lost: if it landed, a new comment of ours with this
            # body is listed now; reuse it rather than posting a second one.
            new = [
                c
                for c in self.list_marked(issue, marker)
                if _id(c) not in known and c.get("body") == body and self.author().wrote(c)
            ]
            return new[-1] if new else None

        path = self._comments_path(issue)
        created = _object(self._request("POST", path, json={"body": body}, reconcile=landed))
        _id(created)  # an answer without an id is no comment we could keep
        user = created.get("user")
        login = user.get("login") if isinstance(user, dict) else None
        if isinstance(login, str) and login and self._author in (None, ANY_BOT):
            self._author = Author(login)  # now known exactly
        return created

    def _update(self, comment: Comment, body: str) -> Comment | None:
        """The comment with its new body; None when it no longer exists."""
        path = f"{self._repo_path}/issues/comments/{_id(comment)}"
        try:
            return _object(self._request("PATCH", path, json={"body": body}, gone_ok=True))
        except _Gone:
            return None

    def _delete(self, comment: Comment) -> int:
        """1 when removed, 0 when it was gone already (a concurrent run removed it)."""
        try:
            path = f"{self._repo_path}/issues/comments/{_id(comment)}"
            self._request("DELETE", path, gone_ok=True)
        except _Gone:
            return 0
        return 1

    def _request(self, method: str, path: str, *, gone_ok: bool = False, **options: Any) -> Any:
        # 404 on a comment we just listed means it is gone, not that we may not see the repo.
        refused = (403,) if gone_ok else (403, 404)
        try:
            return self._http.request(method, path, refused_statuses=refused, **options)
        except GitHubApiError as err:
            if gone_ok and err.status == 404:
                raise _Gone from None
            raise

    def _comments_path(self, issue: int) -> str:
        return f"{self._repo_path}/issues/{int(issue)}/comments"


class _Gone(Exception):
    """The comment was deleted since it was listed."""


def _by_id(comments: list[Comment]) -> list[Comment]:
    """Oldest first (ids grow), each id once: the later copy wins."""
    return sorted({_id(c): c for c in comments}.values(), key=_id)


def _html_url(comment: Mapping[str, Any]) -> str:
    url = comment.get("html_url")
    return url if isinstance(url, str) else ""


def _object(value: Any) -> Comment:
    if not isinstance(value, dict):
        raise GitHubApiError("GitHub's answer about a comment is not a JSON object")
    return value


def _id(comment: Mapping[str, Any]) -> int:
    value = comment.get("id")
    if not isinstance(value, int) or isinstance(value, bool):
        raise GitHubApiError("a comment in GitHub's answer has no integer id")
    return value
