"""The Markdown reports, rendered by cmark-gfm (the parser GitHub's pipeline derives from) and
checked on the HTML: table structure, YAML links, no markup from grader output, exact copies,
de-duplication, the banner, size limits and head-and-tail trimming.

Regenerate the golden files on purpose, then read the diff:
    UPDATE_GOLDEN=1 .venv/bin/pytest tests/report
"""

from __future__ import annotations

import html
import os
import re
from collections.abc import Callable
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options

from tests.report import factories
from waza_ci.policy import ListMode
from waza_ci.report.details import most_trimmed, sections_of
from waza_ci.report.evaluation import Evaluation
from waza_ci.report.gfm import CHECK_RUN
from waza_ci.report.github_documents import (
    MIN_LIMIT,
    _note_for,
    _widest_note,
    check_title,
    render_check_summary,
    render_check_text,
    render_markdown,
)
from waza_ci.report.github_limits import CHECK_OUTPUT_BYTES, JOB_SUMMARY_BYTES
from waza_ci.report.model import SourceLinks
from waza_ci.report.text_safety import utf8_len
from waza_ci.waza.scoring import GradeSummary

GOLDEN = Path(__file__).parent / "golden"
SHA = "0123456789abcdef0123456789abcdef01234567"
LINKS = SourceLinks("https://github.com", "octo/repo", SHA)
ZERO_WIDTH = re.compile("[\u200b-\u200d\u2060\ufeff]")


def report_of(summary: GradeSummary) -> Evaluation:
    return Evaluation.build(summary, repo_root=factories.REPO, links=LINKS)


def to_html(markdown: str) -> str:
    # UNSAFE keeps raw HTML, as GitHub's pipeline does before its sanitiser: what we check is
    # that no HTML of the data's is there to sanitise.
    rendered: str = cmarkgfm.github_flavored_markdown_to_html(
        markdown, options=Options.CMARK_OPT_UNSAFE
    )
    return rendered


class _Html(HTMLParser):
    """Tags, the text outside code, the texts of code blocks and of table rows."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.hrefs: list[str] = []
        self.outside_code: list[str] = []
        self.blocks: list[str] = []
        self.rows: list[list[str]] = []
        self._code = 0
        self._pre = False
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        if tag == "a":
            self.hrefs.append(dict(attrs).get("href") or "")
        if tag == "code":
            self._code += 1
        if tag == "pre":
            self._pre = True
            self.blocks.append("")
        if tag == "tr":
            self.rows.append([])
        if tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "code":
            self._code -= 1
        if tag == "pre":
            self._pre = False
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append("".join(self._cell))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._pre:
            self.blocks[-1] += data
        if self._cell is not None:
            self._cell.append(data)
        if not self._code:
            self.outside_code.append(data)


def parse(markdown: str) -> _Html:
    parser = _Html()
    parser.feed(to_html(markdown))
    return parser


ALLOWED_TAGS = {
    "h2",
    "h3",
    "p",
    "strong",
    "em",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "code",
    "pre",
    "a",
    "details",
    "summary",
    "br",
    "blockquote",
    "ul",
    "li",
}


# --- golden files ------------------------------------------------------------------------------

RENDERERS: dict[str, Callable[[Evaluation], str]] = {
    "summary": render_markdown,
    "check-summary": render_check_summary,
    "check-text": render_check_text,
}
CASES: dict[str, Callable[[], GradeSummary]] = {
    "failing": factories.failing_summary,
    "errors": factories.error_summary,
    "passing": factories.passing_summary,
    "multi-results": factories.multi_results_summary,
    "same-failure": factories.same_failure_everywhere_summary,
    "not-evaluated": factories.not_evaluated_summary,
}


def check_golden(name: str, rendered: str) -> None:
    path = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.write_bytes(rendered.encode("utf-8"))
    assert path.exists(), f"{path} is missing; create it with UPDATE_GOLDEN=1 and review it"
    assert rendered == path.read_text(encoding="utf-8"), (
        f"{name} differs; UPDATE_GOLDEN=1 and review the diff"
    )


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("renderer", sorted(RENDERERS))
def test_golden(case: str, renderer: str) -> None:
    check_golden(f"{case}-{renderer}.md", RENDERERS[renderer](report_of(CASES[case]())))


def test_golden_report_all() -> None:
    check_golden(
        "failing-all-summary.md",
        render_markdown(report_of(factories.failing_summary()), mode=ListMode.ALL),
    )


# --- the first screen ----------------------------------------------------------------------------


def test_verdict_line_counts_everything() -> None:
    markdown = render_markdown(report_of(factories.error_summary()))
    verdict = markdown.split("\n\n")[1]
    assert verdict.split("  \n")[0] == (
        "**⚠️ Graders could not run** · 2 tasks · 3 runs (3 failed) · 0 failing graders"
        " · 2 grader errors · 1 clean-up error"
    )
    counts = verdict.split("  \n")[0].split(" · ", 1)[1]
    assert check_title(report_of(factories.error_summary())) == f"Graders could not run · {counts}"


def test_failures_table_has_a_row_per_task_and_grader_linked_to_its_yaml_line() -> None:
    page = parse(render_check_summary(report_of(factories.failing_summary())))
    failures = page.rows.index(["", "Task", "Grader (YAML line)", "Runs failed", "Reason"])
    rows = page.rows[failures + 1 : failures + 5]  # not the slowest graders' table below
    assert [(row[1], row[3]) for row in rows] == [
        ("fix-null-check", "1 / 2"),
        ("add-logging", "2 / 2"),
        ("add-logging", "1 / 2"),
        ("fix-null-check", "1 / 3"),  # a run that errored in the original execution
    ]
    assert rows[3][0] == "⚠️ errored run"
    assert rows[3][4] == "session timed out after 300s waiting for the model"
    assert rows[0][2] == "tests_passevals/code-review/eval.yaml:18"
    assert rows[0][4] == "FAILED tests/test_user.py::test_none - AssertionError: expected None"
    assert rows[2][4] == "src/app.py:3:1: F401 'os' imported but unused"
    assert rows[1][0] == "❌ kept"
    base = f"https://github.com/octo/repo/blob/{SHA}/evals/code-review"
    assert page.hrefs[:3] == [
        f"{base}/eval.yaml#L18",
        f"{base}/tasks/add-logging.yaml#L1",  # a kept verdict with no spec grader: the task
        f"{base}/tasks/add-logging.yaml#L9",
    ]


def test_grader_errors_come_first_and_say_what_to_do() -> None:
    page = parse(render_markdown(report_of(factories.error_summary())))
    rows = page.rows[1:4]
    assert all(row[0] == "⚠️ error" for row in rows)
    reasons = [row[4] for row in rows]
    assert reasons[0].startswith(
        "timed out after 30 s (limit from config.timeout at evals/code-review/eval.yaml:22)"
    )
    assert "What to do: make the grader faster" in reasons[0]
    assert reasons[1].startswith("command not found: gradle")
    assert "What to do: install it in the job" in reasons[1]
    assert "What to do: graders must only read WAZA_GRADING_CONTEXT" in reasons[2]
    assert "signal: killed" not in render_check_text(report_of(factories.error_summary()))


def test_same_failure_everywhere_is_one_banner_with_the_likely_fix() -> None:
    markdown = render_markdown(report_of(factories.same_failure_everywhere_summary()))
    page = to_html(markdown)
    (banner,) = re.findall(r"<blockquote>(.*?)</blockquote>", page, flags=re.S)
    assert "Every grader execution (6) failed the same way:" in banner
    assert "can&#x27;t open file" in banner or "can't open file" in banner
    # No folder near the spec has the file (no found_from): the hint does not guess a folder.
    assert "the file is neither in working-directory nor in a folder above" in banner
    assert "set working-directory" not in banner
    # The six identical rows fold away under the banner.
    first_screen = markdown.split("### Details")[0]
    assert first_screen.count("<details>") == 2  # the folded rows, the slowest graders
    assert first_screen.index("Every grader execution") < first_screen.index("<summary>The 6")


def test_passing_tasks_come_after_compactly_or_in_full_with_report_all() -> None:
    report = report_of(factories.failing_summary())
    compact = render_markdown(report)
    assert "**✅ Passing:** `rename-symbol` 1/1 · 200 ms" in compact
    assert "### All tasks" not in compact
    full = parse(render_markdown(report, mode=ListMode.ALL))
    graders = [row[2] for row in full.rows if len(row) == 5 and row[4] in ("200 ms", "100 ms")]
    assert "compiles" in graders


def test_slowest_graders_are_listed_slowest_first() -> None:
    markdown = render_markdown(report_of(factories.failing_summary()))
    slowest = markdown.split("<summary>Slowest graders</summary>")[1].split("</details>")[0]
    names = re.findall(r"\[`(\w+)`\]", slowest)
    assert names == ["tests_pass", "compiles", "lint_clean"]
    assert "| 2.6 s | 2.4 s |" in slowest


# --- the details ----------------------------------------------------------------------------------


def test_identical_feedback_is_shown_once_with_its_run_count() -> None:
    report = report_of(factories.one_failure_summary("E   assert 1 == 2", runs=3))
    markdown = render_markdown(report)
    page = parse(markdown)
    assert "**× 3 runs** (runs 1, 2, 3):" in markdown
    assert page.blocks == ["E   assert 1 == 2\n(exit status 1)\n"]
    assert page.rows[1][3] == "3 / 3"


def test_differing_feedback_is_grouped_by_text() -> None:
    markdown = render_markdown(report_of(factories.error_summary()))
    section = markdown.split("<code>fix-null-check</code> · <code>tests_pass</code>")[1]
    section = section.split("</details>")[0]
    assert "**× 1 run** (run 1):" in section and "**× 1 run** (run 2):" in section


def test_grader_output_cannot_make_markup_and_copies_back_exactly() -> None:
    hostile = factories.HOSTILE
    for render in (render_markdown, render_check_summary, render_check_text):
        markdown = render(report_of(factories.hostile_summary()))
        page = parse(markdown)
        assert set(page.tags) <= ALLOWED_TAGS, set(page.tags) - ALLOWED_TAGS
        assert all(href.startswith("https://github.com/octo/repo/blob/") for href in page.hrefs)
        outside = "".join(page.outside_code)
        for marker in ("@octocat", "#123", "alert(1)", "javascript", "::error", "<script"):
            assert marker not in outside, (render.__name__, marker)
        assert not ZERO_WIDTH.search(markdown)
        for row in page.rows:
            assert len(row) in (3, 4, 5), row  # the data's pipes never add a cell
    blocks = parse(render_markdown(report_of(factories.hostile_summary()))).blocks
    # What a reader copies from a code block is exactly what the grader printed.
    assert hostile.strip("\n") in [block.rstrip("\n") for block in blocks]


@pytest.mark.slow
def test_long_output_keeps_head_and_tail_with_a_cut_marker() -> None:
    lines = [f"log line {n}" for n in range(200_000)] + ["AssertionError: expected 3, got 2"]
    markdown = render_check_text(report_of(factories.one_failure_summary("\n".join(lines))))
    (block,) = parse(markdown).blocks
    assert block.startswith("log line 0\nlog line 1\n")
    assert block.rstrip("\n").endswith("AssertionError: expected 3, got 2\n(exit status 1)")
    assert re.search(r"\n… [\d,]+ lines cut \([\d,]+ bytes\) …\n", block)
    assert "Trimmed to fit 65,535 bytes" in markdown


@pytest.mark.parametrize(
    "size", [10 * 1024, 1024 * 1024, pytest.param(100 * 1024 * 1024, marks=pytest.mark.slow)]
)
@pytest.mark.parametrize("kept", [False, True])
def test_output_of_any_size_fits_and_uses_the_budget(size: int, kept: bool) -> None:
    line = "ok: a line of grader output 0123456789\n"
    text = line * (size // len(line)) + "AssertionError: the last line"
    report = report_of(factories.one_failure_summary(text, kept=kept))
    for render, limit in (
        (render_markdown, JOB_SUMMARY_BYTES),
        (render_check_text, CHECK_OUTPUT_BYTES),
    ):
        markdown = render(report)
        used = utf8_len(markdown)
        assert used <= limit
        assert "AssertionError: the last line" in markdown
        if size >= limit:
            assert used >= 0.9 * limit, (render.__name__, used)
            assert " lines cut (" in markdown
        else:
            assert text in markdown  # small outputs are whole
    assert utf8_len(render_check_summary(report)) <= CHECK_OUTPUT_BYTES


@pytest.mark.slow
def test_thousands_of_failures_fit_every_limit_and_stay_balanced() -> None:
    report = report_of(factories.huge_summary(tasks=2_000))
    for render, limit in (
        (render_markdown, JOB_SUMMARY_BYTES),
        (render_check_summary, CHECK_OUTPUT_BYTES),
        (render_check_text, CHECK_OUTPUT_BYTES),
    ):
        markdown = render(report)
        assert utf8_len(markdown) <= limit, render.__name__
        assert markdown.count("<details>") == markdown.count("</details>")
        assert markdown.count("<summary>") == markdown.count("</summary>")
        if render is not render_check_summary:
            assert utf8_len(markdown) >= 0.9 * limit, render.__name__
            assert "detail section" in markdown  # the note says sections were left out
    summary = render_check_summary(report)
    assert "more failing graders, listed in the details" in summary


@pytest.mark.slow
@pytest.mark.parametrize("limit", [MIN_LIMIT, 10_000, 100_000])
def test_any_limit_is_respected(limit: int) -> None:
    report = report_of(factories.huge_summary(tasks=200))
    assert utf8_len(render_markdown(report, limit_bytes=limit)) <= limit
    assert utf8_len(render_check_text(report, limit_bytes=limit)) <= limit
    assert utf8_len(render_check_summary(report, limit_bytes=limit)) <= limit


def test_the_trim_note_fits_the_room_kept_for_it_at_every_limit() -> None:
    # 24 failing graders, 36 texts: at these limits texts are cut and sections dropped, both
    # counted in the note, which is written after the details were fitted to what was left.
    report = report_of(factories.huge_summary(tasks=12))
    notes = 0
    for limit in range(MIN_LIMIT, 40_000, 1_999):
        for render in (render_markdown, render_check_text):
            markdown = render(report, limit_bytes=limit)
            assert utf8_len(markdown) <= limit, (render.__name__, limit)
            notes += "detail sections left out" in markdown and "shown as head and tail" in markdown
    assert notes  # the widest notes were written


def test_the_room_kept_for_the_trim_note_holds_every_note_the_details_can_need() -> None:
    # The room is the note for every text cut and every section dropped: it holds only if a
    # note never grows when a count falls (`most_trimmed` bounds each count, not their sum).
    sections = sections_of(report_of(factories.huge_summary(tasks=12)).model, CHECK_RUN)
    (widest,) = _widest_note(CHECK_OUTPUT_BYTES, "check-run text", sections)
    texts, count = most_trimmed(sections)
    assert (texts, count) == (36, 24)  # two failing graders a task, three texts between them
    for cut in range(texts + 1):
        for dropped in range(count + 1):
            for note in _note_for(CHECK_OUTPUT_BYTES, "check-run text", cut, dropped):
                assert utf8_len(note) <= utf8_len(widest), (cut, dropped)


def test_limit_below_minimum_is_refused() -> None:
    with pytest.raises(ValueError, match="at least"):
        render_markdown(report_of(factories.passing_summary()), limit_bytes=MIN_LIMIT - 1)


# --- characters ---------------------------------------------------------------------------------


def test_non_bmp_characters_stay_in_the_summary_and_read_u_plus_in_check_runs() -> None:
    report = report_of(factories.one_failure_summary("done 😀 but 𠀀 failed"))
    assert "done 😀 but 𠀀 failed" in render_markdown(report)
    for render in (render_check_summary, render_check_text):
        markdown = render(report)
        assert not any(ord(char) > 0xFFFF for char in markdown)
        assert "done U+1F600 but U+20000 failed" in markdown
    assert not any(ord(char) > 0xFFFF for char in check_title(report))


def test_nothing_graded() -> None:
    markdown = render_markdown(report_of(replace(factories.empty_summary(), skipped=())))
    assert "**⚪ Nothing graded** · no task of the eval had runs to grade" in markdown


def test_a_task_without_runs_is_not_evaluated_and_listed_with_the_fix() -> None:
    markdown = render_markdown(report_of(factories.empty_summary()))
    assert markdown.startswith("## waza-ci: `code-review`\n\n**⚠️ Not evaluated** · ")
    assert (
        "| `fix-null-check` | no saved run (absent from the results, or `runs: []`) |" in markdown
    )
    assert "**What to do:** run waza again for each task listed" in markdown


@pytest.mark.slow
def test_output_is_deterministic() -> None:
    first = render_markdown(report_of(factories.huge_summary(tasks=50)))
    assert first == render_markdown(report_of(factories.huge_summary(tasks=50)))


def test_html_entities_in_output_stay_as_written() -> None:
    markdown = render_markdown(report_of(factories.one_failure_summary("a &amp; b &lt;x&gt;")))
    (block,) = parse(markdown).blocks
    assert block.startswith("a &amp; b &lt;x&gt;")
    assert html.unescape("&amp;") == "&"  # the parser decoded the HTML once, as a browser does


@pytest.mark.slow
def test_report_all_on_thousands_of_tasks_stays_within_the_limits() -> None:
    report = report_of(factories.huge_summary(tasks=1_000))
    markdown = render_markdown(report, mode=ListMode.ALL)
    assert utf8_len(markdown) <= JOB_SUMMARY_BYTES
    assert "_… 1,700 more rows in the report JSON._" in markdown or re.search(
        r"_… [\d,]+ more rows in the report JSON\._", markdown
    )
    assert "### Details" in markdown  # the listing does not crowd out the details
    assert utf8_len(render_check_summary(report, mode=ListMode.ALL)) <= CHECK_OUTPUT_BYTES


@pytest.mark.slow
def test_a_first_screen_too_big_for_the_limit_is_cut_and_closed() -> None:
    markdown = render_check_summary(
        report_of(factories.huge_summary(tasks=200)), limit_bytes=MIN_LIMIT
    )
    assert utf8_len(markdown) <= MIN_LIMIT
    assert "**Trimmed to fit 4 KiB**: the end of this screen is left out." in markdown
    assert markdown.count("<details>") == markdown.count("</details>")


def test_report_notes_follow_the_output_they_belong_to() -> None:
    # What waza-ci knows beyond waza's `details` keys (output cut to the cap) is shown in its
    # own report, after the output it is about; a timeout's limit is already the reason.
    verdict = replace(
        factories.timed_out("slow", 30, "waza's default"),
        notes=(
            "timed out after 30 s",
            "stdout: 5 bytes (1 line) in the middle were not kept; waza-ci keeps …",
        ),
    )
    summary = replace(
        factories.one_failure_summary("x"),
        tasks=(factories.task("t", factories.run(1, verdict)),),
    )
    (block,) = parse(render_markdown(report_of(summary))).blocks
    assert block == (
        "timed out after 30 s (limit from waza's default)\n"
        "waza-ci: stdout: 5 bytes (1 line) in the middle were not kept; waza-ci keeps …\n"
    )


def test_a_later_step_can_add_a_section_after_the_failures() -> None:
    # The hook a comparison with the base branch uses: its blocks sit on the first screen.
    report = report_of(factories.failing_summary())
    extra = "### Compared with main\n\nNewly failing: 1 😀"
    summary = render_markdown(report, extra=[extra])
    assert summary.index("### ❌ Failures") < summary.index(extra) < summary.index("✅ Passing")
    assert "Newly failing: 1 U+1F600" in render_check_summary(report, extra=[extra])


def _in_process_summary(
    *, failing_hint: bool = False, kind: str = "text", duration_ms: int = 0
) -> GradeSummary:
    """Two tasks graded in process only (no measurable time), the same grader name on each."""
    hint = "CHANGELOG.md not found in the workspace" if failing_hint else ""
    graders = {"says_done": factories.ref("says_done", factories.EVAL, 5)}
    return GradeSummary(
        eval_name="code-review",
        eval_path="evals/code-review/eval.yaml",
        results_names=("results.json",),
        tasks=tuple(
            factories.task(
                test_id,
                factories.run(
                    1,
                    factories.verdict(
                        "says_done",
                        kind=kind,
                        duration_ms=duration_ms,
                        passed=not failing_hint,
                        feedback=hint,
                    ),
                ),
                graders=graders,
            )
            for test_id in ("one", "two")
        ),
    )


def test_graders_that_took_no_time_make_no_slowest_table_and_no_0_ms() -> None:
    markdown = render_markdown(report_of(_in_process_summary()))
    assert "Slowest graders" not in markdown
    assert "0 ms" not in markdown
    assert "**✅ Passing:** `one` 1/1, `two` 1/1" in markdown


def test_time_is_shown_for_programs_whatever_the_clock_said() -> None:
    # A loaded machine can take a millisecond for an in-process grader: the line must not
    # change with it (two gradings of the same inputs would read differently).
    slow_in_process = render_markdown(report_of(_in_process_summary(duration_ms=1)))
    assert "**✅ Passing:** `one` 1/1, `two` 1/1\n" in slow_in_process
    assert "Slowest graders" not in slow_in_process
    fast_program = render_markdown(report_of(_in_process_summary(kind="program")))
    assert "**✅ Passing:** `one` 1/1 · 0 ms, `two` 1/1 · 0 ms\n" in fast_program


def test_the_slowest_table_names_the_task_a_grader_ran_on() -> None:
    markdown = render_markdown(report_of(factories.failing_summary()))
    assert "| Grader | Task | Runs | Total | Slowest run |" in markdown
    assert re.search(r"\| \[`lint_clean`\]\([^)]*\) \| `add-logging` \| 2 \|", markdown), markdown
    assert re.search(r"\| \[`compiles`\]\([^)]*\) \| 3 tasks \| 5 \|", markdown), markdown


def test_the_same_hint_is_said_once() -> None:
    rows = [
        replace(row, hint="pass --workspace naming the folder")
        for row in report_of(_in_process_summary(failing_hint=True)).model.problems
    ]
    evaluated = report_of(_in_process_summary(failing_hint=True))
    report = replace(evaluated, model=replace(evaluated.model, problems=tuple(rows)))
    assert len(rows) == 2
    markdown = render_markdown(report)
    assert markdown.count("pass --workspace naming the folder") == 1
