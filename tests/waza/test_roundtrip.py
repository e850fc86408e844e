"""The regraded file is a waza results file: fed back in, it regrades to the same bytes (apart
from the graders' measured durations), and the same input always gives the same bytes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Project, make_results, make_run, run_cli_process
from waza_ci.golang.json import dumps_go_json

GRADER = "import sys\nsys.exit(0 if 'good' in sys.stdin.read() else 1)\n"


def _usage(tokens: int) -> dict[str, Any]:
    return {
        "turns": 1,
        "input_tokens": tokens,
        "output_tokens": tokens // 2,
        "premium_requests": 1,
        "model_metrics": {"m": {"input_tokens": tokens, "request_count": 1}},
    }


def _project(project: Project) -> None:
    project.write_eval(project.program_grader("check", project.write_grader("check.py", GRADER)))
    project.write_task("t1")
    project.write_task("t2")

    def run(n: int, output: str, tokens: int) -> dict[str, Any]:
        digest = {"tool_call_count": 0, "tools_used": [], "errors": [], "usage": _usage(tokens)}
        return make_run(n, output, session_digest=digest)

    doc = make_results(
        {
            "t1": [run(1, "good", 100), run(2, "good", 200), run(3, "bad", 300)],
            "t2": [run(1, "good", 50), run(2, "bad", 60), run(3, "bad", 70)],
        },
        future_field={"kept": True},
    )
    doc["config"]["runs_per_test"] = 3
    doc["summary"]["usage"] = {"turns": 999}  # stale: rebuilt from the runs
    doc["summary"]["statistics"] = {"bootstrap_ci": {"mean": 0.1}, "is_significant": True}
    project.write_results(doc)


def _same_bytes_but_measured_durations(first: str, second: str, graders: set[str]) -> None:
    """`second` equals `first` byte for byte once the regraded verdicts' `duration_ms` (how
    long each grader ran) are taken from `first`."""
    assert dumps_go_json(json.loads(second)) == second  # the writer's output is canonical
    patched = json.loads(second)
    for task, old_task in zip(patched["tasks"], json.loads(first)["tasks"], strict=True):
        for run, old_run in zip(task["runs"], old_task["runs"], strict=True):
            for name in graders & set(run["validations"]):
                measured = old_run["validations"][name]["duration_ms"]
                run["validations"][name]["duration_ms"] = measured
    assert dumps_go_json(patched) == first


@pytest.mark.slow
def test_the_output_fed_back_regrades_to_the_same_bytes(
    project: Project, grade_project: Any
) -> None:
    _project(project)
    first = project.root / "first.json"
    second = project.root / "second.json"
    assert grade_project("--output", str(first)).code == 1
    args = [*project.grade_args()]
    args[args.index("--results") + 1] = str(first)
    result = run_cli_process([*args, "--output", str(second)], cwd=project.root)
    assert result.code == 1, result.stderr
    _same_bytes_but_measured_durations(first.read_text(), second.read_text(), {"check"})
    # ... and it is waza's 1.5 shape, with what waza rebuilds rebuilt.
    summary = json.loads(first.read_text())["summary"]
    assert summary["usage"]["input_tokens"] == 780
    assert summary["usage"]["model_metrics"]["m"]["request_count"] == 6
    statistics = summary["statistics"]
    assert list(statistics) == ["bootstrap_ci", "success_rate_ci", "pass_hat_k"]
    assert statistics["pass_hat_k"] == [0.5, 1 / 6, 0]
    stats = json.loads(first.read_text())["tasks"][0]["stats"]
    assert round(stats["pass_rate_ci"]["lower"], 4) == 0.2077


@pytest.mark.slow
def test_the_same_input_gives_the_same_bytes(project: Project, grade_project: Any) -> None:
    _project(project)
    outputs = []
    for name in ("a.json", "b.json"):
        path = project.root / name
        grade_project("--output", str(path))
        outputs.append(path.read_text())
    _same_bytes_but_measured_durations(outputs[0], outputs[1], {"check"})
    assert '"num_bootstraps": 10000' in Path(project.root / "a.json").read_text()
