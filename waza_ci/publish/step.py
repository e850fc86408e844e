"""The action after grading: the verdict -> log, job summary, check run (or log annotations),
pull-request comment, report JSON, step outputs.

Every step here is reporting: a problem in one is a warning, never a change of the verdict or
the exit code the grading decided. Untrusted text reaches the log only inside a
`::stop-commands::` fence or escaped as data.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from waza_ci.action.settings import ActionSettings
from waza_ci.errors import FailOn, WazaCiError
from waza_ci.gate.baseline import BaselineComparison
from waza_ci.gate.baseline_io import GATE_FAIL, compare_with_baseline, gate_status
from waza_ci.gate.step import gate_outputs
from waza_ci.github.checks import (
    FIX_HINT,
    CheckRunClient,
    CheckRunRequest,
    CheckRunResult,
    ChecksUnavailable,
    Conclusion,
)
from waza_ci.github.http import GitHubError, GitHubHttp
from waza_ci.github.runner import RunnerEnv, WorkflowCommands, append_summary, write_outputs
from waza_ci.outputs import write_text_files
from waza_ci.publish.comment import CommentContext, publish_comment
from waza_ci.report._text import for_log
from waza_ci.report.annotations import Annotation, build_annotations
from waza_ci.report.build import build_report
from waza_ci.report.markdown import JOB_SUMMARY_LIMIT, check_title, render_check_text
from waza_ci.report.model import Report, SourceLinks, report_json_text
from waza_ci.report.regressions import (
    flaky_of,
    render_check_summary_with_regressions,
    render_regressions_text,
    render_summary_with_regressions,
)
from waza_ci.shard.plan import shard_note
from waza_ci.waza.results import ResultsFile
from waza_ci.waza.scoring import GradeSummary

# GitHub shows at most 10 error annotations per step from workflow commands; the rest vanish.
LOG_ANNOTATION_CAP = 10
REPORT_JSON_DIR = ".waza-ci"
"""Where the report JSON goes, relative to the workspace: the only folder a Docker action
shares with later steps (RUNNER_TEMP is not mounted into the container)."""


@dataclass(frozen=True)
class Outcome:
    """What the grading decided, as every reporting step reads it."""

    summary: GradeSummary
    report: Report
    comparison: BaselineComparison | None
    flaky: int
    """How many tasks were flaky (passed some runs, failed others)."""
    baseline_note: str | None
    head_sha: str | None
    output_file: Path | None


def assess(
    settings: ActionSettings,
    runner: RunnerEnv,
    summary: GradeSummary,
    results_files: Sequence[ResultsFile],
    baseline_files: Sequence[ResultsFile],
    *,
    baseline_note: str | None,
    head_sha: str | None,
    output_file: Path | None,
    commands: WorkflowCommands,
    stdout: TextIO,
) -> Outcome:
    """The report model and the comparison with the baseline; the regressions go to the log."""
    links = SourceLinks(runner.server_url, runner.repository, head_sha) if head_sha else None
    model = build_report(summary, repo_root=runner.workspace or os.getcwd(), links=links)
    comparison = compare_with_baseline(
        summary, results_files, baseline_files, options=settings.gate.options
    )
    flaky = flaky_of(summary.tasks)
    if baseline_note:
        commands.warning(baseline_note)
    with commands.stop_commands():
        stdout.write(render_regressions_text(comparison, flaky, baseline_note=baseline_note))
    return Outcome(summary, model, comparison, len(flaky), baseline_note, head_sha, output_file)


def write_job_summary(
    settings: ActionSettings,
    runner: RunnerEnv,
    outcome: Outcome,
    commands: WorkflowCommands,
    stdout: TextIO,
) -> None:
    """The job summary file inside Actions; outside, the same Markdown on stdout."""
    note = shard_note(settings.shard)
    markdown = note + render_summary_with_regressions(
        outcome.summary,
        outcome.report,
        outcome.comparison,
        baseline_note=outcome.baseline_note,
        mode=settings.report,
        limit_bytes=JOB_SUMMARY_LIMIT - len(note.encode()),
    )
    if settings.job_summary and runner.summary_path:
        try:
            append_summary(runner.summary_path, markdown)
        except OSError as err:  # a reporting problem must not hide the verdict
            commands.warning(f"could not write the job summary to {runner.summary_path}: {err}")
    elif not runner.in_actions:
        stdout.write(markdown)


def publish_to_github(
    settings: ActionSettings,
    runner: RunnerEnv,
    env: Mapping[str, str],
    outcome: Outcome,
    commands: WorkflowCommands,
) -> CheckRunResult | None:
    """The check run (when there is a head SHA) and the pull-request comment, on one session;
    returns the check run posted, if any."""
    http = _github_http(settings, runner, commands) if runner.in_actions else None
    try:
        check = (
            _publish_check_run(
                settings,
                runner,
                http,
                env=env,
                head_sha=outcome.head_sha,
                report=outcome.report,
                conclusion=conclusion_of(outcome.summary, settings.fail_on, outcome.comparison),
                check_summary=render_check_summary_with_regressions(
                    outcome.summary,
                    outcome.report,
                    outcome.comparison,
                    baseline_note=outcome.baseline_note,
                    mode=settings.report,
                ),
                commands=commands,
            )
            if outcome.head_sha
            else None
        )
        if runner.in_actions and settings.shard is None:  # a shard's verdict is partial
            publish_comment(
                settings.gate.comment,
                CommentContext.from_runner(
                    runner,
                    env,
                    http,
                    has_token=bool(settings.token),
                    check_name=settings.check_name,
                    check_url=check.html_url if check else None,
                    summary_url=_run_url(runner),
                ),
                summary=outcome.summary,
                comparison=outcome.comparison,
                baseline_note=outcome.baseline_note,
                notice=lambda line: commands.notice(line, title="waza-ci"),
                warn=lambda line: commands.warning(line, title="waza-ci"),
            )
    finally:
        if http is not None:
            http.close()
    return check


def write_step_outputs(
    runner: RunnerEnv,
    env: Mapping[str, str],
    outcome: Outcome,
    check: CheckRunResult | None,
    commands: WorkflowCommands,
) -> None:
    """The report JSON under the workspace, then the step outputs (which name it)."""
    report_json = _write_report_json(outcome.report, env, commands)
    if runner.output_path:
        outputs = _step_outputs(outcome, check, report_json)
        outputs |= gate_outputs(outcome.summary, outcome.comparison, outcome.flaky)
        try:
            write_outputs(runner.output_path, outputs)
        except OSError as err:
            commands.warning(f"could not write the step outputs to {runner.output_path}: {err}")


def conclusion_of(
    summary: GradeSummary, fail_on: FailOn, comparison: BaselineComparison | None = None
) -> Conclusion:
    """failure on grader errors, (with fail-on failures) a failing task or (with fail-on
    regressions) a failed regression gate; neutral when failures do not gate or nothing was
    graded; success otherwise."""
    if summary.grader_errors:
        return "failure"
    if fail_on is FailOn.REGRESSIONS and gate_status(comparison) == GATE_FAIL:
        return "failure"
    if not summary.passed:
        return "failure" if fail_on is FailOn.FAILURES else "neutral"
    return "success" if summary.runs_graded else "neutral"


def _github_http(
    settings: ActionSettings, runner: RunnerEnv, commands: WorkflowCommands
) -> GitHubHttp | None:
    """One session, one deadline (`api-timeout`) for all of the step's GitHub work (the check
    run and the pull-request comment); None without a token or with a malformed API URL."""
    if not settings.token:
        return None
    try:
        return GitHubHttp(
            runner.api_url,
            settings.token,
            deadline_s=settings.api_timeout_s,
            notify=lambda line: commands.echo_untrusted(f"waza-ci: {for_log(line)}"),
        )
    except ValueError as err:
        commands.warning(f"the GitHub API cannot be used: {err}")
        return None


def _publish_check_run(
    settings: ActionSettings,
    runner: RunnerEnv,
    http: GitHubHttp | None,
    *,
    env: Mapping[str, str],
    head_sha: str,
    report: Report,
    conclusion: Conclusion,
    check_summary: str,
    commands: WorkflowCommands,
) -> CheckRunResult | None:
    annotations = build_annotations(report)
    if not settings.token:
        commands.warning("no `github-token` was given, so no check run was posted. " + FIX_HINT)
        _log_annotations(commands, annotations)
        return None
    if http is None:  # the reason was given when the session could not be opened
        _log_annotations(commands, annotations)
        return None
    request = CheckRunRequest(
        name=settings.check_name,
        head_sha=head_sha,
        external_id=_external_id(runner, settings.check_name, env),
        conclusion=conclusion,
        title=check_title(report),
        summary=check_summary,
        text=render_check_text(report),
        annotations=annotations,
        details_url=_run_url(runner),
    )
    try:
        # Not closed here: the session (and its deadline) is shared with the comment step.
        posted = CheckRunClient(http, runner.repository).publish(request)
        if posted.html_url:  # GitHub's text: printed as data, never as a command
            commands.echo_untrusted(f"waza-ci: check run: {for_log(posted.html_url)}")
        return posted
    except ChecksUnavailable as err:
        commands.warning(f"the check run could not be posted: {err}")  # ends with FIX_HINT
    except GitHubError as err:  # DeadlineExceeded included: one warning, the verdict stands
        if err.resource_id is None:
            commands.warning(f"the check run could not be posted: {err}")
        else:
            # The run exists with part of its annotations: say so, point at it, and put
            # only the annotations it is missing into the log.
            commands.warning(
                f"check run {err.resource_id} was posted, but only {err.items_sent} of "
                f"{len(annotations)} annotations reached it: {err}"
            )
            _log_annotations(commands, annotations[err.items_sent :])
            return CheckRunResult(
                id=err.resource_id,
                html_url=err.resource_url or "",
                requests_made=0,
                annotations_sent=err.items_sent,
            )
    except ValueError as err:  # a malformed GITHUB_REPOSITORY or API URL
        commands.warning(f"the check run could not be posted: {err}")
    _log_annotations(commands, annotations)
    return None


def _log_annotations(commands: WorkflowCommands, annotations: Sequence[Annotation]) -> None:
    """The most important annotations as `::error` lines, within GitHub's per-step cap."""
    shown = (
        annotations[:LOG_ANNOTATION_CAP]
        if len(annotations) <= LOG_ANNOTATION_CAP
        else (annotations[: LOG_ANNOTATION_CAP - 1])
    )
    for annotation in shown:
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
            "(GitHub shows at most 10 error annotations per step)",
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


def _run_url(runner: RunnerEnv) -> str | None:
    if not (runner.run_id and runner.repository):
        return None
    return f"{runner.server_url}/{runner.repository}/actions/runs/{runner.run_id}"


def _write_report_json(report: Report, env: Mapping[str, str], commands: WorkflowCommands) -> str:
    """The report JSON under the workspace; its workspace-relative path, or "" if not written.

    One file per step: GITHUB_ACTION names the step (the runner suffixes repeated uses).
    """
    step = re.sub(r"[^A-Za-z0-9_.-]", "_", env.get("GITHUB_ACTION", "")) or "waza-ci"
    relative = f"{REPORT_JSON_DIR}/report-{step}.json"
    try:
        write_text_files({Path(relative): report_json_text(report)})
    except WazaCiError as err:  # a reporting problem must not hide the verdict
        commands.warning(f"could not write the report JSON: {err}")
        return ""
    return relative


def _step_outputs(
    outcome: Outcome, check: CheckRunResult | None, report_json: str
) -> dict[str, str]:
    summary = outcome.summary
    return {
        "failed-tasks": json.dumps(outcome.report.failed_tasks, ensure_ascii=False),
        "report-json": report_json,
        "passed": "true" if summary.passed and not summary.grader_errors else "false",
        "overall-score": f"{summary.overall_score:.4f}",
        "runs-graded": str(summary.runs_graded),
        "runs-failed": str(summary.runs_failed),
        "grader-errors": str(summary.grader_errors),
        "check-run-id": str(check.id) if check else "",
        "check-run-url": check.html_url if check else "",
        "output-file": str(outcome.output_file) if outcome.output_file else "",
    }
