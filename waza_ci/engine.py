"""The engine both shells call: load the spec and the results files, grade the saved runs
(all of them, one shard, or the merge of every shard's partials), compare with the baseline,
build the report and write the files asked for.

`evaluate` is the command line's one call; `grade_and_publish` is the action's (the same, then
the publish stage). Neither reads process state: paths, the graders' environment and the temp
directory come in the request, and what the shells show along the way goes to an `Observer`.
"""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Collection, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TextIO

from waza_ci.collector import paused as collector_paused
from waza_ci.errors import InputError, few
from waza_ci.files import MAX_RESULTS_BYTES
from waza_ci.gate.baseline_io import BaselineProblem, BaselineUse, load_baseline, use_baseline
from waza_ci.gate.waza_gate import GateOptions
from waza_ci.grading.assemble import RegradedFile, assemble, with_digest
from waza_ci.grading.judging import judge_prompts
from waza_ci.grading.plan import GradingPlan, plan_grading
from waza_ci.grading.run import GradingSetup, Progress, run_plan, stop_if_cancelled
from waza_ci.judge.options import JudgeSetup
from waza_ci.judge.spend import JudgeReport
from waza_ci.outputs import OutputPlan, StreamWriter, plan_outputs, write_text_files
from waza_ci.policy import FailOn, GatePolicy
from waza_ci.report.evaluation import Evaluation
from waza_ci.report.html.limits import DEFAULT_MAX_TEXT_KIB
from waza_ci.report.model import SourceLinks, report_json_text
from waza_ci.report.regressions import render_job_summary
from waza_ci.report.screen import ListMode
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
from waza_ci.waza.modules.ref import ModuleRef
from waza_ci.waza.modules.resolve import FetchError, ModuleResolver
from waza_ci.waza.results import ResultsFile, load_results_files, write_results
from waza_ci.waza.scoring import GradeSummary
from waza_ci.waza.spec import EvalSpec, LoadWarning, load_eval

if TYPE_CHECKING:
    from waza_ci.github.commands import WorkflowCommands
    from waza_ci.github.contents import RepositoryFiles
    from waza_ci.github.environment import RunnerEnv
    from waza_ci.publish.options import PublishOptions
    from waza_ci.publish.step import StepResult

__all__ = ["Evaluation", "RegradedFile", "load_results_files"]  # the engine's vocabulary


@dataclass(frozen=True)
class ModuleSettings:
    """Where `ref:` graders come from: waza's module cache, then GitHub at the locked commit."""

    cache_root: Path
    api_url: str = "https://api.github.com"
    token: str | None = field(default=None, repr=False)
    """None or "": public modules only."""
    deadline_s: float = 60.0
    """All fetching of modules, retries included, ends by then (`api-timeout`)."""


def default_module_cache(env: Mapping[str, str]) -> Path:
    """Where waza keeps its module cache: $WAZA_MODULE_CACHE, else ~/.waza/cache."""
    if env.get("WAZA_MODULE_CACHE"):
        return Path(env["WAZA_MODULE_CACHE"])
    return Path(env.get("HOME") or Path.home(), ".waza", "cache")


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


def prepare_grading(
    request: GradeRequest, *, renamed_from: Collection[str] = ()
) -> PreparedGrading:
    """Load the spec and the results files and plan every execution; raises InputError.
    `renamed_from`: old names of the eval that its results may still carry."""
    if request.workspace is not None:
        _existing_dir(Path(request.workspace), "--workspace")
    working_directory = _existing_dir(request.working_directory, "--working-directory")
    spec = _load_spec(request, working_directory)
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
    return PreparedGrading(spec, results_files, plan, setup, shard, request.judge)


def _load_spec(request: GradeRequest, working_directory: Path) -> EvalSpec:
    """The spec, its `ref:` graders resolved through waza.lock (a fetch only when the module
    cache lacks a file; the GitHub session is opened then, and closed here)."""
    settings = request.modules
    if settings is None:
        return load_eval(request.eval_path, working_directory=working_directory)
    fetcher = _ModuleFetcher(settings)
    modules = ModuleResolver(request.eval_path, settings.cache_root, fetcher)
    try:
        spec = load_eval(request.eval_path, working_directory=working_directory, modules=modules)
    finally:
        fetcher.close()
    notes = tuple(LoadWarning(note, None) for note in modules.notes)
    return replace(spec, warnings=(*spec.warnings, *notes)) if notes else spec


class _ModuleFetcher:
    """A module's file from GitHub's contents API; the client is made at the first fetch."""

    def __init__(self, settings: ModuleSettings) -> None:
        self._settings = settings
        self._files: RepositoryFiles | None = None

    def __call__(self, ref: ModuleRef, commit: str, path: str) -> bytes:
        # GitHub's client (requests) is loaded only when the module cache lacks a file.
        from waza_ci.github.contents import FileUnavailable, RepositoryFiles  # noqa: PLC0415
        from waza_ci.github.http import GitHubSetupError  # noqa: PLC0415

        settings = self._settings
        try:
            if self._files is None:
                self._files = RepositoryFiles(
                    settings.api_url, settings.token, deadline_s=settings.deadline_s
                )
            return self._files.file_at(ref.owner, ref.repo, commit, path)
        except FileUnavailable as err:
            raise FetchError(err.message, err.url) from None
        except GitHubSetupError as err:
            raise FetchError(str(err), settings.api_url) from None

    def close(self) -> None:
        if self._files is not None:
            self._files.close()


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
        judging = judge_prompts(
            spec,
            plan,
            prepared.judge,
            working_directory=Path(prepared.setup.working_directory),
            workspace=prepared.setup.workspace_dir,
            temp_dir=prepared.setup.temp_dir,
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
        raise InputError(f"{option} {str(path)!r} is not an existing directory")
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
    if not request.baseline and gating:
        baseline = BaselineUse(problem=BaselineProblem.NOT_GIVEN, note=request.no_baseline_note)
    evaluation = Evaluation.build(
        graded.summary,
        baseline=baseline,
        policy=request.policy,
        baseline_asked=bool(request.baseline) or gating,
        warnings=graded.warnings,
        shard_note=shard_note(request.grading.shard if request.grading else None),
        repo_root=request.repo_root,
        links=request.links,
        judge=graded.judge,
    )
    observer.graded(evaluation)
    stop_if_cancelled()  # a signal after the last grader: still nothing written
    _write_files(plan, graded, evaluation, request)
    return evaluation


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
    )
    with cancel_on_signals():  # a cancelled job still removes every context directory
        with observer.grading():
            report = run_grading(prepared, min_task_pass_rate=request.min_task_pass_rate)
        stop_if_cancelled()
    return report, prepared.results_files, plan


def _write_files(
    plan: OutputPlan, graded: GradeReport, evaluation: Evaluation, request: EvaluationRequest
) -> None:
    """The regraded results files, the Markdown report, the report JSON and the HTML report,
    all or none."""
    outputs = request.outputs
    contents: dict[Path, str | StreamWriter] = {
        plan.results[r.source.name]: functools.partial(write_results, r.raw)
        for r in graded.regraded
        if r.source.name in plan.results
    }
    if plan.summary is not None:
        contents[plan.summary] = render_job_summary(evaluation, mode=outputs.report_mode)
    if plan.report_json is not None:
        contents[plan.report_json] = report_json_text(evaluation.model)
    if plan.html is not None:
        contents[plan.html] = _html_report(graded, evaluation, request)
    if contents:
        write_text_files(contents)


def _html_report(graded: GradeReport, evaluation: Evaluation, request: EvaluationRequest) -> str:
    from waza_ci.report.html.data import Bounds  # noqa: PLC0415 - only for --html
    from waza_ci.report.html.page import HtmlRequest, render_html  # noqa: PLC0415

    grading = request.grading
    repo = Path(request.repo_root).resolve()
    roots: list[str] = [str(repo), request.repo_root]
    if grading is not None:
        # Folders inside the checkout read as paths from its root (as a merge, which knows
        # no workspace, writes them); those outside it are written `.` too.
        workspace = Path(grading.workspace if grading.workspace is not None else ".")
        places = (workspace.resolve(), grading.working_directory.resolve())
        roots += [grading.temp_dir, *(str(p) for p in places if not p.is_relative_to(repo))]
        # Folders the graders' environment names (HOME, RUNNER_TEMP, a virtualenv, …): a
        # grader that prints one must not put this machine's layout into an artifact.
        roots += [v for v in grading.grader_env.values() if _names_a_folder(v)]
    html_request = HtmlRequest(
        raw_files={r.source.name: r.raw for r in graded.regraded},
        bounds=Bounds(request.outputs.html_max_text_kib),
        commit=request.links.sha if request.links is not None else "",
        private_roots=roots,
    )
    return render_html(evaluation, html_request)


def _names_a_folder(value: str) -> bool:
    return value.startswith("/") and ":" not in value and len(value) < 4096 and Path(value).is_dir()


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
