"""GateReport -> waza gate's four formats: human, markdown, GitHub Actions annotations. Pure.

The layout and wording are waza's (`cmd_gate.go`), so logs and summaries read the same after a
swap. Where waza prints untrusted text raw (task ids and names come from a results file), these
renderers fold it to one line and escape it (ids as code spans), so it cannot add lines, markup or
table cells; the annotations are returned as data for the shell to issue escaped.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from waza_ci.gate.waza_gate import GateReport
from waza_ci.report.gfm import JOB_SUMMARY, code
from waza_ci.report.text_safety import for_log, one_line
from waza_ci.waza.identity import EvalIdentity

RULE_WIDTH = 70


def render_gate_human(report: GateReport) -> str:
    """The terminal report: a boxed header, the pass rate, golden tasks, policies, outcome."""
    r = report
    lines = [
        "=" * RULE_WIDTH,
        " REGRESSION GATE",
        "=" * RULE_WIDTH,
        f"  baseline: {for_log(r.baseline_file)}{_log_eval(r.baseline_eval)}",
        f"  current:  {for_log(r.current_file)}{_log_eval(r.current_eval)}",
        "",
        f"  pass rate: {r.baseline_pass_rate * 100:.1f}% -> {r.current_pass_rate * 100:.1f}%  "
        f"(delta {r.pass_rate_delta * 100:+.1f}pp, max regression {r.max_regression_pct:.1f}pp)",
        f"  ✗ regression {r.regression_pct:.2f}pp exceeds threshold {r.max_regression_pct:.2f}pp"
        if r.regression_exceeds_threshold
        else "  ✓ regression within threshold",
        *_log_regressed(r),
        "",
    ]
    if r.golden_failures:
        lines.append(f"  golden tasks: {r.golden_total} total, {len(r.golden_failures)} FAILED")
        lines.extend(
            f"    ✗ {for_log(g.test_id)} ({for_log(g.display_name)}): {for_log(g.current_status)}"
            for g in r.golden_failures
        )
    else:
        lines.append(f"  golden tasks: {r.golden_total} total, all passing")
    lines.append("")
    if r.new_tasks:
        lines.append(f"  new tasks ({r.on_new_tasks}): {_log_list(r.new_tasks)}")
    if r.removed_tasks:
        lines.append(f"  removed tasks ({r.on_removed_tasks}): {_log_list(r.removed_tasks)}")
    if r.warnings:
        lines += ["", "  warnings:", *(f"    ! {for_log(w)}" for w in r.warnings)]
    if r.errors:
        lines += ["", "  errors:", *(f"    ✗ {for_log(e)}" for e in r.errors)]
    lines += [
        "",
        "-" * RULE_WIDTH,
        f"  outcome: {r.outcome.upper()}  (exit {r.exit_code})"
        + ("  ! of two different evals (see the warning)" if r.of_different_evals else ""),
        "=" * RULE_WIDTH,
    ]
    return "\n".join(lines) + "\n"


def render_gate_markdown(report: GateReport) -> str:
    """The Markdown report (job summary): heading with the outcome, a pass-rate table, bullets."""
    r = report
    icon = "❌" if not r.passed else "⚠️" if r.of_different_evals else "✅"
    parts = [
        f"## {icon} Waza regression gate — `{r.outcome.upper()}`\n\n",
        f"Baseline {_inline(r.baseline_file)}{_md_eval(r.baseline_eval)} · current "
        f"{_inline(r.current_file)}{_md_eval(r.current_eval)}\n\n",
        "| Metric | Baseline | Current | Delta |\n",
        "|---|---:|---:|---:|\n",
        f"| Pass rate | {r.baseline_pass_rate * 100:.1f}% | {r.current_pass_rate * 100:.1f}% | "
        f"{r.pass_rate_delta * 100:+.1f}pp |\n",
        f"\n- Max tolerated regression: **{r.max_regression_pct:.1f}pp**\n",
        f"- Observed regression: **{r.regression_pct:.2f}pp** "
        f"{_check(not r.regression_exceeds_threshold)}\n",
        f"- Golden tasks: **{r.golden_total}** total, **{len(r.golden_failures)}** failed "
        f"{_check(not r.golden_failures)}\n",
    ]
    if r.regressed_tasks:
        parts.append("\n### Regressed tasks\n\n| Task | Baseline | Current |\n|---|---|---|\n")
        parts.extend(
            f"| {code(t.test_id, JOB_SUMMARY)} | {code(t.baseline_status, JOB_SUMMARY)} | "
            f"{code(t.current_status, JOB_SUMMARY)} |\n"
            for t in r.regressed_tasks
        )
    if r.golden_failures:
        parts.append("\n### Golden failures\n\n| Task | Status |\n|---|---|\n")
        parts.extend(
            f"| {code(g.test_id, JOB_SUMMARY)} — {code(g.display_name, JOB_SUMMARY)} | "
            f"{code(g.current_status, JOB_SUMMARY)} |\n"
            for g in r.golden_failures
        )
    if r.new_tasks:
        parts.append(f"\n- New tasks (policy `{r.on_new_tasks}`): {_code_list(r.new_tasks)}\n")
    if r.removed_tasks:
        parts.append(
            f"- Removed tasks (policy `{r.on_removed_tasks}`): {_code_list(r.removed_tasks)}\n"
        )
    if r.warnings:
        parts.append("\n**Warnings**\n")
        parts.extend(f"- ⚠️ {_inline(w)}\n" for w in r.warnings)
    if r.errors:
        parts.append("\n**Errors**\n")
        parts.extend(f"- ❌ {_inline(e)}\n" for e in r.errors)
    parts.append(f"\n_Exit code: {r.exit_code}_\n")
    return "".join(parts)


@dataclass(frozen=True)
class GateAnnotation:
    """One workflow command of the github-actions format; the shell escapes and issues it."""

    level: str
    """`error`, `warning` or `notice`."""
    title: str
    message: str


def gate_annotations(report: GateReport) -> list[GateAnnotation]:
    """waza's annotations: the pass rate, one per golden failure, one per policy message."""
    r = report
    found: list[GateAnnotation] = []
    if r.regression_exceeds_threshold:
        found.append(
            GateAnnotation(
                "error",
                "Waza regression",
                f"Pass rate dropped {r.regression_pct:.2f}pp (limit {r.max_regression_pct:.2f}pp): "
                f"{r.baseline_pass_rate * 100:.1f}% -> {r.current_pass_rate * 100:.1f}%",
            )
        )
    else:
        found.append(
            GateAnnotation(
                "notice",
                "Waza regression gate",
                f"Pass rate {r.baseline_pass_rate * 100:.1f}% -> {r.current_pass_rate * 100:.1f}% "
                f"(delta {r.pass_rate_delta * 100:+.2f}pp)",
            )
        )
    # A golden failure that does not block (golden-must-pass false) must not look like one.
    level, title = (
        ("error", "Golden task failed")
        if r.golden_must_pass
        else ("warning", "Golden task failed (non-blocking)")
    )
    found.extend(
        GateAnnotation(
            level,
            title,
            f"{one_line(g.test_id)} ({one_line(g.display_name)}) — current status "
            f"{one_line(g.current_status)}",
        )
        for g in r.golden_failures
    )
    found.extend(GateAnnotation("warning", "Waza gate", one_line(w)) for w in r.warnings)
    found.extend(GateAnnotation("error", "Waza gate", one_line(e)) for e in r.errors)
    return found


def _log_eval(identity: EvalIdentity) -> str:
    """`  (eval docs-sync-eval, skill docs-sync)`, or nothing when the file does not say."""
    named = [f"{what} {for_log(value)}" for what, value in _identity_parts(identity)]
    return f"  ({', '.join(named)})" if named else ""


def _identity_parts(identity: EvalIdentity) -> list[tuple[str, str]]:
    """The fields of an eval's identity that the file gives, with their names."""
    fields = (("eval", identity.name), ("skill", identity.skill))
    return [(what, value) for what, value in fields if value]


def _md_eval(identity: EvalIdentity) -> str:
    """` (eval `docs-sync-eval`, skill `docs-sync`)`, or nothing when the file does not say."""
    named = [f"{what} {_inline(value)}" for what, value in _identity_parts(identity)]
    return f" ({', '.join(named)})" if named else ""


def _log_regressed(r: GateReport) -> list[str]:
    """Each task that passed in the baseline and does not now, with its status."""
    if not r.regressed_tasks:
        return []
    return [
        f"  regressed tasks (passed in the baseline): {len(r.regressed_tasks)}",
        *(
            f"    ✗ {for_log(t.test_id)}: {for_log(t.baseline_status)} -> "
            f"{for_log(t.current_status) or '(no status)'}"
            for t in r.regressed_tasks
        ),
    ]


def _inline(text: str) -> str:
    """Untrusted text outside a table: a code span (`|` needs no escape there)."""
    return code(text, JOB_SUMMARY, in_table=False)


def _check(ok: bool) -> str:
    return "✅" if ok else "❌"


def _code_list(items: Iterable[str]) -> str:
    return ", ".join(_inline(item) for item in items)


def _log_list(items: Iterable[str]) -> str:
    return ", ".join(for_log(item) for item in items)
