#!/usr/bin/env bash
# Writes the small waza eval that the act self-test workflows (tests/act/*.yml) re-grade.
#
# Usage: bash tests/act/make-eval.sh DIR
#
# DIR/eval.yaml            four tasks (alpha, beta, gamma, delta), one program grader for all
# DIR/graders/answer_is.py passes when the run's final answer is exactly its argument
# DIR/results.json         one saved run per task, every answer right: the regrade passes
# DIR/results-failing.json the same, but gamma's answer is wrong: gamma fails, 1 of 4 runs
#
# The bundled examples/demo fails on purpose, so a passing regrade needs an eval of its own.
# Plain bash and printf: the job's shell is all it needs (the grader runs in the action image).
set -euo pipefail
dir=${1:?usage: make-eval.sh DIR}
tasks=(alpha beta gamma delta)
mkdir -p "$dir/tasks" "$dir/graders"

cat >"$dir/eval.yaml" <<'YAML'
name: act self-test
description: A small eval the act self-test writes; its grader compares the final answer.
config:
  trials_per_task: 1
tasks:
  - "tasks/*.yaml"
graders:
  - type: program
    name: answer_is_done
    config:
      command: python3
      args: ["graders/answer_is.py", "done"]
      timeout: 30
YAML

for task in "${tasks[@]}"; do
  printf 'id: %s\nname: Task %s\ninputs:\n  prompt: Say done.\n' "$task" "$task" \
    >"$dir/tasks/$task.yaml"
done

cat >"$dir/graders/answer_is.py" <<'PY'
"""Passes when the final answer (stdin) is exactly the first argument."""

import sys

expected = sys.argv[1]
answer = sys.stdin.read().strip()
if answer != expected:
    print(f"the answer is {answer!r}, expected {expected!r}", file=sys.stderr)
    sys.exit(1)
print(f"the answer is {expected!r}")
PY

# results FILE WRONG_TASK: a waza results file; WRONG_TASK (may be empty) answered wrongly.
results() {
  local file=$1 wrong=$2 task answer separator=""
  {
    printf '{\n  "schemaVersion": "1.4",\n  "eval_id": "act-self-test",\n'
    printf '  "skill": "act-self-test",\n  "eval_name": "act self-test",\n'
    printf '  "timestamp": "2026-01-01T00:00:00Z",\n'
    printf '  "config": {"runs_per_test": 1, "model_id": "m", "engine_type": "mock", '
    printf '"timeout_sec": 30},\n'
    printf '  "summary": {"total_tests": %d, "duration_ms": 4000},\n' "${#tasks[@]}"
    printf '  "metrics": {},\n  "tasks": ['
    for task in "${tasks[@]}"; do
      answer="done"
      if [ "$task" = "$wrong" ]; then answer="not done yet"; fi
      printf '%s\n    {"test_id": "%s", "display_name": "Task %s", "status": "passed", ' \
        "$separator" "$task" "$task"
      printf '"runs": [{"run_number": 1, "attempts": 1, "status": "passed", '
      printf '"duration_ms": 1000, "validations": {}, '
      printf '"session_digest": {"tool_call_count": 0, "tools_used": [], "errors": []}, '
      printf '"final_output": "%s"}]}' "$answer"
      separator=","
    done
    printf '\n  ]\n}\n'
  } >"$file"
}
results "$dir/results.json" ""
results "$dir/results-failing.json" gamma
echo "wrote the act self-test eval to $dir (${#tasks[@]} tasks)"
