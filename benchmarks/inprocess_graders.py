"""What grading in this process costs: 10,000 saved runs × 5 in-process graders, against
loading and writing the same results file; and one in-process verdict against the same check
done by a `program` grader.

1. Load + write (baseline): `load_results` of a results file of 100 tasks × 100 runs and
   `write_results` of it, the least any re-grading does. Each run is shaped like a real one: a
   session digest, the five verdicts waza saved, and an 8 KB transcript, smaller than any
   genuine `waza run` output in `../shared/waza-wild` (15 to 120 KB per run).
   Grading: the same file through the engine (`prepare_grading`, `run_grading`, writing the
   regraded file), with five in-process graders per task: `text` (a substring and an RE2
   pattern), `behavior`, `tool_calls`, `skill_invocation` and the task's
   `expected.output_contains`. The figure is how much grading adds: (grading - baseline) /
   baseline. Goal: at most 0.5.
2. One verdict: the same substring check as a `text` grader and as a `program` grader
   (`grep -qi` over stdin), over 1,000 runs each: the time per verdict of the grading stage
   (`run_plan`: every execution, in plan order), the files loaded and planned beforehand.
   Goal: at least 100×.

Runs alternate; the fastest of `--repeats` counts.

    python benchmarks/inprocess_graders.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _project import Row, transcript

from waza_ci.engine import GradeRequest, PreparedGrading, prepare_grading, run_grading
from waza_ci.grading.run import run_plan
from waza_ci.waza.results import load_results, write_results

TASKS = 100
RUNS = 100
ADDED_GOAL = 0.5
VERDICT_GOAL = 100.0

IN_PROCESS_GRADERS = """\
graders:
  - name: mentions
    type: text
    config:
      contains: [answer]
      regex_match: ['\\d+ steps?']
  - name: thrifty
    type: behavior
    config:
      max_tool_calls: 20
      forbidden_tools: [rm]
  - name: edits
    type: tool_calls
    config:
      required_tools: [edit]
      max_calls: 20
  - name: skills
    type: skill_invocation
    config:
      required_skills: [review]
      mode: any_order
"""


TRANSCRIPT = transcript(8_000)
SAVED_NAMES = ("mentions", "thrifty", "edits", "skills", "_output_contains")


def saved_verdict(name: str) -> dict[str, Any]:
    return {
        "identifier": name,
        "type": "text",
        "score": 1,
        "weight": 1,
        "passed": True,
        "feedback": "All text checks passed",
        "details": {"failures": None, "total_checks": 2, "passed_checks": 2},
        "duration_ms": 0,
    }


def results_doc(tasks: int, runs: int) -> dict[str, Any]:
    def run(number: int) -> dict[str, Any]:
        return {
            "run_number": number,
            "status": "passed",
            "duration_ms": 1200,
            "final_output": f"the answer is 42, found in {number} steps",
            "session_digest": {
                "tool_call_count": 3,
                "tools_used": ["view", "edit", "bash"],
                "tool_calls": [
                    {"name": name, "arguments": {"path": "src/a.py"}}
                    for name in ("view", "edit", "bash")
                ],
                "usage": {"input_tokens": 900, "output_tokens": 300},
            },
            "skill_invocations": [{"name": "review", "path": "skills/review/SKILL.md"}],
            "transcript": TRANSCRIPT,
            # As waza saved them: the file is the same size before and after grading.
            "validations": {name: saved_verdict(name) for name in SAVED_NAMES},
        }

    return {
        "eval_id": "bench",
        "eval_name": "bench",
        "timestamp": "2026-12-01T00:00:00Z",
        "config": {"runs_per_test": runs, "model": "m", "timeout_seconds": 300},
        "summary": {"total_tests": tasks, "succeeded": tasks, "duration_ms": 1},
        "tasks": [
            {
                "test_id": f"t{task:03d}",
                "display_name": f"t{task:03d}",
                "status": "passed",
                "runs": [run(number) for number in range(1, runs + 1)],
            }
            for task in range(tasks)
        ],
    }


def write_project(root: Path, graders: str, tasks: int, runs: int, *, expected: bool) -> None:
    (root / "tasks").mkdir(parents=True)
    (root / "eval.yaml").write_text("name: bench\ntasks: ['tasks/*.yaml']\n" + graders)
    extra = "expected:\n  output_contains: [answer]\n" if expected else ""
    for task in range(tasks):
        (root / "tasks" / f"t{task:03d}.yaml").write_text(f"id: t{task:03d}\n{extra}")
    (root / "results.json").write_text(json.dumps(results_doc(tasks, runs)))


def load_and_write(root: Path) -> None:
    results = load_results(root / "results.json")
    with (root / "copy.json").open("wb") as out:
        write_results(results.raw, out)


def grade_and_write(root: Path) -> int:
    request = GradeRequest(
        eval_path=root / "eval.yaml",
        results=[str(root / "results.json")],
        working_directory=root,
        workspace=root,
        jobs=1,
        grader_env={"PATH": os.environ.get("PATH", "")},
        temp_dir=tempfile.gettempdir(),
    )
    report = run_grading(prepare_grading(request))
    with (root / "regraded.json").open("wb") as out:
        write_results(report.regraded[0].raw, out)
    return sum(len(run.verdicts) for task in report.summary.tasks for run in task.runs)


def fastest(repeats: int, *steps: Callable[[], object]) -> list[float]:
    """Each step's fastest time over `repeats` rounds, the steps alternating in each round."""
    best = [float("inf")] * len(steps)
    for _ in range(repeats):
        for index, step in enumerate(steps):
            started = time.perf_counter()
            step()
            best[index] = min(best[index], time.perf_counter() - started)
    return best


def measure_added(repeats: int) -> tuple[float, float, int]:
    with tempfile.TemporaryDirectory(prefix="waza-ci-bench-") as temp:
        root = Path(temp)
        write_project(root, IN_PROCESS_GRADERS, TASKS, RUNS, expected=True)
        verdicts = grade_and_write(root)  # warm-up, and the count of verdicts made
        base, graded = fastest(repeats, lambda: load_and_write(root), lambda: grade_and_write(root))
    return base, graded, verdicts


def measure_verdict(repeats: int, runs: int = 1000) -> tuple[float, float]:
    """Seconds per verdict: (text grader, program grader), the same substring check."""
    grep = shutil.which("grep")
    if grep is None:
        raise SystemExit("no `grep` on PATH")
    text = "graders:\n  - {name: says, type: text, config: {contains: [answer]}}\n"
    program = (
        "graders:\n  - name: says\n    type: program\n"
        f"    config: {{command: {json.dumps(grep)}, args: ['-qi', 'answer']}}\n"
    )
    with tempfile.TemporaryDirectory(prefix="waza-ci-bench-") as temp:
        text_root, program_root = Path(temp) / "text", Path(temp) / "program"
        write_project(text_root, text, 1, runs, expected=False)
        write_project(program_root, program, 1, runs, expected=False)
        by_text, by_program = _prepared(text_root), _prepared(program_root)
        in_process, process = fastest(
            repeats,
            lambda: run_plan(by_text.plan, by_text.setup),
            lambda: run_plan(by_program.plan, by_program.setup),
        )
    return in_process / runs, process / runs


def _prepared(root: Path) -> PreparedGrading:
    """Loaded and planned: the timing is of the grading alone."""
    return prepare_grading(
        GradeRequest(
            eval_path=root / "eval.yaml",
            results=[str(root / "results.json")],
            working_directory=root,
            workspace=root,
            jobs=1,
            grader_env={"PATH": os.environ.get("PATH", "")},
            temp_dir=tempfile.gettempdir(),
        )
    )


def rows(repeats: int) -> list[Row]:
    """The two figures as `run_all.py`'s rows."""
    base, graded, _ = measure_added(repeats)
    added = (graded - base) / base
    in_process, process = measure_verdict(repeats)
    return [
        Row(
            "10,000 runs x 5 in-process graders: grading added",
            f"{graded - base:.2f} s",
            f"load + write {base:.2f} s",
            added,
            f"<= {ADDED_GOAL}x",
            added <= ADDED_GOAL,
        ),
        Row(
            "one in-process verdict (text) vs program (grep)",
            f"{in_process * 1e6:.0f} us",
            f"program {process * 1e3:.2f} ms",
            process / in_process,
            f">= {VERDICT_GOAL:.0f}x cheaper",
            process / in_process >= VERDICT_GOAL,
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    base, graded, verdicts = measure_added(args.repeats)
    added = (graded - base) / base
    print(f"{TASKS * RUNS:,} runs, {verdicts:,} in-process verdicts")
    print(f"  load + write (baseline) {base:.2f} s")
    print(f"  grade + write           {graded:.2f} s")
    print(
        f"  grading adds {added:.2f}× the baseline "
        f"(goal <= {ADDED_GOAL}: {'met' if added <= ADDED_GOAL else 'NOT met'})"
    )
    in_process, process = measure_verdict(args.repeats)
    ratio = process / in_process
    print(f"one verdict: text {in_process * 1e6:.0f} µs, program (grep) {process * 1e3:.2f} ms")
    print(
        f"  the program grader costs {ratio:.0f}× the in-process one "
        f"(goal >= {VERDICT_GOAL:.0f}: {'met' if ratio >= VERDICT_GOAL else 'NOT met'})"
    )


if __name__ == "__main__":
    main()
