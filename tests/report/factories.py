"""GradeSummary values for the report tests: small, explicit, and the same every call."""

from __future__ import annotations

from dataclasses import replace

from waza_ci.errors import Location
from waza_ci.waza.scoring import (
    Diagnosis,
    GraderRef,
    GraderVerdict,
    GradeSummary,
    Problem,
    RunGrade,
    SkippedTask,
    Status,
    TaskGrade,
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
    duration_ms: int = 100,
    diagnosis: Diagnosis | None = None,
) -> GraderVerdict:
    ok = passed and error is None
    score = 1.0 if ok else 0.0
    return GraderVerdict(
        name=name,
        kind=kind,
        score=score,
        weight=weight,
        passed=ok,
        feedback=feedback or ("Program exited successfully" if ok else ""),
        regraded=regraded,
        error=error,
        duration_ms=duration_ms,
        diagnosis=diagnosis,
    )


def failed(name: str, stderr: str, *, stdout: str = "", duration_ms: int = 100) -> GraderVerdict:
    """A regraded program verdict that exited 1 with this output, as grading.py builds it."""
    feedback = "Program exited with error: exit status 1" + (
        f"; stderr: {stderr}" if stderr else ""
    )
    return verdict(
        name,
        passed=False,
        feedback=feedback,
        duration_ms=duration_ms,
        diagnosis=Diagnosis(exit_error="exit status 1", stdout=stdout, stderr=stderr),
    )


def timed_out(name: str, seconds: int, source: str) -> GraderVerdict:
    return verdict(
        name,
        error="Program exited with error: signal: killed",
        feedback="Program exited with error: signal: killed",
        duration_ms=seconds * 1000,
        diagnosis=Diagnosis(
            exit_error="signal: killed",
            problem=Problem.TIMED_OUT,
            timeout_s=seconds,
            timeout_source=source,
        ),
    )


def not_started(name: str, command: str) -> GraderVerdict:
    text = f'exec: "{command}": executable file not found in $PATH'
    return verdict(
        name,
        error=f"Program exited with error: {text}",
        duration_ms=0,
        diagnosis=Diagnosis(exit_error=text, problem=Problem.NOT_STARTED),
    )


def cleanup_error(name: str, message: str) -> GraderVerdict:
    return verdict(
        name,
        error=f"Grading context error: {message}",
        duration_ms=50,
        diagnosis=Diagnosis(exit_error=None, problem=Problem.CLEANUP),
    )


def run(number: int, *verdicts: GraderVerdict) -> RunGrade:
    ordered = tuple(sorted(verdicts, key=lambda v: v.name))
    return RunGrade(run_number=number, status=run_status(ordered), verdicts=ordered)


def errored_run(number: int, message: str | None) -> RunGrade:
    return RunGrade(run_number=number, status=Status.ERROR, verdicts=(), error_msg=message)


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
    """Failing program graders, a kept synthetic check and an errored run."""
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
                    failed(
                        "tests_pass",
                        "FAILED tests/test_user.py::test_none - AssertionError: expected None"
                        "\n\n1 failed, 12 passed in 0.41s",
                        duration_ms=2_400,
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
                    failed("lint_clean", "src/app.py:3:1: F401 'os' imported but unused"),
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
    )


def not_evaluated_summary() -> GradeSummary:
    """The failing summary, with a task of the spec that has no saved run and one whose every
    run errored in execution: neither was evaluated."""
    failing = failing_summary()
    errored = task(
        "migrate-config",
        errored_run(1, "429 Too Many Requests: rate limited"),
        errored_run(2, "429 Too Many Requests: rate limited"),
        display_name="Migrate the config",
        task_location=Location(f"{TASKS}/migrate-config.yaml", 1),
    )
    return replace(
        failing,
        tasks=(*failing.tasks, errored),
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
                    timed_out("tests_pass", 30, "config.timeout at evals/code-review/eval.yaml:22"),
                    verdict("compiles"),
                ),
                run(
                    2,
                    failed("tests_pass", "E   assert 2 == 3\n1 failed in 0.10s"),
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
                    not_started("compiles", "gradle"),
                    cleanup_error("tests_pass", "/tmp/waza-grading-x1/context.json was replaced"),
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
                "rename-symbol",
                run(1, verdict("compiles"), verdict("tests_pass")),
                results_name="results-gpt4o.json",
                several=True,
                graders=graders,
                task_location=Location(f"{TASKS}/rename-symbol.yaml", 1),
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


def one_failure_summary(stderr: str, *, kept: bool = False, runs: int = 1) -> GradeSummary:
    """One task whose grader fails on every run with `stderr` (or, kept, that feedback)."""
    graders = {"tests_pass": ref("tests_pass", EVAL, 18)}
    made = (
        verdict("tests_pass", passed=False, feedback=stderr, regraded=False)
        if kept
        else failed("tests_pass", stderr)
    )
    return GradeSummary(
        eval_name="code-review",
        eval_path="evals/code-review/eval.yaml",
        results_names=("results.json",),
        tasks=(
            task(
                "fix-null-check",
                *(run(number, made) for number in range(1, runs + 1)),
                graders=graders,
                task_location=Location(f"{TASKS}/fix-null-check.yaml", 1),
            ),
        ),
    )


def same_failure_everywhere_summary(tasks: int = 3) -> GradeSummary:
    """Every execution cannot find its script: the wrong working-directory."""
    graders = _global_graders()

    def missing(name: str) -> GraderVerdict:
        return failed(
            name,
            f"python3: can't open file '/github/workspace/graders/{name}.py': "
            "[Errno 2] No such file or directory",
        )

    return GradeSummary(
        eval_name="code-review",
        eval_path="evals/code-review/eval.yaml",
        results_names=("results.json",),
        tasks=tuple(
            task(
                f"task-{index}",
                run(1, missing("compiles"), missing("tests_pass")),
                graders=graders,
                task_location=Location(f"{TASKS}/task-{index}.yaml", 1),
            )
            for index in range(tasks)
        ),
    )
