"""What the LLM judge did, for every report: how many `prompt` verdicts were judged again (or
kept, and why), its own spend per model, and the kept verdicts that need a look (stale, or
judged by a judge that never called a grade tool)."""

from __future__ import annotations

from collections.abc import Callable

from waza_ci.english import plural
from waza_ci.report.gfm import Medium, code, link, trusted
from waza_ci.report.model import GraderRow, Report

Quote = Callable[[str], str]


def judge_parts(report: Report, quote: Quote) -> list[str]:
    """`judge openai: 2 prompt verdicts re-judged (2 sessions, 0 from the cache)`, `judge
    spend: judge-model: 4 calls, …`, `kept: …`; [] when no judge was asked for."""
    judge = report.judge
    if judge is None:
        return []
    parts = [
        f"judge {quote(judge.provider)}: {plural(judge.rejudged, 'prompt verdict')} re-judged "
        f"({plural(judge.sessions, 'session')}, {judge.cached} from the cache)",
        "judge spend: " + quote(judge.spend_text()),
    ]
    if judge.kept:
        parts.append(f"{judge.kept} kept: " + "; ".join(quote(w) for w in judge.kept_why))
    parts += [quote(note) for note in judge.notes]
    return parts


def kept_to_check(report: Report) -> list[GraderRow]:
    """Kept verdicts with something to say (stale, no grade tool called, not re-judged)."""
    return [
        row
        for task in report.tasks
        for row in task.graders
        if not row.regraded and row.notes and row.kind == "prompt"
    ]


def judge_block(report: Report, medium: Medium) -> list[str]:
    """The Markdown of the judge: its line, then the kept verdicts to check."""
    blocks: list[str] = []
    parts = judge_parts(report, lambda text: code(text, medium, in_table=False, max_chars=300))
    if parts:
        blocks.append("**LLM judge** · " + " · ".join(parts))
    rows = kept_to_check(report)
    if rows:
        items = [
            f"- {code(row.task_key, medium, in_table=False, max_chars=80)} "
            f"{link(code(row.grader, medium, in_table=False, max_chars=80), row.source.url)}: "
            + "; ".join(trusted(medium.prep(note)) for note in row.notes)
            for row in rows[:20]
        ]
        more = len(rows) - 20
        if more > 0:
            items.append(f"- … and {more} more")
        blocks.append("**Kept judge verdicts to check**\n\n" + "\n".join(items))
    return blocks
