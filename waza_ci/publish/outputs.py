"""The step's outputs, and the report JSON file that one of them names."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path

from waza_ci.errors import WazaCiError
from waza_ci.gate.baseline_io import gate_status
from waza_ci.github.checks import CheckRunResult
from waza_ci.github.runner import WorkflowCommands
from waza_ci.outputs import write_text_files
from waza_ci.report.evaluation import Evaluation
from waza_ci.report.model import report_json_text

REPORT_JSON_DIR = ".waza-ci"
"""Where the report JSON goes, relative to the workspace: the only folder a Docker action
shares with later steps (RUNNER_TEMP is not mounted into the container)."""


def write_report_json(
    evaluation: Evaluation, env: Mapping[str, str], commands: WorkflowCommands
) -> str:
    """The report JSON under the workspace; its workspace-relative path, or "" if not written.

    One file per step: GITHUB_ACTION names the step (the runner suffixes repeated uses).
    """
    step = re.sub(r"[^A-Za-z0-9_.-]", "_", env.get("GITHUB_ACTION", "")) or "waza-ci"
    relative = f"{REPORT_JSON_DIR}/report-{step}.json"
    try:
        write_text_files({Path(relative): report_json_text(evaluation.model)})
    except WazaCiError as err:  # a reporting problem must not hide the verdict
        commands.warning(f"could not write the report JSON: {err}")
        return ""
    return relative


def step_outputs(
    evaluation: Evaluation,
    check: CheckRunResult | None,
    *,
    report_json: str,
    output_file: Path | None,
) -> dict[str, str]:
    """Every output action.yml declares."""
    summary = evaluation.summary
    return {
        "failed-tasks": json.dumps(evaluation.model.failed_tasks, ensure_ascii=False),
        "report-json": report_json,
        "passed": "true" if summary.passed and not summary.grader_errors else "false",
        "overall-score": f"{summary.overall_score:.4f}",
        "runs-graded": str(summary.runs_graded),
        "runs-failed": str(summary.runs_failed),
        "grader-errors": str(summary.grader_errors),
        "check-run-id": str(check.id) if check else "",
        "check-run-url": check.html_url if check else "",
        "output-file": str(output_file) if output_file else "",
        **_gate_outputs(evaluation),
    }


def _gate_outputs(evaluation: Evaluation) -> dict[str, str]:
    """The gate's outputs; counts are 0 and `baseline-pass-rate` empty without a baseline."""
    summary, comparison = evaluation.summary, evaluation.comparison
    tasks = summary.tasks
    passed = sum(1 for task in tasks if task.meets(summary.min_task_pass_rate))
    return {
        "regressions": str(len(comparison.regressions)) if comparison else "0",
        "fixed": str(len(comparison.fixed)) if comparison else "0",
        "flaky": str(len(evaluation.flaky)),
        "pass-rate": f"{passed / len(tasks):.4f}" if tasks else "0.0000",
        "baseline-pass-rate": f"{comparison.gate.baseline_pass_rate:.4f}" if comparison else "",
        "gate": gate_status(comparison),
    }
