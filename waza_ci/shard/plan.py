"""Split a grading plan into N shards, and describe a shard's work for the merge.

A task (one spec task in one results file, with all its runs) is the unit: it is graded whole
by exactly one shard, so its stats are computed once, where its runs are. Tasks are dealt out
longest first (by the executions they need, or by recorded grader durations) to the least
loaded shard; equal weights are ordered by a SHA-256 of (results file name, task id). Nothing
depends on the machine, `--jobs`, or the order of the files on disk: every shard given the same
inputs computes the same assignment, and the inputs digest lets the merge prove they had them.
"""

from __future__ import annotations

import hashlib
import heapq
import json
import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from waza_ci.errors import InputError, Location
from waza_ci.grading.assemble import RegradedFile, with_digest
from waza_ci.grading.plan import Execution, GradingPlan, TaskMatch, regraded_graders
from waza_ci.waza.kinds import PROCESS_KINDS
from waza_ci.waza.modules.ref import ModulePin
from waza_ci.waza.results import ResultsFile, load_results
from waza_ci.waza.scoring import GraderVerdict, TaskGrade
from waza_ci.waza.spec import EvalSpec

PARTIAL_KEY = "waza_ci"
"""The top-level key of a partial results file that holds the shard's description."""
PARTIAL_FORMAT = 1
_SHARD = re.compile(r"([0-9]+)/([0-9]+)")


@dataclass(frozen=True)
class Shard:
    """Shard `index` (1-based) of `count`."""

    index: int
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def shard_note(shard: Shard | None) -> str:
    """The Markdown line a shard's summary opens with: its verdict is only its tasks'."""
    if shard is None:
        return ""
    return (
        f"> **Shard {shard.index} of {shard.count}**: this summary covers only this shard's "
        "tasks; the merge step reports the verdict.\n\n"
    )


def parse_shard(text: str, option: str = "--shard") -> Shard:
    """`I/N` with 1 <= I <= N; anything else is a usage error naming the option."""
    match = _SHARD.fullmatch(text.strip())
    if match is None:
        raise InputError(f"{option} must be I/N (e.g. 2/4), not {text!r}")
    index, count = int(match.group(1)), int(match.group(2))
    if count < 1 or not 1 <= index <= count:
        raise InputError(f"{option} {text!r}: I must be between 1 and N, and N at least 1")
    return Shard(index, count)


@dataclass(frozen=True)
class DurationTable:
    """Grader durations recorded in earlier regraded results files, in milliseconds."""

    by_grader: Mapping[tuple[str, str], int]
    """Mean duration per (task id, grader name)."""
    fallback: int
    """For executions the files never recorded: the mean of all, or 1 when there is none."""

    def estimate(self, execution: Execution) -> int:
        if execution.in_process:
            return IN_PROCESS_COST_MS  # microseconds: a recorded duration is 0 ms anyway
        key = (execution.match.task.id, execution.grader.name)
        return max(1, self.by_grader.get(key, self.fallback))


PROCESS_COST = 1000
"""Without recorded durations, an execution that starts a process (`program`, `code`) weighs
this much against one graded in this process: a process start costs milliseconds, an
in-process check microseconds (benchmarks/inprocess_graders.py measures the ratio)."""
IN_PROCESS_COST_MS = 1


def load_shard_weights(paths: Sequence[Path]) -> DurationTable:
    """Read the `duration_ms` of every verdict of a process kind (`program`, `code`) in
    earlier regraded results files (waza-ci's `--output`, merged or not); the task id and
    grader name are the key. In-process verdicts need no record: they cost next to nothing."""
    samples: dict[tuple[str, str], list[int]] = defaultdict(list)
    for path in paths:
        results = load_results(path)
        for task in results.model.tasks:
            for run in task.runs:
                for name, verdict in (run.validations or {}).items():
                    if verdict.type in PROCESS_KINDS:
                        samples[(task.test_id, name)].append(max(0, verdict.duration_ms))
    everything = [value for values in samples.values() for value in values]
    return DurationTable(
        by_grader={key: round(sum(v) / len(v)) for key, v in samples.items()},
        fallback=round(sum(everything) / len(everything)) if everything else 1,
    )


@dataclass(frozen=True)
class ShardSelection:
    """One shard's part of a plan, and where its tasks sit in the whole plan."""

    shard: Shard
    plan: GradingPlan
    """Only this shard's tasks and executions; `skipped` is the whole plan's."""
    positions: tuple[int, ...]
    """For each task of `plan.matches`, its position in the unsharded plan's task order."""
    total_tasks: int
    inputs_digest: str
    planned: Mapping[str, frozenset[int]]
    """Per results file name, the indexes of the tasks some shard grades."""

    def kept_tasks(self, results_name: str, task_count: int, graded: Sequence[int]) -> list[int]:
        """The tasks a partial holds: the ones it graded, and, in shard 1 only, every task no
        shard grades (not in the spec, filtered out), so the merge can put the file back
        together in its order while each task travels once."""
        planned = self.planned.get(results_name, frozenset())
        rest = [i for i in range(task_count) if i not in planned] if self.shard.index == 1 else []
        return sorted({*graded, *rest})


def task_key(match: TaskMatch) -> tuple[str, str]:
    return (match.results.name, match.task.id)


def assign_shards(keys: Sequence[tuple[str, str]], weights: Sequence[int], count: int) -> list[int]:
    """The shard (0-based) of each task: heaviest first to the least loaded shard (lowest
    index on a tie); equal weights in the order of a SHA-256 of the key."""
    order = sorted(range(len(keys)), key=lambda i: (-weights[i], _stable_hash(keys[i])))
    loads = [(0, shard) for shard in range(count)]  # a heap of (load, shard)
    assigned = [0] * len(keys)
    for i in order:
        load, shard = heapq.heappop(loads)
        assigned[i] = shard
        heapq.heappush(loads, (load + weights[i], shard))
    return assigned


def _stable_hash(key: tuple[str, str]) -> str:
    return hashlib.sha256("\0".join(key).encode("utf-8", "surrogatepass")).hexdigest()


def select_shard(
    plan: GradingPlan, shard: Shard, durations: DurationTable | None, inputs_digest: str
) -> ShardSelection:
    """The part of `plan` that `shard` grades."""
    per_task: dict[int, list[Execution]] = defaultdict(list)
    for execution in plan.executions:
        per_task[id(execution.match)].append(execution)

    def weight(match: TaskMatch) -> int:
        executions = per_task[id(match)]
        if durations is None:
            return sum(PROCESS_COST if not e.in_process else 1 for e in executions)
        return sum(durations.estimate(execution) for execution in executions)

    assigned = assign_shards(
        [task_key(m) for m in plan.matches], [weight(m) for m in plan.matches], shard.count
    )
    positions = tuple(i for i, s in enumerate(assigned) if s == shard.index - 1)
    matches = tuple(plan.matches[i] for i in positions)
    executions = tuple(e for m in matches for e in per_task[id(m)])
    return ShardSelection(
        shard=shard,
        plan=GradingPlan(
            matches, plan.skipped, executions, plan.task_filter, another_eval=plan.another_eval
        ),
        positions=positions,
        total_tasks=len(plan.matches),
        inputs_digest=inputs_digest,
        planned=_planned(plan.matches),
    )


def _planned(matches: Sequence[TaskMatch]) -> dict[str, frozenset[int]]:
    by_file: dict[str, set[int]] = defaultdict(set)
    for match in matches:
        by_file[match.results.name].add(match.task_index)
    return {name: frozenset(indexes) for name, indexes in by_file.items()}


def inputs_digest(
    spec: EvalSpec,
    results_files: Sequence[ResultsFile],
    plan: GradingPlan,
    *,
    task_filter: str | None,
    weights: Sequence[Path],
    shard_count: int,
) -> str:
    """SHA-256 over what decides the grading and the split: the eval spec and task files'
    bytes, the results files' names and bytes, every program grader's command, arguments and
    timeout, the task filter, the weight files and N. Paths are left out (they differ between
    machines), so every shard of one workflow computes the same value."""
    task_files = dict.fromkeys(task.location.file for task in spec.tasks)
    graders = sorted(
        {
            json.dumps([e.match.task.id, e.grader.name, e.timeout_s, program.command, program.args])
            for e in plan.executions
            if (program := e.grader.program) is not None
        }
    )
    material = {
        "format": PARTIAL_FORMAT,
        "eval": _file_sha(spec.path),
        "task_files": [_file_sha(Path(path)) for path in task_files],
        "results": [[r.name, _file_sha(r.path)] for r in results_files],
        "graders": graders,
        "task": task_filter,
        "weights": [_file_sha(path) for path in weights],
        "shards": shard_count,
    }
    if spec.modules:  # what each `ref:` grader resolved to (absent: digests stay as they were)
        material["modules"] = [[pin.ref, pin.commit, pin.digest] for pin in spec.modules]
    return hashlib.sha256(json.dumps(material).encode("utf-8", "surrogatepass")).hexdigest()


def _file_sha(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as err:
        raise InputError(f"cannot read: {err.strerror}", Location(str(path))) from None


def partial_files(
    shard: ShardSelection,
    spec: EvalSpec,
    results_files: Sequence[ResultsFile],
    *,
    matches: Sequence[TaskMatch],
    tasks: Sequence[TaskGrade],
    regraded: Sequence[RegradedFile],
    elapsed_ms: int,
) -> tuple[RegradedFile, ...]:
    """A shard's regraded files become partials: only the tasks it holds (see
    ShardSelection.kept_tasks), their own summary, and the section the merge reads."""
    names = [r.name for r in results_files]
    graded = list(zip(matches, tasks, shard.positions, strict=True))
    partials = []
    for file in regraded:
        mine = [item for item in graded if item[0].results is file.source]
        every = file.raw["tasks"]
        kept = shard.kept_tasks(file.source.name, len(every), [m.task_index for m, _, _ in mine])
        raw = with_digest({**file.raw, "tasks": [every[i] for i in kept]})
        raw[PARTIAL_KEY] = partial_section(
            shard,
            spec,
            names,
            file.source.name,
            mine,
            kept=kept,
            task_count=len(every),
            elapsed_ms=elapsed_ms,
        )
        partials.append(RegradedFile(file.source, raw))
    return tuple(partials)


def partial_section(
    selection: ShardSelection,
    spec: EvalSpec,
    results_names: Sequence[str],
    results_name: str,
    graded: Sequence[tuple[TaskMatch, TaskGrade, int]],
    *,
    kept: Sequence[int],
    task_count: int,
    elapsed_ms: int = 0,
) -> dict[str, Any]:
    """The `waza_ci` section of one partial results file: which shard, from which inputs,
    and, for every task this shard graded in this file, what the report needs that the
    results file does not hold (YAML locations, grader kinds, which verdicts were errors)."""
    return {
        "format": PARTIAL_FORMAT,
        "shard": {"index": selection.shard.index, "count": selection.shard.count},
        "inputs_digest": selection.inputs_digest,
        "eval": {"name": spec.name, "path": str(spec.path), "skill": spec.skill},
        "results_files": list(results_names),
        "results_name": results_name,
        "results_tasks": task_count,
        "task_indexes": list(kept),
        "total_tasks": selection.total_tasks,
        "task_filter": selection.plan.task_filter,
        "skipped": [
            {"results_name": s.results_name, "test_id": s.test_id, "reason": s.reason}
            for s in selection.plan.skipped
        ],
        "another_eval": [
            {
                "file": a.file,
                "found": {"name": a.found.name, "skill": a.found.skill},
                "expected": {"name": a.expected.name, "skill": a.expected.skill},
            }
            for a in selection.plan.another_eval
        ],
        "warnings": [
            {
                "message": w.message,
                "file": w.location.file if w.location else None,
                "line": w.location.line if w.location else None,
            }
            for w in spec.warnings
        ],
        "tasks": [_task_entry(match, task, position) for match, task, position in graded],
        "elapsed_ms": elapsed_ms,
        "modules": [_pin(pin) for pin in spec.modules],
    }


def _task_entry(match: TaskMatch, task: TaskGrade, position: int) -> dict[str, Any]:
    return {
        "test_id": task.test_id,
        "position": position,
        "index": match.task_index,
        "display_name": task.display_name,
        "location": _location(task.task_location),
        "graders": [
            {
                "name": ref.name,
                "kind": ref.kind,
                "location": _location(ref.location),
                **({"module": _pin(ref.module)} if ref.module is not None else {}),
            }
            for ref in task.graders.values()
        ],
        "program_graders": [grader.name for grader in match.task.program_graders],
        "regraded_graders": [grader.name for grader in regraded_graders(match.task)],
        # What the results file does not hold about a verdict: that it was a grader error
        # (the error text, its kind, a timeout's limit), the report's notes, what the
        # original results file said of it (a verdict that flipped since the run), and the
        # folder that has the files it named (the report's working-directory hint).
        "verdicts": [
            {
                "run": run_index,
                "grader": verdict.name,
                "error": verdict.error,
                "notes": list(verdict.notes),
                **_problem(verdict),
                **_saved(verdict),
            }
            for run_index, run in enumerate(task.runs)
            for verdict in run.verdicts
            if verdict.error is not None
            or verdict.notes
            or verdict.saved_passed is not None
            or (verdict.diagnosis is not None and verdict.diagnosis.found_from is not None)
        ],
        "ungraded": [
            {"run": run_index, "grader": name}
            for run_index, run in enumerate(task.runs)
            for name in run.ungraded
        ],
        # Saved verdicts of graders no longer in the spec: gone from the partial's runs, so
        # the merge lists them from here, as an unsharded grading does.
        "dropped": [
            {"run": run_index, "grader": name, "saved_passed": passed}
            for run_index, run in enumerate(task.runs)
            for name, passed in run.dropped
        ],
    }


def _saved(verdict: GraderVerdict) -> dict[str, Any]:
    if verdict.saved_passed is None:
        return {}
    return {"saved_passed": verdict.saved_passed, "saved_score": verdict.saved_score}


def _problem(verdict: GraderVerdict) -> dict[str, Any]:
    """What kind of grader error, and a timeout's limit and where it came from (the report's
    reason line); the program's output itself is in the verdict's `details`."""
    diagnosis = verdict.diagnosis
    if diagnosis is None:
        return {}
    return {
        "problem": diagnosis.problem,
        "timeout_s": diagnosis.timeout_s,
        "timeout_source": diagnosis.timeout_source,
        "start_problem": diagnosis.start_problem,
        "found_from": diagnosis.found_from,
    }


def _pin(pin: ModulePin) -> dict[str, str]:
    return {"ref": pin.ref, "commit": pin.commit, "digest": pin.digest}


def _location(location: Location | None) -> dict[str, Any] | None:
    if location is None:
        return None
    return {"file": location.file, "line": location.line, "json_path": location.json_path}
