"""`waza-ci grade --judge …` end to end: the command as a process, the real SDK and the real
Copilot CLI, only the model replaced by the fake on loopback. The demo's `tone` grader is the
judge being re-run."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import DEMO, CliResult, run_cli_process
from tests.judge.fake_model import FakeModel
from tests.judge.test_builtin_rubrics import BODY, RUBRIC
from waza_ci.judge.builtin_rubrics import WAZA_COMMIT, rubric_path

pytestmark = pytest.mark.slow
KEY = "sk-grade-test-abcdef0123456789"


def demo(tmp_path: Path) -> Path:
    """The demo, its `tone` judge given its one-line rubric as an inline `prompt` (waza reads a
    `rubric:` without a path as the name of a built-in rubric, and there is none by that name)."""
    folder = tmp_path / "demo"
    shutil.copytree(DEMO, folder)
    tasks = folder / "tasks" / "changelog.yaml"
    text = tasks.read_text()
    assert "      rubric: The entry is concise and written for users.\n" in text
    tasks.write_text(text.replace("      rubric: The entry", "      prompt: The entry"))
    return folder


TONE_PROMPT = "      prompt: The entry is concise and written for users.\n"
"""The `tone` judge's prompt line in the demo as `demo()` leaves it."""


def edit_tone(folder: Path, *lines: str) -> None:
    """The demo's `tone` judge with its prompt line replaced by `lines`."""
    tasks = folder / "tasks" / "changelog.yaml"
    text = tasks.read_text()
    assert TONE_PROMPT in text
    tasks.write_text(text.replace(TONE_PROMPT, "".join(lines)))


def grade(
    folder: Path, cli: str, model: FakeModel | None, *extra: str, key: str = KEY
) -> CliResult:
    args = [
        "grade",
        "eval.yaml",
        "--results",
        "results.json",
        "--workspace",
        "workspace",
        "--output",
        "out.json",
        "--summary",
        "summary.md",
        "--report-json",
        "report.json",
        "--html",
        "report.html",
    ]
    if model is not None:
        args += [
            "--judge",
            "openai",
            "--judge-url",
            model.url,
            "--judge-model",
            "judge-model",
            "--judge-key-env",
            "JUDGE_TEST_KEY",
        ]
    env = {"COPILOT_CLI_PATH": cli, "JUDGE_TEST_KEY": key, "HOME": str(folder.parent)}
    return run_cli_process([*args, *extra], cwd=folder, env=env, timeout=300)


def tone(folder: Path) -> list[dict[str, Any]]:
    doc = json.loads((folder / "out.json").read_text())
    task = next(t for t in doc["tasks"] if t["test_id"] == "write-changelog")
    return [run["validations"]["tone"] for run in task["runs"]]


def edit_results(folder: Path, change: Any) -> None:
    path = folder / "results.json"
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc))


def test_the_demos_tone_grader_is_rejudged_and_every_report_says_what_it_spent(
    tmp_path: Path, copilot_cli: str, model: FakeModel
) -> None:
    folder = demo(tmp_path)
    edit_results(
        folder,
        lambda d: d["tasks"][0]["runs"][1].update(
            final_output=d["tasks"][0]["runs"][1]["final_output"] + "\nFAIL-ME"
        ),
    )
    done = grade(folder, copilot_cli, model)
    assert done.code == 1, done.stderr
    first, second = tone(folder)
    assert (first["passed"], first["score"], first["feedback"]) == (True, 1, "All prompts passed")
    assert first["details"]["passes"] == "pass: fake-judge: fine"
    assert first["details"]["prompt"].startswith(
        "The entry is concise and written for users.\n\n---\n\n## Task input\n"
    )
    assert (second["passed"], second["feedback"]) == (False, "fail: fake-judge: FAIL-ME seen")
    assert len(model.openings()) == 2
    # The spend: in the terminal, the summary, the report JSON and the HTML report.
    assert re.search(
        r"judge spend: judge-model: 4 calls, 4,000 input \+ 200 output tokens", done.stderr
    )
    assert "LLM judge" in (folder / "summary.md").read_text()
    report = json.loads((folder / "report.json").read_text())
    assert report["judge"]["models"] == [
        {
            "model": "judge-model",
            "calls": 4,
            "input_tokens": 4000,
            "output_tokens": 200,
            "premium_requests": 0,
        }
    ]
    assert report["judge"]["sessions"] == 2 and report["judge"]["rejudged"] == 2
    assert "judge spend" in (folder / "report.html").read_text()
    # The flip from the saved verdict is reported as any regraded grader's.
    assert "tone" in done.stderr and "passed → failed" in done.stderr
    for name in ("out.json", "summary.md", "report.json", "report.html"):
        assert KEY not in (folder / name).read_text(), name
    assert KEY not in done.stdout + done.stderr


def test_a_rerun_with_the_cache_asks_the_model_nothing(
    tmp_path: Path, copilot_cli: str, model: FakeModel
) -> None:
    folder = demo(tmp_path)
    assert grade(folder, copilot_cli, model, "--judge-cache", "cache.json").code == 1
    asked, before = len(model.requests), tone(folder)
    assert KEY not in (folder / "cache.json").read_text()
    again = grade(folder, copilot_cli, model, "--judge-cache", "cache.json")
    assert again.code == 1, again.stderr
    assert len(model.requests) == asked
    assert tone(folder) == [
        dict(v, duration_ms=w["duration_ms"]) for v, w in zip(before, tone(folder), strict=True)
    ]
    assert "0 sessions, 2 from the cache" in again.stderr


def test_without_a_key_the_verdicts_are_kept_and_say_why_unless_required(
    tmp_path: Path, copilot_cli: str, model: FakeModel
) -> None:
    folder = demo(tmp_path)
    kept = grade(folder, copilot_cli, model, key="")
    assert kept.code == 1, kept.stderr
    assert "JUDGE_TEST_KEY named by --judge-key-env is not set" in kept.stderr
    assert tone(folder)[0]["feedback"] == "Concise and user-facing."
    required = grade(folder, copilot_cli, model, "--judge-required", key="")
    assert required.code == 3
    assert "--judge-required" in required.stderr and "Traceback" not in required.stderr
    assert not model.requests


def test_the_demos_own_rubric_is_a_builtin_name_so_its_verdicts_are_kept_saying_why(
    tmp_path: Path, copilot_cli: str, model: FakeModel
) -> None:
    folder = tmp_path / "as-shipped"
    shutil.copytree(DEMO, folder)
    done = grade(folder, copilot_cli, model)
    assert done.code == 1, done.stderr
    assert "names a rubric built into waza" in done.stderr
    assert "waza refuses it too" in done.stderr and "give it as `prompt:`" in done.stderr
    assert tone(folder)[0]["feedback"] == "Concise and user-facing."
    assert not model.requests


def test_a_built_in_rubric_is_read_from_waza_s_module_cache_and_judged(
    tmp_path: Path, copilot_cli: str, model: FakeModel
) -> None:
    folder = demo(tmp_path)
    edit_tone(folder, "      rubric: helpfulness\n")
    cache = tmp_path / "module-cache"
    cached = cache / "github.com" / "microsoft" / "waza" / WAZA_COMMIT / rubric_path("helpfulness")
    cached.parent.mkdir(parents=True)
    cached.write_bytes(RUBRIC)
    done = grade(folder, copilot_cli, model, "--module-cache", str(cache))
    assert done.code == 1, done.stderr
    assert len(model.openings()) == 2
    for request in model.openings():
        assert BODY + "\n\n---\n\n## Task input\n" in FakeModel.user_text(request)
    first, _ = tone(folder)
    assert first["details"]["rubric"]["source"] == "builtin:helpfulness"
    assert first["details"]["prompt"].startswith(BODY)


def test_a_refused_key_is_a_setup_error_naming_the_fix(tmp_path: Path, copilot_cli: str) -> None:
    refusing = FakeModel(status=401)
    try:
        done = grade(demo(tmp_path), copilot_cli, refusing)
    finally:
        refusing.close()
    assert done.code == 3
    assert "credential was refused" in done.stderr and "JUDGE_TEST_KEY" in done.stderr
    assert "Traceback" not in done.stderr and KEY not in done.stderr


def test_more_sessions_than_allowed_is_a_setup_error_before_any_is_asked(
    tmp_path: Path, copilot_cli: str, model: FakeModel
) -> None:
    done = grade(demo(tmp_path), copilot_cli, model, "--judge-max-calls", "1")
    assert done.code == 3
    assert "needs 2 sessions, more than --judge-max-calls 1" in done.stderr
    assert not model.requests


def test_a_continue_session_judge_reads_the_saved_transcript_with_read_only_tools(
    tmp_path: Path, copilot_cli: str, model: FakeModel
) -> None:
    folder = demo(tmp_path)
    edit_tone(folder, TONE_PROMPT, "      continue_session: true\n")
    done = grade(folder, copilot_cli, model)
    assert done.code == 1, done.stderr
    opening = model.openings()[0]
    assert FakeModel.tool_names(opening) == [
        "glob",
        "grep",
        "set_waza_grade_fail",
        "set_waza_grade_pass",
        "view",
    ]
    user = FakeModel.user_text(opening)
    assert "## The agent's session (saved transcript)" in user
    assert "### tool call:" in user
    assert user.rstrip().endswith("The entry is concise and written for users.")
    assert "re-judged from the saved transcript" in done.stderr


def test_pairwise_judges_twice_against_the_baseline_output(
    tmp_path: Path, copilot_cli: str, model: FakeModel
) -> None:
    folder = demo(tmp_path)
    edit_tone(folder, TONE_PROMPT, "      mode: pairwise\n")

    def add_baseline(doc: dict[str, Any]) -> None:
        runs = [
            {"run_number": r["run_number"], "final_output": "BASELINE OUTPUT"}
            for r in doc["tasks"][0]["runs"]
        ]
        doc["baseline_outcome"] = {"tasks": [{"test_id": "write-changelog", "runs": runs}]}

    edit_results(folder, add_baseline)
    done = grade(folder, copilot_cli, model)
    assert done.code == 1, done.stderr
    assert len(model.openings()) == 4
    assert all(FakeModel.tool_names(r) == ["set_pairwise_winner"] for r in model.openings())
    verdict = tone(folder)[0]
    # B won both times: the candidate in pass 1, the baseline in pass 2 -> inconsistent, a tie.
    assert verdict["details"]["pairwise"]["winner"] == "tie" and verdict["score"] == 0.5


def test_a_kept_verdict_judged_with_another_prompt_is_stale_in_every_report(
    tmp_path: Path, copilot_cli: str
) -> None:
    folder = demo(tmp_path)

    def old_prompt(doc: dict[str, Any]) -> None:
        for run in doc["tasks"][0]["runs"]:
            run["validations"]["tone"]["details"] = {
                "prompt": "An older rubric.",
                "passes": "pass",
                "failures": "",
            }

    edit_results(folder, old_prompt)
    done = grade(folder, copilot_cli, None)
    assert done.code == 1, done.stderr
    for text in (
        done.stderr,
        (folder / "summary.md").read_text(),
        (folder / "report.json").read_text(),
        (folder / "report.html").read_text(),
    ):
        assert "stale: the judge" in text
    assert "changelog.yaml:27" in done.stderr
