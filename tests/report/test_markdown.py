"""The Markdown report: golden files, escaping, the byte budget and trimming.

Regenerate the golden files on purpose, then read the diff:
    UPDATE_GOLDEN=1 .venv/bin/pytest tests/report
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from tests.report import factories
from waza_ci.report import markdown
from waza_ci.report._text import ZWJ, cut_utf8, utf8_len
from waza_ci.report.markdown import (
    CHECK_SUMMARY_LIMIT,
    JOB_SUMMARY_LIMIT,
    MIN_LIMIT,
    check_title,
    escape_html,
    escape_markdown,
    render_check_summary,
    render_markdown,
)
from waza_ci.scoring import GradeSummary

GOLDEN = Path(__file__).parent / "golden"

CASES: dict[str, tuple[Callable[[GradeSummary], str], Callable[[], GradeSummary]]] = {
    "markdown-passing.md": (render_markdown, factories.passing_summary),
    "markdown-failing.md": (render_markdown, factories.failing_summary),
    "markdown-errors.md": (render_markdown, factories.error_summary),
    "markdown-multi-results.md": (render_markdown, factories.multi_results_summary),
    "check-failing.md": (render_check_summary, factories.failing_summary),
    "check-errors.md": (render_check_summary, factories.error_summary),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden(name: str) -> None:
    render, make = CASES[name]
    rendered = render(make()).encode("utf-8")
    path = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.write_bytes(rendered)
    assert path.exists(), f"{path} is missing; create it with UPDATE_GOLDEN=1 and review it"
    assert rendered == path.read_bytes(), f"{name} differs; UPDATE_GOLDEN=1 and review the diff"


# --- content ---------------------------------------------------------------------------------


def test_verdict_lines_and_titles() -> None:
    assert "**✅ Passed** · 4 of 4 runs passed" in render_markdown(factories.passing_summary())
    assert "**❌ Failed** · 2 of 6 runs passed" in render_markdown(factories.failing_summary())
    assert "**⚠️ Grader errors** · 0 of 3 runs passed · 3 grader errors" in render_markdown(
        factories.error_summary()
    )
    empty = render_markdown(factories.empty_summary())
    assert "**⚪ Nothing graded**" in empty
    assert "### Tasks" not in empty and "### Failures" not in empty
    assert check_title(factories.passing_summary()) == "4 of 4 runs passed"
    assert check_title(factories.failing_summary()) == "2 of 6 runs passed · 1 errored in execution"
    assert check_title(factories.error_summary()) == "0 of 3 runs passed · 3 grader errors"
    assert check_title(factories.empty_summary()) == "Nothing graded · 1 task skipped"


def test_counts_row() -> None:
    report = render_markdown(factories.failing_summary())
    # tasks, runs graded of total, runs failed (not errored), errored, grader errors, score
    assert "| 3 | 5 of 6 | 3 | 1 | 0 | 0.67 |" in report


def test_kept_verdicts_are_marked_and_explained() -> None:
    report = render_markdown(factories.failing_summary())
    assert "\\_output\\_contains (2 failed, kept)" in report
    assert "_kept_: a saved verdict from the results file" in report
    assert report.count("kept (saved verdict, not re-run)") == 2
    assert "_kept_" not in render_markdown(factories.passing_summary())


def test_errored_runs_and_skipped_tasks_are_listed() -> None:
    report = render_markdown(factories.failing_summary())
    assert "<p><b>Run 3</b> · ⚠️ errored in the original execution; not graded</p>" in report
    assert "session timed out after 300s waiting for the model" in report
    assert "### Skipped tasks\n\n- update-docs: no runs in the results file" in report


def test_passing_report_has_no_failure_sections() -> None:
    report = render_markdown(factories.passing_summary())
    assert "<details>" not in report and "### Failures" not in report


def test_one_table_per_results_file() -> None:
    report = render_markdown(factories.multi_results_summary())
    assert "### Tasks in results-gpt4o.json" in report
    assert "### Tasks in results-claude.json" in report
    assert report.index("results-gpt4o.json") < report.index("### Tasks in results-claude.json")
    assert "- rename-symbol in results-claude.json: not in the results file" in report


def test_verdict_order_does_not_change_the_output() -> None:
    summary = factories.failing_summary()
    reversed_tasks = tuple(
        replace(
            task,
            runs=tuple(replace(run, verdicts=run.verdicts[::-1]) for run in task.runs),
        )
        for task in summary.tasks
    )
    shuffled = replace(summary, tasks=reversed_tasks)
    assert render_markdown(shuffled) == render_markdown(summary)
    assert render_check_summary(shuffled) == render_check_summary(summary)


# --- escaping --------------------------------------------------------------------------------


def _unescaped(text: str, chars: str) -> list[str]:
    """Characters of `chars` in `text` not preceded by an odd number of backslashes."""
    found = []
    for match in re.finditer(f"[{re.escape(chars)}]", text):
        backslashes = len(text[: match.start()]) - len(text[: match.start()].rstrip("\\"))
        if backslashes % 2 == 0:
            found.append(match.group())
    return found


MARKUP = "[]`<>*_~$&!|"


@pytest.mark.parametrize(
    "hostile",
    [
        "</details>",
        "<script>alert(1)</script>",
        "<img src=x onerror=alert(1)>",
        "| col |",
        "[link](javascript:alert(1))",
        "![img](https://example.com/x.png)",
        "`code` ``` fence",
        "*em* **strong** _u_ ~~del~~ $math$",
        "&lt;b&gt; &#64;",
        "back\\slash \\| \\\\|",
    ],
)
def test_escape_markdown_leaves_no_markup(hostile: str) -> None:
    escaped = escape_markdown(hostile)
    assert _unescaped(escaped, MARKUP) == []
    assert "\n" not in escaped


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("- item", "\\- item"),
        ("+ item", "\\+ item"),
        ("= setext", "\\= setext"),
        ("12. ordered", "12\\. ordered"),
        ("3) ordered", "3\\) ordered"),
        ("# heading", "\\# heading"),
        ("> quote", "\\> quote"),
        ("line\n# heading\r\n- item", "line \\# heading - item"),
        ("see #123", f"see \\#{ZWJ}123"),
        ("ping @octocat and @org/team", f"ping @{ZWJ}octocat and @{ZWJ}org/team"),
        ("go to https://evil.example/x", "go to https\\://evil.example/x"),
        ("or www.evil.example", "or www\\.evil.example"),
        ("check_x", "check\\_x"),
        ("plain text, 1.5 (ok)", "plain text, 1.5 (ok)"),
    ],
)
def test_escape_markdown_cases(text: str, expected: str) -> None:
    assert escape_markdown(text) == expected


def test_escape_markdown_cleans_controls_and_surrogates() -> None:
    escaped = escape_markdown("a\x00b\x1b[31mred\x1b[0m\u202eevil\ud800z\u2028next")
    assert escaped == "a\ufffdbred\ufffdevil\ufffdz next"
    escaped.encode("utf-8")  # a lone surrogate would raise here


def test_escape_html() -> None:
    assert escape_html('<b a="1">&</b> @x #1') == f'&lt;b a="1"&gt;&amp;&lt;/b&gt; @{ZWJ}x #{ZWJ}1'
    assert escape_html("a\n\nb") == "a b"
    assert escape_html("a\n\n</pre>", multiline=True) == "a\n\n&lt;/pre&gt;"


def _outside_pre(report: str) -> list[str]:
    lines, inside = [], False
    for line in report.split("\n"):
        if line == "<pre>":
            inside = True
        elif line == "</pre>":
            inside = False
        elif not inside:
            lines.append(line)
    return lines


OUR_TAGS = re.compile(r"</?(?:details|summary|p|b|i|pre)>")
OUR_HEADINGS = re.compile(r"^(## waza-ci: |### (Tasks|Skipped tasks|Failures|First failures)\b)")


@pytest.mark.parametrize("render", [render_markdown, render_check_summary])
def test_hostile_strings_do_not_survive_as_structure(render: Callable[[GradeSummary], str]) -> None:
    report = render(factories.hostile_summary())

    # No HTML of the data's: only our own tags, and `<` escaped as `\<` or `&lt;` otherwise.
    assert re.search(r"(?<!\\)<(script|img)", report, flags=re.IGNORECASE) is None
    assert "<" not in OUR_TAGS.sub("", report).replace("\\<", "")
    assert report.count("<details>") == report.count("</details>")
    assert report.count("<pre>") == report.count("</pre>")
    assert report.count("<summary>") == report.count("</summary>") == report.count("<details>")

    # No mention can ping, no line is a log command.
    assert re.search(r"@[\w-]", report) is None
    assert not any(line.startswith("::") for line in report.split("\n"))

    outside = _outside_pre(report)
    details_depth = 0
    for line in outside:
        if line.startswith("#"):
            assert OUR_HEADINGS.match(line), line
            assert _unescaped(line.split(" ", 1)[1], MARKUP) == []
        if line.startswith("|"):
            # Our 5 or 6 columns: 6 or 7 unescaped pipes, the data's pipes all escaped.
            assert len(_unescaped(line, "|")) in (6, 7), line
            assert _unescaped(line, MARKUP.replace("|", "")) == [], line
        if line.startswith("- "):
            body = line[2:].replace("**", "")
            assert _unescaped(body, MARKUP) == [], line
        if line == "<details>":
            details_depth += 1
        elif line == "</details>":
            details_depth -= 1
        elif details_depth and line.strip():
            # Inside <details> every line is raw HTML, so the data is never read as Markdown.
            assert line.startswith("<"), line


def test_hostile_feedback_is_escaped_inside_pre() -> None:
    report = render_markdown(factories.hostile_summary())
    assert "&lt;/pre&gt;&lt;/details&gt;&lt;/summary&gt;&lt;script&gt;" in report
    # Every <pre> starts its own HTML block (after a blank line), so blank lines inside the
    # feedback cannot drop back into Markdown.
    lines = report.split("\n")
    for index, line in enumerate(lines):
        if line == "<pre>":
            assert lines[index - 1] == ""


def test_rendered_by_github_markdown() -> None:
    """A check against cmark-gfm, GitHub's own parser (a test dependency: never skipped)."""
    import cmarkgfm
    from cmarkgfm.cmark import Options as options

    for render in (render_markdown, render_check_summary):
        rendered = cmarkgfm.github_flavored_markdown_to_html(
            render(factories.hostile_summary()), options=options.CMARK_OPT_UNSAFE
        )
        assert "<script" not in rendered and "<img" not in rendered
        assert "<a " not in rendered and "<h1" not in rendered and "<code" not in rendered
        assert "<blockquote" not in rendered and "<ol" not in rendered
        for row in re.findall(r"<tr>(.*?)</tr>", rendered, flags=re.S):
            assert row.count("<td") in (0, 5, 6) and row.count("<th") in (0, 5, 6)


@pytest.mark.parametrize(
    "text",
    [
        "5http://evil.example/x",
        "_http://evil.example/x",
        "éhttp://evil.example/x",
        "x www.evil.example",
        "9www.evil.example",
    ],
)
def test_no_bare_url_becomes_a_link(text: str) -> None:
    import cmarkgfm
    from cmarkgfm.cmark import Options as options

    rendered = cmarkgfm.github_flavored_markdown_to_html(
        f"| a |\n| --- |\n| {escape_markdown(text)} |\n\n{escape_markdown(text)}\n",
        options=options.CMARK_OPT_UNSAFE,
    )
    assert "<a " not in rendered, rendered


# --- size ------------------------------------------------------------------------------------


def _balanced(report: str) -> None:
    assert report.count("<details>") == report.count("</details>")
    assert report.count("<pre>") == report.count("</pre>")
    depth = 0
    for line in report.split("\n"):
        depth += (line == "<details>") - (line == "</details>")
        assert 0 <= depth <= 1


def test_huge_report_fits_the_job_summary_limit() -> None:
    summary = factories.huge_summary()
    started = time.monotonic()
    report = render_markdown(summary)
    assert time.monotonic() - started < 5
    data = report.encode("utf-8")
    assert len(data) <= JOB_SUMMARY_LIMIT
    assert len(data) > JOB_SUMMARY_LIMIT - 64 * 1024  # trimmed, not emptied
    assert report == render_markdown(summary)
    _balanced(report)
    assert "\ufffd" not in report  # no character was split by a cut

    shown = report.count("<details>")
    omitted = len(summary.tasks) - shown
    assert 0 < shown < len(summary.tasks)
    assert (
        f"> ⚠️ **Report trimmed** to fit in 1 MiB (GitHub's job-summary limit): feedback and"
        f" error texts are cut to 256 bytes each; the last {omitted} of 2000 failure sections"
        " are omitted." in report
    )
    # Kept sections are the first ones, in task order.
    assert "task-00000" in report.split("### Failures")[1]
    assert f"task-{shown - 1:05d}" in report.split("### Failures")[1]
    assert f"task-{shown:05d})" not in report.split("### Failures")[1]


def test_feedback_is_cut_before_sections_are_dropped() -> None:
    summary = factories.huge_summary(tasks=40, feedback_bytes=40_000)
    full = render_markdown(summary, limit_bytes=100 * JOB_SUMMARY_LIMIT)
    assert "Report trimmed" not in full and "more bytes cut" not in full
    report = render_markdown(summary, limit_bytes=JOB_SUMMARY_LIMIT)
    assert utf8_len(report) <= JOB_SUMMARY_LIMIT < utf8_len(full)
    assert report.count("<details>") == 40
    assert "feedback and error texts are cut to 4 KiB each." in report
    assert "more bytes cut]" in report
    _balanced(report)


def test_tables_too_big_are_cut_by_lines() -> None:
    summary = factories.huge_summary(tasks=300, feedback_bytes=200)
    report = render_markdown(summary, limit_bytes=MIN_LIMIT * 4)
    assert utf8_len(report) <= MIN_LIMIT * 4
    assert "<details>" not in report
    assert re.search(
        r"all 300 failure sections are omitted; only the tasks that did not pass are listed;"
        r" the last \d+ lines of the task tables are omitted\.",
        report,
    )
    assert report.rstrip("\n").split("\n")[-1].startswith("| ⚠️ |")  # whole rows only
    assert report == render_markdown(summary, limit_bytes=MIN_LIMIT * 4)


def test_many_passing_tasks_are_cut_by_lines() -> None:
    passing = factories.passing_summary()
    many = replace(
        passing,
        tasks=tuple(
            factories.task(f"passing-{i:04d}", *passing.tasks[0].runs) for i in range(1_000)
        ),
    )
    report = render_markdown(many, limit_bytes=20_000)
    assert utf8_len(report) <= 20_000
    assert "_1000 passing tasks not listed._" in report
    assert "trimmed** to fit in 20,000 bytes: only the tasks that did not pass are listed." in (
        report
    )


def test_trim_note_mentions_cuts_only_when_a_text_was_cut() -> None:
    # Many short sections: dropping sections is what makes it fit, no text is long enough to cut.
    summary = factories.huge_summary(tasks=400, feedback_bytes=100)
    report = render_markdown(summary, limit_bytes=120_000)
    assert utf8_len(report) <= 120_000
    assert "failure sections are omitted" in report
    assert "cut to" not in report and "more bytes cut]" not in report


@pytest.mark.parametrize("limit", [MIN_LIMIT, 5_000, 9_999, 50_001, 200_000])
def test_any_limit_is_respected(limit: int) -> None:
    for summary in (factories.huge_summary(tasks=120), factories.hostile_summary()):
        report = render_markdown(summary, limit_bytes=limit)
        assert utf8_len(report) <= limit
        _balanced(report)
        check = render_check_summary(summary, limit_bytes=limit)
        assert utf8_len(check) <= limit


def test_limit_below_minimum_is_refused() -> None:
    with pytest.raises(ValueError, match="at least"):
        render_markdown(factories.passing_summary(), limit_bytes=MIN_LIMIT - 1)


def test_huge_check_summary_fits() -> None:
    summary = factories.huge_summary()
    report = render_check_summary(summary)
    assert utf8_len(report) <= CHECK_SUMMARY_LIMIT
    assert report == render_check_summary(summary)
    assert "> ⚠️ **Summary trimmed** to fit in 65,535 bytes (GitHub's check-run summary limit)" in (
        report
    )
    assert "\ufffd" not in report
    assert "<details>" not in report


def test_check_summary_lists_only_problems_when_big() -> None:
    passing = factories.passing_summary()
    many = GradeSummary(
        eval_name="many",
        eval_path="eval.yaml",
        results_names=("results.json",),
        tasks=tuple(
            factories.task(f"passing-{i:04d}", *passing.tasks[0].runs, graders={})
            for i in range(1_500)
        )
        + factories.failing_summary().tasks[:1],
    )
    report = render_check_summary(many)
    assert utf8_len(report) <= CHECK_SUMMARY_LIMIT
    assert "passing-0000" not in report
    assert "fix-null-check" in report
    assert "_1500 passing tasks not listed._" in report


def test_cut_utf8_never_splits_a_character() -> None:
    text = "a€é𝄞" * 5
    for budget in range(utf8_len(text) + 2):
        cut = cut_utf8(text, budget)
        assert utf8_len(cut) <= budget
        assert text.startswith(cut)
        assert utf8_len(cut) > budget - 4 or cut == text


def test_fit_lines_closes_what_it_cuts_open() -> None:
    lines = ["<details>", "<summary>s</summary>", "", "<p>x</p>", "", "<pre>", "a" * 50, "b"]
    lines += ["</pre>", "", "</details>", "after"]
    kept, dropped = markdown._fit_lines(lines, 118)  # cuts inside the <pre>
    assert kept[-3:] == ["a" * 50, "</pre>", "</details>"]
    assert dropped == 5
    assert utf8_len("\n".join(kept)) <= 118
    kept, dropped = markdown._fit_lines(lines, 60)
    assert kept[-2:] == ["<p>x</p>", "</details>"]
    assert dropped == 7
    kept, dropped = markdown._fit_lines(lines, 10_000)
    assert kept == lines and dropped == 0


def test_report_notes_follow_the_verdict_they_belong_to() -> None:
    # What waza-ci knows beyond waza's `details` keys (a timeout's limit, output cut to the
    # cap) is shown in its own report, under the failing verdict.
    timed_out = replace(
        factories.verdict("slow", error="Program exited with error: signal: killed"),
        notes=("timed out after 30 s", "stdout: kept the first 10 bytes; 5 more were discarded"),
    )
    summary = GradeSummary(
        eval_name="e",
        eval_path="e.yaml",
        results_names=("results.json",),
        tasks=(factories.task("t", factories.run(1, timed_out)),),
    )
    report = render_markdown(summary)
    assert "<p><i>timed out after 30 s</i></p>" in report
    assert "<p><i>stdout: kept the first 10 bytes; 5 more were discarded</i></p>" in report
    assert report.index("signal: killed") < report.index("timed out after 30 s")
