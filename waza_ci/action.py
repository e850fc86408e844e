"""The GitHub Action: step inputs -> engine -> job summary, check run, outputs, exit code.

A thin shell like the CLI: the grading is the engine's, the GitHub I/O is `waza_ci.github`'s.
What this module decides is the order (the verdict is computed before any network call), the
fallbacks (a refused check run becomes workflow-command annotations), and what reaches the log
(untrusted text only inside a `::stop-commands::` fence, the token masked first).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TextIO

from waza_ci.baseline import BaselineComparison
from waza_ci.baseline_io import (
    GATE_FAIL,
    compare_with_baseline,
    gate_status,
    gated_exit_code,
    load_baseline,
)
from waza_ci.engine import (
    GradeReport,
    GradeRequest,
    PreparedGrading,
    merge_grading,
    prepare_grading,
    run_grading,
)
from waza_ci.errors import FailOn, InputError, WazaCiError
from waza_ci.files import MAX_RESULTS_BYTES, MIB
from waza_ci.gate_step import (
    GATE_INPUT_DEFAULTS,
    GateSettings,
    boolean_input,
    choice_input,
    gate_outputs,
    load_gate_settings,
    missing_baseline_note,
)
from waza_ci.github.checks import (
    FIX_HINT,
    CheckRunClient,
    CheckRunRequest,
    CheckRunResult,
    ChecksUnavailable,
    Conclusion,
)
from waza_ci.github.http import GitHubError, GitHubHttp
from waza_ci.github.runner import (
    RunnerEnv,
    WorkflowCommands,
    append_summary,
    input_value,
    resolve_head_sha,
    write_outputs,
)
from waza_ci.grading import cancel_on_signals, grader_environment, stop_if_cancelled
from waza_ci.outputs import OutputPlan, plan_outputs, write_text_files
from waza_ci.pr_comment import CommentContext, publish_comment
from waza_ci.report._text import for_log
from waza_ci.report.annotations import Annotation, build_annotations, repo_relative_path
from waza_ci.report.markdown import JOB_SUMMARY_LIMIT, check_title, render_check_text
from waza_ci.report.model import Report, SourceLinks, build_report, report_json_text
from waza_ci.report.regressions import (
    flaky_of,
    render_check_summary_with_regressions,
    render_regressions_text,
    render_summary_with_regressions,
)
from waza_ci.report.screen import ListMode
from waza_ci.report.text import render_text
from waza_ci.results import ResultsFile, write_results
from waza_ci.scoring import GradeSummary
from waza_ci.shard import Shard, parse_shard, shard_note

# GitHub shows at most 10 error annotations per step from workflow commands; the rest vanish.
LOG_ANNOTATION_CAP = 10

# The defaults of action.yml, for runs outside the runner (which always passes every input).
# tests/test_action_yml.py keeps the two in step.
DEFAULT_CHECK_NAME = "waza program graders"
INPUT_DEFAULTS: Mapping[str, str] = {
    "workspace": ".",
    "working-directory": ".",
    "task": "",
    "jobs": "",
    "fail-on": "failures",
    "output": "",
    "check-name": DEFAULT_CHECK_NAME,
    "check-run": "true",
    "job-summary": "true",
    "commit": "",
    "report": "failures",
    "mode": "grade",
    "shard": "",
    "shard-weights": "",
    "api-timeout": "60",
    "max-results-mib": str(MAX_RESULTS_BYTES // MIB),
    **GATE_INPUT_DEFAULTS,
}
MODES = ("grade", "merge")
REPORT_MODES: tuple[ListMode, ...] = ("failures", "all")
REPORT_JSON_DIR = ".waza-ci"
"""Where the report JSON goes, relative to the workspace: the only folder a Docker action
shares with later steps (RUNNER_TEMP is not mounted into the container)."""


@dataclass(frozen=True)
class ActionSettings:
    """The step's inputs, validated; every error names the input."""

    eval_path: Path
    results: tuple[str, ...]
    workspace: Path
    working_directory: Path
    task: str | None
    jobs: int | None
    fail_on: FailOn
    output: Path | None
    check_name: str
    check_run: bool
    job_summary: bool
    commit: str | None
    api_timeout_s: float = 60.0
    max_results_bytes: int = MAX_RESULTS_BYTES
    gate: GateSettings = field(default_factory=GateSettings)
    token: str | None = field(default=None, repr=False)
    report: ListMode = "failures"
    merge: bool = False
    """`mode: merge`: `results` are the partial files of a sharded grading."""
    shard: Shard | None = None
    shard_weights: tuple[Path, ...] = ()


def load_settings(env: Mapping[str, str]) -> ActionSettings:
    def get(name: str) -> str:
        return input_value(env, name) or INPUT_DEFAULTS.get(name, "")

    results = tuple(line.strip() for line in get("results").splitlines() if line.strip())
    if get("mode") not in MODES:
        raise InputError(f"input `mode` must be `grade` or `merge`, not {get('mode')!r}")
    merge = get("mode") == "merge"
    if not get("eval") and not merge:
        raise InputError("input `eval` is required: the path to the eval spec (eval.yaml)")
    if not results:
        raise InputError("input `results` is required: results files or globs, one per line")
    if merge and get("shard"):
        raise InputError("input `shard` is for `mode: grade`; `mode: merge` joins all shards")
    if get("shard") and get("baseline"):
        raise InputError("input `baseline` compares a whole grading: give it to the merge job")
    if get("shard") and not get("output"):
        raise InputError("input `shard` needs `output`: the partial results file the merge reads")
    weights = tuple(
        Path(line.strip()) for line in get("shard-weights").splitlines() if line.strip()
    )
    return ActionSettings(
        eval_path=Path(get("eval")),
        results=results,
        workspace=Path(get("workspace")),
        working_directory=Path(get("working-directory")),
        task=get("task") or None,
        jobs=_jobs(get("jobs")),
        fail_on=choice_input("fail-on", get("fail-on"), FailOn),
        output=Path(get("output")) if get("output") else None,
        check_name=get("check-name"),
        check_run=boolean_input("check-run", get("check-run")),
        job_summary=boolean_input("job-summary", get("job-summary")),
        commit=get("commit") or None,
        api_timeout_s=_seconds("api-timeout", get("api-timeout")),
        max_results_bytes=_mebibytes("max-results-mib", get("max-results-mib")),
        gate=load_gate_settings(get),
        token=input_value(env, "github-token"),
        report=_report_mode(get("report")),
        merge=merge,
        shard=parse_shard(get("shard"), "input `shard`") if get("shard") else None,
        shard_weights=weights,
    )


def _report_mode(value: str) -> ListMode:
    for mode in REPORT_MODES:
        if value == mode:
            return mode
    allowed = " or ".join(f"`{m}`" for m in REPORT_MODES)
    raise InputError(f"input `report` must be {allowed}, not {value!r}")


def _jobs(value: str) -> int | None:
    if not value:
        return None
    if not re.fullmatch(r"[0-9]+", value) or int(value) < 1:  # ASCII digits only
        raise InputError(f"input `jobs` must be a whole number of at least 1, not {value!r}")
    return int(value)


def _mebibytes(name: str, value: str) -> int:
    if not re.fullmatch(r"[0-9]{1,7}", value) or int(value) < 1:  # ASCII digits only
        raise InputError(f"input `{name}` must be a whole number of MiB, at least 1, not {value!r}")
    return int(value) * MIB


def _seconds(name: str, value: str) -> float:
    # Plain decimal seconds only: "inf", "nan" or "1e9" would make the deadline meaningless.
    if not re.fullmatch(r"[0-9]{1,6}(\.[0-9]{1,3})?", value) or float(value) <= 0:
        raise InputError(f"input `{name}` must be a number of seconds above 0, not {value!r}")
    return float(value)


def main(env: Mapping[str, str], stdout: TextIO = sys.stdout) -> int:
    """Run the action; returns the exit code (0 passed, 1 failed, 2 bad input, 3 errors)."""
    commands = WorkflowCommands(stdout)
    token = input_value(env, "github-token")
    if token:
        commands.add_mask(token)  # before anything else can print it
    try:
        settings = load_settings(env)
        runner = RunnerEnv.from_mapping(env)
        head_sha = (
            resolve_head_sha(runner, settings.commit)
            # A shard's verdict is partial: only the merge job posts the check run.
            if settings.check_run and settings.shard is None and runner.in_actions
            else None
        )
        baseline_files, found = load_baseline(settings.gate.baseline)
        baseline_note = missing_baseline_note(settings.gate, settings.fail_on, found)
        report, plan, results_files = _report(
            settings, env, commands, stdout, repo_root=env.get("GITHUB_WORKSPACE") or os.getcwd()
        )
        output_file = _write_output_file(settings, plan, report)
    except WazaCiError as err:
        _report_error(commands, err, repo_root=env.get("GITHUB_WORKSPACE") or os.getcwd())
        return err.exit_code
    summary = report.summary
    links = SourceLinks(runner.server_url, runner.repository, head_sha) if head_sha else None
    model = build_report(summary, repo_root=runner.workspace or os.getcwd(), links=links)
    comparison = compare_with_baseline(
        summary, results_files, baseline_files, task=settings.task, options=settings.gate.options
    )
    flaky = flaky_of(summary.tasks)
    if baseline_note:
        commands.warning(baseline_note)
    with commands.stop_commands():
        stdout.write(render_regressions_text(comparison, flaky, baseline_note=baseline_note))
    note = shard_note(settings.shard)
    markdown = note + render_summary_with_regressions(
        summary,
        model,
        comparison,
        baseline_note=baseline_note,
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
    http = _github_http(settings, runner, commands) if runner.in_actions else None
    try:
        check = (
            _publish(
                settings,
                runner,
                http,
                env=env,
                head_sha=head_sha,
                summary=summary,
                report=model,
                conclusion=conclusion_of(summary, settings.fail_on, comparison),
                check_summary=render_check_summary_with_regressions(
                    summary, model, comparison, baseline_note=baseline_note, mode=settings.report
                ),
                commands=commands,
            )
            if head_sha
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
                summary=summary,
                comparison=comparison,
                baseline_note=baseline_note,
                notice=lambda line: commands.notice(line, title="waza-ci"),
                warn=lambda line: commands.warning(line, title="waza-ci"),
            )
    finally:
        if http is not None:
            http.close()
    report_json = _write_report_json(model, env, commands)
    if runner.output_path:
        outputs = _step_outputs(summary, check, output_file, model, report_json)
        outputs |= gate_outputs(summary, comparison, len(flaky))
        try:
            write_outputs(runner.output_path, outputs)
        except OSError as err:
            commands.warning(f"could not write the step outputs to {runner.output_path}: {err}")
    return gated_exit_code(summary, settings.fail_on, comparison)


def _request(settings: ActionSettings, env: Mapping[str, str], stdout: TextIO) -> GradeRequest:
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
    # Task ids, file names and grader output are untrusted: nothing printed while grading
    # may act as a workflow command. The progress lines fold away in a log group.
    with commands.group("waza-ci: running program graders"), commands.stop_commands():
        report = run_grading(prepared, min_task_pass_rate=min_task_pass_rate)
    _print_verdict(report, commands, stdout, repo_root=repo_root)
    return report


def _print_verdict(
    report: GradeReport, commands: WorkflowCommands, stdout: TextIO, *, repo_root: str
) -> None:
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


def _write_output_file(
    settings: ActionSettings, plan: OutputPlan, report: GradeReport
) -> Path | None:
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
    commands.error(
        err.message,
        file=repo_relative_path(location.file, repo_root) or None,
        line=location.line,
        title="waza-ci",
    )


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


def _publish(
    settings: ActionSettings,
    runner: RunnerEnv,
    http: GitHubHttp | None,
    *,
    env: Mapping[str, str],
    head_sha: str,
    summary: GradeSummary,
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


def _step_outputs(
    summary: GradeSummary,
    check: CheckRunResult | None,
    output_file: Path | None,
    report: Report,
    report_json: str,
) -> dict[str, str]:
    return {
        "failed-tasks": json.dumps(report.failed_tasks, ensure_ascii=False),
        "report-json": report_json,
        "passed": "true" if summary.passed and not summary.grader_errors else "false",
        "overall-score": f"{summary.overall_score:.4f}",
        "runs-graded": str(summary.runs_graded),
        "runs-failed": str(summary.runs_failed),
        "grader-errors": str(summary.grader_errors),
        "check-run-id": str(check.id) if check else "",
        "check-run-url": check.html_url if check else "",
        "output-file": str(output_file) if output_file else "",
    }
