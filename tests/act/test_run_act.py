"""The act self-test's own pieces, without act: how run_act.py reads act's event stream, and that
the workflows it runs use the action as a user's workflow does (`bash .ci/act.sh` runs them)."""

from __future__ import annotations

import json
import re
from typing import Any

import yaml

from tests.act.run_act import ROOT, RUNS, parse_act_log

ACT_WORKFLOWS = sorted((ROOT / "tests" / "act").glob("*.yml"))


def event(**fields: Any) -> str:
    return json.dumps({"level": "info", "msg": "", **fields})


def test_the_event_stream_gives_results_exit_statuses_outputs_and_errors() -> None:
    step = {"jobID": "bad-input", "stepID": ["regrade"], "stage": "Main", "step": "Re-grade"}
    lines = [
        "time=... level=info msg=not json",
        event(jobID="bad-input", stepid=["--setup-job"], stepResult="success"),
        event(**step, command="error", arg="act-eval/x.yaml: eval spec not found", level="error"),
        event(**step, command="set-output", name="passed", arg="false"),
        event(**step, level="debug", msg="Return status: 2"),
        event(**step, stepResult="failure", msg="  ❌  Failure - Main Re-grade"),
        event(**{**step, "stage": "Post"}, stepResult="skipped"),
        event(jobID="bad-input", stepID=["3"], step="Check", stepResult="success"),
        event(jobID="bad-input", jobResult="success"),
        "Error: Job 'other' failed",
    ]
    log = parse_act_log("\n".join(lines))
    job = log.job("bad-input")
    assert job.result == "success"
    regrade = job.step("regrade")
    assert (regrade.name, regrade.result, regrade.exit_status) == ("Re-grade", "failure", 2)
    assert regrade.outputs == {"passed": "false"}
    assert regrade.errors() == ["act-eval/x.yaml: eval spec not found"]
    assert job.step("post:regrade").result == "skipped"
    assert job.step_named("Check").result == "success"
    assert job.step("missing").result is None
    assert log.job("no-such-job").result is None
    assert log.errors[-1] == "Error: Job 'other' failed"
    assert "time=... level=info msg=not json" in log.lines


def test_every_workflow_in_tests_act_is_run() -> None:
    run = {ROOT / r.workflow for r in RUNS}
    assert ACT_WORKFLOWS, "no tests/act/*.yml"
    assert set(ACT_WORKFLOWS) <= run


def test_the_workflows_use_the_action_as_a_user_would() -> None:
    """actions/checkout before every `uses: ./`, which has an id that a later step reads."""
    for path in [*ACT_WORKFLOWS, ROOT / ".github" / "workflows" / "ci.yml"]:
        workflow = yaml.safe_load(path.read_text(encoding="utf-8"))
        for job_id, job in workflow["jobs"].items():
            steps: list[dict[str, Any]] = job["steps"]
            checked_out = False
            for index, step in enumerate(steps):
                uses = str(step.get("uses", ""))
                checked_out = checked_out or uses.startswith("actions/checkout@")
                if uses != "./":
                    continue
                where = f"{path.name} job {job_id} step {index}"
                assert checked_out, f"{where}: `uses: ./` before actions/checkout"
                assert "id" in step, f"{where}: no id, so no later step can read its outputs"
                later = yaml.safe_dump(steps[index + 1 :])
                reads = rf"steps\.{re.escape(step['id'])}\.(outputs|outcome)"
                assert re.search(reads, later), f"{where}: no later step reads its outputs"
