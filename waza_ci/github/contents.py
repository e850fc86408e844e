"""A file of a repository at a commit, through GitHub's contents API: how waza-ci fetches a
grader module's file that waza's module cache lacks.

    GET /repos/{owner}/{repo}/contents/{path}?ref={commit}

On `GITHUB_API_URL` (GitHub Enterprise Server included) with the step's token, or with none for
a public repository. Every failure is a `FileUnavailable` naming the URL and, for a 404 (GitHub's
answer for a private repository the token cannot read too), what would fix it.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any
from urllib.parse import quote

from waza_ci.github.http import DEFAULT_DEADLINE_S, GitHubError, GitHubHttp

CONTENTS_MAX_BYTES = 1024 * 1024
"""GitHub sends a file's content in the JSON answer up to 1 MB; a grader file is far smaller."""


class FileUnavailable(Exception):
    """The file could not be had: `url` is what was asked, the message says why and the fix."""

    def __init__(self, message: str, url: str, status: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.url = url
        self.status = status


class RepositoryFiles:
    """Reads files of repositories at commits; one HTTP session, one total deadline."""

    def __init__(
        self,
        api_url: str,
        token: str | None,
        *,
        deadline_s: float = DEFAULT_DEADLINE_S,
        max_retries: int = 2,
    ) -> None:
        self._token_given = bool(token)
        self._http = GitHubHttp(
            api_url, token or "", deadline_s=deadline_s, max_retries=max_retries, anonymous=True
        )

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> RepositoryFiles:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def url(self, owner: str, repo: str, commit: str, path: str) -> str:
        return self._http.api_url + _path(owner, repo, path) + f"?ref={quote(commit, safe='')}"

    def file_at(self, owner: str, repo: str, commit: str, path: str) -> bytes:
        """The bytes of `path` in `owner/repo` at `commit`; FileUnavailable otherwise."""
        url = self.url(owner, repo, commit, path)
        try:
            answer = self._http.request(
                "GET", _path(owner, repo, path), params={"ref": commit}, refused_statuses=(403,)
            )
        except GitHubError as err:
            raise FileUnavailable(self._why(err, owner, repo), url, err.status) from None
        return _content(answer, url)

    def _why(self, err: GitHubError, owner: str, repo: str) -> str:
        text = str(err)
        if err.status not in (401, 403, 404):
            return text
        if not self._token_given:
            return (
                f"{text}: no such file at that commit, or {owner}/{repo} is private and no "
                "token was given (GITHUB_TOKEN or GH_TOKEN; the action's `github-token`)"
            )
        return (
            f"{text}: no such file at that commit, or the token cannot read {owner}/{repo} "
            "(a private repository needs a token with `contents: read` on it; the job's own "
            "GITHUB_TOKEN reads only the workflow's repository)"
        )


def _path(owner: str, repo: str, path: str) -> str:
    segments = "/".join(quote(part, safe="") for part in path.split("/"))
    return f"/repos/{quote(owner, safe='')}/{quote(repo, safe='')}/contents/{segments}"


def _content(answer: Any, url: str) -> bytes:
    """The file's bytes from the API's `content-file` answer."""
    if isinstance(answer, list) or not isinstance(answer, dict):
        raise FileUnavailable("this is a folder, not a file", url)
    if answer.get("type") != "file":
        raise FileUnavailable(f"this is a {answer.get('type')!r}, not a file", url)
    if answer.get("encoding") != "base64" or not isinstance(answer.get("content"), str):
        raise FileUnavailable(
            f"the file is larger than GitHub sends inline ({CONTENTS_MAX_BYTES:,} bytes): not "
            "a grader preset or manifest",
            url,
        )
    try:
        return base64.b64decode(answer["content"], validate=False)
    except (binascii.Error, ValueError):
        raise FileUnavailable("GitHub's answer holds content that is not base64", url) from None
