"""How long building and rendering the report takes for large outputs, against a baseline.

For each case (one failing grader whose output is 10 KiB, 1 MiB or 100 MiB; 2,000 failing tasks
with 3 KB outputs) it times the whole reporting path — the report model, the job summary, the
check run's summary and text, the annotations and the report JSON — and, as the baseline
measured in the same run, one `clean()` pass over the same output (the least any renderer must
do: read every character once). The ratio says how many such passes the report costs.

    .venv/bin/python benchmarks/report_render.py [--runs 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _project import Row
from _summaries import REPO, huge_summary, one_failure_summary

from waza_ci.report.annotations import build_annotations
from waza_ci.report.evaluation import Evaluation
from waza_ci.report.github_documents import (
    render_check_summary,
    render_check_text,
    render_markdown,
)
from waza_ci.report.model import report_json_text
from waza_ci.report.text_safety import clean
from waza_ci.waza.scoring import GradeSummary


def _output(size: int) -> str:
    line = "ok: a line of grader output 0123456789\n"
    return line * (size // len(line)) + "AssertionError: the last line"


def _report_everything(summary: GradeSummary) -> None:
    evaluation = Evaluation.build(summary, repo_root=REPO)
    render_markdown(evaluation)
    render_check_summary(evaluation)
    render_check_text(evaluation)
    build_annotations(evaluation.model)
    report_json_text(evaluation.model, evaluation.decision)


def _median_seconds(action: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def _cases() -> list[tuple[str, GradeSummary, str]]:
    cases: list[tuple[str, GradeSummary, str]] = []
    for label, size in (("10 KiB output", 10 * 1024), ("1 MiB output", 1024**2)):
        text = _output(size)
        cases.append((label, one_failure_summary(text), text))
    text = _output(100 * 1024**2)
    cases.append(("100 MiB output", one_failure_summary(text), text))
    huge = huge_summary(tasks=2_000)
    every_text = "\n".join(v.feedback for r in huge.runs for v in r.verdicts)
    cases.append(("2,000 failing tasks", huge, every_text))
    return cases


def measure(runs: int) -> list[tuple[str, float, float]]:
    """(case, report seconds, one clean() pass seconds) for each case."""
    timed = []
    for label, summary, baseline_text in _cases():
        report_s = _median_seconds(lambda s=summary: _report_everything(s), runs)  # type: ignore[misc]
        base_s = _median_seconds(lambda t=baseline_text: clean(t), runs)  # type: ignore[misc]
        timed.append((label, report_s, base_s))
    return timed


def rows(runs: int) -> list[Row]:
    return [
        Row(
            f"report: {label}",
            f"{report_s:.3f} s",
            f"one clean() {base_s:.3f} s",
            report_s / base_s,
            "-",
            None,
        )
        for label, report_s, base_s in measure(runs)
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    runs = parser.parse_args().runs
    print("| case | report (s) | one clean() pass (s) | ratio |")
    print("|---|---:|---:|---:|")
    for label, report_s, base_s in measure(runs):
        print(f"| {label} | {report_s:.3f} | {base_s:.3f} | {report_s / base_s:.1f} |")


if __name__ == "__main__":
    main()
