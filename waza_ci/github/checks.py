"""The Checks API client: one check run per publish, annotations in batches of 50, safe retries.

The HTTP itself (auth, retries, rate limits, the total deadline) is `github/http.py`'s; this
module holds the check-run logic on top of it, and `check_limits.py` fits every field to
GitHub's limits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, get_args
from urllib.parse import quote

from waza_ci.github.check_limits import annotation_body, cut_summary
from waza_ci.github.http import (
    AccessRefused,
    DeadlineExceeded,
    GitHubApiError,
    GitHubError,
    GitHubHttp,
    repository_path,
)
from waza_ci.report.annotations import Annotation
from waza_ci.report.github_limits import ANNOTATIONS_PER_REQUEST
from waza_ci.report.text_safety import readable_bmp
from waza_ci.verdict import Conclusion

__all__ = [
    "CheckRunClient",
    "CheckRunIncomplete",
    "CheckRunRequest",
    "CheckRunResult",
    "ChecksUnavailable",
    "DeadlineExceeded",
    "GitHubApiError",
    "GitHubError",
]

# How many pages of 100 runs to scan when looking for a run we may already have created.
_LOOKUP_MAX_PAGES = 10
_LOOKUP_PAGE_SIZE = 100


FIX_HINT = (
    "To publish a check run the job's token needs `permissions: checks: write`. Pull requests "
    "from forks and Dependabot runs only get a read-only token: publish from a second workflow "
    "triggered by `workflow_run` instead. Until then the results are reported as workflow-command "
    "annotations and in the job summary."
)


# The token may not write check runs here: the caller falls back to workflow-command annotations.
ChecksUnavailable = AccessRefused


class CheckRunIncomplete(GitHubError):
    """The check run was created, then a later request failed: what exists is named, so the
    caller can point at the run and log only the annotations it is missing."""

    def __init__(self, cause: GitHubError, run_id: int, html_url: str, annotations_sent: int):
        super().__init__(str(cause), status=cause.status, github_message=cause.github_message)
        self.run_id = run_id
        self.html_url = html_url
        self.annotations_sent = annotations_sent


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


class CheckRunClient:
    """Creates one completed check run and appends its annotations, 50 per request.

    Retries, rate limits and the deadline are the `GitHubHttp` session's. A create or update
    whose outcome is unknown is looked up before it is sent again, so a retry never leaves two
    runs or a batch of annotations twice. On failure the raised GitHubError carries what already
    exists: `resource_id`/`resource_url` of the run and `items_sent` annotations.
    """

    def __init__(self, http: GitHubHttp, repository: str) -> None:
        self._http = http
        self._repository = repository
        self._repo_path = repository_path(repository)
        self._run_id: int | None = None
        self._html_url: str | None = None
        self._annotations_sent = 0
        self._adopted = False

    @classmethod
    def connect(
        cls, api_url: str, repository: str, token: str, **http_options: Any
    ) -> CheckRunClient:
        """A client on its own `GitHubHttp` session (options: see GitHubHttp)."""
        http = GitHubHttp(api_url, token, **http_options)
        try:
            return cls(http, repository)
        except ValueError:
            http.close()
            raise

    def __repr__(self) -> str:
        return f"CheckRunClient(http={self._http!r}, repository={self._repository!r})"

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> CheckRunClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # --- the publish flow ----------------------------------------------------------------------

    def publish(self, request: CheckRunRequest) -> CheckRunResult:
        """Create the check run (completed) with the first 50 annotations, then PATCH the rest.

        Raises ChecksUnavailable when the token may not write checks, DeadlineExceeded when the
        session's deadline passed, GitHubApiError otherwise.
        """
        self._run_id, self._html_url, self._annotations_sent = None, None, 0
        self._adopted = False
        requests_before = self._http.requests_made
        try:
            run_id, html_url, annotations_sent = self._publish(request)
        except AccessRefused as err:
            raise ChecksUnavailable(
                f"{err} {FIX_HINT}", status=err.status, github_message=err.github_message
            ) from err
        except GitHubError as err:
            if self._run_id is None:
                raise
            raise CheckRunIncomplete(
                err, self._run_id, self._html_url or "", self._annotations_sent
            ) from err
        return CheckRunResult(
            id=run_id,
            html_url=html_url,
            requests_made=self._http.requests_made - requests_before,
            annotations_sent=annotations_sent,
            adopted=self._adopted,
        )

    def _publish(self, request: CheckRunRequest) -> tuple[int, str, int]:
        """The run's id and address, and how many annotations it holds."""
        annotations = [annotation_body(a) for a in request.annotations]
        title = readable_bmp(request.title or request.name)
        output = {"title": title, "summary": cut_summary(readable_bmp(request.summary))}
        if request.text:
            output["text"] = cut_summary(readable_bmp(request.text))
        first = annotations[:ANNOTATIONS_PER_REQUEST]
        created = self._create(request, output, first)
        run_id, html_url = _run_identity(created)
        self._run_id, self._html_url = run_id, html_url
        confirmed = self._confirmed_after_create(created, len(first))
        self._annotations_sent = confirmed
        while confirmed < len(annotations):
            batch = annotations[confirmed : confirmed + ANNOTATIONS_PER_REQUEST]
            confirmed = self._append(run_id, output, batch, confirmed)
            self._annotations_sent = confirmed
        return run_id, html_url, len(annotations)

    def _create(
        self, request: CheckRunRequest, output: dict[str, str], first: list[dict[str, Any]]
    ) -> dict[str, Any]:
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
        path = f"{self._repo_path}/check-runs"
        # On create, any non-rate-limit 403 or a 404 means this token cannot write checks to
        # this repository; later, only GitHub's explicit refusal does (a 404 is a real error).
        data = self._http.request(
            "POST",
            path,
            json=body,
            reconcile=lambda: self._find_created_run(request),
            refused_statuses=(403, 404),
        )
        return self._object(data, "POST", path)

    def _object(self, data: Any, method: str, path: str) -> dict[str, Any]:
        if not isinstance(data, dict):
            raise self._http.error(f"{method} {path}: the answer is JSON that is not an object")
        return data

    def _find_created_run(self, request: CheckRunRequest) -> dict[str, Any] | None:
        """The run a create of unknown outcome made, found by our external_id, or None.

        Uses "List check runs for a Git reference" (GET /repos/{owner}/{repo}/commits/{ref}/
        check-runs; it answers {total_count, check_runs: [...]}).
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
            runs = self._object(self._http.request("GET", path, params=params), "GET", path).get(
                "check_runs"
            )
            if not isinstance(runs, list):
                raise self._http.error("the check-run list has no check_runs array")
            for run in runs:
                if isinstance(run, dict) and _is_our_create(run, request):
                    self._http.notify(
                        "found the check run created by the unanswered request; reusing it"
                    )
                    self._adopted = True
                    return run
            if len(runs) < _LOOKUP_PAGE_SIZE:
                break
        return None

    def _confirmed_after_create(self, created: dict[str, Any], first_size: int) -> int:
        """How many annotations the new run holds; for an adopted run, ask GitHub's count.

        A create is atomic, so a run it made holds exactly the first batch; anything else is
        not ours (or cannot be reconciled safely).
        """
        if not self._adopted:
            return first_size
        count = _annotations_count(created)
        if count == first_size:
            return count
        raise self._http.error(
            f"the existing check run holds {count} annotations, expected {first_size}; "
            "stopped rather than risk duplicates"
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
        self._http.request(
            "PATCH",
            path,
            json=body,
            reconcile=lambda: self._patch_landed(path, confirmed, expected),
        )
        return expected

    def _patch_landed(self, path: str, before: int, expected: int) -> dict[str, Any] | None:
        """After a PATCH of unknown outcome: the run if it landed, None if it certainly did not.

        Re-sending a PATCH that did land would append its annotations a second time, so the run's
        annotations_count decides. Any other count means someone else is writing to the run.
        """
        run = self._object(self._http.request("GET", path), "GET", path)
        count = _annotations_count(run)
        if count == expected:
            return run
        if count == before:
            return None
        raise self._http.error(
            f"the check run holds {count} annotations, expected {before} or {expected}; "
            "stopped rather than risk duplicates"
        )


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
