"""The action's reporting after grading, in order: the regressions in the log, the job summary,
the check run (or log annotations), the pull-request comment, the report JSON, and the step
outputs it hands back to the action.

Every step here is reporting: a problem in one is a warning, never a change of the verdict or
the exit code the grading decided. Untrusted text reaches the log only inside a
`::stop-commands::` fence or escaped as data.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TextIO

from waza_ci.github.checks import CheckRunResult
from waza_ci.github.commands import WorkflowCommands
from waza_ci.github.env_files import append_summary
from waza_ci.github.environment import RunnerEnv
from waza_ci.github.http import GitHubHttp
from waza_ci.publish.check_run import open_session, publish_check_run, run_url
from waza_ci.publish.comment import CommentContext, publish_comment
from waza_ci.publish.options import PublishOptions
from waza_ci.publish.outputs import (
    check_run_outputs,
    html_report_note,
    step_outputs,
    write_report_json,
)
from waza_ci.report.evaluation import Evaluation
from waza_ci.report.github_limits import JOB_SUMMARY_BYTES
from waza_ci.report.regressions import (
    render_check_summary_with_regressions,
    render_job_summary,
    render_regressions_text,
)
from waza_ci.report.text_safety import utf8_len


@dataclass(frozen=True)
class StepResult:
    """What the action writes when the step ends."""

    outputs: dict[str, str]
    exit_code: int


def publish(
    evaluation: Evaluation,
    options: PublishOptions,
    *,
    runner: RunnerEnv,
    env: Mapping[str, str],
    commands: WorkflowCommands,
    stdout: TextIO,
) -> StepResult:
    """Report the evaluation everywhere the action reports; returns the step's outputs."""
    if evaluation.baseline_note:
        commands.warning(evaluation.baseline_note)
    with commands.stop_commands():
        stdout.write(render_regressions_text(evaluation))
    _write_job_summary(evaluation, options, runner, commands, stdout)
    check_run = _publish_to_github(evaluation, options, runner, env, commands)
    report_json = write_report_json(evaluation, env, commands)
    outputs = step_outputs(
        evaluation,
        check_run,
        report_json=report_json,
        output_file=options.output_file,
        html_report=options.html_report,
    )
    return StepResult(outputs, evaluation.exit_code)


def _write_job_summary(
    evaluation: Evaluation,
    options: PublishOptions,
    runner: RunnerEnv,
    commands: WorkflowCommands,
    stdout: TextIO,
) -> None:
    """The job summary file inside Actions; outside, the same Markdown on stdout."""
    note = html_report_note(options.html_report)
    markdown = note + render_job_summary(
        evaluation, mode=options.report, limit_bytes=JOB_SUMMARY_BYTES - utf8_len(note)
    )
    if options.job_summary and runner.summary_path:
        try:
            append_summary(runner.summary_path, markdown)
        except OSError as err:  # a reporting problem must not hide the verdict
            commands.warning(f"could not write the job summary to {runner.summary_path}: {err}")
    elif not runner.in_actions:
        stdout.write(markdown)


def _publish_to_github(
    evaluation: Evaluation,
    options: PublishOptions,
    runner: RunnerEnv,
    env: Mapping[str, str],
    commands: WorkflowCommands,
) -> tuple[str, str]:
    """The check run (when there is a head SHA) and the pull-request comment, on one session;
    returns the posted run's id and address as checked for the outputs ("" when none)."""

    def warn(line: str) -> None:
        commands.warning(line, title="waza-ci")

    http = open_session(options, runner, commands) if runner.in_actions else None
    try:
        check = _check_run(evaluation, options, runner, env=env, http=http, commands=commands)
        check_run = check_run_outputs(check, runner.server_url, warn)
        if runner.in_actions and not options.partial:  # a shard's verdict is partial
            publish_comment(
                options.comment,
                CommentContext.from_runner(
                    runner,
                    env,
                    http,
                    has_token=bool(options.token),
                    check_name=options.check_name,
                    check_url=check_run[1] or None,
                    summary_url=run_url(runner),
                ),
                evaluation=evaluation,
                notice=lambda line: commands.notice(line, title="waza-ci"),
                warn=warn,
                log=lambda line: commands.echo_untrusted(f"waza-ci: {line}"),
            )
    finally:
        if http is not None:
            http.close()
    return check_run


def _check_run(
    evaluation: Evaluation,
    options: PublishOptions,
    runner: RunnerEnv,
    *,
    env: Mapping[str, str],
    http: GitHubHttp | None,
    commands: WorkflowCommands,
) -> CheckRunResult | None:
    if not options.head_sha:
        return None
    return publish_check_run(
        options,
        runner,
        http,
        env=env,
        head_sha=options.head_sha,
        evaluation=evaluation,
        check_summary=render_check_summary_with_regressions(evaluation, mode=options.report),
        commands=commands,
    )
