"""`waza-ci gate …`: waza's regression gate as a command, with waza's flags and exit codes.

A thin shell: argv -> GateOptions -> two results files -> GateReport -> one of four formats.
Unlike `waza-ci grade` (exit 2 for bad input), every usage or input error here exits 3, as
`waza gate` does, so a workflow can swap one binary for the other.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from waza_ci.cli.arguments import build_gate_parser
from waza_ci.errors import InputError, WazaCiError
from waza_ci.gate.waza_gate import (
    GATE_EXIT_CONFIG_ERROR,
    GateFormat,
    GateOptions,
    GateOutcome,
    TaskPolicy,
    evaluate_gate,
    load_gate_outcome,
)


def main(argv: Sequence[str], stdout: TextIO, step_summary: str | None) -> int:
    """Run the gate; `step_summary` is $GITHUB_STEP_SUMMARY (the github-actions format
    appends the Markdown report to it)."""
    # Imported here, not at the top: `waza-ci grade` reads `gate_options` from this module and
    # needs none of the report or the results models.
    from waza_ci.report.waza_gate_formats import (  # noqa: PLC0415
        gate_annotations,
        render_gate_human,
        render_gate_markdown,
    )
    from waza_ci.waza.results import dump_json  # noqa: PLC0415

    args = build_gate_parser().parse_args(argv)
    try:
        output_format, options = _validate(args)
        baseline = _load(args.baseline, "baseline")
        current = _load(args.current, "current")
    except WazaCiError as err:
        print(f"waza-ci gate: error: {err}", file=sys.stderr)
        return GATE_EXIT_CONFIG_ERROR
    report = evaluate_gate(
        baseline, current, options, baseline_file=args.baseline, current_file=args.current
    )
    if output_format is GateFormat.JSON:
        stdout.write(dump_json(report.to_json()))
    elif output_format is GateFormat.MARKDOWN:
        stdout.write(render_gate_markdown(report))
    elif output_format is GateFormat.GITHUB_ACTIONS:
        # Here only: `waza-ci grade` imports this module for `gate_options`, and needs none of it.
        from waza_ci.github.commands import WorkflowCommands  # noqa: PLC0415
        from waza_ci.github.env_files import append_summary  # noqa: PLC0415

        commands = WorkflowCommands(stdout)
        for note in gate_annotations(report):
            commands.issue(note.level, note.message, {"title": note.title})
        if step_summary:
            try:
                append_summary(step_summary, render_gate_markdown(report))
            except OSError as err:  # waza writes the summary best-effort too
                commands.warning(f"could not write the job summary to {step_summary}: {err}")
    else:
        stdout.write(render_gate_human(report))
    return report.exit_code


def _validate(args: argparse.Namespace) -> tuple[GateFormat, GateOptions]:
    if not args.baseline.strip():
        raise InputError("--baseline is required")
    if not args.current.strip():
        raise InputError("--current is required")
    options = gate_options(args)
    try:
        output_format = GateFormat(args.format)
    except ValueError:
        raise InputError(
            f"--format must be one of human|json|markdown|github-actions, got {args.format!r}"
        ) from None
    return output_format, options


def gate_options(args: argparse.Namespace) -> GateOptions:
    """The policy flags as GateOptions; a bad value is an InputError naming the flag."""
    return GateOptions(
        max_regression_pct=args.max_regression_pct,
        golden_must_pass=args.golden_must_pass,
        on_new_tasks=_policy("--on-new-tasks", args.on_new_tasks),
        on_removed_tasks=_policy("--on-removed-tasks", args.on_removed_tasks),
    )


def _policy(flag: str, value: str) -> TaskPolicy:
    try:
        return TaskPolicy(value)
    except ValueError:
        raise InputError(f"{flag} must be one of allow|warn|fail, got {value!r}") from None


def _load(path: str, which: str) -> GateOutcome:
    try:
        return load_gate_outcome(Path(path))
    except WazaCiError as err:
        raise InputError(f"loading {which}: {err}") from None
