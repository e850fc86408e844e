"""The action's regression-gate inputs and outputs: parsing, validation, the step outputs
(and the strict boolean and choice parsers every action input uses).

The action calls these with a few lines (see action.py) so its own flow stays readable: the
inputs with waza's gate names, `min-task-pass-rate`, `comment`, and the outputs `regressions`,
`fixed`, `flaky`, `pass-rate`, `baseline-pass-rate`, `gate`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, TypeVar

from waza_ci.errors import FailOn, InputError
from waza_ci.gate.waza_gate import GateOptions, TaskPolicy

if TYPE_CHECKING:
    from waza_ci.gate.baseline import BaselineComparison
    from waza_ci.waza.scoring import GradeSummary

# The action parses its inputs with this module before anything heavy is loaded (an input
# error should end the step at once), so what only the outputs need is imported there.


class CommentMode(StrEnum):
    """When to post (or update) the sticky pull-request comment."""

    OFF = "off"
    ON_CHANGE = "on-change"
    ALWAYS = "always"


GATE_INPUT_DEFAULTS: Mapping[str, str] = {
    "baseline": "",
    "max-regression-pct": "0",
    "golden-must-pass": "true",
    "on-new-tasks": "allow",
    "on-removed-tasks": "warn",
    "min-task-pass-rate": "1",
    "comment": "on-change",
}


@dataclass(frozen=True)
class GateSettings:
    baseline: tuple[str, ...] = ()
    options: GateOptions = field(default_factory=GateOptions)
    min_task_pass_rate: float = 1.0
    comment: CommentMode = CommentMode.ON_CHANGE


def load_gate_settings(get: Callable[[str], str]) -> GateSettings:
    """The gate's inputs from `get(name)` (the input's value or its default); errors name it."""
    baseline = tuple(line.strip() for line in get("baseline").splitlines() if line.strip())
    max_regression = _number("max-regression-pct", get("max-regression-pct"))
    if max_regression < 0:
        raise InputError(f"input `max-regression-pct` must be >= 0, not {max_regression:g}")
    options = GateOptions(
        max_regression_pct=max_regression,
        golden_must_pass=boolean_input("golden-must-pass", get("golden-must-pass")),
        on_new_tasks=choice_input("on-new-tasks", get("on-new-tasks"), TaskPolicy),
        on_removed_tasks=choice_input("on-removed-tasks", get("on-removed-tasks"), TaskPolicy),
    )
    rate = _number("min-task-pass-rate", get("min-task-pass-rate"))
    if not 0 <= rate <= 1:
        raise InputError(f"input `min-task-pass-rate` must be between 0 and 1, not {rate:g}")
    return GateSettings(
        baseline=baseline,
        options=options,
        min_task_pass_rate=rate,
        comment=choice_input("comment", get("comment"), CommentMode),
    )


def _number(name: str, value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise InputError(f"input `{name}` must be a number, not {value!r}") from None
    if math.isnan(number):
        raise InputError(f"input `{name}` must be a number, not {value!r}")
    return number


def boolean_input(name: str, value: str) -> bool:
    """A strict boolean input: a typo like `flase` must not quietly mean true."""
    lowered = value.lower()
    if lowered not in ("true", "false"):
        raise InputError(f"input `{name}` must be `true` or `false`, not {value!r}")
    return lowered == "true"


_E = TypeVar("_E", bound=StrEnum)


def choice_input(name: str, value: str, choices: type[_E]) -> _E:
    """One of an enum's values; the error names the input and lists them."""
    try:
        return choices(value)
    except ValueError:
        allowed = " or ".join(f"`{c.value}`" for c in choices)
        raise InputError(f"input `{name}` must be {allowed}, not {value!r}") from None


def missing_baseline_note(settings: GateSettings, fail_on: FailOn, found: str | None) -> str | None:
    """The warning to give about the baseline: `found` (the loader's), or, when the gate is
    asked for and no `baseline` input was given, that there is nothing to compare with."""
    if found is not None:
        return found
    if not settings.baseline and fail_on is FailOn.REGRESSIONS:
        return "no `baseline` input given: nothing to compare with (gate: no-baseline)"
    return None


def gate_outputs(
    summary: GradeSummary, comparison: BaselineComparison | None, flaky: int
) -> dict[str, str]:
    """The step outputs of the gate; counts are 0 and `baseline-pass-rate` empty without a
    baseline."""
    from waza_ci.gate.baseline_io import gate_status  # noqa: PLC0415 - see the imports above

    tasks = summary.tasks
    passed = sum(1 for task in tasks if task.meets(summary.min_task_pass_rate))
    return {
        "regressions": str(len(comparison.regressions)) if comparison else "0",
        "fixed": str(len(comparison.fixed)) if comparison else "0",
        "flaky": str(flaky),
        "pass-rate": f"{passed / len(tasks):.4f}" if tasks else "0.0000",
        "baseline-pass-rate": f"{comparison.gate.baseline_pass_rate:.4f}" if comparison else "",
        "gate": gate_status(comparison),
    }
