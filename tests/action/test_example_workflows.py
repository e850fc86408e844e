"""The example workflows use only inputs the action declares, the regression pair fits
together (artifact name, workflow file name, permissions), and the re-judge example has the
judge's permission and keeps its cache."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = ROOT / "examples" / "workflows"
ACTION_INPUTS = set(yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))["inputs"])


def load(name: str) -> dict[str, Any]:
    raw: dict[Any, Any] = yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))
    # YAML 1.1 reads the key `on` as the boolean true.
    return {("on" if key is True else str(key)): value for key, value in raw.items()}


def steps(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [step for job in doc["jobs"].values() for step in job.get("steps", [])]


def waza_ci_steps(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for s in steps(doc) if str(s.get("uses", "")).startswith("your-org/waza-ci@")]


def test_every_example_passes_only_declared_inputs() -> None:
    for path in sorted(WORKFLOWS.glob("*.yml")):
        for step in waza_ci_steps(load(path.name)):
            assert set(step.get("with", {})) <= ACTION_INPUTS, path.name


def test_the_regression_pair_fits_together() -> None:
    baseline, gate = load("regression-baseline.yml"), load("regression-gate.yml")
    (producer,) = waza_ci_steps(baseline)
    uploads = [s for s in steps(baseline) if "upload-artifact" in str(s.get("uses"))]
    kept = next(s for s in uploads if s["with"]["name"] == "waza-baseline")
    assert kept["with"]["path"] == producer["with"]["output"]
    assert baseline["on"]["push"]["branches"] == ["main"]
    (consumer,) = waza_ci_steps(gate)
    assert consumer["with"]["fail-on"] == "regressions"
    assert consumer["with"]["comment"] == "on-change"
    downloads = [s for s in steps(gate) if "download-artifact" in str(s.get("uses"))]
    fetched = next(s for s in downloads if s["with"]["name"] == "waza-baseline")
    assert consumer["with"]["baseline"].startswith(fetched["with"]["path"] + "/")
    finder = next(s for s in steps(gate) if s.get("id") == "baseline")
    assert "--workflow regression-baseline.yml" in finder["run"]
    permissions = gate["jobs"]["gate"]["permissions"]
    assert permissions["pull-requests"] == "write" and permissions["actions"] == "read"


def test_the_regression_pair_keeps_the_history_in_the_cache() -> None:
    """The default branch restores the newest history, records, and saves it under the key it
    restored with; pull requests restore by the same prefix and only read it."""
    baseline, gate = load("regression-baseline.yml"), load("regression-gate.yml")
    order = steps(baseline)
    uses = [str(s.get("uses", "")) for s in order]
    restore = next(i for i, u in enumerate(uses) if u.startswith("actions/cache/restore@"))
    grade = next(i for i, u in enumerate(uses) if u.startswith("your-org/waza-ci@"))
    save = next(i for i, u in enumerate(uses) if u.startswith("actions/cache/save@"))
    assert restore < grade < save
    producer = order[grade]["with"]
    assert producer["history-record"] == "true"
    restored, saved = order[restore]["with"], order[save]["with"]
    assert restored["key"] == saved["key"] and "github.run_id" in saved["key"]
    assert saved["key"].startswith(restored["restore-keys"])
    assert producer["history"].startswith(saved["path"] + "/")
    (consumer,) = waza_ci_steps(gate)
    assert consumer["with"]["history"] == producer["history"]
    assert "history-record" not in consumer["with"]
    gate_uses = [str(s.get("uses", "")) for s in steps(gate)]
    assert not any(u.startswith("actions/cache/save@") for u in gate_uses)
    (gate_restore,) = [
        s for s in steps(gate) if str(s.get("uses", "")).startswith("actions/cache/restore@")
    ]
    assert gate_restore["with"]["restore-keys"] == restored["restore-keys"]
    assert gate_restore["with"]["path"] == saved["path"]
    for step in (order[restore], order[save], gate_restore):
        ref = str(step["uses"]).split("@", 1)[1]
        assert len(ref) == 40 and all(c in "0123456789abcdef" for c in ref), step["uses"]


def test_the_rejudge_example_has_the_copilot_permission_and_keeps_the_judge_cache() -> None:
    """The judge runs with the job's token only under `copilot-requests: write`, and the file
    `judge-cache` names is the one actions/cache restores by prefix and saves under a new key."""
    doc = load("rejudge-prompt-graders.yml")
    (job,) = doc["jobs"].values()
    assert job["permissions"]["copilot-requests"] == "write"
    assert doc["permissions"] == {}
    order = steps(doc)
    uses = [str(s.get("uses", "")) for s in order]
    cache = next(i for i, u in enumerate(uses) if u.startswith("actions/cache@"))
    grade = next(i for i, u in enumerate(uses) if u.startswith("your-org/waza-ci@"))
    assert cache < grade
    assert re.fullmatch(r"actions/cache@[0-9a-f]{40}", uses[cache])
    kept, judged = order[cache]["with"], order[grade]["with"]
    assert judged["judge"] == "copilot"
    assert judged["judge-cache"] == kept["path"]
    assert "github.run_id" in kept["key"] and kept["key"].startswith(kept["restore-keys"])
    assert "github-token" not in judged  # the default, the job's token, is the judge's
