"""The action's sticky-comment step: decide, render, post or update, or say why not.

`comment: off` does nothing. Outside a pull-request event one log line says so (an annotation
only when `comment: always` asked for a comment); without a token, or when the token may not
write comments (403 on forks and Dependabot), one notice; an answer of GitHub's that makes no
sense, one warning. Nothing else changes: the comment never decides the verdict. With
`on-change` a comment is created only when something failed, regressed or was fixed; an
existing one is always brought up to date, so it never shows a stale verdict.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from waza_ci.github.comments import (
    CommentResult,
    CommentsUnavailable,
    StickyCommentClient,
    comment_marker,
)
from waza_ci.github.environment import RunnerEnv
from waza_ci.github.http import GitHubError, GitHubHttp, GitHubSetupError
from waza_ci.publish.options import CommentMode
from waza_ci.report.comment import render_comment
from waza_ci.report.evaluation import Evaluation


@dataclass(frozen=True)
class CommentContext:
    """Where the comment goes and what it links to."""

    http: GitHubHttp | None
    """The step's API session (shared with the check run, so one deadline covers both)."""
    repository: str
    has_token: bool
    event_name: str
    event: Mapping[str, Any]
    workflow: str
    check_name: str
    check_url: str | None
    summary_url: str | None

    @classmethod
    def from_runner(
        cls,
        runner: RunnerEnv,
        env: Mapping[str, str],
        http: GitHubHttp | None,
        *,
        has_token: bool,
        check_name: str,
        check_url: str | None,
        summary_url: str | None,
    ) -> CommentContext:
        return cls(
            http=http,
            repository=runner.repository,
            has_token=has_token,
            event_name=runner.event_name,
            event=runner.event,
            workflow=env.get("GITHUB_WORKFLOW", ""),
            check_name=check_name,
            check_url=check_url,
            summary_url=summary_url,
        )


def pull_request_number(event_name: str, event: Mapping[str, Any]) -> int | None:
    if not event_name.startswith("pull_request"):
        return None
    pull_request = event.get("pull_request")
    number = pull_request.get("number") if isinstance(pull_request, Mapping) else None
    return number if isinstance(number, int) and not isinstance(number, bool) else None


def wants_new_comment(mode: CommentMode, evaluation: Evaluation) -> bool:
    """Whether to create a comment where there is none yet: something failed (the step, or a
    task whatever `fail-on` gates on), regressed or was fixed."""
    if mode is CommentMode.ALWAYS:
        return True
    decision, comparison = evaluation.decision, evaluation.comparison
    failing = not decision.passed or not decision.tasks_passed
    return failing or (comparison is not None and comparison.changed)


def publish_comment(
    mode: CommentMode,
    context: CommentContext,
    *,
    evaluation: Evaluation,
    notice: Callable[[str], None],
    warn: Callable[[str], None],
    log: Callable[[str], None],
) -> CommentResult | None:
    """Post or update the sticky comment. A run that cannot have one (not a pull request) says
    so in the `log` only, unless `comment: always` asked for one; the other expected reasons
    not to (no token, a read-only token) are one `notice`; an API failure is one `warn`."""
    if mode is CommentMode.OFF:
        return None
    number = pull_request_number(context.event_name, context.event)
    if number is None:
        say = notice if mode is CommentMode.ALWAYS else log
        say("no pull-request comment: this is not a pull_request event")
        return None
    if not context.has_token:
        notice("no pull-request comment: no `github-token` was given")
        return None
    if context.http is None:  # the session could not be opened; that was already said
        return None
    marker = comment_marker(f"{context.workflow}\n{context.check_name}")
    body = render_comment(
        marker,
        check_name=context.check_name,
        evaluation=evaluation,
        check_url=context.check_url,
        summary_url=context.summary_url,
    )
    try:
        client = StickyCommentClient(context.http, context.repository)
        return client.upsert(number, marker, body, create=wants_new_comment(mode, evaluation))
    except CommentsUnavailable as err:
        notice(f"no pull-request comment: {err}")
    except (GitHubError, GitHubSetupError) as err:
        warn(f"the pull-request comment could not be posted: {err}")
    return None
