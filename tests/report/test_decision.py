"""The step's one decision (report/decision.py), walked as a table: every `fail-on` mode × every
outcome. Whatever reads the decision — the exit code, the check run's conclusion, the `passed`,
`tasks-passed` and `gate` outputs, the first line of the terminal report and of the Markdown,
the check run's title, the report JSON — must say what one expected row says.

Then what the decision reads: which reasons are the setup's (reasons.py) and when one failure
shared by every execution is (build.py's CommonFailure), and the default-workspace hint."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, replace

import pytest

from tests.report.factories import (
    EVAL,
    TASKS,
    cleanup_error,
    empty_summary,
    errored_run,
    failed,
    not_started,
    one_failure_summary,
    passing_summary,
    ref,
    run,
    task,
    timed_out,
    verdict,
)
from waza_ci.errors import WINDOWS_PATH_HINT, Location
from waza_ci.gate.baseline import BaselineComparison, PassCount, Side, compare
from waza_ci.gate.baseline_io import BaselineProblem, BaselineUse, current_sides
from waza_ci.policy import FailOn, GatePolicy
from waza_ci.publish.outputs import step_outputs
from waza_ci.report.evaluation import Evaluation
from waza_ci.report.github_documents import check_title
from waza_ci.report.markdown_screen import verdict_line
from waza_ci.report.model import report_json_text
from waza_ci.report.reasons import (
    HINT_CONFIG_FILE,
    HINT_MISSING_FILE,
    HINT_MISSING_MODULE,
    HINT_NO_DIR,
    HINT_NOT_FOUND,
    HINT_NOT_STARTED,
    HINT_PERMISSION,
    START_HINTS,
    reason_for,
)
from waza_ci.report.terminal import render_text
from waza_ci.sandbox.startcheck import StartProblem
from waza_ci.verdict import GateState, Verdict
from waza_ci.waza.identity import AnotherEval, EvalIdentity
from waza_ci.waza.scoring import Diagnosis, GradeSummary, Problem
from waza_ci.waza.scoring import GraderVerdict as Graded

# --- the outcomes ---------------------------------------------------------------------------

MISSING_SKILL = (
    "failed to create grader triggers: reading SKILL.md /repo/skills/x/SKILL.md: "
    "stat /repo/skills/x/SKILL.md: no such file or directory"
)


def _summary(*verdicts: Graded, tasks: tuple[str, ...] = ("fix-null-check",)) -> GradeSummary:
    graders = {v.name: ref(v.name, EVAL, 10 + i) for i, v in enumerate(verdicts)}
    return GradeSummary(
        eval_name="code-review",
        eval_path="evals/code-review/eval.yaml",
        results_names=("results.json",),
        tasks=tuple(
            task(
                test_id,
                run(1, *verdicts),
                graders=graders,
                task_location=Location(f"{TASKS}/{test_id}.yaml", 1),
            )
            for test_id in tasks
        ),
    )


def _sides(summary: GradeSummary, *, passed: bool | None = None, prefix: str = "") -> list[Side]:
    """The summary's tasks as one side of a comparison; `passed` overrides every verdict."""
    sides = current_sides(summary, {})
    if passed is None and not prefix:
        return sides
    return [
        Side(
            prefix + side.key,
            prefix + side.test_id,
            side.display_name,
            side.runs
            if passed is None
            else PassCount(side.runs.total if passed else 0, side.runs.total),
            {},
        )
        for side in sides
    ]


@dataclass(frozen=True)
class Outcome:
    """What a grading found: the summary, the comparison with the baseline (None: no baseline
    file was found) and whether baseline files were named at all."""

    summary: GradeSummary
    comparison: BaselineComparison | None
    baseline_given: bool
    gate: GateState
    tasks_passed: bool
    problem: BaselineProblem | None = None


def _passing() -> Outcome:
    summary = passing_summary()
    return Outcome(summary, compare(_sides(summary), _sides(summary)), True, GateState.PASS, True)


def _failures() -> Outcome:
    """A task failing now as in the baseline: no regression."""
    summary = one_failure_summary("E   AssertionError: expected None, got 3")
    comparison = compare(_sides(summary), _sides(summary))
    return Outcome(summary, comparison, True, GateState.PASS, False)


def _grader_errors() -> Outcome:
    summary = _summary(timed_out("tests_pass", 30, "waza's default"), verdict("compiles"))
    return Outcome(summary, None, False, GateState.NO_BASELINE, False)


def _cleanup_errors() -> Outcome:
    summary = _summary(cleanup_error("tests_pass", "/tmp/waza-x/context.json was replaced"))
    return Outcome(summary, None, False, GateState.NO_BASELINE, False)


def _gate_fails() -> Outcome:
    """A task that passed in the baseline fails now."""
    summary = one_failure_summary("E   AssertionError: expected None, got 3")
    comparison = compare(_sides(summary), _sides(summary, passed=True))
    return Outcome(summary, comparison, True, GateState.FAIL, False)


def _no_baseline() -> Outcome:
    """Baseline files were named, and none was found."""
    return Outcome(
        passing_summary(), None, True, GateState.NO_BASELINE, True, BaselineProblem.MISSING
    )


def _no_shared_task() -> Outcome:
    summary = passing_summary()
    comparison = compare(_sides(summary), _sides(summary, prefix="other-"))
    return Outcome(
        summary, comparison, True, GateState.NO_BASELINE, True, BaselineProblem.SHARES_NO_TASK
    )


def _baseline_of_another_eval() -> Outcome:
    """The baseline says it is of a sibling eval: no baseline, as a missing one."""
    return Outcome(
        passing_summary(), None, True, GateState.NO_BASELINE, True, BaselineProblem.ANOTHER_EVAL
    )


def _results_of_another_eval() -> Outcome:
    summary = replace(
        passing_summary(),
        another_eval=(
            AnotherEval(
                "results.json", EvalIdentity("docs-sync", ""), EvalIdentity("code-review", "")
            ),
        ),
    )
    return Outcome(summary, None, False, GateState.NO_BASELINE, False)


def _task_without_a_run() -> Outcome:
    """A task of the spec absent from the results (an interrupted `waza run`)."""
    return Outcome(empty_summary(), None, False, GateState.NO_BASELINE, False)


def _every_run_errored() -> Outcome:
    summary = _summary()
    errored = replace(summary.tasks[0], runs=(errored_run(1, "rate limited"),))
    return Outcome(replace(summary, tasks=(errored,)), None, False, GateState.NO_BASELINE, False)


def _setup(*verdicts: Graded) -> Callable[[], Outcome]:
    def made() -> Outcome:
        return Outcome(_summary(*verdicts), None, False, GateState.NO_BASELINE, False)

    return made


def _nothing_graded() -> Outcome:
    """A shard that was dealt no task: nothing to grade, nothing missing."""
    summary = replace(empty_summary(), skipped=())
    return Outcome(summary, None, False, GateState.NO_BASELINE, True)


OUTCOMES: dict[str, Callable[[], Outcome]] = {
    "pass": _passing,
    "failures": _failures,
    "grader-errors": _grader_errors,
    "cleanup-errors": _cleanup_errors,
    "gate-fails": _gate_fails,
    "no-baseline": _no_baseline,
    "baseline-shares-no-task": _no_shared_task,
    "baseline-of-another-eval": _baseline_of_another_eval,
    "results-of-another-eval": _results_of_another_eval,
    "task-without-a-run": _task_without_a_run,
    "every-run-errored": _every_run_errored,
    "setup-not-started": _setup(not_started("compiles", "gradle"), verdict("tests_pass")),
    "setup-cannot-open-file": _setup(
        failed(
            "compiles",
            "/usr/bin/python3: can't open file '/repo/graders/compiles.py': "
            "[Errno 2] No such file or directory",
        ),
        verdict("tests_pass"),
    ),
    "setup-in-process-file-missing": _setup(
        verdict("triggers", kind="trigger", error=MISSING_SKILL), verdict("tests_pass")
    ),
    "nothing-graded": _nothing_graded,
}

# --- the modes and the expected table -------------------------------------------------------

MODES = {
    "failures": GatePolicy(FailOn.FAILURES),
    "errors": GatePolicy(FailOn.ERRORS),
    "regressions": GatePolicy(FailOn.REGRESSIONS),
    "regressions+allow": GatePolicy(FailOn.REGRESSIONS, allow_missing_baseline=True),
}

PASS = (Verdict.PASSED, 0, "success")
TOLERATED = (Verdict.PASSED, 0, "neutral")
FAILED = (Verdict.FAILED, 1, "failure")
ERRORS = (Verdict.ERRORS, 3, "failure")
SETUP = (Verdict.SETUP, 3, "failure")
NOTHING = (Verdict.NOTHING, 0, "neutral")
ANOTHER = (Verdict.ANOTHER_EVAL, 3, "failure")
UNEVALUATED = (Verdict.NOT_EVALUATED, 3, "failure")

EXPECTED: dict[str, tuple[tuple[Verdict, int, str], ...]] = {
    #                          failures  errors     regressions  regressions+allow
    "pass": (PASS, PASS, PASS, PASS),
    "failures": (FAILED, TOLERATED, TOLERATED, TOLERATED),
    "grader-errors": (ERRORS, ERRORS, ERRORS, ERRORS),
    "cleanup-errors": (ERRORS, ERRORS, ERRORS, ERRORS),
    "gate-fails": (FAILED, TOLERATED, FAILED, FAILED),
    "no-baseline": (PASS, PASS, FAILED, PASS),
    "baseline-shares-no-task": (PASS, PASS, FAILED, PASS),
    "baseline-of-another-eval": (PASS, PASS, FAILED, PASS),
    "results-of-another-eval": (ANOTHER, ANOTHER, ANOTHER, ANOTHER),
    "task-without-a-run": (UNEVALUATED, UNEVALUATED, UNEVALUATED, UNEVALUATED),
    "every-run-errored": (UNEVALUATED, UNEVALUATED, UNEVALUATED, UNEVALUATED),
    "setup-not-started": (SETUP, SETUP, SETUP, SETUP),
    "setup-cannot-open-file": (SETUP, SETUP, SETUP, SETUP),
    "setup-in-process-file-missing": (SETUP, SETUP, SETUP, SETUP),
    "nothing-graded": (NOTHING, NOTHING, FAILED, NOTHING),
}

WHY = {
    "failures": "1 task did not pass",
    "grader-errors": "1 grader error",
    "cleanup-errors": "1 clean-up error",
    "gate-fails": "the regression gate failed: 1 task regressed",
    "no-baseline": "no baseline results file was found",
    "baseline-shares-no-task": "the baseline shares no task with the results",
    "baseline-of-another-eval": "the baseline is of another eval",
    "results-of-another-eval": "results file of another eval than the spec",
    "task-without-a-run": "1 task of the spec was not evaluated",
    "every-run-errored": "1 task of the spec was not evaluated",
    "setup-not-started": "graders could not run",
    "setup-cannot-open-file": "graders could not run",
    "setup-in-process-file-missing": "graders could not run",
    "nothing-graded": "no baseline results file was found",
}
"""Words the reasons of a step that did not pass must hold (but see WHY_IN_MODE)."""
WHY_IN_MODE = {("gate-fails", "failures"): "1 task did not pass"}
"""Under `fail-on: failures` the failing task is what fails the step."""

TERMINAL = {
    Verdict.PASSED: "PASSED",
    Verdict.FAILED: "FAILED",
    Verdict.ERRORS: "GRADER ERRORS",
    Verdict.SETUP: "GRADERS COULD NOT RUN",
    Verdict.NOTHING: "NOTHING GRADED",
    Verdict.ANOTHER_EVAL: "RESULTS OF ANOTHER EVAL",
    Verdict.NOT_EVALUATED: "NOT EVALUATED",
}
MARKDOWN = {
    Verdict.PASSED: "✅ Passed",
    Verdict.FAILED: "❌ Failed",
    Verdict.ERRORS: "⚠️ Grader errors",
    Verdict.SETUP: "⚠️ Graders could not run",
    Verdict.NOTHING: "⚪ Nothing graded",
    Verdict.ANOTHER_EVAL: "⚠️ Results of another eval",
    Verdict.NOT_EVALUATED: "⚠️ Not evaluated",
}

CELLS = [
    pytest.param(outcome, mode, column, id=f"{outcome}-{mode}")
    for outcome in OUTCOMES
    for column, mode in enumerate(MODES)
]


def _evaluate(outcome: Outcome, policy: GatePolicy) -> Evaluation:
    # As the engine asks: baseline files were named, or the policy gates on the baseline.
    asked = outcome.baseline_given or policy.fail_on is FailOn.REGRESSIONS
    return Evaluation.build(
        outcome.summary,
        baseline=BaselineUse(outcome.comparison, outcome.problem),
        policy=policy,
        baseline_asked=asked,
    )


def test_the_table_covers_every_outcome_and_mode() -> None:
    assert set(EXPECTED) == set(OUTCOMES)
    assert all(len(row) == len(MODES) for row in EXPECTED.values())
    assert {mode.fail_on for mode in MODES.values()} == set(FailOn)


@pytest.mark.parametrize(("outcome_name", "mode", "column"), CELLS)
def test_every_reader_of_the_decision_says_the_same(
    outcome_name: str, mode: str, column: int
) -> None:
    outcome = OUTCOMES[outcome_name]()
    policy = MODES[mode]
    verdict_, exit_code, conclusion = EXPECTED[outcome_name][column]
    passed = exit_code == 0

    evaluation = _evaluate(outcome, policy)
    decision = evaluation.decision
    assert (decision.verdict, decision.exit_code, decision.conclusion) == (
        verdict_,
        exit_code,
        conclusion,
    ), decision.reasons
    assert evaluation.exit_code == exit_code
    assert decision.passed is passed
    assert decision.gate is outcome.gate
    assert decision.tasks_passed is outcome.tasks_passed
    assert decision.policy == policy

    outputs = step_outputs(evaluation, ("", ""), report_json="", output_file=None)
    assert outputs["passed"] == ("true" if passed else "false")
    assert outputs["tasks-passed"] == ("true" if outcome.tasks_passed else "false")
    assert outputs["gate"] == str(outcome.gate)

    model = evaluation.model
    text = render_text(evaluation).splitlines()
    assert text[0].startswith(f"waza-ci: {TERMINAL[verdict_]}: "), text[0]
    assert verdict_line(model, decision).startswith(f"**{MARKDOWN[verdict_]}**")
    title_word = MARKDOWN[verdict_].split(" ", 1)[1]
    assert check_title(evaluation).startswith(f"{title_word} · ")

    assert json.loads(report_json_text(model, decision))["decision"] == {
        "passed": passed,
        "exit_code": exit_code,
        "conclusion": conclusion,
        "gate": str(outcome.gate),
        "fail_on": str(policy.fail_on),
        "tasks_passed": outcome.tasks_passed,
        "reasons": list(decision.reasons),
    }

    # Whatever is not a clean pass says why (even what it let pass), on the line after the
    # first, and the Markdown says the same; a clean pass has nothing to explain.
    why = "; ".join(decision.reasons)
    if outcome_name == "pass":
        assert not decision.reasons
    elif not passed or outcome_name != "nothing-graded":
        words = WHY_IN_MODE.get((outcome_name, mode), WHY[outcome_name])
        assert words in why
        assert text[1] == f"  why: {why}"
        markdown_why = verdict_line(model, decision).split("\n")[1]
        assert markdown_why.startswith("**Why:** ") and words in markdown_why


def test_a_missing_baseline_names_the_opt_in_and_the_opt_in_says_it_was_used() -> None:
    failing = _evaluate(_no_baseline(), MODES["regressions"]).decision
    (reason,) = failing.reasons
    assert "--allow-missing-baseline" in reason and "allow-missing-baseline: true" in reason
    allowed = _evaluate(_no_baseline(), MODES["regressions+allow"]).decision
    assert allowed.passed
    assert any("as --allow-missing-baseline allows" in line for line in allowed.reasons)


def test_a_gate_that_fails_outside_fail_on_regressions_is_named_as_not_gating() -> None:
    decision = _evaluate(_gate_fails(), MODES["errors"]).decision
    assert decision.passed
    assert any("(not gating: fail-on errors)" in line for line in decision.reasons)


# --- reasons.py: what is the setup's ---------------------------------------------------------


def _not_started(exit_error: str, start_problem: str | None = None) -> Graded:
    diagnosis = Diagnosis(
        exit_error=exit_error, problem=Problem.NOT_STARTED, start_problem=start_problem
    )
    return verdict("g", error=f"Program exited with error: {exit_error}", diagnosis=diagnosis)


SETUP_REASONS = [
    pytest.param(
        not_started("g", "gradle"), "command not found: gradle", HINT_NOT_FOUND, id="command"
    ),
    pytest.param(
        _not_started("chdir /repo/evals: no such file or directory"),
        "working directory not found: /repo/evals",
        HINT_NO_DIR,
        id="working-directory",
    ),
    pytest.param(
        _not_started("fork/exec graders/check.sh: permission denied"),
        "not executable: graders/check.sh",
        HINT_PERMISSION,
        id="permission",
    ),
    # waza's text stays the reason; what the script's file showed chooses the hint.
    pytest.param(
        _not_started(
            "fork/exec ./graders/check.sh: no such file or directory",
            StartProblem.CRLF_LINE_ENDINGS,
        ),
        "fork/exec ./graders/check.sh: no such file or directory",
        START_HINTS[StartProblem.CRLF_LINE_ENDINGS],
        id="crlf",
    ),
    pytest.param(
        _not_started("fork/exec ./g.sh: exec format error", StartProblem.NO_INTERPRETER_LINE),
        "fork/exec ./g.sh: exec format error",
        START_HINTS[StartProblem.NO_INTERPRETER_LINE],
        id="no-interpreter-line",
    ),
    pytest.param(
        _not_started("fork/exec ./g.py: no such file or directory", "missing-interpreter"),
        "fork/exec ./g.py: no such file or directory",
        START_HINTS[StartProblem.MISSING_INTERPRETER],
        id="missing-interpreter",
    ),
    pytest.param(
        _not_started("fork/exec /mnt/g.sh: permission denied", StartProblem.NOEXEC_MOUNT),
        "fork/exec /mnt/g.sh: permission denied",
        START_HINTS[StartProblem.NOEXEC_MOUNT],
        id="noexec",
    ),
    pytest.param(
        _not_started("fork/exec ./g.sh: exec format error", "from-a-later-version"),
        "fork/exec ./g.sh: exec format error",
        HINT_NOT_STARTED,
        id="unknown-start-problem",
    ),
    # A path written as on Windows is found by no working directory: the fix is its slashes.
    pytest.param(
        not_started("g", "graders\\check.py"),
        "command not found: graders\\check.py",
        WINDOWS_PATH_HINT,
        id="windows-command",
    ),
    pytest.param(
        failed("g", "python3: can't open file '/repo/graders\\\\g.py': [Errno 2] No such file"),
        "can't open file",
        WINDOWS_PATH_HINT,
        id="windows-python-script",
    ),
    pytest.param(
        failed("g", "sh: 1: .\\\\check.sh: not found"),
        "check.sh: not found",
        WINDOWS_PATH_HINT,
        id="windows-shell",
    ),
    pytest.param(
        verdict(
            "t", kind="trigger", error="open /repo/skills\\x\\SKILL.md: no such file or directory"
        ),
        "SKILL.md: no such file or directory",
        WINDOWS_PATH_HINT,
        id="windows-config-file",
    ),
    pytest.param(
        _not_started("fork/exec graders/sub\\check.sh: no such file or directory"),
        "fork/exec graders/sub\\check.sh",
        WINDOWS_PATH_HINT,
        id="windows-exec",
    ),
    pytest.param(
        failed("g", "python3: can't open file '/repo/graders/g.py': [Errno 2] No such file"),
        "can't open file",
        HINT_MISSING_FILE,
        id="python-script",
    ),
    pytest.param(
        failed("g", "bash: graders/check.sh: No such file or directory"),
        "graders/check.sh",
        HINT_MISSING_FILE,
        id="bash-script",
    ),
    pytest.param(
        failed("g", "node:internal/modules\nError: Cannot find module '/repo/graders/g.js'"),
        "Cannot find module",
        HINT_MISSING_FILE,
        id="node-script",
    ),
    pytest.param(
        failed("g", "sh: 1: pythn3: not found"), "pythn3: not found", HINT_NOT_FOUND, id="shell"
    ),
    pytest.param(
        failed("g", "ModuleNotFoundError: No module named 'yaml'"),
        "No module named 'yaml'",
        HINT_MISSING_MODULE,
        id="module",
    ),
    pytest.param(
        verdict("triggers", kind="trigger", error=MISSING_SKILL),
        "no such file or directory",
        HINT_CONFIG_FILE,
        id="in-process-skill-md",
    ),
]


@pytest.mark.parametrize(("made", "words", "hint"), SETUP_REASONS)
def test_a_grader_that_could_not_run_is_the_setups_fault(
    made: Graded, words: str, hint: str
) -> None:
    reason = reason_for(made)
    assert reason.setup
    assert words in reason.text
    assert reason.hint == hint


def test_a_long_missing_file_error_keeps_its_tail() -> None:
    deep = "/repo/" + "very-long-folder/" * 30 + "SKILL.md"
    error = f"failed to create grader t: reading SKILL.md {deep}: stat {deep}: " + (
        "no such file or directory"
    )
    reason = reason_for(verdict("t", kind="trigger", error=error))
    assert reason.setup
    assert reason.text.endswith(": no such file or directory")
    assert reason.text.startswith("failed to create grader t")
    assert len(reason.text) < len(error)


NOT_SETUP = [
    pytest.param(failed("g", "cat: CHANGELOG.md: No such file or directory"), id="grader-own-cat"),
    pytest.param(
        failed("g", "E   AssertionError: expected 'no such file or directory'"),
        id="assertion",
    ),
    pytest.param(failed("g", "AssertionError: 2 of 2 entries lack a PR"), id="assertion-plain"),
    pytest.param(timed_out("g", 30, "waza's default"), id="timed-out"),
    pytest.param(cleanup_error("g", "/tmp/x/context.json was replaced"), id="cleanup"),
    pytest.param(
        verdict(
            "t",
            kind="trigger",
            regraded=False,
            error="open /repo/SKILL.md: no such file or directory",
        ),
        id="kept-verdict",
    ),
    pytest.param(
        verdict("f", kind="file", passed=False, feedback="File not found: CHANGELOG.md"),
        id="file-grader-verdict",
    ),
]


@pytest.mark.parametrize("made", NOT_SETUP)
def test_the_agents_work_failing_is_not_the_setups_fault(made: Graded) -> None:
    assert not reason_for(made).setup


def test_a_graders_own_missing_file_fails_under_failures_only() -> None:
    summary = one_failure_summary("cat: CHANGELOG.md: No such file or directory")
    lenient = Evaluation.build(summary, policy=MODES["errors"]).decision
    assert (lenient.verdict, lenient.exit_code) == (Verdict.PASSED, 0)
    strict = Evaluation.build(summary).decision
    assert (strict.verdict, strict.exit_code) == (Verdict.FAILED, 1)


# --- CommonFailure.setup: every execution failing alike ---------------------------------------


def _alike(names: tuple[str, ...], stderr: str, tasks: int = 3) -> GradeSummary:
    return _summary(
        *(failed(name, stderr) for name in names), tasks=tuple(f"t{i}" for i in range(tasks))
    )


def test_one_grader_failing_alike_everywhere_is_its_own_failure() -> None:
    evaluation = Evaluation.build(
        _alike(("tests_pass",), "E   AssertionError: 1 != 2"), policy=MODES["errors"]
    )
    common = evaluation.model.common_failure
    assert common is not None and common.executions == 3
    assert not common.setup
    assert evaluation.decision.verdict is Verdict.PASSED


def test_one_grader_repeated_with_a_setup_reason_is_the_setup() -> None:
    stderr = "python3: can't open file '/repo/graders/tests_pass.py': [Errno 2] No such file"
    evaluation = Evaluation.build(_alike(("tests_pass",), stderr), policy=MODES["errors"])
    common = evaluation.model.common_failure
    assert common is not None and common.setup
    assert (evaluation.decision.verdict, evaluation.exit_code) == (Verdict.SETUP, 3)
    assert evaluation.decision.reasons[0] == (
        "graders could not run: every grader execution (3) failed the same way; "
        f"likely fix: {HINT_MISSING_FILE}"
    )


def test_two_graders_failing_alike_are_still_theirs() -> None:
    evaluation = Evaluation.build(_alike(("a", "b"), ""), policy=MODES["errors"])
    common = evaluation.model.common_failure
    assert common is not None and not common.setup
    assert evaluation.decision.passed


def test_three_grader_names_failing_alike_are_the_setup() -> None:
    evaluation = Evaluation.build(_alike(("a", "b", "c"), ""), policy=MODES["errors"])
    common = evaluation.model.common_failure
    assert common is not None and common.setup
    assert common.reason == "exit status 1, no output"
    assert (evaluation.decision.verdict, evaluation.exit_code) == (Verdict.SETUP, 3)
    assert evaluation.decision.reasons[0].startswith(
        "graders could not run: every grader execution (9) failed the same way"
    )


def test_one_passing_execution_means_no_common_failure() -> None:
    summary = _summary(failed("a", ""), failed("b", ""), failed("c", ""), verdict("d"))
    evaluation = Evaluation.build(summary, policy=MODES["errors"])
    assert evaluation.model.common_failure is None
    assert evaluation.decision.passed
