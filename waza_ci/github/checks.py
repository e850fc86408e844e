"""The Checks API client: one check run per publish, annotations in batches of 50, safe retries.

This is the only module that speaks HTTP. GitHub's per-field limits are applied here, at the last
moment, so callers can hand over texts of any size (numbers: github-actions-platform.md §6.1, §6.3).
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_args
from urllib.parse import quote, urlsplit

import requests

from waza_ci import __version__
from waza_ci.report.annotations import Annotation

API_VERSION = "2022-11-28"
MAX_ANNOTATIONS_PER_REQUEST = 50
MAX_ANNOTATION_TITLE_CHARS = 255
# GitHub documents "64 KB"; 64,000 bytes stays under it however KB is read.
MAX_ANNOTATION_MESSAGE_BYTES = 64_000
MAX_SUMMARY_BYTES = 65_535
INTEGRATION_REFUSED = "Resource not accessible by integration"
# How many pages of 100 runs to scan when looking for a run we may already have created.
_LOOKUP_MAX_PAGES = 10
_LOOKUP_PAGE_SIZE = 100
# The floor for a secondary rate limit that names no wait (GitHub: "at least one minute").
_SECONDARY_LIMIT_WAIT_S = 60.0
# Never retry a rate-limited request sooner than this, even if the runner's clock runs ahead.
_MIN_RATE_LIMIT_WAIT_S = 1.0

Conclusion = Literal["success", "failure", "neutral"]

FIX_HINT = (
    "To publish a check run the job's token needs `permissions: checks: write`. Pull requests "
    "from forks and Dependabot runs only get a read-only token: publish from a second workflow "
    "triggered by `workflow_run` instead. Until then the results are reported as workflow-command "
    "annotations and in the job summary."
)


class GitHubError(Exception):
    """Base of the failures this module reports; messages never contain the token."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        github_message: str | None = None,
        check_run_id: int | None = None,
        html_url: str | None = None,
        annotations_sent: int = 0,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.github_message = github_message
        # Set when a check run already exists (created, or adopted) before the failure:
        # its id and address, and how many annotations it is known to hold.
        self.check_run_id = check_run_id
        self.html_url = html_url
        self.annotations_sent = annotations_sent


class ChecksUnavailable(GitHubError):
    """The token may not write check runs here; fall back to workflow-command annotations."""


class GitHubApiError(GitHubError):
    """Any other API failure: a rejected request, exhausted retries, an unexpected reply."""


# --- GitHub's per-field limits -----------------------------------------------------------------


def escape_non_bmp(text: str) -> str:
    """Replace characters above U+FFFF (emoji and the like) by `U+1F600`.

    The Checks API rejects 4-byte UTF-8 in check-run fields; the report already writes such
    characters this way, so this is the guard that no request ever carries one.
    """
    if all(ord(char) <= 0xFFFF for char in text):
        return text
    return "".join(char if ord(char) <= 0xFFFF else f"U+{ord(char):04X}" for char in text)


def cut_chars(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters, ending in "…" when cut."""
    if len(text) <= limit:
        return text
    return text[: limit - 1] + "…"


def cut_middle_bytes(text: str, limit: int) -> str:
    """`text` within `limit` UTF-8 bytes: its head and tail around a marker saying it was cut.

    Both ends are kept because grader output tends to put the context first and the error last.
    Cuts fall on character boundaries: a split character is dropped, never half-encoded.
    """
    encoded = text.encode("utf-8")
    if len(encoded) <= limit:
        return text
    marker = (
        f"\n\n[… cut to fit GitHub's limit of {limit:,} bytes; "
        f"the full text is {len(encoded):,} bytes …]\n\n"
    )
    budget = limit - len(marker.encode("utf-8"))
    head_size = budget // 2
    tail_size = budget - head_size
    head = encoded[:head_size].decode("utf-8", "ignore")
    tail = encoded[len(encoded) - tail_size :].decode("utf-8", "ignore")
    return head + marker + tail


def cut_summary(summary: str, limit: int = MAX_SUMMARY_BYTES) -> str:
    """The check-run summary within `limit` UTF-8 bytes, with a closing note when it was cut.

    The caller is expected to budget the summary already; this is the guard that keeps a 422
    from losing the whole check run when it did not.
    """
    encoded = summary.encode("utf-8")
    if len(encoded) <= limit:
        return summary
    note = f"\n\n**The summary was cut here: it exceeded GitHub's limit of {limit:,} bytes.**\n"
    head = encoded[: limit - len(note.encode("utf-8"))].decode("utf-8", "ignore")
    return head + note


def _annotation_path(path: str) -> str:
    """A repository-relative path GitHub can place: no leading "/" or "./", never empty."""
    cleaned = path.lstrip("/")
    while cleaned.startswith("./"):
        cleaned = cleaned[2:].lstrip("/")
    # An annotation must name some path; ".github" exists in every repository using Actions.
    return cleaned or ".github"


def annotation_body(annotation: Annotation) -> dict[str, Any]:
    """The request-body form of one annotation, with every per-annotation limit applied."""
    line = max(1, annotation.line)
    title = cut_chars(escape_non_bmp(annotation.title), MAX_ANNOTATION_TITLE_CHARS)
    message = escape_non_bmp(annotation.message) or title or "(no message)"
    body: dict[str, Any] = {
        "path": _annotation_path(annotation.path),
        "start_line": line,
        "end_line": line,
        "annotation_level": annotation.level,
        "message": cut_middle_bytes(message, MAX_ANNOTATION_MESSAGE_BYTES),
    }
    if title:
        body["title"] = title
    return body


# --- request and result ------------------------------------------------------------------------


@dataclass(frozen=True)
class CheckRunRequest:
    """Everything one check run carries. `external_id` must be unique per run attempt."""

    name: str
    head_sha: str
    external_id: str
    conclusion: Conclusion
    title: str
    summary: str
    annotations: Sequence[Annotation] = ()
    details_url: str | None = None
    text: str = ""
    """output.text: the report's details (Markdown); omitted when empty."""

    def __post_init__(self) -> None:
        for label in ("name", "head_sha", "external_id"):
            if not getattr(self, label):
                raise ValueError(f"CheckRunRequest.{label} must not be empty")
        if self.conclusion not in get_args(Conclusion):
            raise ValueError(f"unsupported conclusion {self.conclusion!r}")
        # Snapshot the sequence: a caller's list changing mid-publish must not change the batches.
        object.__setattr__(self, "annotations", tuple(self.annotations))


@dataclass(frozen=True)
class CheckRunResult:
    """What was published: the run, how many HTTP requests it took, whether it was adopted."""

    id: int
    html_url: str
    requests_made: int
    annotations_sent: int
    # True when a create's outcome was unknown and the run it had made was found and reused.
    adopted: bool = False


# --- the client --------------------------------------------------------------------------------


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


# How a failed attempt may be retried: not at all, after exponential backoff (transient), after
# the growing wait for a secondary rate limit that names none, or after exactly `wait_s`.
RetryKind = Literal["never", "backoff", "secondary", "exact"]


@dataclass(frozen=True)
class _Failure:
    """One failed attempt, classified for the retry decision."""

    status: int | None
    message: str
    github_message: str | None = None
    retry: RetryKind = "never"
    wait_s: float = 0.0
    # The request may have been applied although no success came back (5xx, dropped connection).
    uncertain: bool = False


@dataclass(frozen=True)
class _Reply:
    data: dict[str, Any]
    # True when the data came from a lookup after a request of unknown outcome.
    reconciled: bool = False


@dataclass
class _PublishState:
    """Counters for one publish: the retry budget is spent across all of its requests."""

    requests_made: int = 0
    waited_s: float = 0.0
    backoffs: int = 0
    secondary_waits: int = 0
    last_write_at: float | None = None
    check_run_id: int | None = None
    html_url: str | None = None
    annotations_sent: int = 0


class CheckRunClient:
    """Creates one completed check run and appends its annotations, 50 per request.

    Retried: 5xx, dropped connections and timeouts (backoff 1, 2, 4 … s), and rate limits
    (retry-after, else x-ratelimit-reset, else 60 s doubling); at most `max_retries` re-sends per
    request and `max_total_wait_s` of retry waits per publish (the `write_interval_s` pacing
    between writes is not counted). Not retried: 400, 401, 404, 422 and a 403 that is not a rate
    limit. A create or update whose outcome is unknown is looked up before it is sent again, so
    a retry never leaves two runs or a batch of annotations twice.
    """

    def __init__(
        self,
        api_url: str,
        repository: str,
        token: str,
        *,
        timeout_s: float = 30,
        max_retries: int = 5,
        max_total_wait_s: float = 300,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
        write_interval_s: float = 1.0,
        notify: Callable[[str], None] | None = None,
    ) -> None:
        api_url = api_url.rstrip("/")
        if urlsplit(api_url).scheme not in ("http", "https"):
            raise ValueError(f"the API URL must be http(s): {api_url!r}")
        owner, _, name = repository.partition("/")
        if not owner or not name or "/" in name:
            raise ValueError(f"the repository must be 'owner/name', got {repository!r}")
        if not token or token != token.strip() or any(c in token for c in "\r\n\t "):
            # Deliberately no detail: the message must not echo the token.
            raise ValueError("the token is empty or contains whitespace")
        self._api_url = api_url
        self._repository = repository
        self._repo_path = f"/repos/{quote(owner, safe='')}/{quote(name, safe='')}"
        self._token = token
        self._timeout_s = timeout_s
        self._max_retries = max_retries
        self._max_total_wait_s = max_total_wait_s
        self._sleep = sleep
        self._clock = clock
        self._write_interval_s = write_interval_s
        self._notify_sink = notify
        self._session = requests.Session()
        self._session.auth = _BearerAuth(token)
        self._session.headers.update(
            {
                "Accept": "application/vnd.github+json",
                "X-GitHub-Api-Version": API_VERSION,
                "User-Agent": f"waza-ci/{__version__}",
            }
        )
        self._state = _PublishState()

    def __repr__(self) -> str:
        return f"CheckRunClient(api_url={self._api_url!r}, repository={self._repository!r})"

    def close(self) -> None:
        self._session.close()

    def _notify(self, message: str) -> None:
        """Progress worth a log line (retries, adoption): one line, the token redacted.

        The text holds GitHub's own message, which is not ours: the sink must treat it as
        untrusted (the action echoes it inside a stop-commands fence)."""
        if self._notify_sink is not None:
            self._notify_sink(" ".join(self._redact(message).split()))

    def __enter__(self) -> CheckRunClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # --- the publish flow ----------------------------------------------------------------------

    def publish(self, request: CheckRunRequest) -> CheckRunResult:
        """Create the check run (completed) with the first 50 annotations, then PATCH the rest.

        Raises ChecksUnavailable when the token may not write checks, GitHubApiError otherwise.
        """
        self._state = _PublishState()
        annotations = [annotation_body(a) for a in request.annotations]
        title = escape_non_bmp(request.title or request.name)
        output = {"title": title, "summary": cut_summary(escape_non_bmp(request.summary))}
        if request.text:
            output["text"] = cut_summary(escape_non_bmp(request.text))
        first = annotations[:MAX_ANNOTATIONS_PER_REQUEST]
        reply = self._create(request, output, first)
        run_id, html_url = _run_identity(reply.data)
        self._state.check_run_id, self._state.html_url = run_id, html_url
        confirmed = self._confirmed_after_create(reply, len(first))
        self._state.annotations_sent = confirmed
        while confirmed < len(annotations):
            batch = annotations[confirmed : confirmed + MAX_ANNOTATIONS_PER_REQUEST]
            confirmed = self._append(run_id, output, batch, confirmed)
            self._state.annotations_sent = confirmed
        return CheckRunResult(
            id=run_id,
            html_url=html_url,
            requests_made=self._state.requests_made,
            annotations_sent=len(annotations),
            adopted=reply.reconciled,
        )

    def _create(
        self, request: CheckRunRequest, output: dict[str, str], first: list[dict[str, Any]]
    ) -> _Reply:
        body: dict[str, Any] = {
            "name": request.name,
            "head_sha": request.head_sha,
            "external_id": request.external_id,
            "status": "completed",
            "conclusion": request.conclusion,
            "output": {**output, "annotations": first},
        }
        if request.details_url:
            body["details_url"] = request.details_url
        return self._call(
            "POST",
            f"{self._repo_path}/check-runs",
            body=body,
            reconcile=lambda: self._find_created_run(request),
            refusal_is_unavailable=True,
        )

    def _find_created_run(self, request: CheckRunRequest) -> dict[str, Any] | None:
        """The run a create of unknown outcome made, found by our external_id, or None.

        Uses "List check runs for a Git reference" (GET /repos/{owner}/{repo}/commits/{ref}/
        check-runs, not in the OpenAPI extract; it answers {total_count, check_runs: [...]}).
        filter=all rather than latest: "latest" keeps one run per name, so a matrix sibling that
        published the same check name a moment later would hide ours and we would create a second.
        """
        path = f"{self._repo_path}/commits/{quote(request.head_sha, safe='')}/check-runs"
        for page in range(1, _LOOKUP_MAX_PAGES + 1):
            params = {
                "check_name": request.name,
                "filter": "all",
                "per_page": str(_LOOKUP_PAGE_SIZE),
                "page": str(page),
            }
            runs = self._call("GET", path, params=params).data.get("check_runs")
            if not isinstance(runs, list):
                raise self._api_error("the check-run list has no check_runs array", None)
            for run in runs:
                if isinstance(run, dict) and _is_our_create(run, request):
                    self._notify(
                        "found the check run created by the unanswered request; reusing it"
                    )
                    return run
            if len(runs) < _LOOKUP_PAGE_SIZE:
                break
        return None

    def _confirmed_after_create(self, reply: _Reply, first_size: int) -> int:
        """How many annotations the new run holds; for an adopted run, ask GitHub's count.

        A create is atomic, so a run it made holds exactly the first batch; anything else is
        not ours (or cannot be reconciled safely).
        """
        if not reply.reconciled:
            return first_size
        count = _annotations_count(reply.data)
        if count == first_size:
            return count
        raise self._api_error(
            f"the existing check run holds {count} annotations, expected {first_size}; "
            "stopped rather than risk duplicates",
            None,
        )

    def _append(
        self,
        run_id: int,
        output: dict[str, str],
        batch: list[dict[str, Any]],
        confirmed: int,
    ) -> int:
        """PATCH one batch (GitHub appends it); returns the annotation count afterwards."""
        expected = confirmed + len(batch)
        path = f"{self._repo_path}/check-runs/{run_id}"
        body = {"output": {**output, "annotations": batch}}
        self._call(
            "PATCH",
            path,
            body=body,
            reconcile=lambda: self._patch_landed(path, confirmed, expected),
        )
        return expected

    def _patch_landed(self, path: str, before: int, expected: int) -> dict[str, Any] | None:
        """After a PATCH of unknown outcome: the run if it landed, None if it certainly did not.

        Re-sending a PATCH that did land would append its annotations a second time, so the run's
        annotations_count decides. Any other count means someone else is writing to the run.
        """
        run = self._call("GET", path).data
        count = _annotations_count(run)
        if count == expected:
            return run
        if count == before:
            return None
        raise self._api_error(
            f"the check run holds {count} annotations, expected {before} or {expected}; "
            "stopped rather than risk duplicates",
            None,
        )

    # --- one logical request, with retries -----------------------------------------------------

    def _call(
        self,
        method: str,
        path: str,
        *,
        body: Mapping[str, Any] | None = None,
        params: Mapping[str, str] | None = None,
        reconcile: Callable[[], dict[str, Any] | None] | None = None,
        refusal_is_unavailable: bool = False,
    ) -> _Reply:
        """Send until success, a final failure, or the retry budget runs out.

        `reconcile` runs before re-sending a request whose outcome is unknown: it returns the
        resource when the lost request did take effect (so it is not sent twice), else None.
        """
        attempt = 0
        while True:
            outcome = self._attempt(method, path, body, params)
            if isinstance(outcome, _Reply):
                return outcome
            if outcome.retry == "never":
                raise self._final_error(method, path, outcome, refusal_is_unavailable)
            if attempt >= self._max_retries:
                unknown = (
                    "; whether the last attempt took effect is unknown" if outcome.uncertain else ""
                )
                raise self._api_error(
                    f"{method} {path}: {outcome.message}; gave up after {attempt + 1} attempts"
                    + unknown,
                    outcome,
                )
            self._wait_before_retry(method, path, outcome)
            attempt += 1
            if outcome.uncertain and reconcile is not None:
                found = reconcile()
                if found is not None:
                    return _Reply(found, reconciled=True)

    def _attempt(
        self,
        method: str,
        path: str,
        body: Mapping[str, Any] | None,
        params: Mapping[str, str] | None,
    ) -> _Reply | _Failure:
        """One HTTP exchange: the decoded JSON object on 2xx, else the classified failure."""
        mutating = method != "GET"
        if mutating:
            self._pace_write()
        self._state.requests_made += 1
        try:
            response = self._session.request(
                method, self._api_url + path, json=body, params=params, timeout=self._timeout_s
            )
        except requests.exceptions.SSLError as exc:
            # A certificate problem will not fix itself; retrying would only delay the error.
            return _Failure(None, f"TLS error: {exc}")
        except requests.exceptions.ConnectTimeout:
            # The connection never opened, so nothing reached GitHub: safe to re-send as is.
            return _Failure(None, "connection timed out", retry="backoff")
        except (
            requests.exceptions.ConnectionError,
            requests.exceptions.Timeout,
            requests.exceptions.ChunkedEncodingError,
        ) as exc:
            return _Failure(
                None,
                f"no complete response ({type(exc).__name__})",
                retry="backoff",
                uncertain=mutating,
            )
        except requests.exceptions.RequestException as exc:
            return _Failure(None, f"request failed: {exc}")
        finally:
            if mutating:
                self._state.last_write_at = self._clock()
        if 200 <= response.status_code < 300:
            return _Reply(self._decode(method, path, response))
        return self._classify(response, mutating)

    def _decode(self, method: str, path: str, response: requests.Response) -> dict[str, Any]:
        try:
            data = response.json()
        except ValueError as exc:
            raise self._api_error(
                f"{method} {path}: HTTP {response.status_code} with a body that is not JSON", None
            ) from exc
        if not isinstance(data, dict):
            raise self._api_error(
                f"{method} {path}: HTTP {response.status_code} with JSON that is not an object",
                None,
            )
        return data

    def _classify(self, response: requests.Response, mutating: bool) -> _Failure:
        """Decide whether a non-2xx response is retried, and after how long."""
        status = response.status_code
        github_message = _github_message(response)
        message = f"HTTP {status}" + (f": {github_message}" if github_message else "")
        if status in (403, 429):
            return self._rate_limit_failure(response, message, github_message)
        if status >= 500:
            # The server may have applied the request before failing: outcome unknown.
            return _Failure(status, message, github_message, retry="backoff", uncertain=mutating)
        return _Failure(status, message, github_message)

    def _rate_limit_failure(
        self, response: requests.Response, message: str, github_message: str | None
    ) -> _Failure:
        """GitHub's documented order: retry-after, then x-ratelimit-reset, then >= 60 s.

        A rate-limited request was refused before being applied, so it is never "uncertain".
        """
        status = response.status_code

        def exact(wait_s: float) -> _Failure:
            # Never sooner than a second, in case the runner's clock runs ahead of GitHub's.
            wait_s = max(wait_s, _MIN_RATE_LIMIT_WAIT_S)
            return _Failure(status, message, github_message, retry="exact", wait_s=wait_s)

        retry_after = _parse_retry_after(response.headers.get("retry-after"), self._clock())
        if retry_after is not None:
            return exact(retry_after)
        reset = _parse_float(response.headers.get("x-ratelimit-reset"))
        if response.headers.get("x-ratelimit-remaining") == "0" and reset is not None:
            return exact(reset - self._clock())
        if status == 429 or "rate limit" in (github_message or "").lower():
            return _Failure(status, message, github_message, retry="secondary")
        # A bare 403 is a permission problem: retrying cannot help.
        return _Failure(status, message, github_message)

    def _wait_before_retry(self, method: str, path: str, failure: _Failure) -> None:
        """Sleep before the next attempt, keeping the publish's total wait within budget."""
        state = self._state
        if failure.retry == "backoff":
            # 1, 2, 4, 8 … seconds across the publish's transient failures.
            wait = float(2**state.backoffs)
            state.backoffs += 1
        elif failure.retry == "secondary":
            # At least a minute, then doubling, as GitHub asks when it names no wait.
            wait = _SECONDARY_LIMIT_WAIT_S * 2**state.secondary_waits
            state.secondary_waits += 1
        else:
            wait = failure.wait_s
        if state.waited_s + wait > self._max_total_wait_s:
            raise self._api_error(
                f"{method} {path}: {failure.message}; giving up: waiting {wait:g} s more would "
                f"exceed the retry budget of {self._max_total_wait_s:g} s",
                failure,
            )
        self._notify(f"{method} {path}: {failure.message}; retrying in {wait:g} s")
        state.waited_s += wait
        self._sleep(wait)

    def _pace_write(self) -> None:
        """GitHub asks integrations to leave about a second between mutating requests."""
        last = self._state.last_write_at
        if self._write_interval_s <= 0 or last is None:
            return
        remaining = self._write_interval_s - (self._clock() - last)
        if remaining > 0:
            self._sleep(remaining)

    # --- errors --------------------------------------------------------------------------------

    def _redact(self, text: str) -> str:
        # Defence in depth: no error text may carry the token, even if a server echoed it.
        return text.replace(self._token, "<redacted>")

    def _error_fields(self, failure: _Failure | None) -> dict[str, Any]:
        github_message = failure.github_message if failure else None
        return {
            "status": failure.status if failure else None,
            "github_message": self._redact(github_message) if github_message else None,
            "check_run_id": self._state.check_run_id,
            "html_url": self._state.html_url,
            "annotations_sent": self._state.annotations_sent,
        }

    def _api_error(self, message: str, failure: _Failure | None) -> GitHubApiError:
        return GitHubApiError(self._redact(message), **self._error_fields(failure))

    def _final_error(
        self, method: str, path: str, failure: _Failure, refusal_is_unavailable: bool
    ) -> GitHubError:
        """The exception for a failure that is not retried.

        On create, any non-rate-limit 403 or a 404 means this token cannot write checks to this
        repository; later, only GitHub's explicit refusal does (a 404 then is a real error).
        """
        refused = failure.status == 403 and INTEGRATION_REFUSED in (failure.github_message or "")
        if refused or (refusal_is_unavailable and failure.status in (403, 404)):
            return ChecksUnavailable(
                self._redact(f"{method} {path}: {failure.message}. {FIX_HINT}"),
                **self._error_fields(failure),
            )
        return self._api_error(f"{method} {path}: {failure.message}", failure)


def _github_message(response: requests.Response) -> str | None:
    """GitHub's error text: `message` plus any `errors` details, or None for a non-JSON body."""
    try:
        data = response.json()
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    message = str(data.get("message") or "").strip()
    details = [
        str(item.get("message") or item.get("code") or item)
        if isinstance(item, dict)
        else str(item)
        for item in data.get("errors") or []
    ]
    if details:
        message = f"{message} ({'; '.join(details)})" if message else "; ".join(details)
    return message or None


def _parse_float(value: str | None) -> float | None:
    try:
        return float(value) if value else None
    except ValueError:
        return None


def _parse_retry_after(value: str | None, now: float) -> float | None:
    """retry-after as seconds: either a number of seconds or an HTTP date."""
    if not value:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - now, 0.0)


def _is_our_create(run: Mapping[str, Any], request: CheckRunRequest) -> bool:
    """A listed run is the one our unanswered create made only if everything we sent matches:
    the external id (unique per job leg and attempt), name, head commit, conclusion and title.
    A sibling's run with the same id but another verdict must never be taken over."""
    output = run.get("output")
    return (
        run.get("external_id") == request.external_id
        and run.get("name") == request.name
        and run.get("head_sha") == request.head_sha
        and run.get("conclusion") == request.conclusion
        and isinstance(output, Mapping)
        and output.get("title") == request.title
    )


def _run_identity(run: Mapping[str, Any]) -> tuple[int, str]:
    run_id = run.get("id")
    if not isinstance(run_id, int) or isinstance(run_id, bool):
        raise GitHubApiError("the check-run response has no integer id")
    html_url = run.get("html_url")
    return run_id, html_url if isinstance(html_url, str) else ""


def _annotations_count(run: Mapping[str, Any]) -> int:
    output = run.get("output")
    count = output.get("annotations_count") if isinstance(output, Mapping) else None
    if not isinstance(count, int) or isinstance(count, bool):
        raise GitHubApiError("the check-run response has no output.annotations_count")
    return count
