"""The regression sections stay inside GitHub's size limits, escape untrusted names, and put
regressions first."""

from __future__ import annotations

import pytest

from waza_ci.gate.baseline import Change, PassCount, Side, compare
from waza_ci.gate.baseline_io import BaselineUse
from waza_ci.report.evaluation import Evaluation
from waza_ci.report.regressions import (
    ordered_changes,
    render_check_summary_with_regressions,
    render_job_summary,
)
from waza_ci.report.text_safety import utf8_len
from waza_ci.waza.scoring import (
    GraderVerdict,
    GradeSummary,
    RunGrade,
    Status,
    TaskGrade,
)


def _flaky_summary(count: int, name: str = "task") -> GradeSummary:
    runs = (
        RunGrade(1, Status.PASSED, (GraderVerdict("g", "program", 1.0, 1.0, True, "", True),)),
        RunGrade(2, Status.FAILED, (GraderVerdict("g", "program", 0.0, 1.0, False, "", True),)),
    )
    tasks = tuple(TaskGrade(f"{name}-{i}", "r.json", f"{name}-{i}", "", runs) for i in range(count))
    return GradeSummary("e", "e.yaml", ("r.json",), tasks)


@pytest.mark.slow
def test_both_reports_with_the_section_stay_within_their_limits() -> None:
    summary = _flaky_summary(20_000, name="x" * 40)
    sides = [Side(t.key, t.key, "", PassCount(1, 2), {}) for t in summary.tasks]
    before = [Side(s.key, s.key, "", PassCount(2, 2), {}) for s in sides]
    comparison = compare(sides, before)
    evaluation = Evaluation.build(summary, baseline=BaselineUse(comparison))
    job = render_job_summary(evaluation)
    check = render_check_summary_with_regressions(evaluation)
    assert utf8_len(job) <= 1_048_576
    assert utf8_len(check) <= 65_535
    for text in (job, check):
        assert "### Compared with the baseline" in text
        assert "more row(s) left out" in text


def test_regressions_come_first_and_names_cannot_break_the_table() -> None:
    current = [
        Side("fix", "fix", "", PassCount(1, 1), {}),
        Side("a|b", "a|b", "", PassCount(0, 1), {}),
    ]
    baseline = [
        Side("fix", "fix", "", PassCount(0, 1), {}),
        Side("a|b", "a|b", "", PassCount(1, 1), {}),
    ]
    comparison = compare(current, baseline)
    assert [t.change for t in ordered_changes(comparison)] == [Change.NEWLY_FAILING, Change.FIXED]
    empty = _flaky_summary(0)
    text = render_job_summary(Evaluation.build(empty, baseline=BaselineUse(comparison)))
    row = next(line for line in text.splitlines() if "newly failing |" in line)
    assert "`a\\|b`" in row
