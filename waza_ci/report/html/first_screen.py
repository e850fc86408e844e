"""The HTML report's first screen, rendered here so it reads with JavaScript off: the step's
decision, the counts per outcome and per grader kind, and the failing graders with their
reason and YAML place, in the job summary's words (screen.py's). Pure.

Every untrusted text goes through `esc` (entities for `& < > " '`); links are only the
report's own `https://` YAML addresses.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from waza_ci.english import plural
from waza_ci.gate.baseline import BaselineComparison
from waza_ci.report.evaluation import Evaluation
from waza_ci.report.judging import judge_parts
from waza_ci.report.markdown_screen import PASSING_LISTED
from waza_ci.report.model import GraderRow, Report, Source, TaskResult
from waza_ci.report.modules import modules_text
from waza_ci.report.text_safety import one_line, shorten
from waza_ci.report.trends import against
from waza_ci.report.widths import MARKDOWN
from waza_ci.report.words import (
    another_eval_parts,
    dropped_words,
    flip_words,
    hints_once,
    kinds_parts,
    not_evaluated_fix,
    not_evaluated_words,
    verdict_label,
    verdict_parts,
)

FIRST_SCREEN_ROWS = 50
"""Failing graders listed on the first screen, as in the job summary; the table has all."""


def esc(text: str) -> str:
    return html.escape(text, quote=True)


def decision_words(evaluation: Evaluation) -> tuple[str, str]:
    """The step's one decision (report/decision.py) in the first screen's words: what the step
    does and why (the job summary's **Why:** reasons)."""
    decision = evaluation.decision
    does = "The step passes" if decision.passed else "The step fails"
    why = "; ".join(decision.reasons) or "every task passed"
    return f"{does} (exit {decision.exit_code})", why


def _source(source: Source) -> str:
    shown = esc(shorten(one_line(str(source)), MARKDOWN.name))
    if source.url and source.url.startswith("https://"):
        return f'<a href="{esc(source.url)}" rel="noopener noreferrer">{shown}</a>'
    return shown


def _code(text: str, max_chars: int = MARKDOWN.name) -> str:
    flat = shorten(one_line(text), max_chars)
    return f"<code>{esc(flat)}</code>" if flat else "—"


def _status(row: GraderRow) -> str:
    if row.status == "error":
        return '<span class="st st-e">error</span>'
    if row.not_run == "kept":
        return '<span class="st st-f">failed · kept from the run (LLM judge)</span>'
    if row.not_run:
        return f'<span class="st st-f">{esc(row.not_run)}</span>'
    return '<span class="st st-f">failed</span>'


def _problem_row(row: GraderRow, hint: str) -> str:
    hint = f"<br><b>What to do:</b> {esc(hint)}" if hint else ""
    return (
        f"<tr><td>{_status(row)}</td><td>{_code(row.task_key)}</td>"
        f"<td>{_code(row.grader)}<br><small>{_source(row.source)}</small></td>"
        f'<td class="num">{row.runs_failed} / {row.runs_total}</td>'
        f"<td>{_code(row.reason, MARKDOWN.reason)}{hint}</td></tr>"
    )


def _errored_row(task: TaskResult) -> str:
    assert task.errored_runs is not None
    first = task.errored_runs.feedback[0].text if task.errored_runs.feedback else ""
    return (
        '<tr><td><span class="st st-e">errored run · evidence unscored</span></td>'
        f"<td>{_code(task.key)}</td>"
        f"<td>(the run itself)<br><small>{_source(task.source)}</small></td>"
        f'<td class="num">{task.errored_runs.count} / {task.runs_total}</td>'
        f"<td>{_code(first.split(chr(10))[-1], MARKDOWN.reason)}</td></tr>"
    )


def _failures(report: Report) -> list[str]:
    errored = [t for t in report.tasks if t.errored_runs is not None]
    if not report.problems and not errored:
        return []
    shown = report.problems[:FIRST_SCREEN_ROWS]
    rows = [
        _problem_row(row, hint) for row, hint in zip(shown, hints_once(report, shown), strict=True)
    ]
    rows += [_errored_row(t) for t in errored[: max(FIRST_SCREEN_ROWS - len(rows), 0)]]
    more = len(report.problems) - min(len(report.problems), FIRST_SCREEN_ROWS)
    tail = _more(more, "more failing grader", "in the tasks table")
    return [
        '<h2 id="failures">Failures</h2>',
        '<table class="failures"><thead><tr><th></th><th>Task</th><th>Grader (YAML line)</th>'
        '<th class="num">Runs failed</th><th>Reason</th></tr></thead><tbody>',
        *rows,
        "</tbody></table>",
        *tail,
    ]


def _another_eval(report: Report) -> list[str]:
    """One box per file of another eval, naming both evals (as the files say them)."""
    items = []
    for item in report.another_eval:
        what, found, expected = another_eval_parts(item, _code)
        items.append(
            f'<p class="banner"><b>Another eval:</b> {what} says it is of eval {found}, '
            f"not of this eval {expected}.</p>"
        )
    return items


def _not_evaluated(report: Report) -> list[str]:
    """The spec's tasks without a graded run, why, the first error, and the fix; then the tasks
    the opt-in accepted."""
    blocks: list[str] = []
    if report.not_evaluated:
        rows = [
            f"<tr><td>{_code(task.test_id)}</td><td>{esc(not_evaluated_words(task))}</td>"
            f"<td>{_code(task.first_error.strip().split(chr(10))[-1], MARKDOWN.reason)}</td></tr>"
            for task in report.not_evaluated[:FIRST_SCREEN_ROWS]
        ]
        more = len(report.not_evaluated) - len(rows)
        blocks += [
            '<h2 id="not-evaluated">Not evaluated</h2>',
            '<table class="failures"><thead><tr><th>Task</th><th>Why</th><th>First error</th>'
            "</tr></thead><tbody>",
            *rows,
            "</tbody></table>",
            *_more(more, "more task", "in the report JSON"),
            f"<p><b>What to do:</b> {esc(not_evaluated_fix(report.not_evaluated))}.</p>",
        ]
    if report.accepted_without_runs:
        names = ", ".join(_code(t.test_id) for t in report.accepted_without_runs)
        blocks.append(f"<p><b>Accepted without runs</b> (--allow-tasks-without-runs): {names}</p>")
    return blocks


def _more(count: int, what: str, where: str) -> list[str]:
    return [f'<p class="more">… {plural(count, what)}, {where}.</p>'] if count > 0 else []


def _warning(text: str) -> str:
    """A warning in one line, or, when long, its first line with the rest a click away."""
    flat = one_line(text)
    if len(flat) <= MARKDOWN.reason:
        return f"<li>{esc(flat)}</li>"
    return (
        f"<li><details><summary>{esc(shorten(flat, MARKDOWN.reason))}</summary>"
        f'<pre class="full">{esc(text)}</pre></details></li>'
    )


def _shard(evaluation: Evaluation) -> list[str]:
    if not evaluation.shard_note:
        return []
    return [
        '<p class="banner">One shard: this report covers only its tasks; the merge step'
        " (<code>waza-ci merge --html</code>) reports the verdict of them all.</p>"
    ]


def _banner(report: Report) -> list[str]:
    common = report.common_failure
    if common is None:
        return []
    return [
        f'<p class="banner">Every {esc(common.what)} ({common.executions}) failed the same'
        f" way: {_code(common.reason, MARKDOWN.reason)}<br><b>Likely fix:</b>"
        f" {esc(common.hint)}.</p>"
    ]


def _flips(report: Report) -> list[str]:
    """Verdicts changed since the run, then graders whose saved verdicts were dropped (no longer
    in the spec): the job summary's "Changed since the run"."""
    rows, dropped = report.flipped, report.dropped
    if not rows and not dropped:
        return []
    items = [
        f"<li>{_code(row.task_key)} · {_code(row.grader)}: {esc(flip_words(row))} since the "
        f"run ({esc(plural(len(row.flips), 'run'))}: "
        f"{esc(', '.join(str(f.run) for f in row.flips))})</li>"
        for row in rows[:FIRST_SCREEN_ROWS]
    ]
    items += [
        f"<li>{_code(gone.task_key)} · {_code(gone.grader)}: {gone.runs} saved verdicts "
        f"({esc(dropped_words(gone))}) → dropped (no longer in the spec)</li>"
        for gone in dropped[: max(0, FIRST_SCREEN_ROWS - len(rows))]
    ]
    return ['<h2>Changed since the run</h2><ul class="flips">', *items, "</ul>"]


def _baseline(comparison: BaselineComparison | None, note: str | None) -> list[str]:
    if comparison is None:
        return [f'<p class="gate">Regression gate: no baseline — {esc(note)}</p>'] if note else []
    c = comparison
    word = "fail" if c.failed else "pass"
    not_comparable = len(c.new) + len(c.removed)
    return [
        f'<p class="gate">Regression gate: <b>{word}</b>{esc(against(c))} — '
        f"{plural(len(c.regressions), 'regression')}, {len(c.fixed)} fixed, "
        f"{len(c.still_failing)} still failing, "
        f"{len(c.within_noise)} within noise, "
        f"{not_comparable} not comparable (new or removed);"
        f" task pass rate {c.gate.baseline_pass_rate * 100:.1f}% → "
        f"{c.gate.current_pass_rate * 100:.1f}%</p>"
    ]


def _passing(report: Report) -> list[str]:
    passing = [t for t in report.tasks if t.status == "passed"]
    if not passing:
        return []
    items = ", ".join(
        f"{_code(t.key)} {t.runs_passed}/{t.runs_total}" for t in passing[:PASSING_LISTED]
    )
    more = f", and {len(passing) - PASSING_LISTED} more" if len(passing) > PASSING_LISTED else ""
    return [f'<p class="passing"><b>Passing:</b> {items}{more}</p>']


def render_first_screen(
    evaluation: Evaluation, meta: Sequence[tuple[str, str]], history: Sequence[str] = ()
) -> str:
    """The first screen's HTML; `meta` are (label, value) pairs: skill, model, commit, …;
    `history` the history's blocks (html/trends.py), shown after the regression gate."""
    report = evaluation.model
    does, why = decision_words(evaluation)
    state = "pass" if evaluation.decision.passed else "fail"
    facts = "".join(f"<dt>{esc(k)}</dt><dd>{_code(v)}</dd>" for k, v in meta if v)
    counts = " · ".join(esc(part) for part in verdict_parts(report, with_time=False))
    kinds = " · ".join(kinds_parts(report, esc))
    warnings = [_warning(str(w)) for w in evaluation.warnings]
    blocks = [
        f"<header><h1>waza-ci: {_code(report.eval_name)}</h1>"
        f'<dl class="meta">{facts}</dl></header>',
        f'<section id="decision" class="decision {state}">'
        f'<p class="verdict"><b>{esc(does)}</b>: {esc(why)}</p>'
        f'<p class="counts">{esc(verdict_label(evaluation.decision)[1])} · {counts}</p>'
        + (f'<p class="kinds">Verdicts {kinds}</p>' if kinds else "")
        + "".join(f'<p class="kinds">{part}</p>' for part in judge_parts(report, esc))
        + (f'<p class="kinds">{modules}</p>' if (modules := modules_text(report, esc)) else "")
        + "</section>",
        *_shard(evaluation),
        *_another_eval(report),
        *_banner(report),
        *_not_evaluated(report),
        *_failures(report),
        *_flips(report),
        *_baseline(evaluation.comparison, evaluation.baseline_note),
        *history,
        *_passing(report),
    ]
    if warnings:
        blocks += ['<h2>Warnings</h2><ul class="warnings">', *warnings, "</ul>"]
    return "\n".join(blocks)
