"""Graded summaries for the report benchmarks, built directly (the renderers' input): one task
whose grader fails with a given output, and thousands of failing tasks with long multibyte
feedback. The benchmarks import nothing from tests/ (they run with only the project
installed), so these restate two of the report tests' factories, and tests/test_benchmarks.py
keeps them equal."""

from __future__ import annotations

from waza_ci.errors import Location
from waza_ci.waza.scoring import (
    Diagnosis,
    GraderRef,
    GraderVerdict,
    GradeSummary,
    RunGrade,
    TaskGrade,
    run_status,
)

REPO = "/github/workspace"
EVAL = f"{REPO}/evals/code-review/eval.yaml"
TASKS = f"{REPO}/evals/code-review/tasks"


def _verdict(
    name: str,
    *,
    passed: bool = True,
    feedback: str = "",
    error: str | None = None,
    diagnosis: Diagnosis | None = None,
) -> GraderVerdict:
    ok = passed and error is None
    return GraderVerdict(
        name=name,
        kind="program",
        score=1.0 if ok else 0.0,
        weight=1.0,
        passed=ok,
        feedback=feedback or ("Program exited successfully" if ok else ""),
        regraded=True,
        error=error,
        duration_ms=100,
        diagnosis=diagnosis,
    )


def _run(number: int, *verdicts: GraderVerdict) -> RunGrade:
    ordered = tuple(sorted(verdicts, key=lambda v: v.name))
    return RunGrade(run_number=number, status=run_status(ordered), verdicts=ordered)


def _task(test_id: str, *runs: RunGrade, graders: dict[str, GraderRef], display: str) -> TaskGrade:
    return TaskGrade(
        key=test_id,
        results_name="results.json",
        test_id=test_id,
        display_name=display,
        runs=runs,
        graders=graders,
        task_location=Location(f"{TASKS}/{test_id}.yaml", 1),
    )


def _ref(name: str, line: int) -> GraderRef:
    return GraderRef(name=name, kind="program", location=Location(EVAL, line))


def one_failure_summary(stderr: str) -> GradeSummary:
    """One task whose program grader exits 1 with `stderr`."""
    failed = _verdict(
        "tests_pass",
        passed=False,
        feedback=f"Program exited with error: exit status 1; stderr: {stderr}",
        diagnosis=Diagnosis(exit_error="exit status 1", stdout="", stderr=stderr),
    )
    graders = {"tests_pass": _ref("tests_pass", 18)}
    task = _task("fix-null-check", _run(1, failed), graders=graders, display="fix-null-check")
    return GradeSummary(
        eval_name="code-review",
        eval_path="evals/code-review/eval.yaml",
        results_names=("results.json",),
        tasks=(task,),
    )


def huge_summary(tasks: int, feedback_bytes: int = 3_000) -> GradeSummary:
    """Thousands of failing verdicts with long feedback in 2-, 3- and 4-byte characters, so
    every cut lands near one."""
    unit = "é€𝄞<&>@x "
    filler = (unit * (feedback_bytes // len(unit.encode()) + 1))[: feedback_bytes // 2]
    graders = {"compiles": _ref("compiles", 12), "tests_pass": _ref("tests_pass", 18)}
    return GradeSummary(
        eval_name="big",
        eval_path="evals/big/eval.yaml",
        results_names=("results.json",),
        tasks=tuple(
            _task(
                f"task-{index:05d}",
                _run(
                    1,
                    _verdict("compiles", passed=False, feedback=f"{index}: {filler}"),
                    _verdict("tests_pass", passed=False, feedback=f"{index}:\n{filler}\n"),
                ),
                _run(2, _verdict("compiles"), _verdict("tests_pass", error=f"{index} {filler}")),
                graders=graders,
                display=f"Task {index} — ünïcödé {filler[:40]}",
            )
            for index in range(tasks)
        ),
    )
