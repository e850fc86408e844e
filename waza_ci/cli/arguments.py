"""The command line's words: `waza-ci grade`, `merge` and `gate`, their flags and their checks.

Cheap to import (argparse and constants only): `--help`, `--version` and a usage error never
load the engine.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from waza_ci import __version__
from waza_ci.errors import EXIT_INPUT_ERROR, InputError
from waza_ci.files import MAX_RESULTS_BYTES, MIB  # constants only: cheap
from waza_ci.gate.history_limits import DEFAULT_KEEP, DEFAULT_WINDOW  # constants only: cheap
from waza_ci.judge.providers import DEFAULT_JOBS, Provider  # an enum and a number: cheap
from waza_ci.policy import FailOn
from waza_ci.report.html.limits import DEFAULT_MAX_TEXT_KIB  # a constant, nothing imported

if TYPE_CHECKING:
    from collections.abc import Callable

    from waza_ci.judge.options import JudgeOptions
    from waza_ci.shard.plan import Shard


class _Parser(argparse.ArgumentParser):
    """argparse, with usage errors as one line (exit 2) like every other input error."""

    def error(self, message: str) -> NoReturn:
        # Only on a usage error: its patterns take a few milliseconds to compile.
        from waza_ci.report.text_safety import for_log  # noqa: PLC0415

        line = (
            f"{self.prog}: error: {for_log(message)}{_hint(message)} (see `{self.prog} --help`)\n"
        )
        self.exit(EXIT_INPUT_ERROR, line)


def _hint(message: str) -> str:
    """What a usage error most likely means, when it has a common cause."""
    if message.startswith("unrecognized arguments:"):
        return (
            "; --results takes one file per flag: repeat it (--results a.json --results "
            "b.json) or quote a glob (--results 'results/*.json')"
        )
    return ""


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="waza-ci",
        description="Re-grade saved waza runs with their graders: every kind that needs no "
        "model is run again, LLM-judge verdicts are kept.",
    )
    parser.add_argument("--version", action="version", version=f"waza-ci {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    grade_cmd = commands.add_parser(
        "grade",
        help="re-grade saved runs with the eval's graders",
        description="Run every grader of EVAL_YAML that needs no model against every saved "
        "run, as waza does (LLM-judge verdicts are kept), and print waza's GradeOutcome JSON. "
        "Exit 0 passed, 1 a task did not pass (or the regression gate failed), 2 bad input, "
        "3 graders could not run, or a grader or grading-context error.",
    )
    grade_cmd.add_argument("eval_yaml", metavar="EVAL_YAML", type=Path, help="the eval spec")
    grade_cmd.add_argument(
        "--results",
        action="append",
        required=True,
        metavar="FILE",
        help="a waza results file (path or glob); repeat the flag for more",
    )
    grade_cmd.add_argument(
        "--task", action="append", metavar="ID", help="grade this task id only (one task)"
    )
    grade_cmd.add_argument(
        "--workspace",
        metavar="DIR",
        help="the post-execution workspace, passed as WAZA_WORKSPACE_DIR; required when a "
        "grader reads it (file, diff): `.` is not assumed (default for other graders: .)",
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
    _add_fail_on_argument(grade_cmd)
    grade_cmd.add_argument(
        "--max-results-mib",
        type=_positive_int,
        default=MAX_RESULTS_BYTES // MIB,
        metavar="N",
        help="refuse a results file larger than N MiB (default: %(default)s)",
    )
    grade_cmd.add_argument(
        "--module-cache",
        type=Path,
        metavar="DIR",
        help="waza's module cache, where `ref:` graders are read at the commit waza.lock pins, "
        "and the judge's built-in rubrics at theirs (fetched from GitHub into it when missing); "
        "default: $WAZA_MODULE_CACHE, else "
        "~/.waza/cache, where `waza get` puts them",
    )
    _add_baseline_arguments(grade_cmd)
    grade_cmd.add_argument("-v", "--verbose", action="store_true", help="more progress detail")
    _add_shard_arguments(grade_cmd)
    _add_judge_arguments(grade_cmd)
    _add_merge_command(commands)
    gate_cmd = commands.add_parser(
        "gate",
        help="waza's regression gate: compare a results file with a baseline",
        description=build_gate_parser().description,
    )
    _add_gate_arguments(gate_cmd)
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
    command.add_argument(
        "--html",
        type=Path,
        metavar="PATH",
        help="write the self-contained HTML report (one file: open it in a browser)",
    )
    command.add_argument(
        "--benchmark-json",
        type=Path,
        metavar="PATH",
        help="write the pass rates and scores (overall and per task) as github-action-benchmark's "
        "customBiggerIsBetter JSON",
    )
    command.add_argument(
        "--html-max-text-kib",
        type=_positive_int,
        default=DEFAULT_MAX_TEXT_KIB,
        metavar="N",
        help="the HTML report's size bound: each text keeps at most N KiB (head and tail), "
        "each run's transcript 8 N KiB (default: %(default)s)",
    )


def _add_fail_on_argument(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--fail-on",
        type=_fail_on,
        default=FailOn.FAILURES,
        metavar="{" + ",".join(FailOn) + "}",
        help="'failures' (default): exit 1 when a task did not pass; 'errors': only errors "
        "fail; 'regressions': exit 1 when the regression gate against --baseline fails (or "
        "has no baseline). Graders that could not run, grader and grading-context errors "
        "fail under every mode (exit 3)",
    )


def _fail_on(text: str) -> FailOn:
    try:
        return FailOn(text)
    except ValueError:
        allowed = ", ".join(FailOn)
        raise argparse.ArgumentTypeError(f"{text!r} is not one of {allowed}") from None


def _add_baseline_arguments(command: argparse.ArgumentParser) -> None:
    """The gate's flags, and what counts as a complete grading of this eval."""
    command.add_argument(
        "--allow-tasks-without-runs",
        action="store_true",
        help="a task of the spec with no saved run (absent from the results, or `runs: []`) "
        "is listed, not failed (a task added before its first `waza run`); tasks whose runs "
        "all errored still fail",
    )
    command.add_argument(
        "--baseline",
        action="append",
        default=[],
        metavar="FILE",
        help="compare with this results file (path or glob; repeatable). With --fail-on "
        "regressions a missing baseline fails the step unless --allow-missing-baseline",
    )
    command.add_argument(
        "--allow-missing-baseline",
        action="store_true",
        help="with --fail-on regressions: pass the gate when no baseline file is found, it is "
        "of another eval, or no task could be compared with it (the first run on a "
        "repository)",
    )
    command.add_argument(
        "--renamed-from",
        action="append",
        default=[],
        metavar="NAME",
        help="an old name of the eval (or of its skill): results and baselines that say they "
        "are of NAME count as this eval's (repeatable); without it, files of another eval "
        "fail the step",
    )
    command.add_argument(
        "--min-task-pass-rate",
        type=_rate,
        default=1.0,
        metavar="R",
        help="a task passes when at least this share of its runs pass (default 1.0)",
    )
    _add_gate_policy_arguments(command)
    _add_history_arguments(command)


def _add_history_arguments(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--history",
        type=Path,
        metavar="FILE",
        help="a JSON Lines history of earlier gradings: with --fail-on regressions each task is "
        "judged against its pooled runs there (a missing file is an empty history)",
    )
    command.add_argument(
        "--record",
        action="store_true",
        help="append this grading's record to --history (meant for the default branch); the "
        "newest --history-keep records of the eval are kept",
    )
    command.add_argument(
        "--history-keep",
        type=_positive_int,
        default=DEFAULT_KEEP,
        metavar="K",
        help="records of the eval kept in --history by --record (default: %(default)s)",
    )
    command.add_argument(
        "--history-window",
        type=_positive_int,
        default=DEFAULT_WINDOW,
        metavar="N",
        help="the newest N records of the default branch the gate pools (default: %(default)s)",
    )


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


def _add_judge_arguments(grade_cmd: argparse.ArgumentParser) -> None:
    """The LLM judge (docs/judge.md): `prompt` graders re-judged through the Copilot runtime."""
    grade_cmd.add_argument(
        "--judge",
        choices=[str(p) for p in Provider],
        default=str(Provider.KEEP),
        help="re-judge `prompt` graders through the GitHub Copilot runtime: 'copilot' (the "
        "job's token), or your own 'openai', 'azure' or 'anthropic' endpoint; 'keep' "
        "(default) keeps their saved verdicts",
    )
    grade_cmd.add_argument("--judge-url", default="", metavar="URL", help="the BYOK endpoint")
    grade_cmd.add_argument(
        "--judge-model",
        default="",
        metavar="NAME",
        help="the judge's model when neither the grader's `model` nor the eval's "
        "`config.judge_model` names one",
    )
    grade_cmd.add_argument(
        "--judge-key-env",
        default="",
        metavar="VAR",
        help="the NAME of the environment variable holding the BYOK key (never the key)",
    )
    grade_cmd.add_argument(
        "--judge-jobs",
        type=_positive_int,
        default=DEFAULT_JOBS,
        metavar="N",
        help="judgements asking the model at once (default: %(default)s)",
    )
    grade_cmd.add_argument(
        "--judge-cache",
        type=Path,
        metavar="FILE",
        help="judgements already paid for (a JSON file to keep with actions/cache)",
    )
    grade_cmd.add_argument(
        "--judge-max-calls",
        type=_non_negative_int,
        metavar="N",
        help="at most N judge sessions (cache hits are free); more is a setup error (exit 3)",
    )
    grade_cmd.add_argument(
        "--judge-required",
        action="store_true",
        help="fail (exit 3) when the judge cannot run, instead of keeping the saved verdicts",
    )


def judge_options(args: argparse.Namespace) -> JudgeOptions:
    from waza_ci.judge.options import JudgeOptions  # noqa: PLC0415 - only once parsed

    options = JudgeOptions(
        provider=Provider(args.judge),
        url=args.judge_url,
        model=args.judge_model,
        key_env=args.judge_key_env,
        jobs=args.judge_jobs,
        cache=args.judge_cache,
        max_calls=args.judge_max_calls,
        required=args.judge_required,
    )
    options.check()
    return options


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
    _add_fail_on_argument(merge_cmd)
    _add_baseline_arguments(merge_cmd)


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


def _whole_number(least: int, words: str) -> Callable[[str], int]:
    """An argparse `type` for a whole number of at least `least`, refused in `words`."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if value < least:
            raise argparse.ArgumentTypeError(words)
        return value

    return parse


_positive_int = _whole_number(1, "must be at least 1")
_non_negative_int = _whole_number(0, "must be 0 or more")


# `waza-ci gate`: waza gate's flags; `grade` and `merge` share its thresholds and policies.


class _GateParser(argparse.ArgumentParser):
    """Usage errors are configuration errors: one line, exit 3 (waza gate's code)."""

    def error(self, message: str) -> NoReturn:
        # The gate's maths hold the code; they load only when they are needed.
        from waza_ci.gate.waza_gate import GATE_EXIT_CONFIG_ERROR  # noqa: PLC0415

        self.exit(GATE_EXIT_CONFIG_ERROR, f"{self.prog}: error: {message}\n")


def _add_gate_arguments(parser: argparse.ArgumentParser) -> None:
    """waza gate's flags, with its defaults; validated after parsing, as waza does."""
    parser.add_argument("--baseline", default="", metavar="FILE", help="the baseline results file")
    parser.add_argument("--current", default="", metavar="FILE", help="the candidate results file")
    _add_gate_policy_arguments(parser)
    parser.add_argument(
        "-f", "--format", default="human", help="human|json|markdown|github-actions"
    )


def _add_gate_policy_arguments(parser: argparse.ArgumentParser) -> None:
    """The thresholds and policies `waza-ci grade --baseline` shares with the gate."""
    parser.add_argument(
        "--max-regression-pct",
        type=_go_float,
        default=0.0,
        metavar="P",
        help="largest tolerated drop of the pass rate, in percentage points (default 0)",
    )
    parser.add_argument(
        "--golden-must-pass",
        type=_go_bool,
        nargs="?",
        const=True,
        default=True,
        metavar="BOOL",
        help="a task marked golden that did not pass fails the gate (default true; "
        "--golden-must-pass=false turns it off)",
    )
    parser.add_argument("--on-new-tasks", default="allow", help="allow|warn|fail (default allow)")
    parser.add_argument("--on-removed-tasks", default="warn", help="allow|warn|fail (default warn)")


def build_gate_parser() -> argparse.ArgumentParser:
    """`waza-ci gate`'s own parser: its usage errors exit 3, as waza gate's do."""
    parser = _GateParser(
        prog="waza-ci gate",
        description="Compare a candidate results file with a baseline and fail on regressions, "
        "as `waza gate` does. Exit 0 pass, 1 regression or task-set policy, 2 golden failure, "
        "3 configuration error.",
    )
    _add_gate_arguments(parser)
    return parser


def _go_float(text: str) -> float:
    from waza_ci.golang.strconv import go_parse_float  # noqa: PLC0415 - only when given a value

    try:
        value = go_parse_float(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None
    if math.isnan(value):  # Go reads it; the gate's threshold check would refuse it later
        raise argparse.ArgumentTypeError("must be a number, not NaN")
    return value


def _go_bool(text: str) -> bool:
    from waza_ci.golang.strconv import go_parse_bool  # noqa: PLC0415 - only when given a value

    try:
        return go_parse_bool(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid boolean {text!r}") from None
