"""The step's outputs, and the report JSON file that one of them names.

A later step may paste an output into a shell (`run: echo ${{ steps.x.outputs.check-run-url }}`),
so every value that comes from outside (GitHub's answers, the results files) is checked for its
kind here; one that fails is left empty, with a warning.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from urllib.parse import urlsplit

from waza_ci.errors import WazaCiError
from waza_ci.github.checks import CheckRunResult
from waza_ci.github.commands import WorkflowCommands
from waza_ci.outputs import write_text_files
from waza_ci.report.evaluation import Evaluation
from waza_ci.report.gfm import JOB_SUMMARY, code
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
        write_text_files({Path(relative): report_json_text(evaluation.model, evaluation.decision)})
    except WazaCiError as err:  # a reporting problem must not hide the verdict
        commands.warning(f"could not write the report JSON: {err}")
        return ""
    return relative


def html_report_note(html_report: Path | None) -> str:
    """The job summary's first line when an HTML report was written: where to find it."""
    if html_report is None:
        return ""
    shown = code(str(html_report), JOB_SUMMARY, in_table=False)
    return (
        f"> **HTML report:** {shown}, every run's transcript and"
        " verdicts in one file: download it from this run's artifacts (when the workflow"
        " uploads it with `actions/upload-artifact`) and open it in a browser.\n\n"
    )


def checked_url(url: str, server_url: str) -> str | None:
    """`url` when it is one plain `https://` address on the GitHub server's own host (the host of
    GITHUB_SERVER_URL, e.g. github.com or a GitHub Enterprise host); None otherwise."""
    if not _PLAIN_URL.fullmatch(url):
        return None
    parts, server = urlsplit(url), urlsplit(server_url)
    same_host = parts.hostname is not None and parts.hostname == server.hostname
    same_port = parts.port == server.port
    return url if parts.scheme == "https" and same_host and same_port else None


# What GitHub's web addresses of a check run look like (`https://host[:port]/owner/repo/runs/1`):
# no query, no fragment, no character a shell treats specially, so even an unquoted paste of
# the output stays one harmless word.
_PLAIN_URL = re.compile(r"https://[A-Za-z0-9.-]+(:[0-9]{1,5})?(/[A-Za-z0-9._~%-]*)*")


def checked_id(value: int) -> str | None:
    """A positive integer id as digits; None for anything else."""
    valid = isinstance(value, int) and not isinstance(value, bool) and value > 0
    return str(value) if valid else None


def step_outputs(
    evaluation: Evaluation,
    check_run: tuple[str, str],
    *,
    report_json: str,
    output_file: Path | None,
    html_report: Path | None = None,
) -> dict[str, str]:
    """Every output action.yml declares; `check_run` is `check_run_outputs`'s pair."""
    summary = evaluation.summary
    check_id, check_url = check_run
    return {
        "failed-tasks": json.dumps(evaluation.model.failed_tasks, ensure_ascii=False),
        "report-json": report_json,
        "passed": _bool(evaluation.decision.passed),
        "tasks-passed": _bool(evaluation.decision.tasks_passed),
        "overall-score": f"{summary.overall_score:.4f}",
        "runs-graded": str(summary.runs_graded),
        "runs-failed": str(summary.runs_failed),
        "grader-errors": str(summary.grader_errors),
        "check-run-id": check_id,
        "check-run-url": check_url,
        "output-file": str(output_file) if output_file else "",
        "html-report": str(html_report) if html_report else "",
        "judge-spend": _judge_spend(evaluation),
        **_gate_outputs(evaluation),
    }


def _judge_spend(evaluation: Evaluation) -> str:
    """The LLM judge's own spend as one line of JSON (`fromJSON()`); empty without `judge`."""
    judge = evaluation.model.judge
    return "" if judge is None else json.dumps(judge.to_json(), ensure_ascii=False)


def check_run_outputs(
    check: CheckRunResult | None, server_url: str, warn: Callable[[str], None]
) -> tuple[str, str]:
    """`check-run-id` and `check-run-url` from GitHub's answer, each checked for its kind once,
    where it enters: "" for a value that fails (with a warning) or when there is no run."""
    if check is None:
        return "", ""
    check_id = checked_id(check.id)
    if check_id is None:
        warn("GitHub answered a check-run id that is not a positive number: check-run-id is empty")
    check_url = checked_url(check.html_url, server_url) if check.html_url else ""
    if check_url is None:
        host = urlsplit(server_url).hostname
        warn(
            f"GitHub answered a check-run address that is not an https address on {host}: "
            "check-run-url is empty"
        )
    return check_id or "", check_url or ""


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
        "gate": str(evaluation.decision.gate),
    }


def _bool(value: bool) -> str:
    return "true" if value else "false"
