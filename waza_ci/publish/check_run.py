"""The check run: one per step with the report and its annotations, and, when GitHub cannot
take it, the most important annotations as log lines instead. Never changes the verdict."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

from waza_ci.github.check_limits import fitted
from waza_ci.github.checks import (
    FIX_HINT,
    CheckRunClient,
    CheckRunIncomplete,
    CheckRunRequest,
    CheckRunResult,
    ChecksUnavailable,
)
from waza_ci.github.commands import WorkflowCommands
from waza_ci.github.environment import RunnerEnv
from waza_ci.github.http import GitHubError, GitHubHttp, GitHubSetupError
from waza_ci.publish.options import PublishOptions
from waza_ci.report.annotations import Annotation, build_annotations
from waza_ci.report.evaluation import Evaluation
from waza_ci.report.github_documents import check_title, render_check_text
from waza_ci.report.github_limits import LOG_ERRORS_PER_STEP
from waza_ci.report.text_safety import for_log


def open_session(
    options: PublishOptions, runner: RunnerEnv, commands: WorkflowCommands
) -> GitHubHttp | None:
    """One session, one deadline (`api-timeout`) for all of the step's GitHub work (the check
    run and the pull-request comment); None without a token or with a malformed API URL."""
    if not options.token:
        return None
    try:
        return GitHubHttp(
            runner.api_url,
            options.token,
            deadline_s=options.api_timeout_s,
            notify=lambda line: commands.echo_untrusted(f"waza-ci: {for_log(line)}"),
        )
    except GitHubSetupError as err:
        commands.warning(f"the GitHub API cannot be used: {err}")
        return None


def publish_check_run(
    options: PublishOptions,
    runner: RunnerEnv,
    http: GitHubHttp | None,
    *,
    env: Mapping[str, str],
    head_sha: str,
    evaluation: Evaluation,
    check_summary: str,
    commands: WorkflowCommands,
) -> CheckRunResult | None:
    """Post the check run; on any failure one warning and the annotations in the log."""
    annotations = build_annotations(evaluation.model)
    if not options.token:
        commands.warning("no `github-token` was given, so no check run was posted. " + FIX_HINT)
        log_annotations(commands, annotations)
        return None
    if http is None:  # the reason was given when the session could not be opened
        log_annotations(commands, annotations)
        return None
    request = CheckRunRequest(
        name=options.check_name,
        head_sha=head_sha,
        external_id=_external_id(runner, options.check_name, env),
        conclusion=evaluation.decision.conclusion,
        title=check_title(evaluation),
        summary=check_summary,
        text=render_check_text(evaluation),
        annotations=annotations,
        details_url=run_url(runner),
    )
    try:
        # Not closed here: the session (and its deadline) is shared with the comment step.
        posted = CheckRunClient(http, runner.repository).publish(request)
        if posted.html_url:  # GitHub's text: printed as data, never as a command
            commands.echo_untrusted(f"waza-ci: check run: {for_log(posted.html_url)}")
        return posted
    except ChecksUnavailable as err:
        commands.warning(f"the check run could not be posted: {err}")  # ends with FIX_HINT
    except CheckRunIncomplete as err:
        # The run exists with part of its annotations: say so, point at it, and put only the
        # annotations it is missing into the log.
        commands.warning(
            f"check run {err.run_id} was posted, but only {err.annotations_sent} of "
            f"{len(annotations)} annotations reached it: {err}"
        )
        log_annotations(commands, annotations[err.annotations_sent :])
        return CheckRunResult(
            id=err.run_id,
            html_url=err.html_url,
            requests_made=0,
            annotations_sent=err.annotations_sent,
        )
    except GitHubError as err:  # DeadlineExceeded included: one warning, the verdict stands
        commands.warning(f"the check run could not be posted: {err}")
    except GitHubSetupError as err:  # a malformed GITHUB_REPOSITORY
        commands.warning(f"the check run could not be posted: {err}")
    log_annotations(commands, annotations)
    return None


def log_annotations(commands: WorkflowCommands, annotations: Sequence[Annotation]) -> None:
    """The most important annotations as `::error` lines, within GitHub's per-step cap."""
    shown = (
        annotations[:LOG_ERRORS_PER_STEP]
        if len(annotations) <= LOG_ERRORS_PER_STEP
        else (annotations[: LOG_ERRORS_PER_STEP - 1])
    )
    for annotation in map(fitted, shown):
        placed = bool(annotation.path)  # "" when the file is outside the repository
        commands.error(
            annotation.message,
            file=annotation.path if placed else None,
            line=annotation.line if placed else None,
            title=annotation.title,
        )
    hidden = len(annotations) - len(shown)
    if hidden:
        commands.error(
            f"{hidden} more failing grader(s) are listed in the job summary "
            f"(GitHub shows at most {LOG_ERRORS_PER_STEP} error annotations per step)",
            title="waza-ci",
        )


def _external_id(runner: RunnerEnv, check_name: str, env: Mapping[str, str]) -> str:
    """Unique per job leg and attempt, the same across our own retries: a retried create can
    then find the run it may already have made, and never a matrix sibling's."""
    leg = sorted(
        (name, value)
        for name, value in env.items()
        if (name.startswith("INPUT_") and "TOKEN" not in name.upper()) or name == "RUNNER_NAME"
    )
    digest = hashlib.sha256(repr(leg).encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"waza-ci:{runner.run_id}:{runner.run_attempt}:{runner.job}:{digest}:{check_name}"


def run_url(runner: RunnerEnv) -> str | None:
    """The workflow run's page, where the job summary is."""
    if not (runner.run_id and runner.repository):
        return None
    return f"{runner.server_url}/{runner.repository}/actions/runs/{runner.run_id}"
