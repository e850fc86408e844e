"""How a failed GitHub API attempt is retried: its classification, and GitHub's rate-limit headers.

Pure (no HTTP, no sleeping): github/http.py sends the requests, asks `classify` about a non-2xx
answer and does the waiting. GitHub's documented order for a rate limit is followed: retry-after,
then x-ratelimit-reset, then at least a minute.
"""

from __future__ import annotations

import email.utils
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

# The floor for a secondary rate limit that names no wait (GitHub: "at least one minute").
SECONDARY_LIMIT_WAIT_S = 60.0
# Never retry a rate-limited request sooner than this, even if the runner's clock runs ahead.
_MIN_RATE_LIMIT_WAIT_S = 1.0


# How a failed attempt may be retried: not at all, after exponential backoff (transient), after
# the growing wait for a secondary rate limit that names none, or after exactly `wait_s`.
RetryKind = Literal["never", "backoff", "secondary", "exact"]


@dataclass(frozen=True)
class FailedAttempt:
    """One failed attempt, classified for the retry decision."""

    status: int | None
    message: str
    github_message: str | None = None
    retry: RetryKind = "never"
    wait_s: float = 0.0
    # The request may have been applied although no success came back (5xx, dropped connection).
    uncertain: bool = False


def classify(
    status: int,
    headers: Mapping[str, str],
    content: bytes,
    *,
    mutating: bool,
    clock: Callable[[], float],
) -> FailedAttempt:
    """Decide whether a non-2xx response is retried, and after how long."""
    github_message = _github_message(content)
    message = f"HTTP {status}" + (f": {github_message}" if github_message else "")
    if status in (403, 429):
        return _rate_limit_failure(status, headers, message, github_message, clock)
    if status >= 500:
        # The server may have applied the request before failing: outcome unknown.
        return FailedAttempt(status, message, github_message, retry="backoff", uncertain=mutating)
    return FailedAttempt(status, message, github_message)


def _rate_limit_failure(
    status: int,
    headers: Mapping[str, str],
    message: str,
    github_message: str | None,
    clock: Callable[[], float],
) -> FailedAttempt:
    """GitHub's documented order: retry-after, then x-ratelimit-reset, then >= 60 s.

    A rate-limited request was refused before being applied, so it is never "uncertain".
    """

    def exact(wait_s: float) -> FailedAttempt:
        # Never sooner than a second, in case the runner's clock runs ahead of GitHub's.
        wait_s = max(wait_s, _MIN_RATE_LIMIT_WAIT_S)
        return FailedAttempt(status, message, github_message, retry="exact", wait_s=wait_s)

    retry_after = _parse_retry_after(headers.get("retry-after"), clock())
    if retry_after is not None:
        return exact(retry_after)
    reset = _parse_float(headers.get("x-ratelimit-reset"))
    if headers.get("x-ratelimit-remaining") == "0" and reset is not None:
        return exact(reset - clock())
    if status == 429 or "rate limit" in (github_message or "").lower():
        return FailedAttempt(status, message, github_message, retry="secondary")
    # A bare 403 is a permission problem: retrying cannot help.
    return FailedAttempt(status, message, github_message)


def _github_message(content: bytes) -> str | None:
    """GitHub's error text: `message` plus any `errors` details, or None for a non-JSON body."""
    try:
        data = json.loads(content)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict):
        return None
    message = str(data.get("message") or "").strip()
    errors = data.get("errors")
    details = [
        str(item.get("message") or item.get("code") or item)
        if isinstance(item, dict)
        else str(item)
        for item in (errors if isinstance(errors, list) else [])
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
