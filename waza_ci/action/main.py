"""The GitHub Action: step inputs -> the engine -> step outputs and exit code.

A thin shell like the CLI: the inputs are `settings.py`'s, the grading and the reporting are
the engine's (`grade_and_publish`). What this module owns is the log while the engine works
(untrusted text only inside a `::stop-commands::` fence, the token masked first) and writing
what the engine returns.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, TextIO

from waza_ci import __version__
from waza_ci.action.settings import INPUT_DEFAULTS, ActionSettings, load_settings
from waza_ci.errors import WazaCiError
from waza_ci.github.commands import WorkflowCommands
from waza_ci.github.env_files import write_outputs
from waza_ci.github.environment import RunnerEnv, input_value, resolve_head_sha
from waza_ci.publish.options import PublishOptions
from waza_ci.report.text_safety import for_log  # re only: cheap

if TYPE_CHECKING:
    from waza_ci.engine import Evaluation, EvaluationRequest
    from waza_ci.gate.history_io import HistoryOptions
    from waza_ci.judge.options import JudgeSetup

# The engine (and with it the report renderers and the GitHub client) is imported where it is
# first used, not here: the container's first log line (or an input error) does not wait for it.

# INPUT_DEFAULTS stays importable from here, where it lived before the split.
__all__ = ["INPUT_DEFAULTS", "main"]

NO_BASELINE_NOTE = "no `baseline` input given: nothing to compare with (gate: no-baseline)"


def main(env: Mapping[str, str], stdout: TextIO = sys.stdout) -> int:
    """Run the action; returns the exit code (0 passed, 1 failed, 2 bad input, 3 errors)."""
    commands = WorkflowCommands(stdout)
    token = input_value(env, "github-token")
    if token:
        commands.add_mask(token)  # before anything else can print it
    repo_root = env.get("GITHUB_WORKSPACE") or os.getcwd()
    try:
        settings = load_settings(env)
        stdout.write(_start_line(settings))  # before the engine loads: the log shows life at once
        stdout.flush()
        runner = RunnerEnv.from_mapping(env)
        head_sha = (
            resolve_head_sha(runner, settings.commit)
            # A shard's verdict is partial: only the merge job posts the check run.
            if settings.check_run and settings.shard is None and runner.in_actions
            else None
        )
        from waza_ci.engine import grade_and_publish  # noqa: PLC0415 - see the imports above

        result = grade_and_publish(
            _request(settings, env, stdout, runner, head_sha, repo_root=repo_root),
            _publish_options(settings, head_sha),
            runner=runner,
            env=env,
            commands=commands,
            stdout=stdout,
            observer=_ActionLog(commands, stdout, repo_root=repo_root),
        )
    except WazaCiError as err:
        _report_error(commands, err, repo_root=repo_root)
        return err.exit_code
    if runner.output_path:
        try:
            write_outputs(runner.output_path, result.outputs)
        except OSError as err:
            commands.warning(f"could not write the step outputs to {runner.output_path}: {err}")
    return result.exit_code


def _start_line(settings: ActionSettings) -> str:
    """What this step is about to do, in one log line."""
    results = ", ".join(settings.results)
    if settings.merge:
        doing = f"merging the shards' partial results {results}"
    else:
        shard = f" (shard {settings.shard.index}/{settings.shard.count})" if settings.shard else ""
        doing = f"grading {settings.eval_path} against {results}{shard}"
    return f"waza-ci {__version__}: {for_log(doing)}\n"


def _request(
    settings: ActionSettings,
    env: Mapping[str, str],
    stdout: TextIO,
    runner: RunnerEnv,
    head_sha: str | None,
    *,
    repo_root: str,
) -> EvaluationRequest:
    import tempfile  # noqa: PLC0415 - see the imports above

    from waza_ci.engine import EvaluationRequest, GradeRequest, OutputRequest  # noqa: PLC0415
    from waza_ci.engine.modules import ModuleSettings, default_module_cache  # noqa: PLC0415
    from waza_ci.judge.options import credential_variables  # noqa: PLC0415
    from waza_ci.report.model import SourceLinks  # noqa: PLC0415
    from waza_ci.sandbox.isolation import grader_environment  # noqa: PLC0415

    def progress(line: str) -> None:
        stdout.write(f"waza-ci: {for_log(line)}\n")
        stdout.flush()

    grading = (
        None
        if settings.merge
        else GradeRequest(
            eval_path=settings.eval_path,
            results=settings.results,
            task=settings.task,
            workspace=settings.workspace,
            working_directory=settings.working_directory,
            jobs=settings.jobs,
            grader_env=grader_environment(env, also=credential_variables(settings.judge)),
            temp_dir=env.get("TMPDIR") or tempfile.gettempdir(),
            progress=progress,
            shard=settings.shard,
            shard_weights=settings.shard_weights,
            max_results_bytes=settings.max_results_bytes,
            judge=_judge_setup(settings, env),
            modules=ModuleSettings(
                cache_root=settings.module_cache or default_module_cache(env),
                api_url=runner.api_url,
                token=settings.token,
                deadline_s=settings.api_timeout_s,
            ),
        )
    )
    return EvaluationRequest(
        grading=grading,
        partials=settings.results if settings.merge else (),
        baseline=settings.gate.baseline,
        gate=settings.gate.options,
        policy=settings.policy,
        min_task_pass_rate=settings.gate.min_task_pass_rate,
        no_baseline_note=NO_BASELINE_NOTE,
        outputs=OutputRequest(
            output=settings.output,
            html=settings.html_report,
            benchmark_json=settings.benchmark_json,
        ),
        history=_history_options(settings, runner),
        repo_root=runner.workspace or repo_root,
        links=SourceLinks(runner.server_url, runner.repository, head_sha) if head_sha else None,
    )


def _judge_setup(settings: ActionSettings, env: Mapping[str, str]) -> JudgeSetup | None:
    """The judge's setup; for `judge: copilot` the step's `github-token` stands in for a
    GITHUB_TOKEN the step's `env:` does not set (the job's token, under `permissions:
    copilot-requests: write`)."""
    from waza_ci.judge.options import judge_setup  # noqa: PLC0415
    from waza_ci.judge.providers import Provider  # noqa: PLC0415

    options = settings.judge
    if not options.active:
        return None
    judge_env = dict(env)
    if options.provider is Provider.COPILOT and settings.token and "GITHUB_TOKEN" not in env:
        judge_env["GITHUB_TOKEN"] = settings.token
    fork = env.get("GITHUB_EVENT_NAME") == "pull_request" and _from_fork(env)
    why = (
        "a pull request from a fork gets no secrets and no Copilot token: the saved verdicts "
        "are kept"
        if fork
        else ""
    )
    return judge_setup(options, judge_env, why)


def _from_fork(env: Mapping[str, str]) -> bool:
    """The event payload says the pull request's head is another repository."""
    import json  # noqa: PLC0415

    path = env.get("GITHUB_EVENT_PATH")
    if not path:
        return False
    try:
        with open(path, encoding="utf-8") as stream:
            event = json.load(stream)
        head = event["pull_request"]["head"]["repo"]["full_name"]
        return bool(head) and head != env.get("GITHUB_REPOSITORY")
    except (OSError, ValueError, KeyError, TypeError):
        return False


def _history_options(settings: ActionSettings, runner: RunnerEnv) -> HistoryOptions:
    from waza_ci.gate.history_io import HistoryOptions, RunContext  # noqa: PLC0415

    given = settings.history
    return HistoryOptions(
        path=given.path,
        record=given.record,
        keep=given.keep,
        window=given.window,
        context=RunContext.of(runner),
    )


def _publish_options(settings: ActionSettings, head_sha: str | None) -> PublishOptions:
    return PublishOptions(
        check_name=settings.check_name,
        job_summary=settings.job_summary,
        head_sha=head_sha,
        output_file=settings.output,
        html_report=settings.html_report,
        token=settings.token,
        api_timeout_s=settings.api_timeout_s,
        report=settings.report,
        comment=settings.gate.comment,
        partial=settings.shard is not None,
    )


class _ActionLog:
    """The engine's observer: the step's log while grading, and the verdict once known."""

    def __init__(self, commands: WorkflowCommands, stdout: TextIO, *, repo_root: str) -> None:
        self._commands = commands
        self._stdout = stdout
        self._repo_root = repo_root

    @contextmanager
    def grading(self) -> Iterator[None]:
        # Task ids, file names and grader output are untrusted: nothing printed while grading
        # may act as a workflow command. The progress lines fold away in a log group.
        commands = self._commands
        with commands.group("waza-ci: running graders"), commands.stop_commands():
            yield

    def graded(self, evaluation: Evaluation) -> None:
        from waza_ci.report.sources import repo_relative_path  # noqa: PLC0415 - engine loaded
        from waza_ci.report.terminal import render_text  # noqa: PLC0415

        for warning in evaluation.warnings:  # an annotation on the file and line
            where = warning.location
            self._commands.warning(
                f"waza-ci: {warning.message}",
                file=repo_relative_path(where.file, self._repo_root) if where else None,
                line=where.line if where else None,
            )
        with self._commands.stop_commands():
            self._stdout.write(render_text(evaluation, summary_hint="the job summary"))


def _report_error(commands: WorkflowCommands, err: WazaCiError, *, repo_root: str) -> None:
    """One `::error`; pointing at the file and line when the error has a YAML/JSON line."""
    location = err.location
    if location is None or location.line is None:
        commands.error(str(err), title="waza-ci")
        return
    from waza_ci.report.sources import repo_relative_path  # noqa: PLC0415 - see the imports

    commands.error(
        err.message,
        file=repo_relative_path(location.file, repo_root) or None,
        line=location.line,
        title="waza-ci",
    )
