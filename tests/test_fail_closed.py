"""Ordinary mistakes, each made on a copy of examples/demo and run through the real
`waza-ci` command and through entrypoint.py as GitHub's runner starts it (against the loopback
GitHub API), under each `fail-on` mode: the step is never green, and what it says names the
mistake and its fix.

The demo is trimmed once per module (its grader that fails on purpose removed, one run per
task) so that the only thing wrong is the mistake; every variant is a folder of that copy.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.action.test_entrypoint import TOKEN, Runner
from tests.conftest import DEMO, run_cli_process
from tests.fake_github import FakeGitHub

pytestmark = pytest.mark.slow

MODES = ("failures", "errors", "regressions")
SHELLS = ("cli", "action")

PROGRAM_GRADER = re.compile(r"\n  # The project's convention.*?(?=\n  - type: prompt)", re.S)
MISSING_SKILL = """\
  - type: trigger
    name: triggers_the_skill
    config:
      skill_path: skills/release-helper/SKILL.md
      mode: positive
"""


# --- the variants of the demo ----------------------------------------------------------------


def _passing_copy(folder: Path) -> Path:
    """examples/demo without the grader that fails on purpose, with one run per task."""
    shutil.copytree(DEMO, folder)
    changelog = folder / "tasks" / "changelog.yaml"
    text, removed = PROGRAM_GRADER.subn("", changelog.read_text(encoding="utf-8"))
    assert removed == 1, "examples/demo/tasks/changelog.yaml changed: update this fixture"
    changelog.write_text(text, encoding="utf-8")
    results = _results(folder)
    for task in results["tasks"]:
        task["runs"] = task["runs"][:1]
    _write(folder / "results.json", results)
    (folder / "elsewhere").mkdir()
    return folder


def _results(folder: Path, name: str = "results.json") -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((folder / name).read_text(encoding="utf-8"))
    return loaded


def _write(path: Path, doc: dict[str, Any]) -> None:
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} is no longer in {path.name}: update this fixture"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Folders, each a trimmed demo with one mistake (`ok` has none, and the results files of
    the mistakes that are in the results)."""
    base = tmp_path_factory.mktemp("fail-closed")
    ok = _passing_copy(base / "ok")
    results = _results(ok)
    other = json.loads(json.dumps(results))
    other.update(eval_name="Some other eval", skill="other-skill")
    _write(ok / "other-eval.json", other)
    renamed = json.loads(json.dumps(results))
    for index, task in enumerate(renamed["tasks"]):
        task["test_id"] = f"renamed-task-{index}"
    _write(ok / "renamed.json", renamed)
    (ok / "baseline").mkdir()
    _write(ok / "baseline" / "other-tasks.json", renamed)
    dropped = json.loads(json.dumps(results))
    for task in dropped["tasks"]:
        for run in task["runs"]:
            run["validations"]["was_here"] = {
                "identifier": "was_here",
                "type": "program",
                "score": 0,
                "weight": 1,
                "passed": False,
                "feedback": "it failed at run time",
            }
    _write(ok / "dropped.json", dropped)
    (ok / "other-baselines").mkdir()
    _write(ok / "other-baselines" / "sibling-eval.json", other)
    old_name = json.loads(json.dumps(results))
    old_name.update(eval_name="Release helper (old name)")
    _write(ok / "old-name.json", old_name)
    missing_task = json.loads(json.dumps(results))
    missing_task["tasks"] = [t for t in missing_task["tasks"] if t["test_id"] != "write-changelog"]
    _write(ok / "missing-task.json", missing_task)
    no_runs = json.loads(json.dumps(results))
    for task in no_runs["tasks"]:
        if task["test_id"] == "write-changelog":
            task["runs"] = []
    _write(ok / "no-runs.json", no_runs)
    errored = json.loads(json.dumps(results))
    for task in errored["tasks"]:
        for run in task["runs"]:
            run.update(status="error", error_msg="429 Too Many Requests: rate limited")
    _write(ok / "errored.json", errored)
    _write(ok / "other-baselines" / "errored.json", errored)

    command = _passing_copy(base / "command")
    _edit(command / "tasks" / "version.yaml", "command: python3", "command: pythn3-not-installed")
    typo = _passing_copy(base / "typo")
    _edit(typo / "tasks" / "version.yaml", "  - type: program", "  - type: progam")
    glob = _passing_copy(base / "glob")
    _edit(glob / "eval.yaml", '"tasks/*.yaml"', '"task/*.yaml"')
    skill = _passing_copy(base / "skill")
    version = skill / "tasks" / "version.yaml"
    version.write_text(version.read_text(encoding="utf-8") + MISSING_SKILL, encoding="utf-8")
    return {"ok": ok, "command": command, "typo": typo, "glob": glob, "skill": skill}


# --- one step, through either shell ----------------------------------------------------------


@dataclass(frozen=True)
class Step:
    code: int
    text: str
    """Everything the step printed (stdout and stderr)."""
    outputs: dict[str, str]
    """The action's step outputs ({} for the command)."""
    checks: list[dict[str, Any]]
    """The check runs the action posted ([] for the command)."""
    summary: str
    """The job summary (the action) or the --summary file (the command)."""
    report: dict[str, Any] | None
    """The report JSON, when one was written."""


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub(token=TOKEN) as server:
        yield server


@dataclass
class Shells:
    """Runs one grading of a demo folder through the command or the action."""

    tmp: Path
    github: FakeGitHub

    def run(
        self,
        shell: str,
        folder: Path,
        mode: str,
        *,
        results: str = "results.json",
        workspace: str | None = "workspace",
        working_directory: str = ".",
        baseline: str | None = None,
        allow_missing_baseline: bool = False,
        allow_tasks_without_runs: bool = False,
        renamed_from: str | None = None,
        task: str | None = None,
    ) -> Step:
        if shell == "cli":
            return self._cli(
                folder,
                ["--results", results, "--working-directory", working_directory]
                + (["--workspace", workspace] if workspace is not None else [])
                + (["--baseline", baseline] if baseline is not None else [])
                + (["--allow-missing-baseline"] if allow_missing_baseline else [])
                + (["--allow-tasks-without-runs"] if allow_tasks_without_runs else [])
                + (["--renamed-from", renamed_from] if renamed_from is not None else [])
                + (["--task", task] if task is not None else [])
                + ["--fail-on", mode],
            )
        inputs = {
            "eval": "eval.yaml",
            "results": results,
            "working-directory": working_directory,
            "fail-on": mode,
            "comment": "off",
            **({"workspace": workspace} if workspace is not None else {}),
            **({"baseline": baseline} if baseline is not None else {}),
            **({"allow-missing-baseline": "true"} if allow_missing_baseline else {}),
            **({"allow-tasks-without-runs": "true"} if allow_tasks_without_runs else {}),
            **({"renamed-from": renamed_from} if renamed_from is not None else {}),
            **({"task": task} if task is not None else {}),
        }
        return self.action(folder, inputs)

    def _cli(self, folder: Path, args: list[str]) -> Step:
        summary, report = self.tmp / "summary.md", self.tmp / "report.json"
        for stale in (summary, report):
            stale.unlink(missing_ok=True)
        extra = ["--summary", str(summary), "--report-json", str(report)]
        done = run_cli_process(["grade", "eval.yaml", *args, *extra], cwd=folder)
        return Step(
            done.code,
            done.stdout + done.stderr,
            {},
            [],
            summary.read_text(encoding="utf-8") if summary.exists() else "",
            json.loads(report.read_text(encoding="utf-8")) if report.exists() else None,
        )

    def action(self, folder: Path, inputs: dict[str, str]) -> Step:
        before = len(self.github.check_runs)
        done = Runner(self.tmp, self.github, folder).run(inputs)
        relative = done.outputs.get("report-json")
        report = json.loads((folder / relative).read_text(encoding="utf-8")) if relative else None
        return Step(
            done.code,
            done.log,
            done.outputs,
            self.github.check_runs[before:],
            done.summary,
            report,
        )


@pytest.fixture
def shells(tmp_path: Path, github: FakeGitHub) -> Shells:
    return Shells(tmp_path, github)


def assert_not_green(step: Step, code: int | None = None) -> None:
    """The step failed: its exit code, and for the action the `passed` output and the check
    run (none is posted for bad input, and nothing says it passed)."""
    assert step.code != 0, step.text
    if code is not None:
        assert step.code == code, step.text
    assert step.outputs.get("passed") != "true"
    assert all(check["conclusion"] == "failure" for check in step.checks), step.checks
    if step.code != 2:  # graded: the outputs and the check run say it failed
        if step.outputs or step.checks:
            assert step.outputs["passed"] == "false"
            (check,) = step.checks
            assert check["conclusion"] == "failure"
        assert step.report is not None
        assert step.report["decision"]["passed"] is False
        assert step.report["decision"]["exit_code"] == step.code


def assert_green(step: Step) -> None:
    assert step.code == 0, step.text
    if step.outputs:
        assert step.outputs["passed"] == "true"
        (check,) = step.checks
        assert check["conclusion"] == "success"


# --- the trimmed demo itself passes ----------------------------------------------------------


@pytest.mark.parametrize("shell", SHELLS)
def test_the_trimmed_demo_passes(shells: Shells, demo: dict[str, Path], shell: str) -> None:
    """Every other test here changes one thing of this: the mistake is what fails them."""
    assert_green(shells.run(shell, demo["ok"], "failures"))


# --- graders that could not run: a setup error under every mode --------------------------------


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shell", SHELLS)
def test_a_wrong_working_directory_fails_and_names_it(
    shells: Shells, demo: dict[str, Path], shell: str, mode: str
) -> None:
    step = shells.run(shell, demo["ok"], mode, working_directory="elsewhere")
    assert_not_green(step, 3)
    assert "GRADERS COULD NOT RUN" in step.text
    assert "failed the same way" in step.text
    # The demo's graders are in the project folder, the current one: a hint that is right.
    assert "set working-directory to '.'" in step.text
    assert "can't open file" in step.text


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shell", SHELLS)
def test_a_grader_command_not_found_fails_and_names_the_command(
    shells: Shells, demo: dict[str, Path], shell: str, mode: str
) -> None:
    step = shells.run(shell, demo["command"], mode)
    assert_not_green(step, 3)
    assert "command not found: pythn3-not-installed" in step.text
    assert "install it in the job" in step.text


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shell", SHELLS)
def test_a_missing_skill_md_is_the_setup_and_keeps_why(
    shells: Shells, demo: dict[str, Path], shell: str, mode: str
) -> None:
    step = shells.run(shell, demo["skill"], mode)
    assert_not_green(step, 3)
    assert step.report is not None
    assert step.report["decision"]["reasons"][0].startswith("graders could not run")
    assert "working-directory" in step.report["decision"]["reasons"][0]
    assert re.search(r"triggers_the_skill .*SKILL\.md: no such file or directory", step.text)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shell", SHELLS)
def test_a_workspace_left_out_is_refused_naming_the_graders_that_read_it(
    shells: Shells, demo: dict[str, Path], shell: str, mode: str
) -> None:
    """The checkout is not the agent's workspace: with `file` graders in the spec and no
    workspace named, nothing is graded (the repository's own files would answer)."""
    step = shells.run(shell, demo["ok"], mode, workspace=None)
    assert_not_green(step, 2)
    assert "no workspace was given, and graders read it: " in step.text
    assert "pass --workspace naming the folder the run's files were saved to" in step.text
    assert "(the action: `workspace:`)" in step.text


# --- bad input: exit 2 before anything is graded ---------------------------------------------


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shell", SHELLS)
def test_a_misspelt_grader_type_is_refused_at_load(
    shells: Shells, demo: dict[str, Path], shell: str, mode: str
) -> None:
    step = shells.run(shell, demo["typo"], mode)
    assert_not_green(step, 2)
    assert "tasks/version.yaml" in step.text
    assert "unsupported grader type 'progam' (did you mean 'program'?)" in step.text
    assert "Valid grader types: " in step.text


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shell", SHELLS)
def test_no_task_matched_lists_the_ids_of_both_sides(
    shells: Shells, demo: dict[str, Path], shell: str, mode: str
) -> None:
    step = shells.run(shell, demo["ok"], mode, results="renamed.json")
    assert_not_green(step, 2)
    assert "the spec's tasks: 'write-changelog', 'bump-version'" in step.text
    assert "the results' tasks: 'renamed-task-0', 'renamed-task-1'" in step.text


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shell", SHELLS)
def test_a_tasks_glob_matching_nothing_names_glob_line_and_folder(
    shells: Shells, demo: dict[str, Path], shell: str, mode: str
) -> None:
    folder = demo["glob"]
    step = shells.run(shell, folder, mode)
    assert_not_green(step, 2)
    assert "no tasks found in spec" in step.text
    assert (
        f"eval.yaml:15: tasks glob 'task/*.yaml' matched no file in {str(folder.resolve())!r}"
        in (step.text)
    )


@pytest.mark.parametrize("shell", SHELLS)
def test_a_misspelt_task_lists_the_ids_closest_first(
    shells: Shells, demo: dict[str, Path], shell: str
) -> None:
    step = shells.run(shell, demo["ok"], "failures", task="bump-verison")
    assert_not_green(step, 2)
    assert "task 'bump-verison' not found" in step.text
    assert "its tasks: 'bump-version', 'write-changelog'" in step.text  # the spec lists it last


def test_task_given_twice_is_refused(demo: dict[str, Path]) -> None:
    args = ["grade", "eval.yaml", "--results", "results.json", "--workspace", "workspace"]
    done = run_cli_process(
        [*args, "--task", "write-changelog", "--task", "bump-version"], cwd=demo["ok"]
    )
    assert done.code == 2, done.stderr
    assert "--task was given 2 times ('write-changelog', 'bump-version')" in done.stderr
    assert done.stdout == ""  # nothing graded


def test_results_before_the_eval_is_read_as_meant(demo: dict[str, Path]) -> None:
    args = ["grade", "--results", "results.json", "eval.yaml", "--workspace", "workspace"]
    done = run_cli_process(args, cwd=demo["ok"])
    assert done.code == 0, done.stderr
    assert done.json()["passed"] is True


@pytest.mark.parametrize("shell", SHELLS)
def test_fail_on_bogus_lists_the_allowed_values(
    shells: Shells, demo: dict[str, Path], shell: str
) -> None:
    step = shells.run(shell, demo["ok"], "bogus")
    assert_not_green(step, 2)
    assert "'bogus'" in step.text
    assert re.search(r"failures.{0,12}errors.{0,12}regressions", step.text), step.text
    assert "Traceback" not in step.text


# --- the baseline under fail-on regressions ---------------------------------------------------


@pytest.mark.parametrize("shell", SHELLS)
def test_a_baseline_matching_nothing_fails_the_gate_unless_allowed(
    shells: Shells, demo: dict[str, Path], shell: str
) -> None:
    pattern = "no-such-baseline/*.json"
    step = shells.run(shell, demo["ok"], "regressions", baseline=pattern)
    assert_not_green(step, 1)
    assert f"no baseline results file found at {pattern!r}" in step.text
    assert "--allow-missing-baseline (the action: allow-missing-baseline: true)" in step.text
    if shell == "action":
        assert step.outputs["gate"] == "no-baseline"

    allowed = shells.run(
        shell, demo["ok"], "regressions", baseline=pattern, allow_missing_baseline=True
    )
    assert_green(allowed)
    assert "as --allow-missing-baseline allows" in allowed.text


@pytest.mark.parametrize("shell", SHELLS)
def test_a_baseline_sharing_no_task_fails_the_gate_naming_both_sides(
    shells: Shells, demo: dict[str, Path], shell: str
) -> None:
    step = shells.run(shell, demo["ok"], "regressions", baseline="baseline/*.json")
    assert_not_green(step, 1)
    assert "the baseline shares no task with the results" in step.text
    assert "results: 'write-changelog', 'bump-version'" in step.text
    assert "baseline: 'renamed-task-0', 'renamed-task-1'" in step.text


# --- what is not an error, but must be said ----------------------------------------------------


@pytest.mark.parametrize("shell", SHELLS)
def test_dropped_failing_verdicts_are_listed_everywhere(
    shells: Shells, demo: dict[str, Path], shell: str
) -> None:
    step = shells.run(shell, demo["ok"], "failures", results="dropped.json")
    assert re.search(
        r"dropped write-changelog\s+was_here\s+no longer in the spec: its saved verdicts "
        r"\(1 failed\)",
        step.text,
    ), step.text
    assert "| `write-changelog` | `was_here` | 1 | 1 failed → dropped" in step.summary
    assert step.report is not None
    assert {"task": "bump-version", "grader": "was_here", "runs": 1, "saved_failed": 1} in (
        step.report["dropped"]
    )


# --- what is compared belongs together ----------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shell", SHELLS)
def test_results_of_another_eval_fail_naming_both_evals(
    shells: Shells, demo: dict[str, Path], shell: str, mode: str
) -> None:
    step = shells.run(shell, demo["ok"], mode, results="other-eval.json")
    assert_not_green(step, 3)
    assert "RESULTS OF ANOTHER EVAL" in step.text or "Results of another eval" in step.summary
    assert "'Some other eval' (skill 'other-skill')" in step.text
    assert "'Release helper' (skill 'release-helper')" in step.text
    assert "--renamed-from" in step.text


@pytest.mark.parametrize("shell", SHELLS)
def test_a_deliberate_rename_is_accepted_when_named(
    shells: Shells, demo: dict[str, Path], shell: str
) -> None:
    renamed = "Release helper (old name)"
    assert_not_green(shells.run(shell, demo["ok"], "failures", results="old-name.json"), 3)
    step = shells.run(shell, demo["ok"], "failures", results="old-name.json", renamed_from=renamed)
    assert_green(step)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shell", SHELLS)
def test_a_baseline_of_a_sibling_eval_is_no_baseline(
    shells: Shells, demo: dict[str, Path], shell: str, mode: str
) -> None:
    """The sibling shares the task ids (as scaffolded evals do): only its name tells."""
    step = shells.run(shell, demo["ok"], mode, baseline="other-baselines/sibling-eval.json")
    assert "the baseline is of another eval" in step.text
    assert "'Some other eval' (skill 'other-skill')" in step.text
    if mode == "regressions":
        assert_not_green(step, 1)
        assert "name the baseline of this eval" in step.text
    else:
        assert_green(step)  # reported: a baseline gates only under fail-on regressions
    if shell == "action":
        assert step.outputs["gate"] == "no-baseline"


# --- every task the spec asks for was evaluated ------------------------------------------------


@pytest.mark.parametrize("results", ["missing-task.json", "no-runs.json"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shell", SHELLS)
def test_a_task_without_a_saved_run_is_not_evaluated(
    shells: Shells, demo: dict[str, Path], shell: str, mode: str, results: str
) -> None:
    step = shells.run(shell, demo["ok"], mode, results=results)
    assert_not_green(step, 3)
    assert "1 task of the spec was not evaluated (1 with no saved run)" in step.text
    assert step.report is not None
    assert [(t["test_id"], t["why"]) for t in step.report["not_evaluated"]] == [
        ("write-changelog", "no-run")
    ]
    assert "--allow-tasks-without-runs" in step.text


@pytest.mark.parametrize("shell", SHELLS)
def test_the_opt_in_accepts_a_task_without_runs_and_lists_it(
    shells: Shells, demo: dict[str, Path], shell: str
) -> None:
    step = shells.run(
        shell, demo["ok"], "failures", results="missing-task.json", allow_tasks_without_runs=True
    )
    assert step.code == 0, step.text
    if step.outputs:  # passed, but not every task was evaluated: neither green nor red
        assert (step.outputs["passed"], step.outputs["tasks-passed"]) == ("true", "false")
        assert [check["conclusion"] for check in step.checks] == ["neutral"]
    assert "which --allow-tasks-without-runs accepts" in step.text
    assert step.report is not None
    assert step.report["not_evaluated"][0]["accepted"] is True


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shell", SHELLS)
def test_runs_that_all_errored_are_not_evaluated_and_the_first_line_says_so(
    shells: Shells, demo: dict[str, Path], shell: str, mode: str
) -> None:
    step = shells.run(
        shell, demo["ok"], mode, results="errored.json", allow_tasks_without_runs=True
    )
    assert_not_green(step, 3)  # the opt-in covers tasks without runs, never errored ones
    assert "2 runs (2 errored in execution, 0 graded)" in step.text
    assert "0 failing graders" not in step.text
    assert "429 Too Many Requests: rate limited" in step.text


@pytest.mark.parametrize("shell", SHELLS)
def test_an_all_errored_baseline_cannot_pass_the_regression_gate(
    shells: Shells, demo: dict[str, Path], shell: str
) -> None:
    step = shells.run(shell, demo["ok"], "regressions", baseline="other-baselines/errored.json")
    assert_not_green(step, 1)
    assert "no task could be compared with the baseline" in step.text


# --- what the user typed is what runs ----------------------------------------------------------


def test_a_misspelt_action_input_is_refused_naming_the_input_it_resembles(
    shells: Shells, demo: dict[str, Path]
) -> None:
    inputs = {"eval": "eval.yaml", "results": "results.json", "workspace": "workspace"}
    step = shells.action(demo["ok"], {**inputs, "basline": "baseline/*.json", "comment": "off"})
    assert_not_green(step, 2)
    assert "unknown input 'basline' (INPUT_BASLINE) (did you mean 'baseline'?)" in step.text
    assert not step.checks
