"""The one HTTP layer under every GitHub API client: auth, limits, retries and a total deadline.

`GitHubHttp` is a session on `GITHUB_API_URL`. `request(method, path, ...)` sends one logical
request and returns its decoded JSON (object or array), retrying what GitHub says may be retried,
or raises a `GitHubError`. Higher-level clients (check runs, pull-request comments) are built on
it and hold no HTTP code of their own:

    with GitHubHttp(api_url, token, deadline_s=60, notify=log) as http:
        run = http.request("POST", "/repos/o/r/check-runs", json=body, refused_statuses=(403, 404))

What it guarantees:
- The token goes in an auth object (never a session header, never ~/.netrc), is redacted from
  every error and notice, and never appears in `repr`.
- Retried: 5xx, dropped connections and timeouts (backoff 1, 2, 4 … s) and rate limits
  (retry-after, else x-ratelimit-reset, else 60 s doubling); at most `max_retries` re-sends per
  request and `max_total_wait_s` of retry waits over the session's life. Not retried: other 4xx.
- A request whose outcome is unknown (a mutating request that got a 5xx or no complete answer)
  is only re-sent after the caller's `reconcile` says it did not take effect.
- One total deadline (`deadline_s`, counted from construction) bounds everything: connecting,
  waiting for and reading each answer, retry waits and write pacing. When it passes, the call
  raises `DeadlineExceeded` instead of waiting longer. Each socket wait is at most the time left,
  and a body that trickles in is abandoned at the next chunk after the deadline.
- Answers are capped at `max_response_bytes`; a larger one is an error, not a memory blow-up.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlsplit

import requests

from waza_ci import __version__
from waza_ci.github.retry import SECONDARY_LIMIT_WAIT_S, FailedAttempt, classify

API_VERSION = "2022-11-28"
INTEGRATION_REFUSED = "Resource not accessible by integration"
DEFAULT_DEADLINE_S = 60.0
DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024
_CHUNK_BYTES = 64 * 1024


class GitHubSetupError(Exception):
    """The step's GitHub settings cannot work (a malformed API URL, token, deadline or
    repository): found before any request; messages never contain the token."""


def repository_path(repository: str) -> str:
    """`/repos/{owner}/{name}` for GITHUB_REPOSITORY's `owner/name`, each part escaped."""
    owner, _, name = repository.partition("/")
    if not owner or not name or "/" in name:
        raise GitHubSetupError(f"the repository must be 'owner/name', got {repository!r}")
    return f"/repos/{quote(owner, safe='')}/{quote(name, safe='')}"


class GitHubError(Exception):
    """Base of the failures GitHub clients report; messages never contain the token."""

    def __init__(
        self, message: str, *, status: int | None = None, github_message: str | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.github_message = github_message


class AccessRefused(GitHubError):
    """The token may not do this here (GitHub's "Resource not accessible by integration", or a
    status the caller named in `refused_statuses`): a permission problem, never retried."""


class GitHubApiError(GitHubError):
    """Any other API failure: a rejected request, exhausted retries, an unexpected reply."""


class DeadlineExceeded(GitHubApiError):
    """The total deadline for GitHub work passed before the request completed."""


class _BearerAuth(requests.auth.AuthBase):
    """Adds the token per request. An auth object (not a session header) also stops requests
    from replacing it with ~/.netrc credentials, and it re-applies nothing across redirects."""

    def __init__(self, token: str) -> None:
        self._token = token

    def __call__(self, request: requests.PreparedRequest) -> requests.PreparedRequest:
        request.headers["Authorization"] = f"Bearer {self._token}"
        return request

    def __repr__(self) -> str:
        return "_BearerAuth(token=<redacted>)"


class _NoAuth(requests.auth.AuthBase):
    """Anonymous requests (public repositories): no Authorization header, none from ~/.netrc."""

    def __call__(self, request: requests.PreparedRequest) -> requests.PreparedRequest:
        return request


@dataclass(frozen=True)
class _Success:
    data: Any


Reconcile = Callable[[], Any]
"""Called before re-sending a request of unknown outcome: the resource if it took effect, else
None (then the request is sent again)."""


class GitHubHttp:
    """A session on the GitHub REST API; see the module docstring for what it guarantees."""

    def __init__(
        self,
        api_url: str,
        token: str,
        *,
        deadline_s: float = DEFAULT_DEADLINE_S,
        timeout_s: float = 30,
        max_retries: int = 5,
        max_total_wait_s: float = 300,
        write_interval_s: float = 1.0,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        notify: Callable[[str], None] | None = None,
        anonymous: bool = False,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        api_url = api_url.rstrip("/")
        if urlsplit(api_url).scheme not in ("http", "https"):
            raise GitHubSetupError(f"the API URL must be http(s): {api_url!r}")
        if anonymous and not token:
            pass  # reading public repositories: no Authorization header at all
        elif not token or token != token.strip() or any(c in token for c in "\r\n\t "):
            # Deliberately no detail: the message must not echo the token.
            raise GitHubSetupError("the token is empty or contains whitespace")
        if not deadline_s > 0:
            raise GitHubSetupError(
                f"the deadline must be a positive number of seconds: {deadline_s!r}"
            )
        self.api_url = api_url
        self.deadline_s = deadline_s
        self._token = token
        self._timeout_s = timeout_s
        self._max_retries = max_retries
        self._max_total_wait_s = max_total_wait_s
        self._write_interval_s = write_interval_s
        self._max_response_bytes = max_response_bytes
        self._notify_sink = notify
        self._sleep = sleep
        # Wall-clock time, for GitHub's reset timestamps (injectable so tests run instantly).
        self._clock = clock
        self._monotonic = monotonic
        self._deadline = monotonic() + deadline_s
        self._session = requests.Session()
        # No token (`anonymous`): an auth object that adds nothing, so ~/.netrc is not read.
        self._session.auth = _BearerAuth(token) if token else _NoAuth()
        self._session.headers.update(
            {
                "Accept": "application/vnd.github+json",
                "X-GitHub-Api-Version": API_VERSION,
                "User-Agent": f"waza-ci/{__version__}",
            }
        )
        # Counters over the session's life; clients read requests_made to report their share.
        self.requests_made = 0
        self._waited_s = 0.0
        self._backoffs = 0
        self._secondary_waits = 0
        self._last_write_at: float | None = None

    def __repr__(self) -> str:
        return f"GitHubHttp(api_url={self.api_url!r}, deadline_s={self.deadline_s:g})"

    def close(self) -> None:
        self._session.close()

    def __enter__(self) -> GitHubHttp:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def remaining_s(self) -> float:
        """Seconds left before the total deadline (negative once it has passed)."""
        return self._deadline - self._monotonic()

    def notify(self, message: str) -> None:
        """Progress worth a log line (retries, reconciliation): one line, the token redacted.

        The text may hold GitHub's own message, which is not ours: the sink must treat it as
        untrusted (the action echoes it inside a stop-commands fence)."""
        if self._notify_sink is not None:
            self._notify_sink(" ".join(self.redact(message).split()))

    def redact(self, text: str) -> str:
        # Defence in depth: no error text may carry the token, even if a server echoed it.
        return text.replace(self._token, "<redacted>") if self._token else text

    def error(
        self, message: str, *, status: int | None = None, github_message: str | None = None
    ) -> GitHubApiError:
        """A GitHubApiError with the token redacted, for clients reporting a bad reply."""
        return GitHubApiError(
            self.redact(message),
            status=status,
            github_message=self.redact(github_message) if github_message else None,
        )

    # --- one logical request, with retries -----------------------------------------------------

    def request(
        self,
        method: str,
        path: str,
        *,
        json: Mapping[str, Any] | None = None,
        params: Mapping[str, str] | None = None,
        mutating: bool | None = None,
        reconcile: Reconcile | None = None,
        refused_statuses: Collection[int] = (),
    ) -> Any:
        """Send `method path` (path relative to the API URL) until success, a final failure, the
        retry budget or the deadline; returns the decoded JSON of the 2xx answer (None if empty).

        `mutating` (default: every method but GET) paces writes a second apart and makes a lost
        answer "outcome unknown", which `reconcile` settles before any re-send. A status in
        `refused_statuses` (and any 403 "Resource not accessible by integration") raises
        AccessRefused. Raises GitHubApiError (DeadlineExceeded when time ran out) otherwise.
        """
        is_mutating = method.upper() != "GET" if mutating is None else mutating
        label = f"{method} {path}"
        attempt = 0
        while True:
            outcome = self._attempt(method, path, json, params, is_mutating)
            if isinstance(outcome, _Success):
                return outcome.data
            if outcome.retry == "never":
                raise self._final_error(label, outcome, refused_statuses)
            if attempt >= self._max_retries:
                unknown = (
                    "; whether the last attempt took effect is unknown" if outcome.uncertain else ""
                )
                raise self._failure_error(
                    f"{label}: {outcome.message}; gave up after {attempt + 1} attempts" + unknown,
                    outcome,
                )
            self._wait_before_retry(label, outcome)
            attempt += 1
            if outcome.uncertain and reconcile is not None:
                found = reconcile()
                if found is not None:
                    return found

    def _attempt(
        self,
        method: str,
        path: str,
        body: Mapping[str, Any] | None,
        params: Mapping[str, str] | None,
        mutating: bool,
    ) -> _Success | FailedAttempt:
        """One HTTP exchange: the decoded JSON on 2xx, else the classified failure."""
        label = f"{method} {path}"
        if mutating:
            self._pace_write(label)
        self._check_deadline(label)
        self.requests_made += 1
        try:
            wait = min(self._timeout_s, max(self.remaining_s(), 0.001))
            response = self._session.request(
                method,
                self.api_url + path,
                json=body,
                params=params,
                timeout=(wait, wait),
                stream=True,
            )
            with response:
                content = self._read_body(label, response)
        except requests.exceptions.SSLError as exc:
            # A certificate problem will not fix itself; retrying would only delay the error.
            return FailedAttempt(None, f"TLS error: {exc}")
        except requests.exceptions.ConnectTimeout:
            self._check_deadline(label, uncertain=False)
            # The connection never opened, so nothing reached GitHub: safe to re-send as is.
            return FailedAttempt(None, "connection timed out", retry="backoff")
        except (
            requests.exceptions.ConnectionError,
            requests.exceptions.Timeout,
            requests.exceptions.ChunkedEncodingError,
        ) as exc:
            self._check_deadline(label, uncertain=mutating)
            return FailedAttempt(
                None,
                f"no complete response ({type(exc).__name__})",
                retry="backoff",
                uncertain=mutating,
            )
        except requests.exceptions.RequestException as exc:
            return FailedAttempt(None, f"request failed: {exc}")
        finally:
            if mutating:
                self._last_write_at = self._clock()
        if 200 <= response.status_code < 300:
            return _Success(self._decode(label, response.status_code, content))
        return classify(
            response.status_code,
            response.headers,
            content,
            mutating=mutating,
            clock=self._clock,
        )

    def _read_body(self, label: str, response: requests.Response) -> bytes:
        """The whole body, within the size cap and the deadline."""
        chunks: list[bytes] = []
        size = 0
        # read1 returns whatever one socket read brings (a plain read would wait to fill the
        # chunk), so the deadline is checked between every piece of a body that trickles in.
        while chunk := response.raw.read1(_CHUNK_BYTES, decode_content=True):
            size += len(chunk)
            if size > self._max_response_bytes:
                raise self.error(
                    f"{label}: the answer exceeds {self._max_response_bytes:,} bytes; not read"
                )
            chunks.append(chunk)
            self._check_deadline(label)
        return b"".join(chunks)

    def _decode(self, label: str, status: int, content: bytes) -> Any:
        if not content.strip():
            return None
        try:
            return json.loads(content)
        except (ValueError, RecursionError) as exc:
            raise self.error(f"{label}: HTTP {status} with a body that is not JSON") from exc

    # --- waiting -------------------------------------------------------------------------------

    def _wait_before_retry(self, label: str, failure: FailedAttempt) -> None:
        """Sleep before the next attempt, within the retry budget and the deadline."""
        if failure.retry == "backoff":
            # 1, 2, 4, 8 … seconds across the session's transient failures.
            wait = float(2**self._backoffs)
            self._backoffs += 1
        elif failure.retry == "secondary":
            # At least a minute, then doubling, as GitHub asks when it names no wait.
            wait = SECONDARY_LIMIT_WAIT_S * 2**self._secondary_waits
            self._secondary_waits += 1
        else:
            wait = failure.wait_s
        if self._waited_s + wait > self._max_total_wait_s:
            raise self._failure_error(
                f"{label}: {failure.message}; giving up: waiting {wait:g} s more would "
                f"exceed the retry budget of {self._max_total_wait_s:g} s",
                failure,
            )
        if wait >= self.remaining_s():
            raise self._deadline_error(
                label, f"{failure.message}; the retry in {wait:g} s would pass it", failure
            )
        self.notify(f"{label}: {failure.message}; retrying in {wait:g} s")
        self._waited_s += wait
        self._sleep(wait)

    def _pace_write(self, label: str) -> None:
        """GitHub asks integrations to leave about a second between mutating requests."""
        last = self._last_write_at
        if self._write_interval_s <= 0 or last is None:
            return
        remaining = self._write_interval_s - (self._clock() - last)
        if remaining <= 0:
            return
        if remaining >= self.remaining_s():
            raise self._deadline_error(label, "no time left to pace the next write", None)
        self._sleep(remaining)

    def _check_deadline(self, label: str, *, uncertain: bool = False) -> None:
        if self.remaining_s() > 0:
            return
        reason = (
            "no complete answer; whether it took effect is unknown"
            if uncertain
            else "no complete answer"
        )
        raise self._deadline_error(label, reason, None)

    # --- errors --------------------------------------------------------------------------------

    def _deadline_error(
        self, label: str, reason: str, failure: FailedAttempt | None
    ) -> DeadlineExceeded:
        return DeadlineExceeded(
            self.redact(
                f"{label}: {reason}; gave up at the deadline of {self.deadline_s:g} s for all "
                "GitHub API work (`api-timeout`)"
            ),
            status=failure.status if failure else None,
            github_message=self._redacted(failure.github_message if failure else None),
        )

    def _redacted(self, text: str | None) -> str | None:
        return self.redact(text) if text else None

    def _failure_error(self, message: str, failure: FailedAttempt) -> GitHubApiError:
        return self.error(message, status=failure.status, github_message=failure.github_message)

    def _final_error(
        self, label: str, failure: FailedAttempt, refused_statuses: Collection[int]
    ) -> GitHubError:
        """The exception for a failure that is not retried."""
        refused = failure.status == 403 and INTEGRATION_REFUSED in (failure.github_message or "")
        if refused or failure.status in refused_statuses:
            return AccessRefused(
                self.redact(f"{label}: {failure.message}"),
                status=failure.status,
                github_message=self._redacted(failure.github_message),
            )
        return self._failure_error(f"{label}: {failure.message}", failure)
