"""The action's step inputs -> ActionSettings: defaults, strict parsers, one error per input.

The first thing the action does, before any grading module is loaded: an input error ends the
step at once (exit 2) with a one-line message naming the input.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from waza_ci.action.parsers import (
    boolean_input,
    choice_input,
    jobs_input,
    mebibytes_input,
    number_input,
    seconds_input,
)
from waza_ci.errors import InputError, did_you_mean
from waza_ci.files import MAX_RESULTS_BYTES, MIB  # constants only: cheap
from waza_ci.gate.history_limits import DEFAULT_KEEP, DEFAULT_WINDOW  # constants only: cheap
from waza_ci.gate.waza_gate import GateOptions, TaskPolicy
from waza_ci.github.environment import input_value
from waza_ci.judge.options import JudgeOptions
from waza_ci.judge.providers import DEFAULT_JOBS, Provider
from waza_ci.policy import FailOn, GatePolicy, ListMode
from waza_ci.publish.options import CommentMode

if TYPE_CHECKING:
    from waza_ci.shard.plan import Shard

# The defaults of action.yml, for runs outside the runner (which always passes every input).
# tests/action/test_action_yml.py keeps the two in step.
DEFAULT_CHECK_NAME = "waza program graders"
INPUT_DEFAULTS: Mapping[str, str] = {
    "workspace": "",
    "working-directory": ".",
    "task": "",
    "jobs": "",
    "fail-on": "failures",
    "output": "",
    "html-report": "",
    "check-name": DEFAULT_CHECK_NAME,
    "check-run": "true",
    "job-summary": "true",
    "commit": "",
    "report": "failures",
    "mode": "grade",
    "shard": "",
    "shard-weights": "",
    "api-timeout": "60",
    "max-results-mib": str(MAX_RESULTS_BYTES // MIB),
    "module-cache": "",
    "baseline": "",
    "allow-missing-baseline": "false",
    "allow-tasks-without-runs": "false",
    "renamed-from": "",
    "max-regression-pct": "0",
    "golden-must-pass": "true",
    "on-new-tasks": "allow",
    "on-removed-tasks": "warn",
    "min-task-pass-rate": "1",
    "comment": "on-change",
    "judge": "keep",
    "judge-url": "",
    "judge-model": "",
    "judge-key-env": "",
    "judge-jobs": str(DEFAULT_JOBS),
    "judge-cache": "",
    "judge-max-calls": "",
    "judge-required": "false",
    "history": "",
    "history-record": "false",
    "history-keep": str(DEFAULT_KEEP),
    "history-window": str(DEFAULT_WINDOW),
    "benchmark-json": "",
}
MODES = ("grade", "merge")


@dataclass(frozen=True)
class GateSettings:
    """The regression gate's inputs (waza gate's names), `min-task-pass-rate` and `comment`."""

    baseline: tuple[str, ...] = ()
    options: GateOptions = field(default_factory=GateOptions)
    min_task_pass_rate: float = 1.0
    comment: CommentMode = CommentMode.ON_CHANGE


@dataclass(frozen=True)
class HistorySettings:
    """The history's inputs: the file, whether to record this grading, its bounds."""

    path: Path | None = None
    record: bool = False
    keep: int = DEFAULT_KEEP
    window: int = DEFAULT_WINDOW


@dataclass(frozen=True)
class ActionSettings:
    """The step's inputs, validated; every error names the input."""

    eval_path: Path
    results: tuple[str, ...]
    workspace: str | None
    """None: not given (a spec whose graders read the workspace refuses that)."""
    working_directory: Path
    task: str | None
    jobs: int | None
    policy: GatePolicy
    output: Path | None
    check_name: str
    check_run: bool
    job_summary: bool
    commit: str | None
    api_timeout_s: float = 60.0
    max_results_bytes: int = MAX_RESULTS_BYTES
    gate: GateSettings = field(default_factory=GateSettings)
    token: str | None = field(default=None, repr=False)
    report: ListMode = ListMode.FAILURES
    merge: bool = False
    """`mode: merge`: `results` are the partial files of a sharded grading."""
    shard: Shard | None = None
    shard_weights: tuple[Path, ...] = ()
    html_report: Path | None = None
    """Where to write the self-contained HTML report; None writes none."""
    judge: JudgeOptions = field(default_factory=JudgeOptions)
    """The LLM judge's inputs (`judge`, `judge-model`, …)."""
    module_cache: Path | None = None
    """waza's module cache for `ref:` graders; None: $WAZA_MODULE_CACHE, else ~/.waza/cache."""
    history: HistorySettings = field(default_factory=HistorySettings)
    benchmark_json: Path | None = None
    """Where to write github-action-benchmark's customBiggerIsBetter JSON; None writes none."""


def load_settings(env: Mapping[str, str]) -> ActionSettings:
    def get(name: str) -> str:
        return input_value(env, name) or INPUT_DEFAULTS.get(name, "")

    refuse_unknown_inputs(env)
    results = _lines(get("results"))
    if get("mode") not in MODES:
        raise InputError(f"input `mode` must be `grade` or `merge`, not {get('mode')!r}")
    merge = get("mode") == "merge"
    if not get("eval") and not merge:
        raise InputError("input `eval` is required: the path to the eval spec (eval.yaml)")
    if not results:
        raise InputError("input `results` is required: results files or globs, one per line")
    if merge and get("shard"):
        raise InputError("input `shard` is for `mode: grade`; `mode: merge` joins all shards")
    if get("shard") and get("baseline"):
        raise InputError("input `baseline` compares a whole grading: give it to the merge job")
    if get("shard") and not get("output"):
        raise InputError("input `shard` needs `output`: the partial results file the merge reads")
    if get("shard") and (get("history") or get("benchmark-json")):
        raise InputError(
            "inputs `history` and `benchmark-json` take a whole grading: give them to the merge "
            "job (a sharded grading is recorded once, at the merge)"
        )
    weights = tuple(Path(line) for line in _lines(get("shard-weights")))
    return ActionSettings(
        eval_path=Path(get("eval")),
        results=results,
        workspace=get("workspace") or None,
        working_directory=Path(get("working-directory")),
        task=get("task") or None,
        jobs=jobs_input("jobs", get("jobs")),
        policy=GatePolicy(
            choice_input("fail-on", get("fail-on"), FailOn),
            allow_missing_baseline=boolean_input(
                "allow-missing-baseline", get("allow-missing-baseline")
            ),
            allow_tasks_without_runs=boolean_input(
                "allow-tasks-without-runs", get("allow-tasks-without-runs")
            ),
            renamed_from=_lines(get("renamed-from")),
        ),
        output=Path(get("output")) if get("output") else None,
        check_name=get("check-name"),
        check_run=boolean_input("check-run", get("check-run")),
        job_summary=boolean_input("job-summary", get("job-summary")),
        commit=get("commit") or None,
        api_timeout_s=seconds_input("api-timeout", get("api-timeout")),
        max_results_bytes=mebibytes_input("max-results-mib", get("max-results-mib"), MIB),
        gate=_gate_settings(get),
        token=input_value(env, "github-token"),
        report=_report_mode(get("report")),
        merge=merge,
        shard=_shard(get("shard")),
        shard_weights=weights,
        html_report=Path(get("html-report")) if get("html-report") else None,
        judge=_judge(get, merge),
        module_cache=Path(get("module-cache")) if get("module-cache") else None,
        history=_history_settings(get),
        benchmark_json=Path(get("benchmark-json")) if get("benchmark-json") else None,
    )


def _history_settings(get: Callable[[str], str]) -> HistorySettings:
    record = boolean_input("history-record", get("history-record"))
    if record and not get("history"):
        raise InputError(
            "input `history-record: true` appends to a history: name the file with `history`"
        )
    return HistorySettings(
        path=Path(get("history")) if get("history") else None,
        record=record,
        keep=jobs_input("history-keep", get("history-keep")) or DEFAULT_KEEP,
        window=jobs_input("history-window", get("history-window")) or DEFAULT_WINDOW,
    )


def _judge(get: Callable[[str], str], merge: bool) -> JudgeOptions:
    """The judge's inputs, checked as the command's flags are (the messages say `--judge-…`:
    the inputs have the same names)."""
    options = JudgeOptions(
        provider=choice_input("judge", get("judge"), Provider),
        url=get("judge-url"),
        model=get("judge-model"),
        key_env=get("judge-key-env"),
        jobs=jobs_input("judge-jobs", get("judge-jobs")) or DEFAULT_JOBS,
        cache=Path(get("judge-cache")) if get("judge-cache") else None,
        max_calls=_count("judge-max-calls", get("judge-max-calls")),
        required=boolean_input("judge-required", get("judge-required")),
    )
    if merge and options.active:
        raise InputError("input `judge` is for `mode: grade`: each shard judges its own tasks")
    options.check()
    return options


def _count(name: str, value: str) -> int | None:
    if not value:
        return None
    if not value.isascii() or not value.isdigit():
        raise InputError(f"input `{name}` must be a whole number (0 or more), not {value!r}")
    return int(value)


def _lines(value: str) -> tuple[str, ...]:
    """A multi-line input: one value per line, blank lines left out."""
    return tuple(line.strip() for line in value.splitlines() if line.strip())


DECLARED_INPUTS = frozenset({"eval", "results", "github-token", *INPUT_DEFAULTS})
"""Every input action.yml declares (tests/action/test_action_yml.py keeps the two in step)."""


def refuse_unknown_inputs(env: Mapping[str, str]) -> None:
    """An `INPUT_*` variable that names no declared input is a typo in the step's `with:`
    (GitHub only warns of it, and the `docker://` form not even that): refused, naming the
    input it most resembles, so a misspelt `baseline` never leaves the gate comparing nothing."""
    # The runner's spelling (`INPUT_FAIL-ON`) and the underscore one `input_value` accepts.
    known = {name.upper().replace(" ", "_") for name in DECLARED_INPUTS}
    known |= {name.replace("-", "_") for name in known}
    for key in sorted(env):
        typed = key.removeprefix("INPUT_")
        if typed == key or typed in known:
            continue
        close = did_you_mean(typed.lower().replace("_", "-"), sorted(DECLARED_INPUTS))
        raise InputError(
            f"unknown input {typed.lower()!r} ({key}){close}: the step's `with:` names an "
            "input waza-ci does not have, so its value would be ignored; fix its name (the "
            "inputs: docs/action.md)"
        )


def _shard(value: str) -> Shard | None:
    if not value:
        return None
    # Deferred: shard/plan.py loads the spec and results models, which only a sharded run needs.
    from waza_ci.shard.plan import parse_shard  # noqa: PLC0415

    return parse_shard(value, "input `shard`")


def _report_mode(value: str) -> ListMode:
    try:
        return ListMode(value)
    except ValueError:
        pass
    allowed = " or ".join(f"`{m}`" for m in ListMode)
    raise InputError(f"input `report` must be {allowed}, not {value!r}")


def _gate_settings(get: Callable[[str], str]) -> GateSettings:
    """The gate's inputs from `get(name)` (the input's value or its default); errors name it."""
    baseline = _lines(get("baseline"))
    max_regression = number_input("max-regression-pct", get("max-regression-pct"))
    if max_regression < 0:
        raise InputError(f"input `max-regression-pct` must be >= 0, not {max_regression:g}")
    options = GateOptions(
        max_regression_pct=max_regression,
        golden_must_pass=boolean_input("golden-must-pass", get("golden-must-pass")),
        on_new_tasks=choice_input("on-new-tasks", get("on-new-tasks"), TaskPolicy),
        on_removed_tasks=choice_input("on-removed-tasks", get("on-removed-tasks"), TaskPolicy),
    )
    rate = number_input("min-task-pass-rate", get("min-task-pass-rate"))
    if not 0 <= rate <= 1:
        raise InputError(f"input `min-task-pass-rate` must be between 0 and 1, not {rate:g}")
    return GateSettings(
        baseline=baseline,
        options=options,
        min_task_pass_rate=rate,
        comment=choice_input("comment", get("comment"), CommentMode),
    )
