"""The history: its file (read, a broken line named, appended and bounded), the judgement against
its pooled records (the noise rule, flaky bands, another eval, fallbacks), through the command."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CliResult, Project, make_results, make_run, run_cli_process
from waza_ci.errors import InputError
from waza_ci.gate.baseline import Change, PassCount, Side, TaskChange, compare
from waza_ci.gate.baseline_io import BaselineProblem, BaselineUse
from waza_ci.gate.history import HistoryQuestion, TaskTrend, judge_with_history, with_band
from waza_ci.gate.history_io import (
    EvalEntry,
    HistoryFile,
    HistoryRecord,
    TaskEntry,
    appended_text,
    load_history,
    record_line,
)
from waza_ci.gate.history_limits import SCHEMA_VERSION
from waza_ci.gate.waza_gate import GateOptions
from waza_ci.waza.identity import EvalIdentity

EVAL = EvalIdentity("test eval", "demo")


def record(
    tasks: dict[str, tuple[int, int]],
    *,
    name: str = "test eval",
    skill: str = "demo",
    commit: str = "",
    ref: str = "",
) -> HistoryRecord:
    return HistoryRecord(
        schema_version=SCHEMA_VERSION,
        eval=EvalEntry(name=name, skill=skill),
        commit=commit,
        ref=ref,
        tasks=[TaskEntry(id=k, runs=total, passed=p) for k, (p, total) in tasks.items()],
    )


def write_history(path: Path, records: Sequence[HistoryRecord]) -> HistoryFile:
    path.write_text("".join(record_line(r) + "\n" for r in records), encoding="utf-8")
    return load_history(path)


def now(**tasks: tuple[int, int]) -> list[Side]:
    return [Side(k, k, k, PassCount(p, t), {}) for k, (p, t) in tasks.items()]


def judge(
    history: HistoryFile,
    current: list[Side],
    *,
    baseline: BaselineUse | None = None,
    window: int = 10,
    default_branch: str = "",
) -> tuple[BaselineUse, Any]:
    question = HistoryQuestion(
        expected=EVAL,
        window=window,
        default_branch=default_branch,
        baseline_given=baseline is not None,
    )
    return judge_with_history(history, baseline or BaselineUse(), current, question)


# --- the file ----------------------------------------------------------------------------------


def test_a_missing_file_is_an_empty_history(tmp_path: Path) -> None:
    history = load_history(tmp_path / "none.jsonl")
    assert history.lines == () and not history.exists


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ('{"not": json', "is not JSON"),
        ("[1, 2]", "is not a JSON object"),
        ('{"schema_version": 1, "eval": {}, "tasks": [{"id": 3}]}', "at tasks.0.id"),
        ('{"schema_version": 99, "eval": {}, "tasks": []}', "schema_version 99, newer"),
        (
            '{"schema_version": 1, "eval": {}, "tasks": [{"id": "a", "runs": -1, "passed": 0}]}',
            "at tasks.0.runs",
        ),
    ],
)
def test_a_broken_line_is_named_by_file_and_line(tmp_path: Path, line: str, said: str) -> None:
    path = tmp_path / "h.jsonl"
    write_history(path, [record({"a": (1, 1)}), record({"a": (1, 1)})])
    with path.open("a", encoding="utf-8") as stream:
        stream.write("\n" + line + "\n")  # a blank line is nothing; the broken one is line 4
    with pytest.raises(InputError) as raised:
        load_history(path)
    assert str(raised.value).startswith(f"{path}:4: history line 4 ")
    assert said in str(raised.value)


def test_invalid_utf8_is_named_by_line(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    path.write_bytes(record_line(record({"a": (1, 1)})).encode() + b"\n\xff\xfe\n")
    with pytest.raises(InputError, match=r":2: history line 2 is not valid UTF-8"):
        load_history(path)


def test_appending_keeps_other_lines_byte_for_byte_and_bounds_this_eval(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    other = record({"x": (1, 1)}, name="docs-sync", skill="docs")
    ours = [record({"a": (i, 3)}, commit=f"{i:07x}") for i in range(3)]
    history = write_history(path, [ours[0], other, ours[1], ours[2]])
    foreign_text = history.lines[1].text
    text = appended_text(history, record({"a": (3, 3)}, commit="0000003"), keep=3)
    lines = text.splitlines()
    assert len(lines) == 4 and lines[0] == foreign_text  # the oldest of ours dropped, not theirs
    assert [json.loads(ln)["commit"] for ln in lines[1:]] == ["0000001", "0000002", "0000003"]
    text = appended_text(history, record({"a": (3, 3)}), keep=200)
    assert text.splitlines()[:4] == [ln.text for ln in history.lines]  # nothing rewritten


# --- the judgement -----------------------------------------------------------------------------


def test_a_regression_against_history_that_one_baseline_run_calls_noise(tmp_path: Path) -> None:
    history = write_history(tmp_path / "h.jsonl", [record({"t": (2, 2)})] * 10)
    used, view = judge(history, now(t=(0, 2)))
    assert used.problem is None and used.comparison is not None
    (task,) = used.comparison.tasks
    assert task.regression and task.judged_by == "history" and task.baseline == PassCount(20, 20)
    assert used.comparison.failed and used.comparison.against == "the history"
    # One baseline run of the same task (2 of 2) cannot tell this from chance (p = 1/6).
    one_run = compare(now(t=(0, 2)), now(t=(2, 2)), options=GateOptions(max_regression_pct=100))
    assert not one_run.tasks[0].regression and one_run.tasks[0].within_noise
    assert view is not None and view.judged and len(view.points) == 10


def test_and_the_reverse_noise_against_history_that_one_baseline_run_calls_a_regression(
    tmp_path: Path,
) -> None:
    history = write_history(tmp_path / "h.jsonl", [record({"t": (1, 3)}, commit="")] * 5)
    used, view = judge(history, now(t=(0, 3)))  # 5 of 15 pooled: flaky
    assert used.comparison is not None and not used.comparison.failed
    assert view is not None and view.trend("t") is not None and view.trend("t").flaky
    one_run = compare(now(t=(0, 3)), now(t=(3, 3)))  # 3 of 3 then 0 of 3: p = 0.05
    assert one_run.tasks[0].regression


def test_a_flaky_result_outside_its_band_can_still_regress(tmp_path: Path) -> None:
    # 600 of 1,000 pooled runs: a band of about 57% to 63%; 50 of 100 now is below it, and the
    # test on the pooled counts calls the drop significant.
    history = write_history(tmp_path / "h.jsonl", [record({"t": (60, 100)})] * 10)
    used, view = judge(history, now(t=(50, 100)))
    trend = view.trend("t")
    assert trend.flaky and not trend.inside_band
    low, high = trend.band
    assert 0.56 < low < 0.58 and 0.62 < high < 0.64
    assert used.comparison is not None and used.comparison.tasks[0].regression


def test_the_band_overrules_the_test() -> None:
    """A result inside a flaky task's band is never a regression, whatever the test said (the
    rule on its own: with counts small enough to compute, the two rarely disagree)."""
    trend = TaskTrend("t", (PassCount(5, 10),), PassCount(5, 10), PassCount(4, 10))
    assert trend.flaky and trend.inside_band
    flagged = TaskChange("t", "t", Change.STILL_FAILING, trend.pooled, trend.now, True, False)
    kept = with_band(flagged, trend)
    assert not kept.regression and kept.within_noise
    steady = TaskTrend("t", (PassCount(10, 10),), PassCount(10, 10), PassCount(4, 10))
    assert with_band(flagged, steady).regression  # not flaky: the test decides


def test_the_window_takes_the_newest_records_of_the_default_branch(tmp_path: Path) -> None:
    old = [record({"t": (0, 2)}, ref="refs/heads/main")] * 5
    new = [record({"t": (2, 2)}, ref="refs/heads/main")] * 3
    branch = [record({"t": (0, 2)}, ref="refs/heads/feature")] * 4
    history = write_history(tmp_path / "h.jsonl", [*old, *new, *branch])
    used, view = judge(history, now(t=(0, 2)), window=3, default_branch="main")
    assert view.points and len(view.points) == 3
    assert used.comparison.tasks[0].baseline == PassCount(6, 6)  # type: ignore[union-attr]
    assert "4 of other branches left out" in view.note
    _, all_refs = judge(history, now(t=(0, 2)), window=100)  # default branch unknown: all
    assert len(all_refs.points) == 12 and "less history than the window" in all_refs.note


def test_a_history_of_another_eval_is_not_used_and_named(tmp_path: Path) -> None:
    history = write_history(
        tmp_path / "h.jsonl", [record({"t": (2, 2)}, name="docs-sync", skill="docs")] * 2
    )
    used, view = judge(history, now(t=(0, 2)))
    assert view is None and used.problem is BaselineProblem.HISTORY_ANOTHER_EVAL
    assert used.note is not None and "'docs-sync'" in used.note
    assert used.history_another_eval[0].found.name == "docs-sync"
    # A file the evals share: this eval's records judge, the others are left out and named.
    shared = write_history(
        tmp_path / "s.jsonl",
        [record({"t": (2, 2)}, name="docs-sync", skill="docs"), record({"t": (2, 2)})],
    )
    used, view = judge(shared, now(t=(2, 2)))
    assert used.problem is None and view is not None and len(view.points) == 1
    assert "records of other evals left out ('docs-sync' (skill 'docs'))" in view.note


def test_an_empty_history_falls_back_to_the_baseline_or_to_none(tmp_path: Path) -> None:
    empty = load_history(tmp_path / "evicted.jsonl")
    used, view = judge(empty, now(t=(0, 2)))
    assert view is None and used.problem is BaselineProblem.NO_HISTORY
    assert used.note is not None and "the cache was evicted" in used.note
    baseline_cmp = compare(now(t=(0, 2)), now(t=(2, 2)))
    used, _ = judge(empty, now(t=(0, 2)), baseline=BaselineUse(baseline_cmp))
    assert used.comparison is baseline_cmp and used.problem is None
    assert used.note is not None and "judged against the baseline alone" in used.note


def test_with_both_the_history_judges_each_task_it_has_and_the_baseline_the_rest(
    tmp_path: Path,
) -> None:
    history = write_history(tmp_path / "h.jsonl", [record({"t": (2, 2)})] * 10)
    current = now(t=(0, 2), u=(0, 2))
    baseline_cmp = compare(current, now(t=(2, 2), u=(2, 2)), baseline_files=["b.json"])
    used, _ = judge(history, current, baseline=BaselineUse(baseline_cmp))
    assert used.comparison is not None
    by_key = {t.key: t for t in used.comparison.tasks}
    assert by_key["t"].judged_by == "history" and by_key["t"].regression
    assert by_key["u"].judged_by == "baseline" and not by_key["u"].regression
    assert used.comparison.gate is baseline_cmp.gate  # waza's rules: the baseline's
    assert "the history (per task) and the baseline" in used.comparison.against


# --- through the command -----------------------------------------------------------------------


def write_project(project: Project, outputs: dict[str, list[str]], name: str = "test eval") -> None:
    """One task per key, one run per output; an in-process text grader passes `good`."""
    project.write_eval("- type: text\n  name: good\n  config:\n    contains: [good]\n")
    project.eval_path.write_text(
        project.eval_path.read_text(encoding="utf-8").replace("test eval", name), encoding="utf-8"
    )
    for task_id in outputs:
        project.write_task(task_id)
    runs = {
        k: [make_run(i + 1, final_output=t) for i, t in enumerate(v)] for k, v in outputs.items()
    }
    project.write_results(make_results(runs, eval_name=name))


def grade(project: Project, *extra: str) -> CliResult:
    return run_cli_process([*project.grade_args(), *extra], cwd=project.root)


def test_record_appends_one_line_naming_the_eval_and_where_it_ran(project: Project) -> None:
    write_project(project, {"t": ["good", "good"]})
    history = project.root.parent / "h.jsonl"
    env = {"GITHUB_SHA": "a" * 40, "GITHUB_REF": "refs/heads/main", "GITHUB_RUN_ID": "7"}
    done = run_cli_process(
        [*project.grade_args(), "--history", str(history), "--record"], cwd=project.root, env=env
    )
    assert done.code == 0, done.stderr
    (line,) = history.read_text(encoding="utf-8").splitlines()
    doc = json.loads(line)
    assert doc["eval"] == {"name": "test eval", "skill": ""}  # the spec names no skill
    assert (doc["commit"], doc["ref"], doc["run_id"]) == ("a" * 40, "refs/heads/main", "7")
    (task,) = doc["tasks"]
    assert (task["id"], task["runs"], task["passed"]) == ("t", 2, 2)
    assert task["graders"] == {"good": {"passed": 2, "failed": 0}}
    assert grade(project, "--history", str(history)).code == 0
    assert len(history.read_text(encoding="utf-8").splitlines()) == 1  # without --record: read


def test_record_keeps_the_newest_k(project: Project) -> None:
    write_project(project, {"t": ["good"]})
    history = project.root.parent / "h.jsonl"
    for _ in range(4):
        assert (
            grade(project, "--history", str(history), "--record", "--history-keep", "2").code == 0
        )
    assert len(history.read_text(encoding="utf-8").splitlines()) == 2


def test_the_command_fails_on_a_regression_against_history(project: Project) -> None:
    write_project(project, {"t": ["good", "good"]})
    history = project.root.parent / "h.jsonl"
    for _ in range(10):
        assert grade(project, "--history", str(history), "--record").code == 0
    write_project(project, {"t": ["bad", "bad"]})
    summary = project.root / "s.md"
    done = grade(
        project, "--history", str(history), "--fail-on", "regressions", "--summary", str(summary)
    )
    assert done.code == 1, done.stderr
    assert "regression gate FAILED against the history" in done.stderr
    assert "1 task regressed against the history" in done.stderr
    assert "t 20/20 (100%) -> 0/2 (0%) (vs the history)" in done.stderr  # what judged the task
    text = summary.read_text(encoding="utf-8")
    assert "```mermaid\nxychart-beta" in text and "| `t` | ██████████ → ▁ |" in text


def test_a_broken_line_stops_before_grading_and_writes_nothing(project: Project) -> None:
    write_project(project, {"t": ["good"]})
    history = project.root.parent / "h.jsonl"
    history.write_text('{"schema_version": 1\n', encoding="utf-8")
    summary = project.root / "s.md"
    done = grade(project, "--history", str(history), "--record", "--summary", str(summary))
    assert done.code == 2
    assert f"{history}:1: history line 1 is not JSON" in done.stderr
    assert "Traceback" not in done.stderr and not summary.exists()
    assert history.read_text(encoding="utf-8") == '{"schema_version": 1\n'


def test_another_evals_history_fails_the_gate_closed_unless_allowed(project: Project) -> None:
    write_project(project, {"t": ["good"]}, name="docs-sync")
    history = project.root.parent / "h.jsonl"
    assert grade(project, "--history", str(history), "--record").code == 0
    write_project(project, {"t": ["good"]})
    done = grade(project, "--history", str(history), "--fail-on", "regressions")
    assert done.code == 1
    assert "'docs-sync'" in done.stderr and "the history is of another eval" in done.stderr
    allowed = grade(
        project, "--history", str(history), "--fail-on", "regressions", "--allow-missing-baseline"
    )
    assert allowed.code == 0, allowed.stderr


def test_an_evicted_history_alone_fails_closed(project: Project) -> None:
    write_project(project, {"t": ["good"]})
    done = grade(project, "--history", str(project.root / "gone.jsonl"), "--fail-on", "regressions")
    assert done.code == 1
    assert "the history has no record of this eval, and no baseline was given" in done.stderr


def test_a_grading_with_grader_errors_records_nothing(project: Project) -> None:
    write_project(project, {"t": ["good"]})
    project.write_eval(project.program_grader("gone", "graders/missing.py"))
    history = project.root.parent / "h.jsonl"
    done = grade(project, "--history", str(history), "--record")
    assert done.code == 3
    assert not history.exists()


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (["--record"], "--record appends to a history"),
        (["--history", "h.jsonl", "--shard", "1/2", "--output", "o"], "give them to `merge`"),
        (["--benchmark-json", "b.json", "--shard", "1/2", "--output", "o"], "not --shard"),
    ],
)
def test_usage_errors(project: Project, extra: list[str], said: str) -> None:
    write_project(project, {"t": ["good"]})
    done = grade(project, *extra)
    assert done.code == 2 and said in done.stderr


def test_the_benchmark_json_reads_back_in_github_action_benchmarks_shape(
    project: Project,
) -> None:
    write_project(project, {"t": ["good", "bad"], "u": ["good"]})
    path = project.root / "bench.json"
    assert grade(project, "--benchmark-json", str(path)).code == 1
    entries = json.loads(path.read_text(encoding="utf-8"))
    # customBiggerIsBetter: an array of {name: string, unit: string, value: number,
    # range?: string, extra?: string} (github-action-benchmark's README and extract.ts).
    assert isinstance(entries, list)
    for entry in entries:
        assert set(entry) <= {"name", "unit", "value", "range", "extra"}
        assert isinstance(entry["name"], str) and isinstance(entry["unit"], str)
        assert isinstance(entry["value"], int | float) and not isinstance(entry["value"], bool)
        assert all(isinstance(entry.get(k, ""), str) for k in ("range", "extra"))
    values = {e["name"]: e["value"] for e in entries}
    assert values["test eval: runs passed"] == pytest.approx(66.67)
    assert values["test eval: tasks passed"] == 50.0
    assert values["test eval / t: runs passed"] == 50.0
    assert values["test eval / u: score"] == 1.0
    assert len(values) == len(entries)  # names are unique: each is one chart


def test_a_sharded_grading_records_once_at_the_merge(project: Project) -> None:
    write_project(project, {"t": ["good"], "u": ["good", "bad"]})
    history = project.root.parent / "h.jsonl"
    parts = [project.root / f"part{i}" for i in (1, 2)]
    for i, part in enumerate(parts, start=1):
        done = grade(project, "--shard", f"{i}/2", "--output", str(part), "--fail-on", "errors")
        assert done.code == 0, done.stderr
    assert not history.exists()
    args = ["merge", *map(str, parts), "--history", str(history), "--record", "--fail-on", "errors"]
    done = run_cli_process(args, cwd=project.root)
    assert done.code == 0, done.stderr
    (line,) = history.read_text(encoding="utf-8").splitlines()
    tasks = {t["id"]: (t["passed"], t["runs"]) for t in json.loads(line)["tasks"]}
    assert tasks == {"t": (1, 1), "u": (1, 2)}


def test_hostile_names_in_a_history_stay_text(project: Project) -> None:
    """A history is restored from a cache: its eval names are untrusted, in the log and the
    summary alike."""
    hostile = "x`\n::error::pwned\n| ## <img src=x>"
    history = project.root.parent / "h.jsonl"
    history.write_text(record_line(record({"t": (1, 1)}, name=hostile)) + "\n", encoding="utf-8")
    write_project(project, {"t": ["good"]})
    summary = project.root / "s.md"
    done = grade(
        project, "--history", str(history), "--fail-on", "regressions", "--summary", str(summary)
    )
    assert done.code == 1
    assert not any(line.startswith("::") for line in done.stderr.splitlines())
    text = summary.read_text(encoding="utf-8")
    outside_code = re.sub(r"(`+)(?!`).*?(?<!`)\1(?!`)", "", text)
    assert "<img" not in outside_code and "pwned" not in outside_code
    assert not any(line.startswith("::") for line in text.splitlines())
