"""The action's step inputs -> ActionSettings: defaults, strict parsers, one error per input.

The first thing the action does, before any grading module is loaded: an input error ends the
step at once (exit 2) with a one-line message naming the input.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from waza_ci.errors import FailOn, InputError
from waza_ci.files import MAX_RESULTS_BYTES, MIB  # constants only: cheap
from waza_ci.gate.step import (
    GATE_INPUT_DEFAULTS,
    GateSettings,
    boolean_input,
    choice_input,
    load_gate_settings,
)
from waza_ci.github.runner import input_value

if TYPE_CHECKING:
    from waza_ci.report.screen import ListMode
    from waza_ci.shard.plan import Shard

# The defaults of action.yml, for runs outside the runner (which always passes every input).
# tests/test_action_yml.py keeps the two in step.
DEFAULT_CHECK_NAME = "waza program graders"
INPUT_DEFAULTS: Mapping[str, str] = {
    "workspace": ".",
    "working-directory": ".",
    "task": "",
    "jobs": "",
    "fail-on": "failures",
    "output": "",
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
    **GATE_INPUT_DEFAULTS,
}
MODES = ("grade", "merge")
REPORT_MODES: tuple[ListMode, ...] = ("failures", "all")


@dataclass(frozen=True)
class ActionSettings:
    """The step's inputs, validated; every error names the input."""

    eval_path: Path
    results: tuple[str, ...]
    workspace: Path
    working_directory: Path
    task: str | None
    jobs: int | None
    fail_on: FailOn
    output: Path | None
    check_name: str
    check_run: bool
    job_summary: bool
    commit: str | None
    api_timeout_s: float = 60.0
    max_results_bytes: int = MAX_RESULTS_BYTES
    gate: GateSettings = field(default_factory=GateSettings)
    token: str | None = field(default=None, repr=False)
    report: ListMode = "failures"
    merge: bool = False
    """`mode: merge`: `results` are the partial files of a sharded grading."""
    shard: Shard | None = None
    shard_weights: tuple[Path, ...] = ()


def load_settings(env: Mapping[str, str]) -> ActionSettings:
    def get(name: str) -> str:
        return input_value(env, name) or INPUT_DEFAULTS.get(name, "")

    results = tuple(line.strip() for line in get("results").splitlines() if line.strip())
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
    weights = tuple(
        Path(line.strip()) for line in get("shard-weights").splitlines() if line.strip()
    )
    return ActionSettings(
        eval_path=Path(get("eval")),
        results=results,
        workspace=Path(get("workspace")),
        working_directory=Path(get("working-directory")),
        task=get("task") or None,
        jobs=_jobs(get("jobs")),
        fail_on=choice_input("fail-on", get("fail-on"), FailOn),
        output=Path(get("output")) if get("output") else None,
        check_name=get("check-name"),
        check_run=boolean_input("check-run", get("check-run")),
        job_summary=boolean_input("job-summary", get("job-summary")),
        commit=get("commit") or None,
        api_timeout_s=_seconds("api-timeout", get("api-timeout")),
        max_results_bytes=_mebibytes("max-results-mib", get("max-results-mib")),
        gate=load_gate_settings(get),
        token=input_value(env, "github-token"),
        report=_report_mode(get("report")),
        merge=merge,
        shard=_shard(get("shard")),
        shard_weights=weights,
    )


def _shard(value: str) -> Shard | None:
    if not value:
        return None
    # Deferred: shard.py loads the spec and results models, which only a sharded run needs.
    from waza_ci.shard.plan import parse_shard  # noqa: PLC0415

    return parse_shard(value, "input `shard`")


def _report_mode(value: str) -> ListMode:
    for mode in REPORT_MODES:
        if value == mode:
            return mode
    allowed = " or ".join(f"`{m}`" for m in REPORT_MODES)
    raise InputError(f"input `report` must be {allowed}, not {value!r}")


def _jobs(value: str) -> int | None:
    if not value:
        return None
    if not re.fullmatch(r"[0-9]+", value) or int(value) < 1:  # ASCII digits only
        raise InputError(f"input `jobs` must be a whole number of at least 1, not {value!r}")
    return int(value)


def _mebibytes(name: str, value: str) -> int:
    if not re.fullmatch(r"[0-9]{1,7}", value) or int(value) < 1:  # ASCII digits only
        raise InputError(f"input `{name}` must be a whole number of MiB, at least 1, not {value!r}")
    return int(value) * MIB


def _seconds(name: str, value: str) -> float:
    # Plain decimal seconds only: "inf", "nan" or "1e9" would make the deadline meaningless.
    if not re.fullmatch(r"[0-9]{1,6}(\.[0-9]{1,3})?", value) or float(value) <= 0:
        raise InputError(f"input `{name}` must be a number of seconds above 0, not {value!r}")
    return float(value)
