"""The GitHub Action: step inputs -> engine -> job summary, check run, outputs, exit code.

A thin shell like the CLI: the inputs are `action_settings`'s, the grading is the engine's,
the reporting after it is `action_publish`'s (on `waza_ci.github` for the GitHub I/O). What
this module decides is the order (the verdict is computed before any network call) and what
reaches the log while grading (untrusted text only inside a `::stop-commands::` fence, the
token masked first).
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from waza_ci import __version__
from waza_ci.action.settings import INPUT_DEFAULTS, ActionSettings, load_settings
from waza_ci.errors import WazaCiError
from waza_ci.gate.step import missing_baseline_note
from waza_ci.github.runner import RunnerEnv, WorkflowCommands, input_value, resolve_head_sha
from waza_ci.report._text import for_log  # re only: cheap

if TYPE_CHECKING:
    from waza_ci.engine import GradeReport, GradeRequest, PreparedGrading
    from waza_ci.outputs import OutputPlan
    from waza_ci.waza.results import ResultsFile

# The engine, the report renderers and the GitHub client are imported where they are first
# used, not here: the container's first log line (or an input error) does not wait for them.

# INPUT_DEFAULTS stays importable from here, where it lived before the split.
__all__ = ["INPUT_DEFAULTS", "main"]


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
        from waza_ci.gate.baseline_io import gated_exit_code, load_baseline  # noqa: PLC0415 - see above

        baseline_files, found = load_baseline(settings.gate.baseline)
        baseline_note = missing_baseline_note(settings.gate, settings.fail_on, found)
        report, plan, results_files = _report(settings, env, commands, stdout, repo_root=repo_root)
        output_file = _write_output_file(settings, plan, report)
    except WazaCiError as err:
        _report_error(commands, err, repo_root=repo_root)
        return err.exit_code
    import waza_ci.publish.step as publish  # noqa: PLC0415 - see the imports above

    outcome = publish.assess(
        settings,
        runner,
        report.summary,
        results_files,
        baseline_files,
        baseline_note=baseline_note,
        head_sha=head_sha,
        output_file=output_file,
        commands=commands,
        stdout=stdout,
    )
    publish.write_job_summary(settings, runner, outcome, commands, stdout)
    check = publish.publish_to_github(settings, runner, env, outcome, commands)
    publish.write_step_outputs(runner, env, outcome, check, commands)
    return gated_exit_code(outcome.summary, settings.fail_on, outcome.comparison)


def _start_line(settings: ActionSettings) -> str:
    """What this step is about to do, in one log line."""
    results = ", ".join(settings.results)
    if settings.merge:
        doing = f"merging the shards' partial results {results}"
    else:
        shard = f" (shard {settings.shard.index}/{settings.shard.count})" if settings.shard else ""
        doing = f"grading {settings.eval_path} against {results}{shard}"
    return f"waza-ci {__version__}: {for_log(doing)}\n"


def _request(settings: ActionSettings, env: Mapping[str, str], stdout: TextIO) -> GradeRequest:
    import tempfile  # noqa: PLC0415 - see the imports above

    from waza_ci.engine import GradeRequest  # noqa: PLC0415
    from waza_ci.grading import grader_environment  # noqa: PLC0415

    def progress(line: str) -> None:
        stdout.write(f"waza-ci: {for_log(line)}\n")
        stdout.flush()

    return GradeRequest(
        eval_path=settings.eval_path,
        results=settings.results,
        task=settings.task,
        workspace=settings.workspace,
        working_directory=settings.working_directory,
        jobs=settings.jobs,
        grader_env=grader_environment(env),
        temp_dir=env.get("TMPDIR") or tempfile.gettempdir(),
        progress=progress,
        shard=settings.shard,
        shard_weights=settings.shard_weights,
        max_results_bytes=settings.max_results_bytes,
    )


def _report(
    settings: ActionSettings,
    env: Mapping[str, str],
    commands: WorkflowCommands,
    stdout: TextIO,
    *,
    repo_root: str,
) -> tuple[GradeReport, OutputPlan, tuple[ResultsFile, ...]]:
    """Grade (all tasks, or one shard's) or merge the shards' partials; output paths are
    checked before any grader runs. Also returns the graded results files (for the golden
    flags the regression gate reads)."""
    from waza_ci.engine import merge_grading, prepare_grading  # noqa: PLC0415 - see the imports
    from waza_ci.grading import cancel_on_signals, stop_if_cancelled  # noqa: PLC0415
    from waza_ci.outputs import plan_outputs  # noqa: PLC0415

    if settings.merge:
        report, partials = merge_grading(settings.results)
        rate = settings.gate.min_task_pass_rate
        report = replace(report, summary=replace(report.summary, min_task_pass_rate=rate))
        names = [r.source.name for r in report.regraded]
        plan = plan_outputs(settings.output, None, names, partials)
        _print_verdict(report, commands, stdout, repo_root=repo_root)
        return report, plan, tuple(r.source for r in report.regraded)
    prepared = prepare_grading(_request(settings, env, stdout))
    plan = plan_outputs(
        settings.output,
        None,
        [r.name for r in prepared.results_files],
        [r.path for r in prepared.results_files],
    )
    with cancel_on_signals():  # a cancelled job still removes every context directory
        report = _grade(
            prepared,
            commands,
            stdout,
            repo_root=repo_root,
            min_task_pass_rate=settings.gate.min_task_pass_rate,
        )
        stop_if_cancelled()  # a signal after the last grader: still nothing written
    return report, plan, prepared.results_files


def _grade(
    prepared: PreparedGrading,
    commands: WorkflowCommands,
    stdout: TextIO,
    *,
    repo_root: str,
    min_task_pass_rate: float,
) -> GradeReport:
    from waza_ci.engine import run_grading  # noqa: PLC0415 - see the imports above

    # Task ids, file names and grader output are untrusted: nothing printed while grading
    # may act as a workflow command. The progress lines fold away in a log group.
    with commands.group("waza-ci: running program graders"), commands.stop_commands():
        report = run_grading(prepared, min_task_pass_rate=min_task_pass_rate)
    _print_verdict(report, commands, stdout, repo_root=repo_root)
    return report


def _print_verdict(
    report: GradeReport, commands: WorkflowCommands, stdout: TextIO, *, repo_root: str
) -> None:
    from waza_ci.report.annotations import repo_relative_path  # noqa: PLC0415 - see the imports
    from waza_ci.report.build import build_report  # noqa: PLC0415
    from waza_ci.report.text import render_text  # noqa: PLC0415

    for warning in report.warnings:  # an annotation on the file and line it is about
        where = warning.location
        commands.warning(
            f"waza-ci: {warning.message}",
            file=repo_relative_path(where.file, repo_root) if where else None,
            line=where.line if where else None,
        )
    with commands.stop_commands():
        model = build_report(report.summary, repo_root=repo_root)
        stdout.write(render_text(model, summary_hint="the job summary"))


def _write_output_file(
    settings: ActionSettings, plan: OutputPlan, report: GradeReport
) -> Path | None:
    from waza_ci.outputs import write_text_files  # noqa: PLC0415 - see the imports above
    from waza_ci.waza.results import write_results  # noqa: PLC0415

    if settings.output is None:
        return None
    write_text_files(
        {
            plan.results[r.source.name]: functools.partial(write_results, r.raw)
            for r in report.regraded
        }
    )
    return settings.output


def _report_error(commands: WorkflowCommands, err: WazaCiError, *, repo_root: str) -> None:
    """One `::error`; pointing at the file and line when the error has a YAML/JSON line."""
    location = err.location
    if location is None or location.line is None:
        commands.error(str(err), title="waza-ci")
        return
    from waza_ci.report.annotations import repo_relative_path  # noqa: PLC0415 - see the imports

    commands.error(
        err.message,
        file=repo_relative_path(location.file, repo_root) or None,
        line=location.line,
        title="waza-ci",
    )
