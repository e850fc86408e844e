"""Untrusted text as a Markdown code span has one owner (report/gfm.py `code`): the gate's
report, the regression section and the sticky comment render it as the job summary does.

The copies they had escaped `|` as `\\|` everywhere; GFM unescapes that only inside a table
cell, so outside one the reader saw the backslash. The gate's copy also wrote an empty text as
an empty-looking code span where every other report writes `—`.
"""

from __future__ import annotations

import cmarkgfm

from waza_ci.gate.baseline_io import BaselineUse
from waza_ci.gate.waza_gate import GateOptions, GateOutcome, GateTask, evaluate_gate
from waza_ci.report.comment import render_comment
from waza_ci.report.evaluation import Evaluation
from waza_ci.report.regressions import verdict_line
from waza_ci.report.waza_gate_formats import render_gate_markdown
from waza_ci.waza.scoring import GradeSummary

PIPE = "left|right"


def _html(markdown: str) -> str:
    rendered: str = cmarkgfm.github_flavored_markdown_to_html(markdown)
    return rendered


def _gate_markdown(*current: GateTask) -> str:
    baseline = GateOutcome(1.0, (GateTask("golden", golden=True, status="passed"),))
    return render_gate_markdown(evaluate_gate(baseline, GateOutcome(1.0, current), GateOptions()))


def test_a_pipe_outside_a_table_reads_as_written() -> None:
    gate = _html(_gate_markdown(GateTask("golden", golden=True, status="passed"), GateTask(PIPE)))
    assert f"<code>{PIPE}</code>" in gate  # the new tasks' bullet list
    summary = GradeSummary("e", "evals/eval.yaml", ("r.json",), ())
    missing = Evaluation.build(summary, baseline=BaselineUse(note=f"baseline {PIPE} not found"))
    note = _html(verdict_line(missing))
    assert f"<code>baseline {PIPE} not found</code>" in note
    comment = render_comment(
        "<!-- marker -->",
        check_name=PIPE,
        evaluation=Evaluation.build(summary),
        check_url=None,
        summary_url=None,
    )
    assert f"<code>{PIPE}</code>" in _html(comment)
    assert "\\|" not in gate + note + _html(comment)


def test_a_pipe_inside_a_table_cell_stays_in_its_cell() -> None:
    html = _html(_gate_markdown(GateTask("golden", golden=True, status=PIPE)))
    assert f"<td><code>{PIPE}</code></td>" in html  # one cell, not split at the pipe


def test_an_empty_text_is_a_dash_in_the_gate_report_as_everywhere() -> None:
    markdown = _gate_markdown(GateTask("golden", golden=True, status=""))
    row = next(line for line in markdown.splitlines() if line.startswith("| `golden`"))
    assert row.endswith("| — |")
