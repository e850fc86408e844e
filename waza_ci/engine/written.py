"""What the engine writes once the verdict is known: the regraded results files, the Markdown
report, the report JSON, the HTML report, the benchmark JSON and the history with this grading
recorded, all or none (outputs.py writes them whole).

Apart from the engine's flow (`__init__.py`) because it is a duty of its own: turning the
evaluation into files, with what each renderer needs besides it (the HTML report's private
folders, the history record's time and raw files).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from waza_ci.gate.baseline import Side
from waza_ci.gate.history_io import HistoryFile, recorded_text
from waza_ci.outputs import OutputPlan, StreamWriter, write_text_files
from waza_ci.report.benchmark import benchmark_json_text
from waza_ci.report.evaluation import Evaluation
from waza_ci.report.model import report_json_text
from waza_ci.report.regressions import render_job_summary
from waza_ci.verdict import Verdict
from waza_ci.waza.results import write_results

if TYPE_CHECKING:
    from waza_ci.engine import EvaluationRequest, GradeReport


def record_text(
    history: HistoryFile | None,
    graded: GradeReport,
    sides: Sequence[Side],
    evaluation: Evaluation,
    request: EvaluationRequest,
) -> str | None:
    """The history file's new text with this grading recorded, when asked and when the grading
    judged the agent's work: a grading whose graders could not run, errored, or that was of
    another eval records nothing (its zeros would read as the agent failing)."""
    if history is None or not request.history.record:
        return None
    if evaluation.decision.verdict not in (Verdict.PASSED, Verdict.FAILED):
        return None
    return recorded_text(
        history,
        graded.summary,
        sides,
        graded.eval_identity,
        {r.source.name: r.raw for r in graded.regraded},
        options=request.history,
        renamed_from=request.policy.renamed_from,
        time=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    )


def write_files(
    plan: OutputPlan,
    graded: GradeReport,
    evaluation: Evaluation,
    request: EvaluationRequest,
    record: str | None,
) -> None:
    """The regraded results files, the Markdown report, the report JSON, the HTML report, the
    benchmark JSON and the history, all or none."""
    outputs = request.outputs
    contents: dict[Path, str | StreamWriter] = {
        plan.results[r.source.name]: functools.partial(write_results, r.raw)
        for r in graded.regraded
        if r.source.name in plan.results
    }
    if plan.summary is not None:
        contents[plan.summary] = render_job_summary(evaluation, mode=outputs.report_mode)
    if plan.report_json is not None:
        contents[plan.report_json] = report_json_text(evaluation.model, evaluation.decision)
    if plan.html is not None:
        contents[plan.html] = html_report(graded, evaluation, request)
    if plan.benchmark_json is not None:
        contents[plan.benchmark_json] = benchmark_json_text(evaluation)
    if plan.history is not None and record is not None:
        contents[plan.history] = record
    if contents:
        write_text_files(contents)


def html_report(graded: GradeReport, evaluation: Evaluation, request: EvaluationRequest) -> str:
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
        roots += [v for v in grading.grader_env.values() if names_a_folder(v)]
    html_request = HtmlRequest(
        raw_files={r.source.name: r.raw for r in graded.regraded},
        bounds=Bounds(request.outputs.html_max_text_kib),
        commit=request.links.sha if request.links is not None else "",
        private_roots=roots,
    )
    return render_html(evaluation, html_request)


def names_a_folder(value: str) -> bool:
    return value.startswith("/") and ":" not in value and len(value) < 4096 and Path(value).is_dir()
