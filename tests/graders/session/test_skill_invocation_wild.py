"""Runs saved before waza recorded `skill_invocations`, on real runs of ../shared/waza-wild:
the skills derived from a run's evidence are the ones waza saved where it did save them, and a
`skill_invocation` grader passes a run that invoked its skill (waza grade: fails it), with one
warning naming the file."""

from __future__ import annotations

import json
from typing import Any

from tests.conftest import Project, require_shared, run_cli_process
from waza_ci.graders.session.digest import derived_skills
from waza_ci.waza.results import load_results

WILD = "waza-wild"
RUNS = "runs/thiagoalmedeiros-agentic-sdlc-wizard/24568cc/evals"


def test_derived_skills_are_the_ones_waza_saved() -> None:
    # Every real run that has `skill_invocations`, read as if it had been saved without them.
    corpus = require_shared(WILD)
    compared = 0
    for path in sorted((corpus / RUNS).glob("*/results.json")):
        for task in load_results(path).model.tasks:
            for run in task.runs:
                if run.skill_invocations is None:
                    continue
                saved = [invocation.name for invocation in run.skill_invocations]
                legacy = run.model_copy(update={"skill_invocations": None})
                assert derived_skills(legacy) == saved, (path, task.test_id)
                compared += 1
    assert compared >= 25  # 29 runs of 15 files hold them


def test_a_results_file_without_skill_invocations_passes_the_runs_that_invoked_the_skill(
    project: Project,
) -> None:
    # waza's jira-fetch run, as a waza that did not record `skill_invocations` wrote it.
    corpus = require_shared(WILD)
    doc: dict[str, Any] = json.loads((corpus / RUNS / "jira-fetch/results.json").read_text())
    for task in doc["tasks"]:
        for run in task["runs"]:
            run.pop("skill_invocations", None)
    results = project.write_results(doc)
    project.write_eval("", name=doc["eval_name"], skill=doc["skill"])
    for task in doc["tasks"]:
        wanted = "required_skills: [jira-fetch], mode: in_order"
        if task["test_id"].startswith("negative"):
            wanted = "forbidden_skills: [jira-fetch]"
        project.write_task(
            task["test_id"], f"- {{name: invoked, type: skill_invocation, config: {{{wanted}}}}}\n"
        )
    output = project.root / "out.json"
    done = run_cli_process([*project.grade_args(), "--output", str(output)], cwd=project.root)
    assert done.code == 0, done.stderr
    verdicts = {
        task["test_id"]: [run["validations"]["invoked"] for run in task["runs"]]
        for task in json.loads(output.read_text())["tasks"]
    }
    assert {
        tid: [(v["passed"], v["details"]["actual_skills"]) for v in runs]
        for tid, runs in verdicts.items()
    } == {
        "negative-trigger-001": [(True, [])],
        "positive-trigger-001": [(True, ["jira-fetch"])],
        "positive-trigger-002": [(True, ["jira-fetch"])],
    }
    (warning,) = [line for line in done.stderr.splitlines() if "skill_invocations" in line]
    assert warning.startswith(f"waza-ci: warning: {results}: 2 run(s) judged by skill_invocation")
    assert "derived from the transcript's `skill.invoked` events" in warning
