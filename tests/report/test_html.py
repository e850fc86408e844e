"""The HTML report as a file: one page, nothing to fetch, data inert, bounded, the same for a
sharded-and-merged grading as for a whole one. What the page does in a browser is in
test_html_browser.py."""

from __future__ import annotations

import ast
import base64
import hashlib
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import DEMO, Project, run_cli_process
from tests.report import browser as browser_module
from waza_ci.report.html.data import Bounds
from waza_ci.report.html.evidence import Budget, conversation
from waza_ci.report.html.page import _scrub, _scrubber, asset, embed_json

_DATA = re.compile(r'<script type="application/json" id="([^"]+)">(.*?)</script>', re.S)


def grade_demo(folder: Path, *extra: str) -> Path:
    """The demo graded in a copy under `folder`, with `--html report.html`; the report's path."""
    demo = folder / "demo"
    shutil.copytree(DEMO, demo)
    args = ["grade", "eval.yaml", "--results", "results.json", "--workspace", "workspace"]
    done = run_cli_process([*args, "--html", "report.html", *extra], cwd=demo)
    assert done.code == 1, done.stderr
    return demo / "report.html"


def embedded(page: str) -> dict[str, Any]:
    return {name: json.loads(text) for name, text in _DATA.findall(page)}


@pytest.fixture(scope="module")
def demo_page(tmp_path_factory: pytest.TempPathFactory) -> str:
    return grade_demo(tmp_path_factory.mktemp("html")).read_text(encoding="utf-8")


def test_embedded_json_cannot_end_its_element_and_means_the_same() -> None:
    value = {"t": "</script><script>alert(1)</script> <!-- & \u2028\u2029 >"}
    text = embed_json(value)
    assert not re.search("[<>&\u2028\u2029]", text)
    assert json.loads(text) == value


def test_the_page_loads_nothing_and_runs_only_its_own_script(demo_page: str) -> None:
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', demo_page)
    assert csp is not None
    policy = csp.group(1).replace("&#x27;", "'")
    assert "default-src 'none'" in policy
    scripts = re.findall(r"<script>(.*?)</script>", demo_page, re.S)
    styles = re.findall(r"<style>(.*?)</style>", demo_page, re.S)
    assert len(scripts) == 1 and len(styles) == 1
    for kind, body in (("script-src", scripts[0]), ("style-src", styles[0])):
        digest = base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()
        assert f"{kind} 'sha256-{digest}'" in policy
    # No element that loads anything: no src, no stylesheet link, no @import or url().
    assert not re.search(r"<(img|iframe|link|object|embed|video|audio)\b", demo_page)
    assert not re.search(r"\bsrc=|@import|url\(", demo_page)


def test_the_script_never_turns_data_into_markup() -> None:
    script = asset("report.js")
    for sink in (
        "innerHTML",
        "outerHTML",
        "insertAdjacentHTML",
        "document.write",
        "eval(",
        "Function(",
        'setAttribute("href',
        "srcdoc",
    ):
        assert sink not in script, sink
    assert "</" not in script  # nothing in it can end its own element


def test_the_first_screen_is_in_the_html_itself(demo_page: str) -> None:
    first = demo_page.split('<main id="first">', 1)[1].split("</main>", 1)[0]
    assert "The step fails" in first and "(exit 1)" in first
    assert "entries_link_prs" in first and "tasks/changelog.yaml:22" in first
    assert "do not name their pull request as (#123)" in first
    # The job summary's words: the counts line and the kinds line.
    assert "2 tasks · 4 runs (2 failed) · 1 failing grader · 0 grader errors" in first
    assert "kept from the results file: 2 prompt" in first


def test_every_run_has_its_evidence_block_and_the_index_its_grid(demo_page: str) -> None:
    data = embedded(demo_page)
    index = data["waza-index"]
    runs = [run for task in index["tasks"] for run in task["runs"]]
    assert sorted(run["ev"] for run in runs) == list(range(4))
    tone = next(g for g in index["tasks"][0]["graders"] if g["n"] == "tone")
    assert tone["kept"] and tone["judge"]
    evidence = data["ev-0"]
    assert [item["k"] for item in evidence["conversation"]][:3] == ["user", "tool", "result"]
    assert "CHANGELOG.md" in evidence["output"]
    assert '"tool_calls"' in evidence["context"]  # the grading context a program grader got


def test_no_runner_path_is_in_the_file(tmp_path: Path) -> None:
    page = grade_demo(tmp_path).read_text(encoding="utf-8")
    assert str(tmp_path) not in page
    assert str(tmp_path.resolve()) not in page


def test_a_long_transcript_keeps_its_ends_and_counts_the_cut() -> None:
    events = [
        {"type": "assistant.message", "content": f"message {i} " + "x" * 500} for i in range(400)
    ]
    items = conversation(events, Budget(run_bytes=16 * 1024, text_bytes=8 * 1024))
    cut = [item for item in items if item["k"] == "cut"]
    assert len(cut) == 1
    kept = [item for item in items if item["k"] != "cut"]
    assert kept[0]["x"].startswith("message 0 ") and kept[-1]["x"].startswith("message 399 ")
    assert len(kept) + cut[0]["n"] == 400
    assert sum(len(item["x"]) for item in kept) <= 16 * 1024


def test_a_long_text_is_cut_head_and_tail_with_the_cut_marked() -> None:
    text = "\n".join(f"line {i}" for i in range(20_000))
    cut = Budget(run_bytes=64 * 1024, text_bytes=4 * 1024).cut(text)
    assert len(cut.encode()) <= 4 * 1024
    assert cut.startswith("line 0\n") and cut.endswith("line 19999")
    assert "lines cut" in cut


def test_the_run_budget_shrinks_with_many_runs_but_not_below_its_floor() -> None:
    bounds = Bounds(8)
    assert bounds.budget(10).run_bytes == 64 * 1024
    assert bounds.budget(400).run_bytes == 8 * 1024 * 1024 // 400
    assert bounds.budget(100_000).run_bytes == 2 * 1024
    assert Bounds(64).budget(10).run_bytes == 512 * 1024


def test_a_big_results_file_gives_a_report_within_the_bound(project: Project) -> None:
    project.write_eval("- type: text\n  name: says_done\n  config:\n    contains: [done]\n")
    project.write_task("t")
    events = [{"type": "assistant.message", "content": "y" * 20_000} for _ in range(100)]
    runs = [
        {
            "run_number": n,
            "status": "passed",
            "duration_ms": 1,
            "validations": {},
            "final_output": "done " + "z" * 100_000,
            "transcript": events,
        }
        for n in range(1, 41)
    ]
    results = {
        "eval_name": "test eval",
        "skill": "s",
        "tasks": [{"test_id": "t", "display_name": "t", "status": "passed", "runs": runs}],
    }
    path = project.write_results(results)
    assert path.stat().st_size > 80 * 2**20
    done = run_cli_process([*project.grade_args(), "--html", "r.html"], cwd=project.root)
    assert done.code == 0, done.stderr
    size = (project.root / "r.html").stat().st_size
    # 40 runs × (64 KiB transcript + output, prompt and context at 2 KiB... ) + the page.
    assert size < 40 * 100 * 1024
    more = run_cli_process(
        [*project.grade_args(), "--html", "r2.html", "--html-max-text-kib", "32"], cwd=project.root
    )
    assert more.code == 0
    assert (project.root / "r2.html").stat().st_size > 2 * size  # the option raises the bound


def _without_timings(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_timings(v) for k, v in value.items() if k not in ("ms",)}
    if isinstance(value, list):
        return [_without_timings(v) for v in value]
    return value


def test_sharded_and_merged_gives_the_same_report_as_unsharded(tmp_path: Path) -> None:
    whole = grade_demo(tmp_path / "whole").read_text(encoding="utf-8")
    demo = tmp_path / "shards"
    shutil.copytree(DEMO, demo)
    base = ["grade", "eval.yaml", "--results", "results.json", "--workspace", "workspace"]
    for shard in ("1/2", "2/2"):
        out = f"part{shard[0]}.json"
        done = run_cli_process(
            [*base, "--shard", shard, "--output", out, "--html", f"part{shard[0]}.html"], cwd=demo
        )
        assert done.code in (0, 1), done.stderr
        shard_page = (demo / f"part{shard[0]}.html").read_text(encoding="utf-8")
        assert "One shard: this report covers only its tasks" in shard_page
    merged = run_cli_process(["merge", "part1.json", "part2.json", "--html", "m.html"], cwd=demo)
    assert merged.code == 1, merged.stderr
    page = (demo / "m.html").read_text(encoding="utf-8")
    first = [p.split('<main id="first">', 1)[1].split("</main>", 1)[0] for p in (whole, page)]
    assert first[0] == first[1]
    assert _without_timings(embedded(whole)) == _without_timings(embedded(page))


def test_html_is_planned_with_the_other_outputs(tmp_path: Path) -> None:
    demo = tmp_path / "demo"
    shutil.copytree(DEMO, demo)
    base = ["grade", "eval.yaml", "--results", "results.json", "--workspace", "workspace"]
    clash = run_cli_process([*base, "--summary", "x.html", "--html", "x.html"], cwd=demo)
    assert clash.code == 2 and "--summary and --html both name" in clash.stderr
    folder = run_cli_process([*base, "--html", "."], cwd=demo)
    assert folder.code == 2 and "--html '.' is a folder" in folder.stderr
    over = run_cli_process([*base, "--html", "results.json"], cwd=demo)
    assert over.code == 2 and "--html would overwrite the results file" in over.stderr
    assert not (demo / "x.html").exists()


def test_the_baseline_comparison_says_what_is_not_comparable(tmp_path: Path) -> None:
    demo = tmp_path / "demo"
    shutil.copytree(DEMO, demo)
    baseline = json.loads((demo / "results.json").read_text(encoding="utf-8"))
    gone = {**baseline["tasks"][1], "test_id": "gone-task", "display_name": "gone"}
    baseline["tasks"] = [baseline["tasks"][0], gone]  # bump-version is new, gone-task removed
    (demo / "baseline.json").write_text(json.dumps(baseline), encoding="utf-8")
    args = ["grade", "eval.yaml", "--results", "results.json", "--workspace", "workspace"]
    done = run_cli_process([*args, "--baseline", "baseline.json", "--html", "r.html"], cwd=demo)
    assert done.code == 1, done.stderr
    page = (demo / "r.html").read_text(encoding="utf-8")
    index = embedded(page)["waza-index"]
    bases = {task["key"]: task["base"] for task in index["tasks"]}
    assert bases["bump-version"]["comparable"] is False
    assert bases["bump-version"]["change"] == "new"
    assert bases["write-changelog"]["comparable"] is True
    assert [(r["key"], r["comparable"]) for r in index["removed"]] == [("gone-task", False)]
    assert "2 not comparable (new or removed)" in page


def test_the_decision_is_the_steps_exit_code_and_why(tmp_path: Path) -> None:
    demo = tmp_path / "demo"
    shutil.copytree(DEMO, demo)
    args = ["grade", "eval.yaml", "--results", "results.json", "--workspace", "workspace"]
    done = run_cli_process([*args, "--fail-on", "errors", "--html", "r.html"], cwd=demo)
    assert done.code == 0, done.stderr
    page = (demo / "r.html").read_text(encoding="utf-8")
    assert 'class="decision pass"' in page
    # The decision's own reasons (report/decision.py), as the job summary's **Why:** says them.
    assert (
        "<b>The step passes (exit 0)</b>: 1 task did not pass (1 failing grader), which"
        " fail-on errors lets pass" in page
    )
    assert "Passed · 2 tasks · 4 runs (2 failed)" in page  # the job summary's verdict line


def test_no_folder_of_the_runner_reaches_the_page(project: Project, tmp_path: Path) -> None:
    home = tmp_path / "runner-home"
    home.mkdir()
    tell = project.write_grader(
        "tell.py",
        """
        import os, sys
        print(os.environ["HOME"], os.getcwd(), os.path.abspath(__file__), file=sys.stderr)
        sys.exit(1)
        """,
    )
    project.write_eval(project.program_grader("tell", tell))
    project.write_task("t")
    project.write_results(
        {
            "eval_name": "test eval",
            "tasks": [
                {
                    "test_id": "t",
                    "runs": [
                        {
                            "run_number": 1,
                            "status": "passed",
                            "validations": {},
                            "final_output": str(home),
                        }
                    ],
                }
            ],
        }
    )
    temp = tmp_path / "temp"  # its own: /tmp (a private root) would hide the home folder
    temp.mkdir()
    env = {"HOME": str(home), "TMPDIR": str(temp)}
    done = run_cli_process([*project.grade_args(), "--html", "r.html"], cwd=project.root, env=env)
    assert done.code == 1, done.stderr
    page = (project.root / "r.html").read_text(encoding="utf-8")
    assert "graders/tell.py" in page  # the traceback's place, from the checkout's root
    for folder in (home, project.root, tmp_path):
        assert str(folder) not in page, folder


def test_a_runner_folder_is_replaced_only_where_a_path_starts() -> None:
    pattern = _scrubber(["/root", "/tmp/w"])
    text = 'x /root/a "/root" /work/root/b /rooted \\n/root/c \\u003c/root/d /tmp/w/e /tmp/wide'
    assert _scrub(pattern, text) == (
        'x ./a "." /work/root/b /rooted \\n./c \\u003c./d ./e /tmp/wide'
    )


def test_without_a_browser_ci_fails_and_a_laptop_skips(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="must run in CI"):
        browser_module._missing("no Chromium")
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception):
        browser_module._missing("no Chromium")


def test_a_runner_path_cut_short_leaves_nothing_of_it() -> None:
    pattern = _scrubber(["/home/runner/work/repo"])
    shortened = "FileNotFoundError: /home/runner/wo…"
    head_cut = "x /home/runner/work/re\\n… 3 lines cut (9 bytes) …"
    other = "see /usr/lib/python3…"
    assert _scrub(pattern, shortened) == "FileNotFoundError: …"
    assert _scrub(pattern, head_cut) == "x \\n… 3 lines cut (9 bytes) …"
    assert _scrub(pattern, other) == other


_GRADE_THEN_LIST_MODULES = """\
import sys
from waza_ci.cli.main import main
code = main(sys.argv[1:])
print(sorted(name for name in sys.modules if name.startswith("waza_ci.report.html")))
sys.exit(code)
"""


@pytest.mark.parametrize("asked", [False, True])
def test_the_report_is_loaded_only_when_asked_for(tmp_path: Path, asked: bool) -> None:
    # The HTML report adds nothing to a grading that does not ask for it, not even
    # its import (about 12 ms of every start-up when the engine imported it).
    demo = tmp_path / "demo"
    shutil.copytree(DEMO, demo)
    args = ["grade", "eval.yaml", "--results", "results.json", "--workspace", "workspace"]
    done = subprocess.run(
        [sys.executable, "-c", _GRADE_THEN_LIST_MODULES, *args, *(["--html", "r.html"] * asked)],
        cwd=demo,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    loaded = ast.literal_eval(done.stdout.splitlines()[-1])
    if asked:
        assert "waza_ci.report.html.page" in loaded and (demo / "r.html").is_file()
    else:
        assert loaded == ["waza_ci.report.html", "waza_ci.report.html.limits"]
