"""`waza-ci grade …` and `waza-ci merge …`: argv -> the engine -> files, stdout JSON, exit code.

`waza-ci gate …` is handed to `gate.py` (waza's gate, with waza's exit codes).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING

from waza_ci.cli.arguments import build_parser, judge_options
from waza_ci.errors import InputError, WazaCiError
from waza_ci.files import MIB  # constants only: cheap

if TYPE_CHECKING:
    from pathlib import Path

    from waza_ci.engine import Evaluation, EvaluationRequest
    from waza_ci.engine.modules import ModuleSettings
    from waza_ci.gate.history_io import HistoryOptions
    from waza_ci.grading.run import Progress
    from waza_ci.report.model import SourceLinks

# Everything grading needs (pydantic models, YAML, the report) is imported where it is used,
# not here: `waza-ci --help`, a usage error and `--version` start in a few tens of milliseconds.
# So are the gate's maths (gate.py) and the log's escaping (text_safety.py: its patterns take
# milliseconds to compile), which only a parsed command needs.

NO_BASELINE_NOTE = "no --baseline given: nothing to compare with (gate: no-baseline)"


def main(argv: Sequence[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else list(argv)
    if arguments[:1] == ["gate"]:  # its own parser: waza's exit 3 for usage errors
        import waza_ci.cli.gate as gate_cli  # noqa: PLC0415 - see the imports above

        return gate_cli.main(arguments[1:], sys.stdout, os.environ.get("GITHUB_STEP_SUMMARY"))
    args = build_parser().parse_args(arguments)
    from waza_ci.report.text_safety import for_log  # noqa: PLC0415 - see the imports above
    from waza_ci.sandbox.cancellation import cancel_on_signals  # noqa: PLC0415

    try:
        if args.command == "merge":
            return _run(args)
        with cancel_on_signals():
            return _run(args)
    except WazaCiError as err:
        print(f"waza-ci: error: {for_log(str(err))}", file=sys.stderr)
        return err.exit_code


def _run(args: argparse.Namespace) -> int:
    from waza_ci.engine import evaluate  # noqa: PLC0415 - see the imports above
    from waza_ci.report.regressions import render_regressions_text  # noqa: PLC0415
    from waza_ci.report.terminal import render_text  # noqa: PLC0415
    from waza_ci.report.text_safety import json_for_log  # noqa: PLC0415
    from waza_ci.waza.results import dump_json  # noqa: PLC0415

    evaluation = evaluate(_request(args), _StderrLog())
    # Untrusted strings in the JSON must not break or start a log line either.
    sys.stdout.write(json_for_log(dump_json(evaluation.summary.outcome_json())))
    colour = sys.stderr.isatty() and not os.environ.get("NO_COLOR")
    sys.stderr.write(render_text(evaluation, colour=colour))
    sys.stderr.write(render_regressions_text(evaluation))
    return evaluation.exit_code


def _request(args: argparse.Namespace) -> EvaluationRequest:
    # Deferred (see the imports above); by now the arguments are known to be usable.
    import tempfile  # noqa: PLC0415

    import waza_ci.cli.gate as gate_cli  # noqa: PLC0415
    from waza_ci.engine import EvaluationRequest, GradeRequest, OutputRequest  # noqa: PLC0415
    from waza_ci.judge.options import credential_variables, judge_setup  # noqa: PLC0415
    from waza_ci.policy import GatePolicy, ListMode  # noqa: PLC0415
    from waza_ci.sandbox.isolation import grader_environment  # noqa: PLC0415

    grading = None
    judge = None
    if args.record and args.history is None:
        raise InputError("--record appends to a history: name the file with --history FILE")
    if args.command == "grade":
        options = judge_options(args)
        if options.active:
            judge = judge_setup(options, os.environ)
        if args.shard and args.baseline:
            raise InputError("--baseline compares a whole grading; give it to `merge`, not --shard")
        if args.shard and (args.history is not None or args.benchmark_json is not None):
            raise InputError(
                "--history and --benchmark-json take a whole grading; give them to `merge`, "
                "not --shard (a sharded grading is recorded once, at the merge)"
            )
        if args.shard is not None and args.output is None:
            raise InputError("--shard needs --output: the partial results file `merge` reads")
        grading = GradeRequest(
            eval_path=args.eval_yaml,
            results=args.results,
            task=_one_task(args.task),
            workspace=args.workspace,
            working_directory=args.working_directory,
            jobs=args.jobs,
            grader_env=grader_environment(os.environ, also=credential_variables(options)),
            temp_dir=os.environ.get("TMPDIR") or tempfile.gettempdir(),
            progress=_stderr_progress() if args.verbose else None,
            shard=args.shard,
            shard_weights=args.shard_weights,
            max_results_bytes=args.max_results_mib * MIB,
            judge=judge,
            modules=_module_settings(args.module_cache, os.environ),
        )
    return EvaluationRequest(
        grading=grading,
        partials=args.partials if grading is None else (),
        baseline=args.baseline,
        gate=gate_cli.gate_options(args),
        policy=GatePolicy(
            args.fail_on,
            allow_missing_baseline=args.allow_missing_baseline,
            allow_tasks_without_runs=args.allow_tasks_without_runs,
            renamed_from=tuple(args.renamed_from),
        ),
        min_task_pass_rate=args.min_task_pass_rate,
        no_baseline_note=NO_BASELINE_NOTE,
        history=_history_options(args),
        outputs=OutputRequest(
            output=args.output,
            summary=args.summary,
            report_json=args.report_json,
            report_mode=ListMode(args.report),
            html=args.html,
            html_max_text_kib=args.html_max_text_kib,
            benchmark_json=args.benchmark_json,
        ),
        repo_root=os.getcwd(),
        links=_source_links(os.environ),
    )


def _module_settings(given: Path | None, env: Mapping[str, str]) -> ModuleSettings:
    """`ref:` graders: the cache as waza finds it, GitHub as the runner names it, and the token
    waza itself would use (GH_TOKEN, else GITHUB_TOKEN)."""
    from waza_ci.engine.modules import ModuleSettings, default_module_cache  # noqa: PLC0415

    return ModuleSettings(
        cache_root=given or default_module_cache(env),
        api_url=env.get("GITHUB_API_URL") or "https://api.github.com",
        token=env.get("GH_TOKEN") or env.get("GITHUB_TOKEN") or None,
    )


def _history_options(args: argparse.Namespace) -> HistoryOptions:
    """The history flags, with where this grading runs (GitHub's variables, when set)."""
    from waza_ci.gate.history_io import HistoryOptions, RunContext  # noqa: PLC0415
    from waza_ci.github.environment import RunnerEnv  # noqa: PLC0415

    if args.history is None:
        return HistoryOptions()
    runner = RunnerEnv.from_mapping(os.environ)
    return HistoryOptions(
        path=args.history,
        record=args.record,
        keep=args.history_keep,
        window=args.history_window,
        context=RunContext.of(runner),
    )


def _one_task(tasks: Sequence[str] | None) -> str | None:
    """`--task` names one task; given twice it is refused, never half-applied."""
    if not tasks:
        return None
    if len(set(tasks)) > 1:
        named = ", ".join(repr(task) for task in tasks)
        raise InputError(
            f"--task was given {len(tasks)} times ({named}): waza-ci grades one task or all "
            "of them; run one grade per task, or leave --task out"
        )
    return tasks[0]


class _StderrLog:
    """The engine's observer: warnings on stderr once the verdict is known."""

    def grading(self) -> AbstractContextManager[None]:
        return nullcontext()

    def graded(self, evaluation: Evaluation) -> None:
        from waza_ci.report.text_safety import for_log  # noqa: PLC0415 - see the imports above

        notes = (evaluation.baseline_note,) if evaluation.baseline_note else ()
        for warning in (*evaluation.warnings, *notes):
            print(f"waza-ci: warning: {for_log(str(warning))}", file=sys.stderr)


def _source_links(env: Mapping[str, str]) -> SourceLinks | None:
    """Inside GitHub Actions, the YAML lines link to the commit being built."""
    from waza_ci.report.model import SourceLinks  # noqa: PLC0415 - see the imports above

    if env.get("GITHUB_ACTIONS") != "true":
        return None
    parts = (env.get("GITHUB_SERVER_URL"), env.get("GITHUB_REPOSITORY"), env.get("GITHUB_SHA"))
    server, repository, sha = parts
    return SourceLinks(server, repository, sha) if server and repository and sha else None


def _stderr_progress() -> Progress:
    import threading  # noqa: PLC0415 - see the imports above

    from waza_ci.report.text_safety import for_log  # noqa: PLC0415

    lock = threading.Lock()

    def progress(line: str) -> None:
        with lock:
            print(f"waza-ci: {for_log(line)}", file=sys.stderr, flush=True)

    return progress
