"""No workflow command from untrusted text: every field a pull request can write,
laced with line breaks, terminal escapes and `::` commands, through the CLI and the action.

GitHub reads every stdout/stderr line of a step for `::command::`, splitting lines at CR and LF.
The payload tries each way of starting such a line; the checks below split the logs the same way
and accept only the commands waza-ci itself issues.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.action.test_action_yml import OUTPUTS
from tests.action.test_entrypoint import TOKEN, Runner
from tests.action_process import run_action
from tests.conftest import Project, make_results, make_run, run_cli_process
from tests.fake_github import FakeGitHub
from waza_ci import __version__

PAYLOAD = (
    "::error::PWNED\r\n::error::PWNED\n::set-output name=x::PWNED\r::add-mask::PWNED"
    "\u2028::warning::PWNED\u2029::stop-commands::PWNED\x1b[31m\r\n::notice::PWNED"
    "\u202e\u2066\x85::debug::PWNED\r\n  ::error file=a,line=1::PWNED"
)
RAW_UNSAFE = ("\x1b", "\u2028", "\u2029", "\u202e", "\u2066", "\x85")
# A command line whose message is attacker text: `::name::PWNED` or `::name props::PWNED`.
INJECTED = re.compile(r"\s*::[A-Za-z-]+(?: [^:]*)?::\s*PWNED")
OUR_COMMANDS = {"group", "endgroup", "stop-commands", "add-mask", "error", "warning", "notice"}


def log_lines(text: str) -> list[str]:
    """The log as the runner sees it: lines split at CR, LF and CRLF."""
    return re.split(r"\r\n|\r|\n", text)


def hostile_project(project: Project) -> list[Path]:
    """Task id, display name, grader names, saved feedback, error message, grader output and a
    results file name that all carry PAYLOAD. Returns the results files."""
    say = project.write_grader(
        "say.py", f"import sys\nsys.stdout.write({PAYLOAD!r})\nsys.exit(1)\n"
    )
    hostile = json.dumps(PAYLOAD)  # a YAML double-quoted scalar holding the payload
    grader = (
        "- type: program\n"
        f"  name: {hostile}\n"
        "  config:\n"
        "    command: python3\n"
        f"    args: [{json.dumps(say)}]\n"
    )
    project.write_eval(grader)
    tasks = project.root / "tasks"
    tasks.mkdir()
    (tasks / "evil.yaml").write_text(f"id: {hostile}\nname: {hostile}\n", encoding="utf-8")
    kept = {
        "identifier": PAYLOAD,
        "type": "prompt",
        "score": 0.0,
        "weight": 1,
        "passed": False,
        "feedback": PAYLOAD,
    }
    runs = [
        make_run(1, validations={PAYLOAD: kept}),
        make_run(2, status="error", error_msg=PAYLOAD),
    ]
    doc = make_results({PAYLOAD: runs})
    doc["tasks"][0]["display_name"] = PAYLOAD
    first = project.write_results(doc)
    second = project.write_results(doc, name="r\n::error::PWNED\r\x1b[1m.json")
    return [first, second]


@pytest.mark.slow
def test_the_cli_writes_no_workflow_command_and_keeps_valid_json(project: Project) -> None:
    files = hostile_project(project)
    args = [
        "grade",
        str(project.eval_path),
        *(arg for path in files for arg in ("--results", str(path))),
        "--workspace",
        str(project.workspace),
        "--working-directory",
        str(project.root),
        "-v",
    ]
    result = run_cli_process(args, cwd=project.root)
    assert result.code == 1, result.stderr
    for line in log_lines(result.stdout) + log_lines(result.stderr):
        assert not line.lstrip().startswith("::"), repr(line)
    for char in RAW_UNSAFE:
        assert char not in result.stdout + result.stderr, repr(char)
    assert "PWNED" in result.stderr, "the hostile text is shown, escaped"
    outcome = json.loads(result.stdout)  # still valid JSON, with the same values
    keys = list(outcome["tasks"])
    assert any(key.endswith(PAYLOAD) for key in keys), keys
    assert any(key.startswith("r\n::error::PWNED\r\x1b[1m.json:") for key in keys), keys


@pytest.mark.slow
def test_a_cli_error_naming_hostile_text_stays_one_line(project: Project) -> None:
    hostile_project(project)
    result = run_cli_process(
        [*project.grade_args(), "--task", PAYLOAD + "-missing"], cwd=project.root
    )
    assert result.code == 2
    lines = [line for line in log_lines(result.stderr) if line]
    assert len(lines) == 1 and "PWNED" in lines[0], lines
    assert not any(char in result.stderr for char in RAW_UNSAFE)


@pytest.mark.slow
@pytest.mark.parametrize("token", [TOKEN, ""], ids=["check-run", "log-annotations"])
def test_the_action_writes_only_its_own_workflow_commands(
    tmp_path: Path, project: Project, token: str
) -> None:
    hostile_project(project)
    with FakeGitHub(token=TOKEN) as fake:
        runner = Runner(tmp_path, fake, project.root)
        result = runner.run(
            {
                "eval": "eval.yaml",
                "results": "*.json",
                "workspace": "workspace",
                "github-token": token,
            },
            env={"GITHUB_EVENT_NAME": "push"},
        )
    assert result.code == 1, result.log
    assert "PWNED" in result.stdout, "the hostile text is shown, escaped"
    for line in log_lines(result.stdout) + log_lines(result.stderr):
        assert not INJECTED.match(line), repr(line)
        if not line.lstrip().startswith("::"):
            continue
        name = re.match(r"\s*::([A-Za-z0-9-]+)", line)
        assert name is not None, repr(line)
        assert name.group(1) in OUR_COMMANDS or re.fullmatch(r"[0-9a-f]{32}", name.group(1)), line
        if name.group(1) == "add-mask":
            assert line == f"::add-mask::{TOKEN}"
    for char in RAW_UNSAFE:
        assert char not in result.stdout + result.stderr, repr(char)
    assert not result.outputs.keys() - set(OUTPUTS), "no output forged by a payload"


@pytest.mark.slow
def test_the_actions_first_line_names_its_inputs_escaped(tmp_path: Path, project: Project) -> None:
    # The start line comes before anything is loaded, so it must be escaped on its own.
    hostile_eval = "evil\r::error::PWNED.yaml"
    result = run_action(
        tmp_path, project.root, {"eval": hostile_eval, "results": "a.json\nb*.json"}
    )
    assert result.returncode == 2, result.stderr
    first = result.stdout.splitlines()[0]
    assert first == (
        f"waza-ci {__version__}: grading evil\\r::error::PWNED.yaml against a.json, b*.json"
    )
    for line in log_lines(result.stdout):
        assert not INJECTED.match(line), repr(line)
