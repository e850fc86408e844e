"""`waza-ci grade …`: argv -> GradeRequest -> engine -> files, stdout JSON, exit code.

`waza-ci gate …` is handed to `gate/cli.py` (waza's gate, with waza's exit codes)."""

from __future__ import annotations

import argparse
import functools
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import waza_ci.cli.gate as gate_cli
from waza_ci import __version__
from waza_ci.errors import EXIT_INPUT_ERROR, FailOn, InputError, WazaCiError
from waza_ci.files import MAX_RESULTS_BYTES, MIB  # constants only: cheap
from waza_ci.report._text import for_log, json_for_log  # re only: cheap

if TYPE_CHECKING:
    from waza_ci.engine import GradeReport
    from waza_ci.gate.baseline import BaselineComparison
    from waza_ci.gate.waza_gate import GateOptions
    from waza_ci.grading import Progress
    from waza_ci.outputs import OutputPlan
    from waza_ci.report.model import Report, SourceLinks
    from waza_ci.shard.plan import Shard
    from waza_ci.waza.results import ResultsFile

# Everything grading needs (pydantic models, YAML, the report) is imported where it is used,
# not here: `waza-ci --help`, a usage error and `--version` start in a few tens of milliseconds.


class _Parser(argparse.ArgumentParser):
    """argparse, with usage errors as one line (exit 2) like every other input error."""

    def error(self, message: str) -> NoReturn:
        line = f"{self.prog}: error: {for_log(message)} (see `{self.prog} --help`)\n"
        self.exit(EXIT_INPUT_ERROR, line)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="waza-ci",
        description="Re-grade saved waza runs with their program graders.",
    )
    parser.add_argument("--version", action="version", version=f"waza-ci {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    grade_cmd = commands.add_parser(
        "grade",
        help="run the eval's program graders against saved runs",
        description="Run every program grader of EVAL_YAML against every saved run, as waza "
        "does, and print waza's GradeOutcome JSON. Exit 0 passed, 1 a run did not pass, "
        "2 bad input, 3 a grader or grading-context error.",
    )
    grade_cmd.add_argument("eval_yaml", metavar="EVAL_YAML", type=Path, help="the eval spec")
    grade_cmd.add_argument(
        "--results",
        action="append",
        nargs="+",
        required=True,
        metavar="FILE",
        help="waza results file(s); globs allowed; repeatable",
    )
    grade_cmd.add_argument("--task", help="grade this task id only")
    grade_cmd.add_argument(
        "--workspace",
        type=Path,
        default=Path(),
        metavar="DIR",
        help="the post-execution workspace, passed as WAZA_WORKSPACE_DIR (default: .)",
    )
    grade_cmd.add_argument(
        "--working-directory",
        type=Path,
        default=Path(),
        metavar="DIR",
        help="the graders' current directory (default: .)",
    )
    grade_cmd.add_argument(
        "--output",
        type=Path,
        metavar="PATH",
        help="write the regraded results file (a folder when several results files are given)",
    )
    grade_cmd.add_argument("--summary", type=Path, metavar="FILE", help="write the Markdown report")
    _add_report_arguments(grade_cmd)
    grade_cmd.add_argument(
        "--jobs",
        type=_positive_int,
        metavar="N",
        help="concurrent grader executions (default: number of CPUs)",
    )
    grade_cmd.add_argument(
        "--fail-on",
        type=FailOn,
        choices=list(FailOn),
        default=FailOn.FAILURES,
        help="'failures' (default): exit 1 when a task did not pass; 'errors': only grader "
        "and grading-context errors fail (exit 3); 'regressions': exit 1 only when the "
        "regression gate against --baseline fails",
    )
    grade_cmd.add_argument(
        "--max-results-mib",
        type=_positive_int,
        default=MAX_RESULTS_BYTES // MIB,
        metavar="N",
        help="refuse a results file larger than N MiB (default: %(default)s)",
    )
    _add_baseline_arguments(grade_cmd)
    grade_cmd.add_argument("-v", "--verbose", action="store_true", help="more progress detail")
    _add_shard_arguments(grade_cmd)
    _add_merge_command(commands)
    gate_cmd = commands.add_parser(
        "gate",
        help="waza's regression gate: compare a results file with a baseline",
        description=gate_cli.build_gate_parser().description,
    )
    gate_cli.add_gate_arguments(gate_cmd)
    return parser


def _add_report_arguments(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--report-json",
        type=Path,
        metavar="PATH",
        help="write the machine-readable report (per task and grader: status, reason, runs, "
        "durations, YAML line)",
    )
    command.add_argument(
        "--report",
        choices=["failures", "all"],
        default="failures",
        help="'failures' (default): passing tasks are listed compactly in --summary; "
        "'all': every task and grader in detail",
    )


def _add_baseline_arguments(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--baseline",
        action="append",
        default=[],
        metavar="FILE",
        help="compare with this results file (path or glob; a missing one is a warning)",
    )
    command.add_argument(
        "--min-task-pass-rate",
        type=_rate,
        default=1.0,
        metavar="R",
        help="a task passes when at least this share of its runs pass (default 1.0)",
    )
    gate_cli.add_gate_policy_arguments(command)


def _add_shard_arguments(grade_cmd: argparse.ArgumentParser) -> None:
    grade_cmd.add_argument(
        "--shard",
        type=_shard,
        metavar="I/N",
        help="grade only shard I of N and write partial results files for `waza-ci merge`",
    )
    grade_cmd.add_argument(
        "--shard-weights",
        type=Path,
        action="append",
        default=[],
        metavar="FILE",
        help="balance the shards by the grader durations in this earlier regraded results "
        "file; repeatable",
    )


def _add_merge_command(commands: Any) -> None:
    merge_cmd = commands.add_parser(
        "merge",
        help="join the partial results files of `grade --shard` into one verdict",
        description="Check that PARTIAL files cover every shard exactly once and come from "
        "the same inputs, then report exactly as one unsharded `grade` would. Exit codes as "
        "for grade; a missing, duplicate or mismatched shard is exit 2.",
    )
    merge_cmd.add_argument("partials", nargs="+", metavar="PARTIAL", help="paths or globs")
    merge_cmd.add_argument("--output", type=Path, metavar="PATH", help="as for grade")
    merge_cmd.add_argument("--summary", type=Path, metavar="FILE", help="as for grade")
    _add_report_arguments(merge_cmd)
    merge_cmd.add_argument(
        "--fail-on", type=FailOn, choices=list(FailOn), default=FailOn.FAILURES, help="as for grade"
    )
    _add_baseline_arguments(merge_cmd)


def main(argv: Sequence[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else list(argv)
    if arguments[:1] == ["gate"]:  # its own parser: waza's exit 3 for usage errors
        return gate_cli.main(arguments[1:], sys.stdout, os.environ.get("GITHUB_STEP_SUMMARY"))
    args = build_parser().parse_args(arguments)
    from waza_ci.grading import cancel_on_signals  # noqa: PLC0415 - see the imports above

    try:
        if args.command == "merge":
            return _merge(args)
        with cancel_on_signals():
            return _grade(args)
    except WazaCiError as err:
        print(f"waza-ci: error: {for_log(str(err))}", file=sys.stderr)
        return err.exit_code


def _grade(args: argparse.Namespace) -> int:
    # Deferred (see the imports above); by now the arguments are known to be usable.
    import tempfile  # noqa: PLC0415

    from waza_ci.engine import GradeRequest, prepare_grading, run_grading  # noqa: PLC0415
    from waza_ci.gate.baseline_io import compare_with_baseline  # noqa: PLC0415
    from waza_ci.grading import grader_environment  # noqa: PLC0415
    from waza_ci.outputs import plan_outputs  # noqa: PLC0415

    patterns = [pattern for group in args.results for pattern in group]
    request = GradeRequest(
        eval_path=args.eval_yaml,
        results=patterns,
        task=args.task,
        workspace=args.workspace,
        working_directory=args.working_directory,
        jobs=args.jobs,
        grader_env=grader_environment(os.environ),
        temp_dir=os.environ.get("TMPDIR") or tempfile.gettempdir(),
        progress=_stderr_progress() if args.verbose else None,
        shard=args.shard,
        shard_weights=args.shard_weights,
        max_results_bytes=args.max_results_mib * MIB,
    )
    if args.shard and args.baseline:
        raise InputError("--baseline compares a whole grading; give it to `merge`, not --shard")
    if args.shard is not None and args.output is None:
        raise InputError("--shard needs --output: the partial results file `merge` reads")
    options, baseline_files, note = _baseline(args)
    prepared = prepare_grading(request)
    # Refuse an unusable --output/--summary before any grader runs: a usage error writes
    # nothing and grades nothing.
    plan = plan_outputs(
        args.output,
        args.summary,
        [r.name for r in prepared.results_files],
        [r.path for r in prepared.results_files],
        report_json=args.report_json,
    )
    report = run_grading(prepared, min_task_pass_rate=args.min_task_pass_rate)
    comparison = compare_with_baseline(
        report.summary, prepared.results_files, baseline_files, options=options
    )
    return _finish(args, plan, report, comparison, note)


def _merge(args: argparse.Namespace) -> int:
    from waza_ci.engine import merge_grading  # noqa: PLC0415
    from waza_ci.gate.baseline_io import compare_with_baseline  # noqa: PLC0415 - see the imports
    from waza_ci.outputs import plan_outputs  # noqa: PLC0415

    options, baseline_files, note = _baseline(args)
    report, partials = merge_grading(args.partials)
    names = [r.source.name for r in report.regraded]
    plan = plan_outputs(args.output, args.summary, names, partials, report_json=args.report_json)
    summary = replace(report.summary, min_task_pass_rate=args.min_task_pass_rate)
    report = replace(report, summary=summary)
    merged = [r.source for r in report.regraded]
    comparison = compare_with_baseline(summary, merged, baseline_files, options=options)
    return _finish(args, plan, report, comparison, note)


def _baseline(
    args: argparse.Namespace,
) -> tuple[GateOptions, tuple[ResultsFile, ...], str | None]:
    """The gate policy, the baseline files, and the note to print when there is none."""
    from waza_ci.gate.baseline_io import load_baseline  # noqa: PLC0415 - see the imports above

    options = gate_cli.gate_options(args)
    baseline_files, note = load_baseline(args.baseline)
    if note is None and not args.baseline and args.fail_on is FailOn.REGRESSIONS:
        note = "no --baseline given: nothing to compare with (gate: no-baseline)"
    return options, baseline_files, note


def _finish(
    args: argparse.Namespace,
    plan: OutputPlan,
    report: GradeReport,
    comparison: BaselineComparison | None = None,
    note: str | None = None,
) -> int:
    from waza_ci.gate.baseline_io import gated_exit_code  # noqa: PLC0415 - see the imports above
    from waza_ci.grading import stop_if_cancelled  # noqa: PLC0415
    from waza_ci.report.build import build_report  # noqa: PLC0415
    from waza_ci.report.regressions import flaky_of, render_regressions_text  # noqa: PLC0415
    from waza_ci.report.text import render_text  # noqa: PLC0415
    from waza_ci.shard.plan import shard_note  # noqa: PLC0415
    from waza_ci.waza.results import dump_json  # noqa: PLC0415

    stop_if_cancelled()  # a signal during loading, or after the last grader: write nothing
    for warning in (*report.warnings, *([note] if note else [])):
        print(f"waza-ci: warning: {for_log(str(warning))}", file=sys.stderr)
    model = build_report(report.summary, repo_root=os.getcwd(), links=_source_links(os.environ))
    _write_outputs(
        plan,
        report,
        model,
        args.report,
        comparison=comparison,
        note=note,
        shard_heading=shard_note(getattr(args, "shard", None)),
    )
    # Untrusted strings in the JSON must not break or start a log line either.
    sys.stdout.write(json_for_log(dump_json(report.summary.outcome_json())))
    colour = sys.stderr.isatty() and not os.environ.get("NO_COLOR")
    sys.stderr.write(render_text(model, colour=colour))
    flaky = flaky_of(report.summary.tasks)
    sys.stderr.write(render_regressions_text(comparison, flaky, baseline_note=note))
    return gated_exit_code(report.summary, args.fail_on, comparison)


def _source_links(env: Mapping[str, str]) -> SourceLinks | None:
    """Inside GitHub Actions, the YAML lines link to the commit being built."""
    from waza_ci.report.model import SourceLinks  # noqa: PLC0415 - see the imports above

    if env.get("GITHUB_ACTIONS") != "true":
        return None
    parts = (env.get("GITHUB_SERVER_URL"), env.get("GITHUB_REPOSITORY"), env.get("GITHUB_SHA"))
    server, repository, sha = parts
    return SourceLinks(server, repository, sha) if server and repository and sha else None


def _write_outputs(
    plan: OutputPlan,
    report: GradeReport,
    model: Report,
    mode: str,
    *,
    comparison: BaselineComparison | None,
    note: str | None,
    shard_heading: str,
) -> None:
    from waza_ci.outputs import StreamWriter, write_text_files  # noqa: PLC0415 - see above
    from waza_ci.report.model import report_json_text  # noqa: PLC0415
    from waza_ci.report.regressions import render_summary_with_regressions  # noqa: PLC0415
    from waza_ci.waza.results import write_results  # noqa: PLC0415

    contents: dict[Path, str | StreamWriter] = {
        plan.results[r.source.name]: functools.partial(write_results, r.raw)
        for r in report.regraded
        if r.source.name in plan.results
    }
    if plan.summary is not None:
        contents[plan.summary] = shard_heading + render_summary_with_regressions(
            report.summary,
            model,
            comparison,
            baseline_note=note,
            mode="all" if mode == "all" else "failures",
        )
    if plan.report_json is not None:
        contents[plan.report_json] = report_json_text(model)
    write_text_files(contents)


def _stderr_progress() -> Progress:
    import threading  # noqa: PLC0415 - see the imports above

    lock = threading.Lock()

    def progress(line: str) -> None:
        with lock:
            print(f"waza-ci: {for_log(line)}", file=sys.stderr, flush=True)

    return progress


def _rate(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 <= value <= 1:  # also refuses NaN
        raise argparse.ArgumentTypeError("must be between 0 and 1")
    return value


def _shard(text: str) -> Shard:
    from waza_ci.shard.plan import parse_shard  # noqa: PLC0415 - only when --shard is given

    try:
        return parse_shard(text)
    except InputError as err:
        raise argparse.ArgumentTypeError(err.message) from None


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value
