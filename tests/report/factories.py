"""GradeSummary values for the report tests: small, explicit, and the same every call."""

from __future__ import annotations

from waza_ci.errors import Location
from waza_ci.scoring import (
    STATUS_ERROR,
    GraderRef,
    GradeSummary,
    RunGrade,
    SkippedTask,
    TaskGrade,
    Verdict,
    run_status,
)

REPO = "/github/workspace"
EVAL = f"{REPO}/evals/code-review/eval.yaml"
TASKS = f"{REPO}/evals/code-review/tasks"


def verdict(
    name: str,
    *,
    passed: bool = True,
    feedback: str = "",
    kind: str = "program",
    regraded: bool = True,
    error: str | None = None,
    weight: float = 1.0,
) -> Verdict:
    ok = passed and error is None
    score = 1.0 if ok else 0.0
    return Verdict(
        name=name,
        kind=kind,
        score=score,
        weight=weight,
        passed=ok,
        feedback=feedback or ("Program exited successfully" if ok else ""),
        regraded=regraded,
        error=error,
    )


def run(number: int, *verdicts: Verdict) -> RunGrade:
    ordered = tuple(sorted(verdicts, key=lambda v: v.name))
    return RunGrade(run_number=number, status=run_status(ordered), verdicts=ordered)


def errored_run(number: int, message: str | None) -> RunGrade:
    return RunGrade(run_number=number, status=STATUS_ERROR, verdicts=(), error_msg=message)


def ref(name: str, file: str, line: int | None) -> GraderRef:
    return GraderRef(name=name, kind="program", location=Location(file, line))


def task(
    test_id: str,
    *runs: RunGrade,
    display_name: str = "",
    results_name: str = "results.json",
    several: bool = False,
    graders: dict[str, GraderRef] | None = None,
    task_location: Location | None = None,
) -> TaskGrade:
    return TaskGrade(
        key=f"{results_name}:{test_id}" if several else test_id,
        results_name=results_name,
        test_id=test_id,
        display_name=display_name or test_id,
        runs=tuple(runs),
        graders=graders or {},
        task_location=task_location,
    )


def _global_graders() -> dict[str, GraderRef]:
    return {
        "compiles": ref("compiles", EVAL, 12),
        "tests_pass": ref("tests_pass", EVAL, 18),
    }


def passing_summary() -> GradeSummary:
    """Two tasks, two runs each, everything passes."""
    graders = _global_graders()
    return GradeSummary(
        eval_name="code-review",
        eval_path="evals/code-review/eval.yaml",
        results_names=("results.json",),
        tasks=(
            task(
                "fix-null-check",
                run(1, verdict("compiles"), verdict("tests_pass")),
                run(2, verdict("compiles"), verdict("tests_pass")),
                display_name="Fix the null check",
                graders=graders,
                task_location=Location(f"{TASKS}/fix-null-check.yaml", 1),
            ),
            task(
                "rename-symbol",
                run(1, verdict("compiles"), verdict("tests_pass")),
                run(2, verdict("compiles"), verdict("tests_pass")),
                display_name="Rename a symbol",
                graders=graders,
                task_location=Location(f"{TASKS}/rename-symbol.yaml", 1),
            ),
        ),
    )


def failing_summary() -> GradeSummary:
    """Failing program graders, a kept synthetic check, an errored run and a skipped task."""
    graders = _global_graders()
    lint_graders = {**graders, "lint_clean": ref("lint_clean", f"{TASKS}/add-logging.yaml", 9)}
    return GradeSummary(
        eval_name="code-review",
        eval_path="evals/code-review/eval.yaml",
        results_names=("results.json",),
        tasks=(
            task(
                "fix-null-check",
                run(
                    1,
                    verdict("compiles"),
                    verdict(
                        "tests_pass",
                        passed=False,
                        feedback="exit status 1; stderr: FAILED tests/test_user.py::test_none"
                        " - AssertionError: expected None\n\n1 failed, 12 passed in 0.41s",
                    ),
                ),
                run(2, verdict("compiles"), verdict("tests_pass")),
                errored_run(3, "session timed out after 300s waiting for the model"),
                display_name="Fix the null check",
                graders=graders,
                task_location=Location(f"{TASKS}/fix-null-check.yaml", 1),
            ),
            task(
                "add-logging",
                run(
                    1,
                    verdict("compiles"),
                    verdict(
                        "lint_clean",
                        passed=False,
                        feedback="exit status 1; stderr: src/app.py:3:1: F401 'os' imported"
                        " but unused",
                    ),
                    verdict(
                        "_output_contains",
                        passed=False,
                        kind="keyword",
                        regraded=False,
                        feedback="Missing expected keyword: logger",
                    ),
                ),
                run(
                    2,
                    verdict("compiles"),
                    verdict("lint_clean"),
                    verdict(
                        "_output_contains",
                        passed=False,
                        kind="keyword",
                        regraded=False,
                        feedback="Missing expected keyword: logger",
                    ),
                ),
                display_name="Add structured logging",
                graders=lint_graders,
                task_location=Location(f"{TASKS}/add-logging.yaml", None),
            ),
            task(
                "rename-symbol",
                run(1, verdict("compiles"), verdict("tests_pass")),
                display_name="Rename a symbol",
                graders=graders,
                task_location=Location(f"{TASKS}/rename-symbol.yaml", 1),
            ),
        ),
        skipped=(SkippedTask("results.json", "update-docs", "no runs in the results file"),),
    )


def error_summary() -> GradeSummary:
    """A grader timeout, a grader that could not start, and a grading-context error."""
    graders = _global_graders()
    return GradeSummary(
        eval_name="code-review",
        eval_path="evals/code-review/eval.yaml",
        results_names=("results.json",),
        tasks=(
            task(
                "fix-null-check",
                run(
                    1,
                    verdict(
                        "tests_pass",
                        error="timed out after 30s",
                        feedback="Program timed out after 30s",
                    ),
                    verdict("compiles"),
                ),
                run(
                    2,
                    verdict("tests_pass", passed=False, feedback="exit status 1"),
                    verdict("compiles"),
                ),
                display_name="Fix the null check",
                graders=graders,
                task_location=Location(f"{TASKS}/fix-null-check.yaml", 1),
            ),
            task(
                "rename-symbol",
                run(
                    1,
                    verdict(
                        "compiles",
                        error="failed to start: [Errno 2] No such file or directory: 'gradle'",
                    ),
                    verdict(
                        "tests_pass",
                        error="grading context: run has no final_output",
                    ),
                ),
                display_name="Rename a symbol",
                graders=graders,
                task_location=Location(f"{TASKS}/rename-symbol.yaml", 1),
            ),
        ),
    )


def multi_results_summary() -> GradeSummary:
    """The same task graded in two results files (two models)."""
    graders = _global_graders()
    location = Location(f"{TASKS}/fix-null-check.yaml", 1)
    return GradeSummary(
        eval_name="code-review",
        eval_path="evals/code-review/eval.yaml",
        results_names=("results-gpt4o.json", "results-claude.json"),
        tasks=(
            task(
                "fix-null-check",
                run(1, verdict("compiles"), verdict("tests_pass")),
                results_name="results-gpt4o.json",
                several=True,
                graders=graders,
                task_location=location,
            ),
            task(
                "fix-null-check",
                run(
                    1,
                    verdict("compiles"),
                    verdict("tests_pass", passed=False, feedback="1 failed, 12 passed"),
                ),
                results_name="results-claude.json",
                several=True,
                graders=graders,
                task_location=location,
            ),
        ),
        skipped=(SkippedTask("results-claude.json", "rename-symbol", "not in the results file"),),
    )


def empty_summary() -> GradeSummary:
    return GradeSummary(
        eval_name="code-review",
        eval_path="evals/code-review/eval.yaml",
        results_names=("results.json",),
        tasks=(),
        skipped=(SkippedTask("results.json", "fix-null-check", "no runs in the results file"),),
    )


HOSTILE = (
    "</pre></details></summary><script>alert(1)</script>"
    "<img src=x onerror=alert(1)> | col | \n# heading\n"
    "[link](javascript:alert(1)) ![img](https://example.com/x.png) `code` ``` "
    "@octocat @org/team ::error::boom \\| * _x_ ~~s~~ $x$ &lt;b&gt; #123 "
    "<!-- c --> -->\n\n- item\n1. one\n> quote\n---\n"
)


def hostile_summary() -> GradeSummary:
    """Every untrusted string is an attack."""
    name = "evil|grader</details><b>@octocat"
    graders = {name: ref(name, f"{REPO}/evals/{HOSTILE[:20]}.yaml", 3)}
    return GradeSummary(
        eval_name="# eval " + HOSTILE,
        eval_path="evals/" + HOSTILE,
        results_names=("res|ults</details>@octocat.json",),
        tasks=(
            task(
                "t|1 @octocat <script>",
                run(
                    1,
                    verdict(name, passed=False, feedback=HOSTILE),
                    verdict("ok", passed=False, feedback=HOSTILE, error=HOSTILE),
                ),
                errored_run(2, HOSTILE),
                display_name="- " + HOSTILE,
                results_name="res|ults</details>@octocat.json",
                graders=graders,
                task_location=Location(f"{REPO}/evals/task.yaml", 2),
            ),
        ),
        skipped=(SkippedTask("res|ults</details>@octocat.json", "@octocat|x", HOSTILE),),
    )


def huge_summary(tasks: int = 2_000, feedback_bytes: int = 3_000) -> GradeSummary:
    """Thousands of failing verdicts with long, multibyte feedback."""
    # Multibyte characters (2-, 3- and 4-byte) so every cut lands near one.
    unit = "é€𝄞<&>@x "
    filler = (unit * (feedback_bytes // len(unit.encode()) + 1))[: feedback_bytes // 2]
    graders = _global_graders()
    return GradeSummary(
        eval_name="big",
        eval_path="evals/big/eval.yaml",
        results_names=("results.json",),
        tasks=tuple(
            task(
                f"task-{index:05d}",
                run(
                    1,
                    verdict("compiles", passed=False, feedback=f"{index}: {filler}"),
                    verdict("tests_pass", passed=False, feedback=f"{index}:\n{filler}\n"),
                ),
                run(2, verdict("compiles"), verdict("tests_pass", error=f"{index} {filler}")),
                display_name=f"Task {index} — ünïcödé {filler[:40]}",
                graders=graders,
                task_location=Location(f"{TASKS}/task-{index:05d}.yaml", 1),
            )
            for index in range(tasks)
        ),
    )
