"""The HTML report of big results: its size and its time to first screen in Chromium, against
the results file's size and the time Chromium takes to open that file itself.

Two cases: a 100 MB results file (400 runs with 250 kB transcripts) and a 10,000-run file
(100 tasks × 100 runs). Each is graded by `waza-ci grade --html` (one in-process `text`
grader), then both files are opened in the same Chromium, alternately, fastest of --repeats:
the report until its first screen (the decision) is in the page, the results file until it
is loaded. The baseline is what a reviewer would otherwise open.

    .venv/bin/python benchmarks/html_report.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _project import Row, run_measured, waza_ci

# Chromium found and started as the HTML report's browser tests start it (tests/report/browser.py;
# the benchmarks import nothing from tests/, so they run with only the project installed).
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def chromium_path() -> str | None:
    """WAZA_CI_CHROMIUM, else Debian's /usr/bin/chromium, else chromium or google-chrome."""
    given = os.environ.get("WAZA_CI_CHROMIUM")
    if given:
        return given
    if Path("/usr/bin/chromium").exists():
        return "/usr/bin/chromium"
    return shutil.which("chromium") or shutil.which("google-chrome")


GOAL_S = 2.0
MB = 1_000_000
_GRADE = ["grade", "eval.yaml", "--results", "results.json", "--workspace", "workspace"]


def _results(tasks: int, runs: int, transcript_bytes: int) -> dict[str, Any]:
    message = "the agent says <b>something</b> & more " * 10
    events = [
        {"type": "assistant.message", "content": message},
        {"type": "tool.execution_start", "tool_name": "bash", "arguments": {"command": "ls"}},
        {
            "type": "tool.execution_complete",
            "tool_name": "bash",
            "tool_result": {"content": message},
        },
    ] * max(transcript_bytes // (3 * len(message) + 150), 1)
    return {
        "eval_name": "bench",
        "skill": "s",
        "tasks": [
            {
                "test_id": f"t{t:03d}",
                "display_name": f"t{t:03d}",
                "status": "passed",
                "runs": [
                    {
                        "run_number": r + 1,
                        "status": "passed",
                        "duration_ms": 10,
                        "validations": {},
                        "final_output": ("done" if (t + r) % 7 else "nope") + " x" * 50,
                        "transcript": events,
                    }
                    for r in range(runs)
                ],
            }
            for t in range(tasks)
        ],
    }


def _project(folder: Path, tasks: int, runs: int, transcript_bytes: int) -> Path:
    (folder / "tasks").mkdir(parents=True)
    (folder / "workspace").mkdir()
    (folder / "eval.yaml").write_text(
        'name: bench\ntasks: ["tasks/*.yaml"]\ngraders:\n'
        "  - type: text\n    name: says_done\n    config:\n      contains: [done]\n"
    )
    for t in range(tasks):
        (folder / "tasks" / f"t{t:03d}.yaml").write_text(f"id: t{t:03d}\n")
    results = folder / "results.json"
    results.write_text(json.dumps(_results(tasks, runs, transcript_bytes)))
    return results


def _grade(folder: Path) -> Path:
    subprocess.run(
        waza_ci(_GRADE, "--html", "report.html", "--jobs", "2"),
        cwd=folder,
        capture_output=True,
        check=False,
    )
    return folder / "report.html"


def cost_row(label: str, tasks: int, runs: int, transcript_bytes: int, repeats: int) -> Row:
    """What asking for the report adds to a grading: the same `waza-ci grade` with and without
    `--html`, alternately, fastest of `repeats` each. (Without it the report's modules are not
    even imported: tests/report/test_html.py checks that.)"""
    with tempfile.TemporaryDirectory(prefix="waza-ci-html-") as temp:
        folder = Path(temp)
        _project(folder, tasks, runs, transcript_bytes)
        off, on = [], []
        for _ in range(repeats):
            off.append(run_measured(waza_ci(_GRADE, "--jobs", "2"), folder).seconds)
            html = waza_ci(_GRADE, "--jobs", "2", "--html", "r.html")
            on.append(run_measured(html, folder).seconds)
    added = min(on) - min(off)
    return Row(
        f"html report: {label}, grading with --html",
        f"{min(on):.2f} s (+{added:.2f} s)",
        f"without --html {min(off):.2f} s",
        min(on) / min(off),
        "-",
        None,
    )


def _open_s(browser: Any, path: Path, selector: str | None) -> tuple[float, float]:
    """Seconds until `selector` is in the page (or the page is loaded), and until the page
    has run its script (DOMContentLoaded: the tasks table is built)."""
    page = browser.new_page()
    started = time.perf_counter()
    if selector is None:
        page.goto(path.as_uri(), wait_until="load", timeout=300_000)
    else:
        page.goto(path.as_uri(), wait_until="commit", timeout=300_000)
        page.wait_for_selector(selector, state="attached", timeout=300_000)
    first = time.perf_counter() - started
    page.wait_for_load_state("domcontentloaded", timeout=300_000)
    ready = time.perf_counter() - started
    page.close()
    return first, ready


def case_row(label: str, tasks: int, runs: int, transcript_bytes: int, repeats: int) -> Row:
    executable = chromium_path()
    try:
        from playwright.sync_api import sync_playwright  # noqa: PLC0415 - a test extra
    except ImportError:
        executable = None
    if executable is None:
        return Row(
            f"html report: {label}",
            "skipped",
            "no Chromium/Playwright",
            float("nan"),
            f"< {GOAL_S:g} s",
            None,
        )
    with tempfile.TemporaryDirectory(prefix="waza-ci-html-") as temp:
        folder = Path(temp)
        results = _project(folder, tasks, runs, transcript_bytes)
        report = _grade(folder)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
            opened, loads = [], []
            for _ in range(repeats):
                opened.append(_open_s(browser, report, "#decision"))
                loads.append(_open_s(browser, results, None)[0])
            browser.close()
        first, ready = min(opened)
        load = min(loads)
        size, results_size = report.stat().st_size, results.stat().st_size
    return Row(
        f"html report: {label}, first screen",
        f"{first:.2f} s (table {ready:.2f} s), {size / MB:.1f} MB",
        f"results.json {results_size / MB:.0f} MB opened in {load:.2f} s",
        first / load,
        f"< {GOAL_S:g} s",
        first < GOAL_S,
    )


def rows(repeats: int) -> list[Row]:
    return [
        case_row("100 MB results, 400 runs", 100, 4, 330_000, repeats),
        case_row("10,000 runs", 100, 100, 600, repeats),
    ]


def cost_rows(repeats: int) -> list[Row]:
    return [
        cost_row("100 MB results, 400 runs", 100, 4, 330_000, repeats),
        cost_row("10,000 runs", 100, 100, 600, repeats),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    repeats = parser.parse_args().repeats
    for row in [*cost_rows(repeats), *rows(repeats)]:
        print(f"{row.figure}: {row.value} (baseline {row.baseline}; ratio {row.ratio:.2f})")


if __name__ == "__main__":
    main()
