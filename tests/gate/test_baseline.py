"""Baseline comparison: the categories, the noise rule, waza's gate on top, and the CLI flags."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Project, make_results, make_run
from waza_ci.gate.baseline import (
    Change,
    PassCount,
    Side,
    beyond_noise,
    compare,
    fisher_drop_p_value,
)
from waza_ci.gate.waza_gate import GateOptions, TaskPolicy


def side(key: str, passed: int, total: int, golden: bool = False, **graders: PassCount) -> Side:
    return Side(key, key, key, PassCount(passed, total), graders, golden)


# --- statistics ---------------------------------------------------------------------------------


def test_wilson_interval_matches_the_textbook_values() -> None:
    # Wilson 95% for 0/10 is [0, 0.2775]; for 5/10 [0.2366, 0.7634]; no runs is [0, 1].
    low, high = PassCount(0, 10).interval
    assert low == pytest.approx(0.0, abs=1e-12) and high == pytest.approx(0.27753, abs=1e-5)
    low, high = PassCount(5, 10).interval
    assert low == pytest.approx(0.23659, abs=1e-5)
    assert high == pytest.approx(0.76341, abs=1e-5)
    assert PassCount(0, 0).interval == (0.0, 1.0)


def test_fisher_one_sided_p_values() -> None:
    assert fisher_drop_p_value(PassCount(3, 3), PassCount(0, 3)) == pytest.approx(0.05)
    assert fisher_drop_p_value(PassCount(2, 2), PassCount(0, 2)) == pytest.approx(1 / 6)
    assert fisher_drop_p_value(PassCount(3, 3), PassCount(1, 3)) == pytest.approx(0.2)
    # No drop at all: the whole distribution is at or below the observation.
    assert fisher_drop_p_value(PassCount(1, 3), PassCount(3, 3)) == pytest.approx(1.0)


def test_noise_rule_in_both_directions() -> None:
    assert beyond_noise(PassCount(3, 3), PassCount(0, 3))
    assert beyond_noise(PassCount(0, 3), PassCount(3, 3))
    assert not beyond_noise(PassCount(3, 3), PassCount(2, 3))
    assert not beyond_noise(PassCount(2, 4), PassCount(2, 4))


# --- categories ---------------------------------------------------------------------------------


def test_single_run_tasks_each_category() -> None:
    result = compare(
        [
            side("flip", 0, 1),
            side("fix", 1, 1),
            side("bad", 0, 1),
            side("ok", 1, 1),
            side("n", 1, 1),
        ],
        [
            side("flip", 1, 1),
            side("fix", 0, 1),
            side("bad", 0, 1),
            side("ok", 1, 1),
            side("r", 1, 1),
        ],
    )
    by_key = {t.key: t for t in result.tasks}
    assert {k: t.change for k, t in by_key.items()} == {
        "flip": Change.NEWLY_FAILING,
        "fix": Change.FIXED,
        "bad": Change.STILL_FAILING,
        "ok": Change.PASSING,
        "n": Change.NEW,
        "r": Change.REMOVED,
    }
    assert [t.key for t in result.regressions] == ["flip"]
    assert result.failed
    assert [t.key for t in result.fixed] == ["fix"]


def test_a_task_that_already_failed_on_the_baseline_does_not_fail_the_gate() -> None:
    result = compare([side("bad", 0, 1), side("ok", 1, 1)], [side("bad", 0, 1), side("ok", 1, 1)])
    assert not result.failed
    assert result.gate.outcome == "pass"
    assert [t.key for t in result.still_failing] == ["bad"]


def test_multi_trial_flip_within_noise_is_reported_not_failed() -> None:
    result = compare([side("t", 2, 3)], [side("t", 3, 3)], options=GateOptions(100.0))
    (task,) = result.tasks
    assert task.change is Change.NEWLY_FAILING
    assert task.within_noise and not task.regression
    assert not result.failed


def test_multi_trial_drop_beyond_noise_is_a_regression_even_when_already_failing() -> None:
    # 9/10 -> 1/10 with every run required: failing before and after, yet clearly worse.
    result = compare([side("t", 1, 10)], [side("t", 9, 10)])
    (task,) = result.tasks
    assert task.change is Change.STILL_FAILING
    assert task.regression
    assert result.failed


def test_min_task_pass_rate_decides_the_verdict_on_both_sides() -> None:
    result = compare([side("t", 2, 3)], [side("t", 3, 3)], min_task_pass_rate=0.6)
    assert result.tasks[0].change is Change.PASSING
    assert result.tasks[0].rate_changed and result.tasks[0].within_noise
    assert result.gate.current_pass_rate == 1.0


def test_grader_level_changes_are_listed_per_task() -> None:
    result = compare(
        [side("t", 0, 1, a=PassCount(0, 1), b=PassCount(1, 1), new=PassCount(1, 1))],
        [side("t", 1, 1, a=PassCount(1, 1), b=PassCount(1, 1), old=PassCount(1, 1))],
    )
    changes = {(g.grader, g.change) for g in result.tasks[0].graders}
    assert changes == {("a", Change.NEWLY_FAILING), ("new", Change.NEW), ("old", Change.REMOVED)}


def test_waza_gate_rules_apply_on_top_golden_and_aggregate_and_policies() -> None:
    # Golden: a golden task failing now fails the gate even though it failed before too.
    result = compare([side("g", 0, 1, golden=True)], [side("g", 0, 1)])
    assert result.gate.outcome == "golden_failure" and result.failed
    relaxed = compare(
        [side("g", 0, 1, golden=True)],
        [side("g", 0, 1)],
        options=GateOptions(golden_must_pass=False),
    )
    assert not relaxed.failed
    # A removed task lowers nothing but trips a `fail` policy.
    removed = compare(
        [side("a", 1, 1)],
        [side("a", 1, 1), side("b", 1, 1)],
        options=GateOptions(on_removed_tasks=TaskPolicy.FAIL),
    )
    assert removed.failed and not removed.regressions
    # The aggregate drop counts tasks that moved within noise too: 2 of 2 -> 1 of 2 is 50pp.
    noisy = compare([side("a", 1, 1), side("b", 2, 3)], [side("a", 1, 1), side("b", 3, 3)])
    assert not noisy.regressions
    assert noisy.gate.regression_exceeds_threshold and noisy.failed
    tolerant = compare(
        [side("a", 1, 1), side("b", 2, 3)],
        [side("a", 1, 1), side("b", 3, 3)],
        options=GateOptions(max_regression_pct=50),
    )
    assert not tolerant.failed


# --- the command --------------------------------------------------------------------------------

GOOD_GRADER = "import sys\nsys.exit(0 if 'good' in sys.stdin.read() else 1)\n"


def write_good_project(project: Project, outputs: dict[str, list[str]]) -> None:
    """One task per key, one run per output; the grader passes a run whose output says good."""
    script = project.write_grader("good.py", GOOD_GRADER)
    project.write_eval(project.program_grader("good", script))
    for task_id in outputs:
        project.write_task(task_id)
    runs = {
        task_id: [make_run(i + 1, final_output=text) for i, text in enumerate(texts)]
        for task_id, texts in outputs.items()
    }
    project.write_results(make_results(runs))


def _baseline(project: Project, grade_project: Any, outputs: dict[str, list[str]]) -> Path:
    """Grade `outputs` and keep the regraded file, as main's run would upload it."""
    write_good_project(project, outputs)
    path = project.root.parent / "baseline.json"
    grade_project("--fail-on", "errors", "--output", str(path))
    return path


@pytest.mark.slow
def test_fail_on_regressions_passes_when_only_old_failures_remain(
    project: Project, grade_project: Any
) -> None:
    baseline = _baseline(project, grade_project, {"old": ["bad"], "fine": ["good"]})
    write_good_project(project, {"old": ["bad"], "fine": ["good"]})
    summary = project.root / "summary.md"
    assert grade_project().code == 1  # today's rule: a failing task fails
    result = grade_project(
        "--baseline", str(baseline), "--fail-on", "regressions", "--summary", str(summary)
    )
    assert result.code == 0, result.stderr
    assert "regression gate passed: 0 regression(s), 0 fixed, 1 still failing" in result.stderr
    text = summary.read_text(encoding="utf-8")
    assert "### Compared with the baseline" in text
    assert "**Regression gate: ✅ pass**" in text


@pytest.mark.slow
def test_fail_on_regressions_fails_on_a_newly_failing_task(
    project: Project, grade_project: Any
) -> None:
    baseline = _baseline(project, grade_project, {"t1": ["good"], "t2": ["bad"]})
    write_good_project(project, {"t1": ["bad"], "t2": ["good"]})
    result = grade_project("--baseline", str(baseline), "--fail-on", "regressions")
    assert result.code == 1
    assert "newly failing REGRESSION: t1 1/1 (100%) -> 0/1 (0%)" in result.stderr
    assert "fixed: t2" in result.stderr


@pytest.mark.slow
def test_a_missing_baseline_is_a_warning_grading_goes_on_and_the_gate_fails_closed(
    project: Project, grade_project: Any
) -> None:
    write_good_project(project, {"t1": ["bad"]})
    summary = project.root / "summary.md"
    missing = project.root / "nowhere" / "*.json"
    result = grade_project(
        "--baseline", str(missing), "--fail-on", "regressions", "--summary", str(summary)
    )
    assert result.code == 1
    assert "warning: no baseline results file found" in result.stderr
    assert "--allow-missing-baseline" in result.stderr
    assert "no baseline" in summary.read_text(encoding="utf-8")
    allowed = grade_project(
        "--baseline", str(missing), "--fail-on", "regressions", "--allow-missing-baseline"
    )
    assert allowed.code == 0, allowed.stderr


@pytest.mark.slow
def test_a_malformed_baseline_is_exit_2_naming_the_file(
    project: Project, grade_project: Any
) -> None:
    write_good_project(project, {"t1": ["good"]})
    bad = project.root.parent / "baseline.json"
    bad.write_text("{not json", encoding="utf-8")
    result = grade_project("--baseline", str(bad))
    assert result.code == 2
    assert "baseline.json" in result.stderr and result.stderr.count("\n") == 1


@pytest.mark.slow
def test_min_task_pass_rate_and_flaky_tasks(project: Project, grade_project: Any) -> None:
    write_good_project(project, {"t1": ["good", "good", "bad"]})
    summary = project.root / "summary.md"
    assert grade_project().code == 1
    result = grade_project("--min-task-pass-rate", "0.6", "--summary", str(summary))
    assert result.code == 0
    assert json.loads(result.stdout)["passed"] is True
    assert "flaky: t1 2/3 (67%), 95% interval 21% to 94%" in result.stderr
    assert "### Flaky tasks" in summary.read_text(encoding="utf-8")
    assert grade_project("--min-task-pass-rate", "1.5").code == 2


@pytest.mark.slow
@pytest.mark.parametrize(
    "flags",
    [["--on-new-tasks", "sometimes"], ["--max-regression-pct", "-2"], ["--golden-must-pass=x"]],
)
def test_bad_gate_flags_on_grade_are_exit_2(
    flags: list[str], project: Project, grade_project: Any
) -> None:
    write_good_project(project, {"t1": ["good"]})
    result = grade_project(*flags)
    assert result.code == 2
    assert result.stderr.count("\n") == 1


@pytest.mark.slow
def test_golden_flag_from_the_results_file_reaches_the_gate(
    project: Project, grade_project: Any
) -> None:
    baseline = _baseline(project, grade_project, {"g": ["bad"]})
    write_good_project(project, {"g": ["bad"]})
    doc: dict[str, Any] = json.loads(project.results_path.read_text(encoding="utf-8"))
    doc["tasks"][0]["golden"] = True
    project.write_results(doc)
    result = grade_project("--baseline", str(baseline), "--fail-on", "regressions")
    assert result.code == 1
    assert "waza gate: golden_failure" in result.stderr
    relaxed = grade_project(
        "--baseline", str(baseline), "--fail-on", "regressions", "--golden-must-pass=false"
    )
    assert relaxed.code == 0


@pytest.mark.slow
def test_task_filter_applies_to_the_baseline_too(project: Project, grade_project: Any) -> None:
    baseline = _baseline(project, grade_project, {"t1": ["good"], "t2": ["good"]})
    write_good_project(project, {"t1": ["good"], "t2": ["bad"]})
    result = grade_project(
        "--baseline", str(baseline), "--task", "t1", "--on-removed-tasks", "fail"
    )
    assert result.code == 0, result.stderr
    assert "0 new, 0 removed, 0 not compared; waza gate: pass" in result.stderr


@pytest.mark.slow
def test_baseline_is_refused_with_a_shard(
    project: Project, grade_project: Any, tmp_path: Path
) -> None:
    # The comparison needs every task: it belongs to `merge` (tests/test_shard.py).
    write_good_project(project, {"t1": ["good"]})
    sharded = grade_project(
        "--baseline",
        str(project.results_path),
        "--shard",
        "1/2",
        "--output",
        str(tmp_path / "partial.json"),
    )
    assert sharded.code == 2
    assert "--baseline" in sharded.stderr and sharded.stderr.count("\n") == 1
