"""The HTML report in a real browser (Chromium through Playwright): what a reviewer sees and
can do, that hostile results run nothing and fetch nothing, and that big results open.

Times are measured by benchmarks/html_report.py, not asserted here."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.conftest import DEMO, ROOT, Project, run_cli_process, without_times
from tests.report.browser import open_report, png_size, png_text, png_with_text

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def demo_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    demo = tmp_path_factory.mktemp("browser") / "demo"
    shutil.copytree(DEMO, demo)
    args = ["grade", "eval.yaml", "--results", "results.json", "--workspace", "workspace"]
    done = run_cli_process([*args, "--html", "report.html"], cwd=demo)
    assert done.code == 1, done.stderr
    return demo / "report.html"


def visible_task_rows(opened: Any) -> list[str]:
    rows = opened.page.query_selector_all("table.tasks > tbody > tr:not(.detail)")
    return [row.query_selector("td:nth-child(2) button").inner_text() for row in rows]


def test_the_demo_tells_a_reviewer_what_failed_and_why(browser: Browser, demo_report: Path) -> None:
    with open_report(browser, demo_report) as opened:
        first = opened.page.inner_text("#first")
        assert "The step fails (exit 1): 1 task did not pass (1 failing grader)" in first
        assert "entries_link_prs" in first and "tasks/changelog.yaml:22" in first
        assert "do not name their pull request as (#123)" in first
        assert visible_task_rows(opened) == ["write-changelog ▸", "bump-version ▸"]
        # Filter, search, sort.
        opened.page.get_by_role("button", name="Failing (1)").click()
        assert visible_task_rows(opened) == ["write-changelog ▸"]
        opened.page.get_by_role("button", name="All (2)").click()
        opened.page.get_by_role("searchbox").fill("bump")
        assert visible_task_rows(opened) == ["bump-version ▸"]
        opened.page.get_by_role("searchbox").fill("")
        opened.page.get_by_role("button", name="Task", exact=True).click()
        assert visible_task_rows(opened) == ["bump-version ▸", "write-changelog ▸"]
        # A task: its graders and its runs × graders grid; the kept LLM judge says so.
        opened.page.get_by_role("button", name="write-changelog ▸").click()
        task = opened.page.locator("tr.detail").filter(has_text="Runs × graders").first
        assert "kept from the run (LLM judge)" in task.inner_text()
        task.locator("button.cell.k").first.click()
        verdict = task.locator(".panel").filter(has_text="tone · run 1")
        assert "passed · kept from the run (LLM judge)" in verdict.inner_text()
        assert "Concise and user-facing." in verdict.inner_text()
        task.locator("button.cell.f").first.click()
        failed = task.locator(".panel").filter(has_text="entries_link_prs · run 1").inner_text()
        assert "no pull request reference" in failed and "stderr" in failed
        # A run: the transcript as a conversation beside the digest and the final output.
        task.get_by_role("button", name="Run 1 ▸").click()
        run = task.locator(".panel").filter(has_text="Transcript").first.inner_text()
        assert "tool call: read_file" in run and "tool result: bash" in run
        assert "I added a 1.2.0 section to CHANGELOG.md" in run
        assert "Session digest" in run and "input tokens" in run
        assert not opened.outside and not opened.errors and not opened.dialogs


def test_without_javascript_the_first_screen_reads(browser: Browser, demo_report: Path) -> None:
    with open_report(browser, demo_report, javascript=False) as opened:
        text = opened.text()
        assert "The step fails" in text and "entries_link_prs" in text
        assert "do not name their pull request" in text
        assert "JavaScript is off" in text
        assert not opened.outside


MARK = "__waza_pwned"
PAYLOADS = [
    f'<img src=x onerror="window.{MARK}=1;alert(1)">',
    f"</script><script>window.{MARK}=2;alert(2)</script>",
    f"javascript:window.{MARK}=3",
    f'<a href="javascript:window.{MARK}=4">click</a>',
    f"<!-- --><svg onload=window.{MARK}=5>",
    "\u2028\u2029 \u202eevil\u202c \x1b[31mred\x1b[0m \x07",
]
PAYLOAD = " ".join(PAYLOADS)


def hostile_project(project: Project) -> None:
    """A payload in every string field a results file and its graders can fill."""
    tell = project.write_grader(
        "tell.py",
        f"""
        import sys
        print({PAYLOAD!r})
        print({PAYLOAD!r}, file=sys.stderr)
        sys.exit(1)
        """,
    )
    project.write_eval(
        project.program_grader("prog " + PAYLOADS[0], tell)
        + "- type: prompt\n  name: judge\n  config:\n    rubric: r\n"
        + "- type: text\n  name: text\n  config:\n    contains: [nothing-like-this]\n"
    )
    task_id = "task " + PAYLOADS[0] + " " + PAYLOADS[3]
    (project.root / "tasks").mkdir()
    (project.root / "tasks" / "t.yaml").write_text(
        f"id: {json.dumps(task_id)}\nname: {json.dumps('Name ' + PAYLOAD)}\n", encoding="utf-8"
    )
    transcript = [
        {"type": "user.message", "content": "please " + PAYLOAD},
        {"type": "assistant.message", "data": {"content": "sure " + PAYLOAD}},
        {
            "type": "tool.execution_start",
            "tool_call_id": "c1",
            "tool_name": "bash " + PAYLOAD,
            "arguments": {"command": PAYLOAD, PAYLOADS[0]: [PAYLOAD]},
        },
        {
            "type": "tool.execution_complete",
            "tool_call_id": "c1",
            "tool_name": "bash",
            "tool_result": {"content": PAYLOAD},
            "success": False,
        },
        {"type": "session.error", "data": {"message": PAYLOAD}},
        {"type": PAYLOADS[1], "content": PAYLOAD},
    ]
    run = {
        "run_number": 1,
        "status": "passed",
        "duration_ms": 5,
        "prompt": PAYLOAD,
        "final_output": PAYLOAD,
        "transcript": transcript,
        "session_digest": {
            "tools_used": [PAYLOAD],
            "errors": [PAYLOAD],
            "usage": {"turns": 1, "input_tokens": 2, "output_tokens": 3},
        },
        "validations": {
            "judge": {
                "identifier": "judge",
                "type": "prompt",
                "score": 0,
                "passed": False,
                "feedback": PAYLOAD,
                "details": {PAYLOADS[0]: PAYLOAD},
            }
        },
    }
    errored = {**run, "run_number": 2, "status": "error", "error_msg": PAYLOAD}
    project.write_results(
        {
            "eval_name": "Eval " + PAYLOAD,
            "skill": PAYLOAD,
            "config": {"model_id": PAYLOAD},
            "tasks": [
                {
                    "test_id": task_id,
                    "display_name": "Name " + PAYLOAD,
                    "status": "failed",
                    "runs": [run, errored],
                }
            ],
        }
    )


def test_hostile_results_run_nothing_and_read_as_text(browser: Browser, project: Project) -> None:
    hostile_project(project)
    done = run_cli_process([*project.grade_args(), "--html", "h.html"], cwd=project.root)
    assert done.code == 3, done.stderr  # the results name a (hostile) eval that is not the spec's
    with open_report(browser, project.root / "h.html") as opened:
        opened.expand_everything()
        assert opened.evaluate(f"typeof window.{MARK}") == "undefined"
        assert not opened.dialogs and not opened.outside
        assert not opened.errors, opened.errors
        dom = opened.evaluate(
            """() => ({
              injected: document.querySelectorAll('img, svg, iframe, object, embed').length,
              scripts: document.scripts.length,
              handlers: [...document.querySelectorAll('*')].filter(e =>
                [...e.attributes].some(a => a.name.startsWith('on'))).length,
              jsLinks: [...document.querySelectorAll('a')].filter(a =>
                !a.href.startsWith('https://')).length,
            })"""
        )
        # The page's own scripts: the index, one evidence block per run, the code.
        assert dom == {"injected": 0, "scripts": 4, "handlers": 0, "jsLinks": 0}
        text = opened.text()
        for shown in ('<img src=x onerror="window.', "</script><script>", "javascript:window"):
            assert shown in text, shown
        for where in (
            "tool call: bash",
            "tool result: bash",
            "error: session.error",
            "final output",
        ):
            assert where.lower() in text.lower(), where
        assert "\u202e" not in text and "\x1b" not in text and "\x07" not in text
        assert "errored run" in text.lower() and "unscored" in text
        assert "Another eval: the results file" in text


def test_ten_thousand_runs_open_and_stay_within_the_bound(
    browser: Browser, project: Project
) -> None:
    project.write_eval("- type: text\n  name: says_done\n  config:\n    contains: [done]\n")
    tasks = []
    for i in range(100):
        project.write_task(f"t{i:03d}")
        runs = [
            {
                "run_number": j + 1,
                "status": "passed",
                "duration_ms": 10,
                "validations": {},
                "final_output": ("done" if (i + j) % 7 else "nope") + " x" * 50,
                "transcript": [{"type": "assistant.message", "content": "step " * 40}] * 5,
            }
            for j in range(100)
        ]
        tasks.append(
            {"test_id": f"t{i:03d}", "display_name": f"t{i:03d}", "status": "passed", "runs": runs}
        )
    project.write_results({"eval_name": "test eval", "skill": "s", "tasks": tasks})
    done = run_cli_process(
        [*project.grade_args(), "--html", "big.html", "--jobs", "2"], cwd=project.root, timeout=600
    )
    assert done.code == 1, done.stderr
    report = project.root / "big.html"
    assert report.stat().st_size < 40 * 2**20
    with open_report(browser, report) as opened:
        assert "says_done" in opened.page.inner_text("#first")
        assert "100 of 100 tasks" in opened.text()
        opened.page.get_by_role("button", name="t000 ▸").click()
        opened.page.get_by_role("button", name="Run 100 ▸").click()
        assert "step step" in opened.text()
        assert not opened.errors and not opened.outside


SCREENSHOT = ROOT / "docs" / "html-report.png"
"""The demo's report as docs/html-report.md shows it; regenerate on purpose with
UPDATE_GOLDEN=1 .venv/bin/pytest tests/report/test_html_browser.py -k screenshot"""


def test_the_docs_screenshot_is_the_demos_report(browser: Browser, demo_report: Path) -> None:
    with open_report(browser, demo_report) as opened:
        page = opened.page
        shown = without_times(page.inner_text("#first") + "\n" + page.inner_text("#tasks"))
        bottom = page.evaluate("document.querySelector('#tasks').getBoundingClientRect().bottom")
        png = page.screenshot(clip={"x": 0, "y": 0, "width": 1280, "height": round(bottom) + 16})
    fresh = png_with_text(png, shown)
    if os.environ.get("UPDATE_GOLDEN"):
        SCREENSHOT.write_bytes(fresh)
    kept = SCREENSHOT.read_bytes()
    # The words on the picture are the words of the page today, and its layout is the same
    # shape (fonts differ between machines by a few pixels; a changed page by far more).
    assert png_text(kept) == shown, "docs/html-report.png is stale: regenerate it (see above)"
    (width, height), (fresh_width, fresh_height) = png_size(kept), png_size(fresh)
    assert width == fresh_width
    assert abs(height - fresh_height) <= 0.15 * height


def test_it_prints_without_its_controls(browser: Browser, demo_report: Path) -> None:
    with open_report(browser, demo_report) as opened:
        opened.page.get_by_role("button", name="write-changelog ▸").click()
        opened.page.get_by_role("button", name="Run 1 ▸").click()
        style = "getComputedStyle(document.querySelector('{}')).{}"
        assert opened.evaluate(style.format("pre", "maxHeight")) != "none"  # scrolls on screen
        opened.page.emulate_media(media="print")
        assert opened.evaluate(style.format(".controls", "display")) == "none"
        assert opened.evaluate(style.format("pre", "maxHeight")) == "none"  # printed whole
        pdf = opened.page.pdf()
        assert pdf.startswith(b"%PDF") and len(pdf) > 10_000


def test_the_regressions_filter_shows_what_regressed(browser: Browser, tmp_path: Path) -> None:
    demo = tmp_path / "demo"
    shutil.copytree(DEMO, demo)
    baseline = json.loads((demo / "results.json").read_text(encoding="utf-8"))
    changelog = baseline["tasks"][0]
    changelog["runs"] = [{**changelog["runs"][0], "status": "passed"}]  # one run, passing
    (demo / "baseline.json").write_text(json.dumps(baseline), encoding="utf-8")
    args = ["grade", "eval.yaml", "--results", "results.json", "--workspace", "workspace"]
    done = run_cli_process([*args, "--baseline", "baseline.json", "--html", "r.html"], cwd=demo)
    assert done.code == 1, done.stderr
    with open_report(browser, demo / "r.html") as opened:
        assert "Regression gate: fail — 1 regression" in opened.page.inner_text("#first")
        opened.page.get_by_role("button", name="Regressions (1)").click()
        assert visible_task_rows(opened) == ["write-changelog ▸"]
        row = opened.page.locator("table.tasks > tbody > tr").first.inner_text()
        assert "1/1 → 0/2 · newly failing · regression" in row
        opened.page.get_by_role("button", name="Changed since the run (0)").click()
        assert visible_task_rows(opened) == []
        assert not opened.errors


def test_a_long_task_list_shows_in_pages(browser: Browser, project: Project) -> None:
    project.write_eval("- type: text\n  name: says_done\n  config:\n    contains: [done]\n")
    tasks = []
    for i in range(260):
        project.write_task(f"t{i:03d}")
        run = {"run_number": 1, "status": "passed", "validations": {}, "final_output": "done"}
        tasks.append({"test_id": f"t{i:03d}", "status": "passed", "runs": [run]})
    project.write_results({"eval_name": "test eval", "tasks": tasks})
    done = run_cli_process([*project.grade_args(), "--html", "many.html"], cwd=project.root)
    assert done.code == 0, done.stderr
    with open_report(browser, project.root / "many.html") as opened:
        assert len(visible_task_rows(opened)) == 200
        opened.page.get_by_role("button", name="Show 60 more of 60").click()
        assert len(visible_task_rows(opened)) == 260
        assert opened.page.get_by_role("button", name="Show 0 more of 0").is_hidden()


def test_a_verdict_that_changed_since_the_run_says_so(browser: Browser, project: Project) -> None:
    project.write_eval("- type: text\n  name: says_done\n  config:\n    contains: [done]\n")
    project.write_task("t")
    saved = {
        "identifier": "says_done",
        "type": "text",
        "score": 1,
        "passed": True,
        "feedback": "ok",
    }
    run = {
        "run_number": 1,
        "status": "passed",
        "final_output": "not finished",
        "validations": {"says_done": saved},
    }
    project.write_results({"eval_name": "test eval", "tasks": [{"test_id": "t", "runs": [run]}]})
    done = run_cli_process([*project.grade_args(), "--html", "c.html"], cwd=project.root)
    assert done.code == 1, done.stderr
    with open_report(browser, project.root / "c.html") as opened:
        assert "says_done: passed → failed since the run (1 run: 1)" in opened.page.inner_text(
            "#first"
        )
        opened.page.get_by_role("button", name="Changed since the run (1)").click()
        assert visible_task_rows(opened) == ["t ▸"]
        opened.page.get_by_role("button", name="t ▸").click()
        opened.page.get_by_role("button", name="fail (changed)").click()
        panel = opened.page.locator(".panel").filter(has_text="says_done · run 1").inner_text()
        assert "changed since the run: saved passed → now failed" in panel


def test_dropped_verdicts_are_listed(browser: Browser, project: Project) -> None:
    project.write_eval("- type: text\n  name: says_done\n  config:\n    contains: [done]\n")
    project.write_task("t")
    gone = {"identifier": "was_here", "type": "text", "score": 0, "passed": False, "feedback": "no"}
    run = {
        "run_number": 1,
        "status": "failed",
        "final_output": "done",
        "validations": {"was_here": gone},
    }
    project.write_results({"eval_name": "test eval", "tasks": [{"test_id": "t", "runs": [run]}]})
    done = run_cli_process([*project.grade_args(), "--html", "d.html"], cwd=project.root)
    assert done.code == 0, done.stderr
    with open_report(browser, project.root / "d.html") as opened:
        first = opened.page.inner_text("#first")
        assert "was_here: 1 saved verdicts (1 failed) → dropped (no longer in the spec)" in first
        opened.page.get_by_role("button", name="Changed since the run (1)").click()
        opened.page.get_by_role("button", name="t ▸").click()
        assert "Dropped: was_here is no longer in the spec" in opened.text()
        assert not opened.errors


def test_an_expanded_task_reads_as_a_reviewer_wants(browser: Browser, project: Project) -> None:
    """Failing graders first; a task whose every run errored says so with its error instead of
    an empty graders table; bookkeeping events folded above the conversation."""
    project.write_eval(
        "- type: text\n  name: a_passes\n  config:\n    contains: [done]\n"
        "- type: text\n  name: z_fails\n  config:\n    contains: [never]\n"
    )
    project.write_task("t")
    project.write_task("broken")
    transcript = [
        {"type": "turn_start"},
        {"type": "pending_messages.modified"},
        {"type": "user.message", "content": "please finish"},
        {"type": "assistant.message", "content": "done"},
    ]
    run = {"run_number": 1, "status": "passed", "final_output": "done", "transcript": transcript}
    errored = {"run_number": 1, "status": "error", "error_msg": "429 Too Many Requests"}
    project.write_results(
        {
            "eval_name": "test eval",
            "tasks": [
                {"test_id": "t", "runs": [run]},
                {"test_id": "broken", "runs": [errored]},
            ],
        }
    )
    done = run_cli_process([*project.grade_args(), "--html", "x.html"], cwd=project.root)
    assert done.code == 3, done.stderr  # `broken` was not evaluated
    with open_report(browser, project.root / "x.html") as opened:
        page = opened.page
        assert "Not evaluated" in page.inner_text("#first")
        page.get_by_role("button", name="t ▸").click()
        names = page.locator("table:not(.grid) tbody tr td:first-child code").all_inner_texts()
        assert names.index("z_fails") < names.index("a_passes")  # not alphabetical: failing first
        page.get_by_role("button", name="Run 1 ▸").first.click()
        first = page.locator(".panel .run > div").first.locator(".msg").first
        assert first.inner_text().startswith(
            "2 bookkeeping events: turn_start, pending_messages.modified"
        )
        page.get_by_role("button", name="broken ▸").click()
        text = opened.text()
        assert "Not evaluated: every run errored in execution; the first error:" in text
        assert "429 Too Many Requests" in text
        assert not opened.errors
