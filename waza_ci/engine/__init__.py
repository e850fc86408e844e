"""The engine both shells call: load the spec and the results files, grade the saved runs
(all of them, one shard, or the merge of every shard's partials), compare with the baseline,
build the report and write the files asked for.

`evaluate` is the command line's one call; `grade_and_publish` is the action's (the same, then
the publish stage). Neither reads process state: paths, the graders' environment and the temp
directory come in the request, and what the shells show along the way goes to an `Observer`.
"""

from __future__ import annotations

import os
import time
from collections.abc import Collection, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TextIO

from waza_ci.collector import paused as collector_paused
from waza_ci.engine.modules import ModuleSettings, builtin_rubrics, load_spec
from waza_ci.engine.written import record_text, write_files
from waza_ci.errors import WINDOWS_PATH_HINT, InputError, few, windows_path
from waza_ci.files import MAX_RESULTS_BYTES
from waza_ci.gate.baseline_io import (
    BaselineProblem,
    BaselineUse,
    current_sides,
    golden_flags,
    load_baseline,
    use_baseline,
)
from waza_ci.gate.history import HistoryQuestion, judge_with_history
from waza_ci.gate.history_io import HistoryOptions, load_history
from waza_ci.gate.waza_gate import GateOptions
from waza_ci.grading.assemble import RegradedFile, assemble, with_digest
from waza_ci.grading.judging import judge_prompts
from waza_ci.grading.plan import GradingPlan, plan_grading
from waza_ci.grading.run import GradingSetup, Progress, run_plan, stop_if_cancelled
from waza_ci.judge.options import JudgeSetup
from waza_ci.judge.spend import JudgeReport
from waza_ci.outputs import OutputPlan, plan_outputs
from waza_ci.policy import FailOn, GatePolicy, ListMode
from waza_ci.report.evaluation import Evaluation
from waza_ci.report.html.limits import DEFAULT_MAX_TEXT_KIB
from waza_ci.report.model import SourceLinks
from waza_ci.sandbox.cancellation import cancel_on_signals
from waza_ci.shard.plan import (
    Shard,
    ShardSelection,
    inputs_digest,
    load_shard_weights,
    partial_files,
    select_shard,
    shard_note,
)
from waza_ci.waza.identity import EvalIdentity
from waza_ci.waza.kinds import WORKSPACE_KINDS
from waza_ci.waza.results import ResultsFile, load_results_files
from waza_ci.waza.scoring import GradeSummary
from waza_ci.waza.spec import EvalSpec, LoadWarning

if TYPE_CHECKING:
    from waza_ci.github.commands import WorkflowCommands
    from waza_ci.github.environment import RunnerEnv
    from waza_ci.publish.options import PublishOptions
    from waza_ci.publish.step import StepResult

__all__ = ["Evaluation", "RegradedFile", "load_results_files"]  # the engine's vocabulary


@dataclass(frozen=True)
class GradeRequest:
    """Everything one grading needs; relative paths are relative to the caller's directory."""

    eval_path: Path
    results: Sequence[str]
    """Paths or globs of `waza run --output` files."""
    task: str | None = None
    workspace: str | Path | None = None
    """As given (`--workspace`, input `workspace`): waza puts this text, not the absolute
    path, in `file` and `diff` verdicts' `details.workspace_dir`. None: not given, which a
    spec with graders that read the workspace refuses (waza would use the current folder)."""
    working_directory: Path = Path()
    jobs: int | None = None
    grader_env: Mapping[str, str] = field(default_factory=dict)
    """The graders' environment, already cleaned of tokens by the caller."""
    temp_dir: str = "/tmp"  # noqa: S108 - the caller passes its TMPDIR; this is the fallback
    progress: Progress | None = None
    shard: Shard | None = None
    """Grade only this shard's tasks and write partial results files (see shard/plan.py)."""
    shard_weights: Sequence[Path] = ()
    max_results_bytes: int = MAX_RESULTS_BYTES
    """Refuse a results file larger than this (`--max-results-mib`)."""
    judge: JudgeSetup | None = None
    """Re-judge `prompt` graders (`--judge`); None keeps their saved verdicts."""
    modules: ModuleSettings | None = None
    """None: a `ref:` grader is refused (a library caller that gave no module cache)."""


@dataclass(frozen=True)
class GradeReport:
    summary: GradeSummary
    regraded: tuple[RegradedFile, ...]
    warnings: tuple[LoadWarning, ...]
    eval_identity: EvalIdentity
    """The graded eval's name and skill: what a baseline must belong to."""
    judge: JudgeReport | None = None
    """What the LLM judge did, when it was asked for."""


@dataclass(frozen=True)
class PreparedGrading:
    """Everything loaded and planned, nothing run yet: the shells check their output paths
    against it, so a usage error is found before any grader has run."""

    spec: EvalSpec
    results_files: tuple[ResultsFile, ...]
    plan: GradingPlan
    setup: GradingSetup
    shard: ShardSelection | None = None
    judge: JudgeSetup | None = None
    modules: ModuleSettings | None = None
    """Where waza's module cache is and how GitHub is reached: `ref:` graders were read from
    there, and a built-in rubric of the judge is."""


def prepare_grading(
    request: GradeRequest, *, renamed_from: Collection[str] = ()
) -> PreparedGrading:
    """Load the spec and the results files and plan every execution; raises InputError.
    `renamed_from`: old names of the eval that its results may still carry."""
    if request.workspace is not None:
        _existing_dir(Path(request.workspace), "--workspace")
    working_directory = _existing_dir(request.working_directory, "--working-directory")
    spec = load_spec(request.eval_path, request.modules, working_directory)
    results_files = tuple(load_results_files(request.results, request.max_results_bytes))
    plan = plan_grading(spec, results_files, request.task, renamed_from)
    given = request.workspace if request.workspace is not None else _default_workspace(plan)
    workspace = _existing_dir(Path(given), "--workspace")
    spec = replace(spec, warnings=(*spec.warnings, *plan.warnings))  # reported with the spec's
    shard = _select_shard(request, spec, results_files, plan)
    plan = shard.plan if shard is not None else plan
    setup = GradingSetup(
        workspace_dir=str(workspace),
        workspace_as_given=str(given),
        working_directory=str(working_directory),
        env=dict(request.grader_env),
        temp_dir=request.temp_dir,
        jobs=request.jobs or os.cpu_count() or 1,
        progress=request.progress,
    )
    return PreparedGrading(spec, results_files, plan, setup, shard, request.judge, request.modules)


def _default_workspace(plan: GradingPlan) -> str:
    """The current folder, as waza's default, unless a grader of the plan reads the workspace:
    in CI the current folder is the repository, whose own files (a README, a CHANGELOG) such a
    grader would check in place of the agent's, so the workspace must be named."""
    readers = {e.grader.name: e.grader for e in plan.executions if e.grader.kind in WORKSPACE_KINDS}
    if not readers:
        return "."
    first = next(iter(readers.values()))
    shown = few(f"{g.name} ({g.kind})" for g in readers.values())
    raise InputError(
        f"no workspace was given, and graders read it: {shown}; pass --workspace naming the "
        "folder the run's files were saved to (the action: `workspace:`), or --workspace . "
        "when that really is the current folder (waza-ci does not default to it: in CI it is "
        "the repository)",
        first.location,
    )


def _select_shard(
    request: GradeRequest, spec: EvalSpec, results_files: Sequence[ResultsFile], plan: GradingPlan
) -> ShardSelection | None:
    if request.shard is None:
        if request.shard_weights:
            raise InputError("shard weights (--shard-weights, input `shard-weights`) need a shard")
        return None
    digest = inputs_digest(
        spec,
        results_files,
        plan,
        task_filter=request.task,
        weights=request.shard_weights,
        shard_count=request.shard.count,
    )
    durations = load_shard_weights(request.shard_weights) if request.shard_weights else None
    return select_shard(plan, request.shard, durations, digest)


def run_grading(prepared: PreparedGrading, *, min_task_pass_rate: float = 1.0) -> GradeReport:
    """Run the plan and assemble the summary and the regraded files; a task passes when at
    least `min_task_pass_rate` of its runs pass."""
    spec, results_files, plan = prepared.spec, prepared.results_files, prepared.plan
    started = time.monotonic()
    with collector_paused():  # already, under evaluate; not for a library caller
        results = run_plan(plan, prepared.setup)
        judge = prepared.judge
        rejudging = judge is not None and judge.options.active
        with builtin_rubrics(prepared.modules, fetch=rejudging) as rubrics:
            judging = judge_prompts(
                spec,
                plan,
                judge,
                working_directory=Path(prepared.setup.working_directory),
                workspace=prepared.setup.workspace_dir,
                temp_dir=prepared.setup.temp_dir,
                rubrics=rubrics,
            )
        stop_if_cancelled()
        elapsed_ms = round((time.monotonic() - started) * 1000)
        tasks, regraded = assemble(
            plan.matches, results_files, [*results, *judging.results], judging.notes
        )
    if prepared.shard is not None:
        regraded = partial_files(
            prepared.shard,
            spec,
            results_files,
            matches=plan.matches,
            tasks=tasks,
            regraded=regraded,
            elapsed_ms=elapsed_ms,
        )
    summary = GradeSummary(
        eval_name=spec.name,
        eval_path=str(spec.path),
        results_names=tuple(r.name for r in results_files),
        tasks=tasks,
        skipped=plan.skipped,
        elapsed_ms=elapsed_ms,
        min_task_pass_rate=min_task_pass_rate,
        task_filter=plan.task_filter,
        another_eval=plan.another_eval,
    )
    return GradeReport(summary, regraded, spec.warnings, spec.eval_identity, judging.report)


def merge_grading(patterns: Sequence[str]) -> tuple[GradeReport, list[Path]]:
    """Join the shards' partial results files (paths or globs) into the report an unsharded
    grading of the same inputs gives; also returns the partials' paths. Raises InputError."""
    from waza_ci.shard.merge import merge_partials  # noqa: PLC0415 - its models only load for a merge

    with collector_paused():  # already, under evaluate; not for a library caller
        files = load_results_files(patterns)
        merged = merge_partials(files)
        regraded = tuple(
            RegradedFile(replace(f.base, name=f.name), with_digest(f.raw)) for f in merged.files
        )
    summary = GradeSummary(
        eval_name=merged.eval_name,
        eval_path=merged.eval_path,
        results_names=merged.results_names,
        tasks=merged.tasks,
        skipped=merged.skipped,
        elapsed_ms=merged.elapsed_ms,
        task_filter=merged.task_filter,
        another_eval=merged.another_eval,
    )
    report = GradeReport(summary, regraded, merged.warnings, merged.eval_identity)
    return report, [f.path for f in files]


def _existing_dir(path: Path, option: str) -> Path:
    if not path.is_dir():
        windows = f"; {WINDOWS_PATH_HINT}" if windows_path(str(path)) else ""
        raise InputError(f"{option} {str(path)!r} is not an existing directory{windows}")
    return path.resolve()


# --- evaluate: what both shells call --------------------------------------------------------


@dataclass(frozen=True)
class OutputRequest:
    """The files to write once the verdict is known; None writes none."""

    output: Path | None = None
    """The regraded results file (a folder when several results files are graded)."""
    summary: Path | None = None
    """The Markdown report."""
    report_json: Path | None = None
    report_mode: ListMode = ListMode.FAILURES
    html: Path | None = None
    """The self-contained HTML report (report/html)."""
    html_max_text_kib: int = DEFAULT_MAX_TEXT_KIB
    """The HTML report's size bound: the most one text keeps (see report/html/data.py)."""
    benchmark_json: Path | None = None
    """github-action-benchmark's `customBiggerIsBetter` list (report/benchmark.py)."""


@dataclass(frozen=True)
class EvaluationRequest:
    """One evaluation: grade (`grading`) or merge the shards' partials (`partials`), then judge."""

    grading: GradeRequest | None
    partials: Sequence[str] = ()
    """Paths or globs of the shards' partial results files, when `grading` is None."""
    baseline: Sequence[str] = ()
    """Paths or globs of the results file to compare with."""
    gate: GateOptions = field(default_factory=GateOptions)
    policy: GatePolicy = field(default_factory=GatePolicy)
    """What fails the step (`fail-on`, a missing baseline); see report/decision.py."""
    min_task_pass_rate: float = 1.0
    no_baseline_note: str = "no baseline given: nothing to compare with (gate: no-baseline)"
    """The warning, in the shell's words, when the gate is asked for without a baseline."""
    outputs: OutputRequest = field(default_factory=OutputRequest)
    history: HistoryOptions = field(default_factory=HistoryOptions)
    """The history to judge against and, with `record`, to append this grading to."""
    repo_root: str = "."
    links: SourceLinks | None = None
    """Where the report links the graders' YAML lines (a commit on GitHub), if anywhere."""


class Observer(Protocol):
    """What a shell shows while the engine works."""

    def grading(self) -> AbstractContextManager[None]:
        """Held while the graders run (the action fences their untrusted output in the log)."""
        ...

    def graded(self, evaluation: Evaluation) -> None:
        """The verdict is known; called before any file is written."""
        ...


class Silent:
    """An observer that shows nothing."""

    def grading(self) -> AbstractContextManager[None]:
        return nullcontext()

    def graded(self, evaluation: Evaluation) -> None:
        return None


def evaluate(request: EvaluationRequest, observer: Observer | None = None) -> Evaluation:
    """Grade (or merge), compare with the baseline, build the report, write the files asked
    for. Every usage error (InputError) comes before any grader runs or any file is written."""
    with collector_paused():
        return _evaluate(request, observer or Silent())


def _evaluate(request: EvaluationRequest, observer: Observer) -> Evaluation:
    loaded = load_baseline(request.baseline)  # a malformed baseline: before any grader runs
    path = request.history.path
    history = load_history(path) if path is not None else None  # a broken line: before too
    gating = request.policy.fail_on is FailOn.REGRESSIONS
    graded, graded_files, plan = _grade_or_merge(request, observer)
    baseline = use_baseline(
        request.baseline,
        loaded,
        graded.summary,
        graded_files,
        expected=graded.eval_identity,
        renamed_from=request.policy.renamed_from,
        options=request.gate,
    )
    if not request.baseline and gating and history is None:
        baseline = BaselineUse(problem=BaselineProblem.NOT_GIVEN, note=request.no_baseline_note)
    sides = current_sides(graded.summary, golden_flags(graded_files))
    view = None
    if history is not None:
        baseline, view = judge_with_history(
            history, baseline, sides, _history_question(request, graded)
        )
    evaluation = Evaluation.build(
        graded.summary,
        baseline=baseline,
        history=view,
        policy=request.policy,
        baseline_asked=bool(request.baseline) or gating or history is not None,
        warnings=graded.warnings,
        shard_note=shard_note(request.grading.shard if request.grading else None),
        repo_root=request.repo_root,
        links=request.links,
        judge=graded.judge,
    )
    observer.graded(evaluation)
    stop_if_cancelled()  # a signal after the last grader: still nothing written
    record = record_text(history, graded, sides, evaluation, request)
    write_files(plan, graded, evaluation, request, record)
    return evaluation


def _history_question(request: EvaluationRequest, graded: GradeReport) -> HistoryQuestion:
    return HistoryQuestion(
        expected=graded.eval_identity,
        renamed_from=request.policy.renamed_from,
        options=request.gate,
        window=request.history.window,
        default_branch=request.history.context.default_branch,
        baseline_given=bool(request.baseline),
        task_filter=graded.summary.task_filter,
    )


def _grade_or_merge(
    request: EvaluationRequest, observer: Observer
) -> tuple[GradeReport, tuple[ResultsFile, ...], OutputPlan]:
    """The graded report, the files it graded, and where the outputs go (checked before any
    grader runs)."""
    outputs = request.outputs
    if request.grading is None:
        report, partials = merge_grading(request.partials)
        summary = replace(report.summary, min_task_pass_rate=request.min_task_pass_rate)
        report = replace(report, summary=summary)
        names = [r.source.name for r in report.regraded]
        plan = plan_outputs(
            outputs.output,
            outputs.summary,
            names,
            partials,
            report_json=outputs.report_json,
            html=outputs.html,
            benchmark_json=outputs.benchmark_json,
            history=_recorded(request),
        )
        return report, tuple(r.source for r in report.regraded), plan
    prepared = prepare_grading(request.grading, renamed_from=request.policy.renamed_from)
    plan = plan_outputs(
        outputs.output,
        outputs.summary,
        [r.name for r in prepared.results_files],
        [r.path for r in prepared.results_files],
        report_json=outputs.report_json,
        html=outputs.html,
        benchmark_json=outputs.benchmark_json,
        history=_recorded(request),
    )
    with cancel_on_signals():  # a cancelled job still removes every context directory
        with observer.grading():
            report = run_grading(prepared, min_task_pass_rate=request.min_task_pass_rate)
        stop_if_cancelled()
    return report, prepared.results_files, plan


def _recorded(request: EvaluationRequest) -> Path | None:
    return request.history.path if request.history.record else None


def grade_and_publish(
    request: EvaluationRequest,
    options: PublishOptions,
    *,
    runner: RunnerEnv,
    env: Mapping[str, str],
    commands: WorkflowCommands,
    stdout: TextIO,
    observer: Observer | None = None,
) -> StepResult:
    """The action's step: evaluate, then publish the verdict (job summary, check run, pull-
    request comment, report JSON); returns the step outputs and exit code."""
    from waza_ci.publish.step import publish  # noqa: PLC0415 - GitHub's client: the action only

    evaluation = evaluate(request, observer)
    return publish(evaluation, options, runner=runner, env=env, commands=commands, stdout=stdout)
