"""Sharded grading and the merge: `grade --shard I/N` then `merge` gives what one `grade` gives.

Real subprocesses and real grader programs (`true`, `false`, `echo`, a command that does not
exist); the comparison is of the files, stdout and exit codes the command produces.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import (
    CliResult,
    Project,
    make_results,
    make_run,
    run_cli_process,
    without_times,
)
from waza_ci.errors import InputError
from waza_ci.golang.json import dumps_go_json
from waza_ci.grading.plan import plan_grading
from waza_ci.shard.plan import Shard, assign_shards, parse_shard, select_shard
from waza_ci.waza.results import load_results
from waza_ci.waza.spec import load_eval

TASKS = [f"t{number:02d}" for number in range(11)]  # 11: divisible by none of 2, 3, 7
MISSING_FROM_RESULTS = "t09"


def graders_yaml(
    *entries: tuple[str, str, list[str]], weight: int | None = None, timeout: int | None = None
) -> str:
    lines = []
    for name, command, args in entries:
        lines += ["- type: program", f"  name: {name}"]
        if weight is not None:
            lines.append(f"  weight: {weight}")
        lines += ["  config:", f"    command: {json.dumps(command)}"]
        lines.append(f"    args: {json.dumps(args)}")
        if timeout is not None:
            lines.append(f"    timeout: {timeout}")
    return "\n".join(lines) + "\n"


def results_doc(task_ids: list[str], eval_id: str = "run-1") -> dict[str, Any]:
    """Two runs per task, with the cases grading treats differently: a kept prompt verdict, a
    stale program verdict, an errored run, groups, a task that is not in the spec."""
    tasks: dict[str, list[dict[str, Any]]] = {}
    for task_id in task_ids:
        runs = [make_run(1, f"{task_id} first"), make_run(2, f"{task_id} second <&>")]
        if task_id == "t02":
            runs[0]["validations"] = {
                "judge": {"identifier": "judge", "type": "prompt", "score": 0.5, "weight": 1,
                          "passed": True, "feedback": "kept as is", "duration_ms": 7},
                "stale": {"identifier": "stale", "type": "program", "score": 1, "weight": 1,
                          "passed": True, "feedback": "dropped", "duration_ms": 3},
            }  # fmt: skip
        if task_id == "t04":
            runs[1].update(status="error", error_msg="agent crashed")
        if task_id == "t08":  # saved as passed; the expected check fails it now: a flip
            runs[1]["validations"] = {
                "_output_contains": {"identifier": "_output_contains", "type": "", "score": 1,
                                     "weight": 1, "passed": True, "feedback": "old"},
            }  # fmt: skip
        tasks[task_id] = runs
    tasks["not-in-spec"] = [make_run(1)]
    doc = make_results(tasks, eval_id=eval_id)
    doc["config"]["runs_per_test"] = 2
    for number, task in enumerate(doc["tasks"]):
        if number % 3 == 0:
            task["group"] = f"group-{number % 2}"
    return doc


@pytest.fixture
def suite(project: Project) -> Project:
    return build_suite(project)


def build_suite(project: Project) -> Project:
    project.write_eval(graders_yaml(("ok", "true", []), ("say", "echo", ["said <b>@here</b>"])))
    for task_id in TASKS:
        extra: list[tuple[str, str, list[str]]] = []
        if task_id == "t03":
            extra.append(("fails", "false", []))
        if task_id == "t05":
            extra.append(("missing", "waza-ci-no-such-grader-command", []))
            # Cannot start either, and its file says why: the hint survives the merge.
            extra.append(("crlf", "./graders/crlf.sh", []))
            # Its script is beside the task file, not in the working directory: the hint
            # naming that folder survives the merge too.
            extra.append(("beside", "sh", ["beside.sh"]))
        if task_id == "t07":  # a grader error whose report carries a note (the timeout)
            project.write_task(task_id, graders_yaml(("slow", "sleep", ["5"]), timeout=1))
            continue
        if task_id == "t02":  # a judge: kept on run 1, never judged on run 2
            project.write_task(task_id, "- {name: judge, type: prompt, config: {}}\n")
            continue
        if task_id == "t06":  # graded in this process
            project.write_task(
                task_id,
                "- {name: calm, type: behavior, config: {max_tool_calls: 3}}\n",
                extra="expected:\n  output_contains: [t06]\n",
            )
            continue
        if task_id == "t08":
            project.write_task(task_id, "", extra="expected:\n  output_contains: [first]\n")
            continue
        project.write_task(task_id, graders_yaml(*extra, weight=2) if extra else "")
    crlf = project.root / "graders" / "crlf.sh"
    crlf.parent.mkdir(exist_ok=True)
    crlf.write_bytes(b"#!/bin/sh\r\nexit 0\r\n")
    crlf.chmod(0o755)
    (project.root / "tasks" / "beside.sh").write_text("exit 0\n", encoding="utf-8")
    project.write_results(results_doc([t for t in TASKS if t != MISSING_FROM_RESULTS]))
    return project


def grade(project: Project, *extra: str) -> CliResult:
    return run_cli_process([*project.grade_args(), "--jobs", "2", *extra], cwd=project.root)


def merge(project: Project, *args: str) -> CliResult:
    return run_cli_process(["merge", *args], cwd=project.root)


def without_measured_durations(text: str) -> str:
    """The file with every grader verdict's duration_ms (a measured time) set to 0."""
    doc = json.loads(text)
    assert dumps_go_json(doc) == text, "not in waza's exact output format"
    for task in doc["tasks"]:
        for run in task.get("runs") or []:
            for verdict in (run.get("validations") or {}).values():
                verdict["duration_ms"] = 0
    return dumps_go_json(doc)


def grade_in_shards(project: Project, count: int, folder: str, *extra: str) -> list[Path]:
    partials = []
    for index in range(1, count + 1):
        out = project.root / folder / f"shard-{index}"
        summary = project.root / folder / f"summary-{index}.md"
        shard = ["--shard", f"{index}/{count}"]
        done = grade(project, *shard, "--output", str(out), "--summary", str(summary), *extra)
        assert done.code in (0, 1, 3), done.stderr
        assert summary.read_text().startswith(f"> **Shard {index} of {count}**: this summary")
        partials.append(out)
    return partials


@pytest.mark.slow
@pytest.mark.parametrize("count", [1, 2, 3, 7])
def test_merged_shards_are_identical_to_unsharded_grading(suite: Project, count: int) -> None:
    whole = grade(suite, "--output", "whole.json", "--summary", "whole.md")
    assert whole.code == 3, whole.stderr  # t05's grader cannot start, t07's times out
    assert "timed out after 1 s" in whole.stderr
    assert "fork/exec ./graders/crlf.sh: no such file or directory" in whole.stderr
    assert "-> convert line endings to LF" in whole.stderr
    # What only the section carries survives the merge: a flip, an unjudged judge, kinds.
    whole_summary = (suite.root / "whole.md").read_text()
    assert "### Changed since the run" in whole_summary and "passed → failed" in whole_summary
    assert "not graded" in whole_summary
    assert "re-graded: 2 `behavior`" in whole_summary
    partials = grade_in_shards(suite, count, "partials")

    merged = merge(suite, *map(str, reversed(partials)), "--output", "m.json", "--summary", "m.md")

    assert merged.code == whole.code, merged.stderr
    assert merged.stdout == whole.stdout
    assert without_times(merged.stderr) == without_times(whole.stderr)
    root = suite.root
    assert without_times((root / "m.md").read_text()) == without_times(
        (root / "whole.md").read_text()
    )
    assert without_measured_durations((root / "m.json").read_text()) == (
        without_measured_durations((root / "whole.json").read_text())
    )
    # Each partial is a waza results file naming its shard and holding only the tasks it
    # graded; shard 1 also carries the task no shard grades. Every task travels once.
    docs = [json.loads(p.read_text()) for p in partials]
    expected = [{"index": i, "count": count} for i in range(1, 1 + count)]
    assert [d["waza_ci"]["shard"] for d in docs] == expected
    for number, doc in enumerate(docs):
        held = [task["test_id"] for task in doc["tasks"]]
        graded = [task["test_id"] for task in doc["waza_ci"]["tasks"]]
        assert sorted(held) == sorted(graded + (["not-in-spec"] if number == 0 else []))
        assert doc["waza_ci"]["task_indexes"] == sorted(doc["waza_ci"]["task_indexes"])
        assert doc["summary"]["total_tests"] == len(held)
    assert not (suite.root / "m.md").read_text().startswith("> **Shard")
    every = sorted(task["test_id"] for doc in docs for task in doc["tasks"])
    assert every == sorted([t for t in TASKS if t != MISSING_FROM_RESULTS] + ["not-in-spec"])


@pytest.mark.slow
def test_several_results_files_and_weights_merge_identically(suite: Project) -> None:
    suite.write_results(results_doc(["t00", "t01", "t05", "t10"], "run-2"), "more.json")
    both = ["--results", str(suite.root / "more.json")]
    whole = grade(suite, *both, "--output", "whole", "--summary", "whole.md")
    assert whole.code == 3, whole.stderr
    weights = ["--shard-weights", str(suite.root / "whole" / "results.json")]
    partials = grade_in_shards(suite, 3, "partials", *both, *weights)
    files = sorted(str(p) for folder in partials for p in folder.iterdir())
    assert len(files) == 6  # one partial per (shard, results file)

    merged = merge(suite, *files, "--output", "merged", "--summary", "m.md")

    assert (merged.code, merged.stdout) == (whole.code, whole.stdout), merged.stderr
    assert without_times((suite.root / "m.md").read_text()) == without_times(
        (suite.root / "whole.md").read_text()
    )
    for name in ("results.json", "more.json"):
        ours = (suite.root / "merged" / name).read_text()
        assert without_measured_durations(ours) == without_measured_durations(
            (suite.root / "whole" / name).read_text()
        )


# --- the merge refuses an incomplete or inconsistent set, naming the shard and the file ---------


@pytest.fixture
def three(suite: Project) -> list[Path]:
    return grade_in_shards(suite, 3, "partials")


def one_line_error(result: CliResult) -> str:
    assert result.code == 2, result.stderr
    assert result.stdout == ""
    [line] = result.stderr.splitlines()
    return line


@pytest.mark.slow
def test_a_missing_shard_is_named(suite: Project, three: list[Path]) -> None:
    line = one_line_error(merge(suite, str(three[0]), str(three[2]), "--output", "m.json"))
    assert "shard 2/3 of results.json is missing" in line
    assert not (suite.root / "m.json").exists()


@pytest.mark.slow
def test_a_shard_given_twice_is_named_with_both_files(suite: Project, three: list[Path]) -> None:
    copy = suite.root / "copy.json"
    copy.write_bytes(three[1].read_bytes())
    line = one_line_error(merge(suite, *map(str, three), str(copy)))
    assert "shard 2/3 of results.json is given twice" in line
    assert str(three[1]) in line and str(copy) in line


@pytest.mark.slow
def test_partials_from_other_inputs_are_refused(suite: Project, three: list[Path]) -> None:
    suite.write_task("t01", graders_yaml(("extra", "true", [])))  # a grader changed
    other = suite.root / "other"
    assert grade(suite, "--shard", "2/3", "--output", str(other)).code in (0, 1, 3)
    line = one_line_error(merge(suite, str(three[0]), str(other), str(three[2])))
    assert f"{other}: at $.waza_ci.inputs_digest: shard 2/3 of results.json" in line
    assert "other inputs" in line


@pytest.mark.slow
def test_a_different_shard_count_is_refused(suite: Project, three: list[Path]) -> None:
    [half, _] = grade_in_shards(suite, 2, "halves")
    line = one_line_error(merge(suite, *map(str, three), str(half)))
    assert "shard 1/2 of results.json was cut into 2 shards" in line


@pytest.mark.slow
def test_a_plain_results_file_is_not_a_partial(suite: Project) -> None:
    line = one_line_error(merge(suite, str(suite.results_path)))
    assert f"{suite.results_path}: at $.waza_ci: not a waza-ci partial" in line


@pytest.mark.slow
def test_a_task_graded_by_two_shards_is_refused(suite: Project, three: list[Path]) -> None:
    first, second = (json.loads(p.read_text()) for p in three[:2])
    entry = first["waza_ci"]["tasks"][0]  # shard 2 claims to hold and grade it too
    second["waza_ci"]["tasks"].append(entry)
    second["waza_ci"]["task_indexes"].append(entry["index"])
    second["tasks"].append(first["tasks"][first["waza_ci"]["task_indexes"].index(entry["index"])])
    three[1].write_text(json.dumps(second))
    line = one_line_error(merge(suite, *map(str, three)))
    task = first["waza_ci"]["tasks"][0]["test_id"]
    assert f"task {task!r} is graded by both shard 1/3" in line
    assert "shard 2/3 of results.json" in line


@pytest.mark.slow
def test_a_task_in_no_partial_is_refused(suite: Project, three: list[Path]) -> None:
    doc = json.loads(three[0].read_text())
    at = [task["test_id"] for task in doc["tasks"]].index("not-in-spec")
    del doc["tasks"][at]
    lost = doc["waza_ci"]["task_indexes"].pop(at)
    three[0].write_text(json.dumps(doc))
    line = one_line_error(merge(suite, *map(str, three)))
    assert line.endswith(f"$.tasks[{lost}] of results.json is in none of its partials")


@pytest.mark.slow
def test_a_malformed_section_names_its_json_path(suite: Project, three: list[Path]) -> None:
    doc = json.loads(three[0].read_text())
    doc["waza_ci"]["shard"]["index"] = "1"
    three[0].write_text(json.dumps(doc))
    line = one_line_error(merge(suite, *map(str, three)))
    assert line.endswith(f"{three[0]}: at $.waza_ci.shard.index: want a whole number, got a string")
    doc["waza_ci"]["shard"] = [1, 2]
    three[0].write_text(json.dumps(doc))
    line = one_line_error(merge(suite, *map(str, three)))
    assert line.endswith("at $.waza_ci.shard: want an object (waza-ci's shard), got a list")
    del doc["waza_ci"]["shard"]
    three[0].write_text(json.dumps(doc))
    line = one_line_error(merge(suite, *map(str, three)))
    assert line.endswith(
        "at $.waza_ci.shard: required: waza-ci's partial section needs `shard` here"
    )


@pytest.mark.slow
@pytest.mark.parametrize("text", ["0/3", "4/3", "3", "1/0", "a/b", "-1/2"])
def test_a_bad_shard_is_a_usage_error(suite: Project, text: str) -> None:
    done = grade(suite, "--shard", text)
    assert done.code == 2
    assert "--shard" in done.stderr and len(done.stderr.splitlines()) == 1


@pytest.mark.slow
def test_a_shard_without_output_is_a_usage_error(suite: Project) -> None:
    done = grade(suite, "--shard", "1/2")
    assert (done.code, done.stdout) == (2, "")
    assert done.stderr == (
        "waza-ci: error: --shard needs --output: the partial results file `merge` reads\n"
    )


@pytest.mark.slow
def test_weights_without_a_shard_are_a_usage_error(suite: Project) -> None:
    done = grade(suite, "--shard-weights", str(suite.results_path))
    assert (done.code, done.stderr.strip()) == (
        2,
        "waza-ci: error: shard weights (--shard-weights, input `shard-weights`) need a shard",
    )


# --- the split itself ---------------------------------------------------------------------------


def keys(count: int) -> list[tuple[str, str]]:
    return [(f"file-{n % 3}.json", f"task-{n}") for n in range(count)]


@pytest.mark.parametrize("count", [1, 2, 3, 7, 16])
def test_every_task_lands_in_exactly_one_shard_and_loads_are_balanced(count: int) -> None:
    tasks = keys(50)
    weights = [1 + n % 4 for n in range(50)]
    assigned = assign_shards(tasks, weights, count)
    assert all(0 <= shard < count for shard in assigned)
    loads = [sum(w for w, s in zip(weights, assigned, strict=True) if s == k) for k in range(count)]
    assert max(loads) - min(loads) <= max(weights)


def test_the_split_does_not_depend_on_the_order_of_the_tasks() -> None:
    tasks = keys(40)
    weights = [1 + n % 5 for n in range(40)]
    expected = dict(zip(tasks, assign_shards(tasks, weights, 4), strict=True))
    order = list(range(40))
    random.Random(7).shuffle(order)
    shuffled = assign_shards([tasks[i] for i in order], [weights[i] for i in order], 4)
    assert {tasks[i]: s for i, s in zip(order, shuffled, strict=True)} == expected


def test_recorded_durations_decide_the_balance() -> None:
    tasks = keys(5)
    by_count = assign_shards(tasks, [2] * 5, 2)
    by_time = assign_shards(tasks, [9000, 10, 10, 10, 10], 2)
    assert by_time.count(by_time[0]) == 1  # the slow task has a shard to itself
    assert by_count.count(by_count[0]) > 1


def test_parse_shard() -> None:
    assert (parse_shard("2/4").index, parse_shard(" 2/4 ").count) == (2, 4)
    with pytest.raises(InputError, match="input `shard`"):
        parse_shard("5/4", "input `shard`")


@pytest.mark.slow
def test_weights_file_keeps_the_merge_identical_and_moves_slow_tasks(suite: Project) -> None:
    previous = make_results({t: [make_run(1), make_run(2)] for t in TASKS})
    for task in previous["tasks"]:
        slow = task["test_id"] == "t00"
        for run in task["runs"]:
            run["validations"] = {
                "ok": {"type": "program", "duration_ms": 60_000 if slow else 5, "passed": True}
            }
            if task["test_id"] == "t05":  # a grader that fails at once; unrecorded, it would
                # weigh the mean of all, t00's minute included
                run["validations"]["crlf"] = {"type": "program", "duration_ms": 5, "passed": False}
    weights = suite.write_results(previous, "previous.json")
    partials = grade_in_shards(suite, 2, "weighted", "--shard-weights", str(weights))
    sections = [json.loads(p.read_text())["waza_ci"] for p in partials]
    alone = [s for s in sections if "t00" in {t["test_id"] for t in s["tasks"]}]
    assert [len(s["tasks"]) for s in alone] == [1]
    assert merge(suite, *map(str, partials)).code == 3


@pytest.mark.slow
def test_the_merge_never_overwrites_a_partial(suite: Project, three: list[Path]) -> None:
    before = three[0].read_bytes()
    line = one_line_error(merge(suite, *map(str, three), "--output", str(three[0])))
    assert "would overwrite the results file" in line
    assert three[0].read_bytes() == before


@pytest.mark.slow
def test_merge_compares_with_a_baseline_exactly_as_grade_does(suite: Project) -> None:
    gate = ["--baseline", str(suite.results_path), "--fail-on", "regressions"]
    gate += ["--min-task-pass-rate", "0.5"]
    whole = grade(suite, *gate, "--summary", "whole.md")
    partials = grade_in_shards(suite, 3, "partials")

    merged = merge(suite, *map(str, partials), *gate, "--summary", "m.md")

    assert (merged.code, merged.stdout) == (whole.code, whole.stdout)
    assert without_times(merged.stderr) == without_times(whole.stderr)
    assert without_times((suite.root / "m.md").read_text()) == without_times(
        (suite.root / "whole.md").read_text()
    )
    assert "regress" in whole.stderr.lower(), whole.stderr  # the comparison has something to say


@pytest.mark.slow
def test_a_merge_of_shards_cut_to_one_task_compares_the_baseline_on_that_task(
    suite: Project,
) -> None:
    # The partials carry the `--task` id, so the merge does not count the baseline's other
    # tasks as removed from the suite.
    gate = ["--baseline", str(suite.results_path)]
    whole = grade(suite, "--task", "t03", *gate)
    partials = grade_in_shards(suite, 2, "partials", "--task", "t03")

    merged = merge(suite, *map(str, partials), *gate)

    def comparison(stderr: str) -> list[str]:
        return [line for line in stderr.splitlines() if " not compared; waza gate" in line]

    assert merged.code == whole.code, merged.stderr
    assert comparison(merged.stderr) == comparison(whole.stderr)
    assert len(comparison(whole.stderr)) == 1 and " 0 removed" in comparison(whole.stderr)[0]


def test_a_process_weighs_more_than_many_checks_in_process(project: Project) -> None:
    # Shards balance by cost. Two tasks with one program grader each and one with
    # fifty in-process checks: by count, the fifty would outweigh both programs and put them in
    # one shard; by cost, the programs go to different shards.
    script = project.write_grader("ok.py", "import sys\nsys.stdin.read()\n")
    project.write_eval("")
    project.write_task("prog-a", graders=project.program_grader("ok", script))
    project.write_task("prog-b", graders=project.program_grader("ok", script))
    checks = "".join(
        f"- {{name: c{n}, type: text, config: {{contains: [x]}}}}\n" for n in range(50)
    )
    project.write_task("checks", graders=checks)
    project.write_results(make_results({t: [make_run(1)] for t in ("prog-a", "prog-b", "checks")}))
    spec = load_eval(project.eval_path, working_directory=project.root)
    plan = plan_grading(spec, [load_results(project.results_path)], None)
    shard_of = {}
    for index in (1, 2):
        selection = select_shard(plan, Shard(index, 2), None, "digest")
        shard_of.update({match.task.id: index for match in selection.plan.matches})
    assert shard_of["prog-a"] != shard_of["prog-b"]
    assert sum(e.in_process for e in plan.executions) == 50
