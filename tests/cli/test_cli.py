"""Black-box tests of `waza-ci grade`: a real subprocess, real grader programs, real files."""

from __future__ import annotations

import codecs
import gzip
import json
import os
import pty
import re
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import (
    DEMO,
    FAST_PATH,
    ROOT,
    CliResult,
    Project,
    make_results,
    make_run,
    require_shared,
    run_cli_process,
    shared_files,
)
from waza_ci.errors import WINDOWS_PATH_HINT
from waza_ci.report.gfm import trusted

RECORDER = """\
import json, os, stat, sys
record_path, exit_code = sys.argv[1], int(sys.argv[2])
ctx_path = os.environ.get("WAZA_GRADING_CONTEXT")
ctx_dir = os.path.dirname(ctx_path)
with open(ctx_path, encoding="utf-8") as f:
    context = json.load(f)
record = {
    "stdin": sys.stdin.read(),
    "cwd": os.getcwd(),
    "env": dict(os.environ),
    "context_path": ctx_path,
    "dir_mode": stat.S_IMODE(os.stat(ctx_dir).st_mode),
    "file_mode": stat.S_IMODE(os.stat(ctx_path).st_mode),
    "dir_entries": sorted(os.listdir(ctx_dir)),
    "context": context,
}
with open(record_path, "a", encoding="utf-8") as f:
    f.write(json.dumps(record) + "\\n")
print("recorded")
sys.exit(exit_code)
"""


def recorder_grader(project: Project, name: str, record: Path, exit_code: int = 0) -> str:
    script = project.write_grader("recorder.py", RECORDER)
    return (
        f"- type: program\n  name: {name}\n  config:\n    command: python3\n"
        f'    args: [{json.dumps(script)}, {json.dumps(str(record))}, "{exit_code}"]\n'
    )


def read_records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def script_grader(project: Project, name: str, source: str, timeout: int | None = None) -> str:
    return project.program_grader(name, project.write_grader(f"{name}.py", source), timeout)


# --- the demo -----------------------------------------------------------------------------


@pytest.mark.slow
def test_demo_fails_on_its_one_failing_grader_and_says_why(tmp_path: Path) -> None:
    out = tmp_path / "regraded.json"
    summary = tmp_path / "summary.md"
    report = tmp_path / "report.json"
    result = run_cli_process(
        [
            "grade",
            "examples/demo/eval.yaml",
            "--results",
            "examples/demo/results.json",
            "--workspace",
            "examples/demo/workspace",
            "--working-directory",
            "examples/demo",
            "--output",
            str(out),
            "--summary",
            str(summary),
            "--report-json",
            str(report),
        ],
        cwd=DEMO.parent.parent,
        env={"GITHUB_ACTIONS": "", "NO_COLOR": ""},
    )
    assert result.code == 1, result.stderr
    outcome = result.json()
    assert outcome["passed"] is False
    assert set(outcome["tasks"]) == {"write-changelog", "bump-version"}
    averages = outcome["tasks"]["write-changelog"]["grader_averages"]
    assert set(averages) == {
        "_output_contains",
        "changelog_entry",
        "changelog_has_release",
        "entries_link_prs",
        "no_secrets_in_output",
        "safe_commands",
        "stays_small",
        "tone",
    }
    assert averages["entries_link_prs"] == 0
    assert averages["tone"] == pytest.approx(0.85)  # kept prompt verdicts, not re-run
    assert outcome["tasks"]["bump-version"]["passed"] is True
    regraded = json.loads(out.read_text(encoding="utf-8"))
    run = regraded["tasks"][0]["runs"][1]
    assert run["validations"]["changelog_entry"]["type"] == "program"  # absent before: run now
    assert run["validations"]["tone"]["feedback"] == "Clear, slightly terse."
    first, why, kinds, row = result.stderr.splitlines()[:4]
    assert first.startswith("waza-ci: FAILED: 2 tasks · 4 runs (2 failed) · 1 failing grader")
    assert why == "  why: 1 task did not pass (1 failing grader)"
    assert kinds == (
        "  verdicts re-graded: 4 behavior, 2 expected, 2 file, 14 program, 2 text"
        " · kept from the results file: 2 prompt"
    )
    assert row == (
        "  failed  write-changelog  entries_link_prs  examples/demo/tasks/changelog.yaml:22  2/2"
        "  AssertionError: 2 of 2 entries in '## 1.2.0' do not name their pull request as (#123)"
    )
    assert "\x1b[" not in result.stderr  # not a terminal: no colour
    assert "[`entries_link_prs`]" not in summary.read_text(encoding="utf-8")  # no URL outside CI
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["failed_tasks"] == ["write-changelog"]
    (failing,) = [g for t in data["tasks"] for g in t["graders"] if g["status"] != "passed"]
    assert failing["source"] == {
        "path": "examples/demo/tasks/changelog.yaml",
        "line": 22,
        "url": None,
    }


@pytest.mark.slow
def test_in_github_actions_the_summary_links_each_grader_to_its_yaml_line(
    project: Project, grade_project: Any
) -> None:
    project.write_eval(script_grader(project, "bad", "import sys\nsys.exit('nope')\n"))
    project.write_task("t1")
    project.write_results(make_results({"t1": [make_run()]}))
    summary = project.root / "summary.md"
    env = {
        "GITHUB_ACTIONS": "true",
        "GITHUB_SERVER_URL": "https://github.example",
        "GITHUB_REPOSITORY": "octo/repo",
        "GITHUB_SHA": "c" * 40,
    }
    result = grade_project("--summary", str(summary), env=env)
    assert result.code == 1
    assert f"[`bad`](https://github.example/octo/repo/blob/{'c' * 40}/eval.yaml#L5)" in (
        summary.read_text(encoding="utf-8")
    )


def _stderr_on_a_terminal(project: Project, env: dict[str, str]) -> str:
    """Run the CLI with stderr on a pseudo-terminal, as a person at a shell would."""
    main, child = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "waza_ci", "grade", "eval.yaml", "--results", "results.json"],
        cwd=project.root,
        env={**os.environ, "PYTHONPATH": str(ROOT), **env},
        stdout=subprocess.DEVNULL,
        stderr=child,
    )
    os.close(child)
    chunks = []
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # the terminal closes when the process exits
            break
        if not chunk:
            break
        chunks.append(chunk)
    process.wait(timeout=60)
    os.close(main)
    return b"".join(chunks).decode("utf-8", "replace")


@pytest.mark.slow
def test_colour_only_on_a_terminal_and_never_with_no_color(project: Project) -> None:
    project.write_eval(script_grader(project, "bad", "import sys\nsys.exit('nope')\n"))
    project.write_task("t1")
    project.write_results(make_results({"t1": [make_run()]}))
    assert "\x1b[31m" in _stderr_on_a_terminal(project, {"NO_COLOR": ""})
    plain = _stderr_on_a_terminal(project, {"NO_COLOR": "1"})
    assert "FAILED" in plain and "\x1b[" not in plain


@pytest.mark.slow
def test_report_json_cannot_clash_with_the_summary_or_a_results_file(
    project: Project, grade_project: Any
) -> None:
    project.write_eval(script_grader(project, "ok", "pass\n"))
    project.write_task("t1")
    project.write_results(make_results({"t1": [make_run()]}))
    same = str(project.root / "same.md")
    result = grade_project("--summary", same, "--report-json", same)
    assert result.code == 2 and "--summary and --report-json both name" in result.stderr
    result = grade_project("--report-json", str(project.root / "results.json"))
    assert result.code == 2 and "--report-json would overwrite the results file" in result.stderr
    assert not (project.root / "same.md").exists()


# --- what a grader receives ----------------------------------------------------------------


@pytest.mark.slow
def test_grader_gets_stdin_env_cwd_and_private_context(
    project: Project, grade_project: Any
) -> None:
    record = project.root / "record.jsonl"
    project.write_eval(recorder_grader(project, "recorder", record))
    project.write_task("t1")
    output = "line one\nline two <&> ünïcode\n  trailing spaces  "
    project.write_results(make_results({"t1": [make_run(1, output)]}))
    env = {
        "INPUT_GITHUB-TOKEN": "ghs_secret_input",
        "ACTIONS_RUNTIME_TOKEN": "runtime-secret",
        "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "oidc-secret",
        "KEEP_ME": "visible",
        "WAZA_GRADING_CONTEXT": "/inherited/should/be/replaced",
    }
    result = grade_project(env=env)
    assert result.code == 0, result.stderr
    (seen,) = read_records(record)
    assert seen["stdin"] == output
    assert seen["cwd"] == str(project.root)
    assert seen["env"]["WAZA_WORKSPACE_DIR"] == str(project.workspace.resolve())
    assert seen["env"]["KEEP_ME"] == "visible"
    for secret in ("INPUT_GITHUB-TOKEN", "ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN"):
        assert secret not in seen["env"]
    assert "secret" not in json.dumps(seen["env"])
    assert seen["context_path"] != "/inherited/should/be/replaced"
    assert Path(seen["context_path"]).name == "context.json"
    assert seen["dir_mode"] == 0o700
    assert seen["file_mode"] == 0o600
    assert seen["dir_entries"] == ["context.json"]
    assert not Path(seen["context_path"]).parent.exists(), "context directory must be deleted"


@pytest.mark.slow
def test_context_fields_follow_the_reference(project: Project, grade_project: Any) -> None:
    record = project.root / "record.jsonl"
    project.write_eval(recorder_grader(project, "recorder", record))
    project.write_task("t1")
    transcript = [
        {"type": "user.message", "content": "do it"},
        {
            "type": "tool.execution_start",
            "tool_call_id": "a",
            "tool_name": "bash",
            "arguments": {"command": "ls"},
        },
        {
            "type": "tool.execution_start",
            "tool_call_id": "b",
            "tool_name": "view",
            "arguments": {"path": "x"},
        },
        {"type": "tool.execution_start", "tool_name": "no_id"},
        {
            "type": "tool.execution_partial_result",
            "tool_call_id": "b",
            "tool_result": {"content": "partial"},
            "success": True,
        },
        {
            "type": "tool.execution_complete",
            "tool_call_id": "a",
            "tool_result": {"content": "file1"},
            "success": True,
        },
    ]
    with_evidence = make_run(
        1,
        "out",
        transcript=transcript,
        duration_ms=4321,
        tool_events=[{"turn": 1, "sequence": 1, "tool_name": "bash", "success": True}],
        command_invocations=[],
        host_lifecycle={"turns": 2},
        user_input_requests=[],
    )
    bare = make_run(2, "bare")
    bare.pop("duration_ms")
    project.write_results(make_results({"t1": [with_evidence, bare]}))
    result = grade_project("--jobs", "1")
    assert result.code == 0, result.stderr
    first, second = (r["context"] for r in read_records(record))
    assert first == {
        "version": 1,
        "output": "out",
        "outcome": {},
        "transcript": transcript,
        "tool_calls": [
            {
                "name": "bash",
                "arguments": {"command": "ls"},
                "result": {"content": "file1"},
                "success": True,
            },
            {
                "name": "view",
                "arguments": {"path": "x"},
                "result": {"content": "partial"},
                "success": True,
            },
        ],
        "tool_events": [{"turn": 1, "sequence": 1, "tool_name": "bash", "success": True}],
        "host_lifecycle": {"turns": 2},
        "command_invocations": [],
        "user_input_requests": [],
        "duration_ms": 4321,
    }
    assert second == {
        "version": 1,
        "output": "bare",
        "outcome": {},
        "transcript": [],
        "tool_calls": [],
        "tool_events": None,
        "host_lifecycle": None,
        "command_invocations": None,
        "user_input_requests": None,
        "duration_ms": 0,
    }


@pytest.mark.slow
def test_verdicts_have_waza_shape_and_feedback(project: Project, grade_project: Any) -> None:
    ok = script_grader(project, "ok", "print('  all good  ')\n")
    quiet = script_grader(project, "quiet", "pass\n")
    bad = script_grader(
        project,
        "bad",
        "import sys\nprint('not in feedback')\nsys.stderr.write(' why \\n')\nsys.exit(4)\n",
    )
    project.write_eval(ok + quiet + bad)
    project.write_task("t1")
    project.write_results(make_results({"t1": [make_run()]}))
    out = project.root / "out.json"
    result = grade_project("--output", str(out))
    assert result.code == 1
    validations = json.loads(out.read_text())["tasks"][0]["runs"][0]["validations"]
    assert list(validations) == ["bad", "ok", "quiet"]
    assert validations["ok"]["feedback"] == "all good"
    assert validations["quiet"]["feedback"] == "Program exited successfully"
    bad_verdict = validations["bad"]
    assert bad_verdict["feedback"] == "Program exited with error: exit status 4; stderr: why"
    assert {k: bad_verdict[k] for k in ("identifier", "type", "score", "weight", "passed")} == {
        "identifier": "bad",
        "type": "program",
        "score": 0,
        "weight": 1,
        "passed": False,
    }
    assert bad_verdict["details"]["exit_error"] == "exit status 4"
    assert bad_verdict["details"]["stdout"] == "not in feedback"
    assert isinstance(bad_verdict["duration_ms"], int)
    assert json.loads(out.read_text())["tasks"][0]["status"] == "failed"


# --- the private directory: tampering and failures ------------------------------------------

TAMPER = {
    "moved": "os.rename(d, d + '.moved')",
    "deleted": "shutil.rmtree(d)",
    "replaced_by_dir": "shutil.rmtree(d); os.mkdir(d)",
    "replaced_by_symlink": "os.rename(d, d + '.moved'); os.symlink(d + '.moved', d)",
    "file_replaced": "os.remove(p); open(p, 'w').write('{}')",
    "file_deleted": "os.remove(p)",
    "file_symlink": "os.remove(p); os.symlink('/etc/hostname', p)",
}


@pytest.mark.slow
@pytest.mark.parametrize("how", sorted(TAMPER))
def test_tampering_with_the_context_fails_with_exit_3(
    how: str, project: Project, grade_project: Any, tmp_path: Path
) -> None:
    temp = tmp_path / "tmp"
    temp.mkdir()
    source = (
        "import os, shutil\np = os.environ['WAZA_GRADING_CONTEXT']\nd = os.path.dirname(p)\n"
        f"{TAMPER[how]}\nprint('tampered')\n"
    )
    project.write_eval(script_grader(project, "tamper", source))
    project.write_task("t1")
    project.write_results(make_results({"t1": [make_run()]}))
    result = grade_project(env={"TMPDIR": str(temp)})
    assert result.code == 3, result.stderr
    named = re.search(r"(\S*waza-grading-\w+(/context\.json)?)", result.stderr)
    assert named is not None, result.stderr
    assert named.group(1).startswith(str(temp))
    assert bool(named.group(2)) == how.startswith("file")
    assert "Traceback" not in result.stderr
    outcome = result.json()
    assert outcome["passed"] is False


# Locking a folder against changes: as an unprivileged user (GitHub's runners use uid 1001)
# taking away write permission is enough; root ignores permissions, so there the folder is
# made immutable with chattr (needs the tool and CAP_LINUX_IMMUTABLE).
LOCK_SOURCE = """
import os, subprocess

def lock(path):
    if os.geteuid() == 0:
        subprocess.run(["chattr", "+i", path], check=True)
    else:
        os.chmod(path, 0o555)
"""


def _lock(path: Path) -> None:
    namespace: dict[str, Any] = {}
    exec(LOCK_SOURCE, namespace)  # the same code the grader below runs
    namespace["lock"](str(path))


def _unlock(path: Path) -> None:
    if os.geteuid() == 0:
        subprocess.run(["chattr", "-i", str(path)], check=False)
    else:
        path.chmod(0o755)


needs_a_lock = pytest.mark.skipif(
    os.geteuid() == 0 and shutil.which("chattr") is None,
    reason="as root a folder can only be locked with chattr, which is not installed",
)


@pytest.mark.slow
@needs_a_lock
def test_context_write_failure_names_the_path(
    project: Project, grade_project: Any, tmp_path: Path
) -> None:
    temp = tmp_path / "locked"
    temp.mkdir()
    project.write_eval(script_grader(project, "never_runs", "open('ran', 'w')\n"))
    project.write_task("t1")
    project.write_results(make_results({"t1": [make_run()]}))
    _lock(temp)
    try:
        result = grade_project(env={"TMPDIR": str(temp)})
    finally:
        _unlock(temp)
    assert result.code == 3, result.stderr
    assert str(temp) in result.stderr
    assert not (project.root / "ran").exists(), "the grader must not run without its context"


@pytest.mark.slow
@needs_a_lock
def test_context_removal_failure_names_the_path(
    project: Project, grade_project: Any, tmp_path: Path
) -> None:
    temp = tmp_path / "tmp"
    temp.mkdir()
    # Root makes the context folder immutable; anyone else takes write permission away from
    # the folder that holds it. Either way the folder cannot be removed.
    source = LOCK_SOURCE + (
        "d = os.path.dirname(os.environ['WAZA_GRADING_CONTEXT'])\n"
        "lock(d if os.geteuid() == 0 else os.path.dirname(d))\n"
    )
    project.write_eval(script_grader(project, "lock", source))
    project.write_task("t1")
    project.write_results(make_results({"t1": [make_run()]}))
    try:
        result = grade_project(env={"TMPDIR": str(temp)})
    finally:
        _unlock(temp)
        for leftover in temp.iterdir():
            _unlock(leftover)
    assert result.code == 3, result.stderr
    (left,) = list(temp.iterdir())
    assert str(left) in result.stderr


# --- processes: timeouts, leftovers, output caps --------------------------------------------


@pytest.mark.slow
def test_timeout_kills_the_group_even_when_a_grandchild_holds_the_pipes(
    project: Project, grade_project: Any
) -> None:
    pid_file = project.root / "grandchild.pid"
    source = (
        "import subprocess, sys\n"
        "child = subprocess.Popen(['sleep', '60'])\n"
        f"open({str(pid_file)!r}, 'w').write(str(child.pid))\n"
        "subprocess.run(['sleep', '60'])\n"
    )
    # 3 s: room for the grader to start its child and write the pid on a loaded machine.
    project.write_eval(script_grader(project, "hang", source, timeout=3))
    project.write_task("t1")
    project.write_results(make_results({"t1": [make_run()]}))
    started = time.monotonic()
    result = grade_project()
    assert time.monotonic() - started < 20
    assert result.code == 3, result.stderr
    assert "timed out after 3 s (limit from config.timeout at " in result.stderr
    pid = int(pid_file.read_text())
    assert not _alive(pid), "the grandchild must be killed with the group"


@pytest.mark.slow
def test_waza_yaml_program_timeout_applies(project: Project, grade_project: Any) -> None:
    (project.root / ".waza.yaml").write_text("graders:\n  programTimeout: 1\n")
    project.write_eval(script_grader(project, "slow", "import time\ntime.sleep(30)\n"))
    project.write_task("t1")
    project.write_results(make_results({"t1": [make_run()]}))
    started = time.monotonic()
    result = grade_project()
    assert result.code == 3
    assert time.monotonic() - started < 15
    where = project.root.resolve() / ".waza.yaml"
    assert f"timed out after 1 s (limit from graders.programTimeout in {where})" in result.stderr


@pytest.mark.slow
def test_huge_output_keeps_its_end_and_says_what_was_cut(
    project: Project, grade_project: Any
) -> None:
    source = (
        "import sys\nchunk = 'x' * 65536\nfor _ in range(320):\n    sys.stdout.write(chunk)\n"
        "print()\nprint('LOUD-LAST-LINE: all 320 chunks written')\n"
    )
    project.write_eval(script_grader(project, "loud", source))
    project.write_task("t1")
    project.write_results(make_results({"t1": [make_run()]}))
    out = project.root / "out.json"
    result = grade_project("--output", str(out))
    assert result.code == 0, result.stderr
    # -v is off: said once.
    dropped = 320 * 65536 + 1 + len("LOUD-LAST-LINE: all 320 chunks written\n") - 1024 * 1024
    assert f"stdout: {dropped:,} bytes (1 line) in the middle were not kept" in result.stderr
    verdict = json.loads(out.read_text())["tasks"][0]["runs"][0]["validations"]["loud"]
    stdout = verdict["details"]["stdout"]
    assert len(stdout.encode()) <= 1024 * 1024 + 200
    assert stdout.endswith("\nLOUD-LAST-LINE: all 320 chunks written")
    assert verdict["feedback"] == stdout  # waza's success feedback: the trimmed stdout
    cut = f"\n... 1 line cut ({dropped:,} bytes): waza-ci keeps the first and last 512 KiB"
    assert cut in stdout
    # waza's keys only; the cut is said in waza-ci's own report.
    assert set(verdict["details"]) == {"command", "args", "stdout", "stderr", "workspace_dir"}


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/stat").read_text().split()[2]
    return status != "Z"


# --- exit codes ----------------------------------------------------------------------------


def _pass_fail_project(project: Project) -> None:
    project.write_eval(
        script_grader(project, "passes", "print('fine')\n")
        + script_grader(project, "fails", "import sys\nsys.exit(1)\n")
    )
    project.write_task("t1")
    project.write_results(make_results({"t1": [make_run()]}))


@pytest.mark.slow
def test_failing_grader_exits_1_and_fail_on_errors_exits_0(
    project: Project, grade_project: Any
) -> None:
    _pass_fail_project(project)
    assert grade_project().code == 1
    assert grade_project("--fail-on", "errors").code == 0


@pytest.mark.slow
def test_grader_error_wins_over_failure_even_with_fail_on_errors(
    project: Project, grade_project: Any
) -> None:
    missing = "- type: program\n  name: missing\n  config:\n    command: no-such-grader-binary\n"
    project.write_eval(script_grader(project, "fails", "import sys\nsys.exit(1)\n") + missing)
    project.write_task("t1")
    project.write_results(make_results({"t1": [make_run()]}))
    out = project.root / "out.json"
    result = grade_project("--fail-on", "errors", "--output", str(out))
    assert result.code == 3
    verdict = json.loads(out.read_text())["tasks"][0]["runs"][0]["validations"]["missing"]
    assert verdict["feedback"] == (
        'Program exited with error: exec: "no-such-grader-binary": executable file not found '
        "in $PATH"
    )


@pytest.mark.slow
def test_errored_runs_are_not_graded_and_fail(project: Project, grade_project: Any) -> None:
    record = project.root / "record.jsonl"
    project.write_eval(recorder_grader(project, "recorder", record))
    project.write_task("t1")
    errored = make_run(2, status="error", error_msg="agent crashed")
    project.write_results(make_results({"t1": [make_run(1), errored]}))
    out = project.root / "out.json"
    result = grade_project("--output", str(out))
    assert result.code == 1
    assert len(read_records(record)) == 1
    runs = json.loads(out.read_text())["tasks"][0]["runs"]
    assert runs[1]["status"] == "error"
    assert runs[1]["validations"] == {}
    assert "agent crashed" in result.stderr


@pytest.mark.slow
def test_kept_verdicts_count_and_verdicts_outside_the_spec_drop(
    project: Project, grade_project: Any
) -> None:
    # The spec's judge is kept (and fails the run); a saved `_output_contains` without an
    # `expected:` list and a program grader that left the spec are dropped, as `waza grade`
    # drops them.
    project.write_eval(
        script_grader(project, "passes", "print('fine')\n")
        + "- {name: judge, type: prompt, config: {rubric: strong}}\n"
    )
    project.write_task("t1")
    saved = {
        "judge": {
            "identifier": "judge",
            "type": "prompt",
            "score": 0.2,
            "weight": 1,
            "passed": False,
            "feedback": "weak",
            "duration_ms": 5,
        },
        "_output_contains": {
            "identifier": "_output_contains",
            "type": "",
            "score": 1,
            "weight": 1,
            "passed": True,
            "feedback": "ok",
            "duration_ms": 0,
        },
        "old_program": {
            "identifier": "old_program",
            "type": "program",
            "score": 0,
            "weight": 1,
            "passed": False,
            "feedback": "stale",
            "duration_ms": 1,
        },
    }
    project.write_results(make_results({"t1": [make_run(validations=saved)]}))
    out = project.root / "out.json"
    result = grade_project("--output", str(out))
    assert result.code == 1  # the kept failing prompt verdict fails the run
    validations = json.loads(out.read_text())["tasks"][0]["runs"][0]["validations"]
    assert sorted(validations) == ["judge", "passes"]
    assert validations["judge"] == saved["judge"]
    assert "(kept)" in result.stderr


@pytest.mark.slow
def test_task_level_grader_replaces_a_global_one_with_the_same_name(
    project: Project, grade_project: Any
) -> None:
    project.write_eval(
        project.program_grader("check", project.write_grader("a.py", "import sys\nsys.exit(1)\n"))
    )
    project.write_task(
        "t1",
        graders=project.program_grader("check", project.write_grader("b.py", "print('task')\n")),
    )
    project.write_results(make_results({"t1": [make_run()]}))
    result = grade_project()
    assert result.code == 0, result.stderr


@pytest.mark.slow
def test_disabled_tasks_and_missing_tasks_are_skipped(project: Project, grade_project: Any) -> None:
    # A task without a run is skipped only when the user accepts it (otherwise: not evaluated,
    # exit 3 — tests/test_fail_closed.py); a disabled task is skipped whatever.
    record = project.root / "record.jsonl"
    project.write_eval(recorder_grader(project, "recorder", record))
    project.write_task("t1")
    project.write_task("off", extra="enabled: false\n")
    project.write_task("absent")
    project.write_results(make_results({"t1": [make_run()], "off": [make_run()]}))
    result = grade_project("--allow-tasks-without-runs")
    assert result.code == 0, result.stderr
    assert set(result.json()["tasks"]) == {"t1"}
    assert "absent" in result.stderr
    assert len(read_records(record)) == 1


@pytest.mark.slow
def test_nothing_to_grade_is_exit_2(project: Project, grade_project: Any) -> None:
    project.write_eval(script_grader(project, "passes", "print('fine')\n"))
    project.write_task("t1")
    project.write_results(make_results({"other": [make_run()]}))
    result = grade_project()
    assert result.code == 2
    assert "no tasks were graded" in result.stderr


@pytest.mark.slow
def test_output_is_identical_whatever_jobs_is(project: Project, grade_project: Any) -> None:
    graders = "".join(
        script_grader(
            project, f"g{i}", f"import sys, time\ntime.sleep(0.0{i})\nsys.exit({i % 2})\n"
        )
        for i in range(4)
    )
    project.write_eval(graders)
    project.write_task("t1")
    project.write_task("t2")
    runs = [make_run(n, f"output {n}") for n in (1, 2, 3)]
    project.write_results(make_results({"t1": runs, "t2": runs}))
    outputs = []
    for jobs in ("1", "4"):
        out, summary = project.root / f"out{jobs}.json", project.root / f"sum{jobs}.md"
        result = grade_project("--jobs", jobs, "--output", str(out), "--summary", str(summary))
        assert result.code == 1
        outputs.append((result.stdout, _strip_durations(out), _without_times(summary)))
    assert outputs[0][0] == outputs[1][0]
    assert outputs[0][1] == outputs[1][1]
    assert outputs[0][2] == outputs[1][2]


def _without_times(path: Path) -> str:
    """The summary without what depends on timing: durations and the slowest-graders table."""
    text = re.sub(
        r"<summary>Slowest graders</summary>.*?</details>", "", path.read_text(), flags=re.S
    )
    return re.sub(r"\b\d+(?:\.\d)? (?:ms|s)\b", "<time>", text)


def _strip_durations(path: Path) -> Any:
    doc = json.loads(path.read_text())
    for task in doc["tasks"]:
        for run in task["runs"]:
            for verdict in run["validations"].values():
                verdict["duration_ms"] = 0
    return doc


@pytest.mark.slow
def test_several_results_files_key_tasks_by_file(project: Project, grade_project: Any) -> None:
    project.write_eval(script_grader(project, "passes", "print('fine')\n"))
    project.write_task("t1")
    project.write_results(make_results({"t1": [make_run()]}), name="model-a.json")
    project.write_results(make_results({"t1": [make_run()]}), name="model-b.json")
    out_dir = project.root / "regraded"
    result = run_cli_process(
        [
            "grade",
            str(project.eval_path),
            "--results",
            str(project.root / "model-*.json"),
            "--workspace",
            str(project.workspace),
            "--output",
            str(out_dir),
        ],
        cwd=project.root,
    )
    assert result.code == 0, result.stderr
    assert set(result.json()["tasks"]) == {"model-a.json:t1", "model-b.json:t1"}
    assert sorted(p.name for p in out_dir.iterdir()) == ["model-a.json", "model-b.json"]


# --- bad input: exit 2, one line, nothing written -------------------------------------------

BAD_INPUTS = {
    "missing eval": ("eval", None, "eval spec not found"),
    "bad yaml": ("eval", "name: x\ntasks: [\n", "invalid YAML"),
    "missing results": ("results", None, "results file not found"),
    "bad json": ("results", '{"tasks": [,]}', "invalid JSON"),
    "truncated json": (
        "results",
        '{"tasks": [',
        "this results file is truncated: it ends at line 1",
    ),
    "schema major 2": (
        "results",
        '{"schemaVersion": "2.0", "tasks": []}',
        'but this waza supports schema major 1 (current schemaVersion 1.5); run "waza migrate',
    ),
    "wrong type": ("results", '{"tasks": [{"test_id": 3}]}', "$.tasks[0].test_id: want a string"),
    "task snapshot": ("results", '{"kind": "task-snapshot"}', "this is a waza task snapshot"),
    "dashboard export": ("results", '{"passCount": 1, "tasks": []}', "a waza dashboard export"),
    "an eval spec as results": (
        "results",
        "name: x\ntasks: [tasks/*.yaml]\n",
        "this is YAML (an eval spec or a task file?), not a waza results file",
    ),
    "results as the eval spec": (
        "eval",
        '{"eval_name": "x", "tasks": [{"test_id": "t1", "runs": []}], "metrics": {}}',
        "this is a waza results file (`eval_name`, `tasks[].runs`), not an eval spec",
    ),
    "scenario eval at 1.5": (
        "eval",
        'scenario: s\nschemaVersion: "1.5"\ntasks: [tasks/*.yaml]\n',
        'needs `schemaVersion: "2.0"` exactly',
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
def test_bad_files_exit_2_with_one_line(case: str, project: Project, grade_project: Any) -> None:
    which, content, expected = BAD_INPUTS[case]
    project.write_eval(script_grader(project, "passes", "print('fine')\n"))
    project.write_task("t1")
    project.write_results(make_results({"t1": [make_run()]}))
    target = project.eval_path if which == "eval" else project.results_path
    if content is None:
        target.unlink()
    else:
        target.write_text(content)
    _assert_usage_error(grade_project, project, expected, str(target))


def _assert_usage_error(grade_project: Any, project: Project, expected: str, where: str) -> None:
    out, summary = project.root / "out.json", project.root / "summary.md"
    result: CliResult = grade_project("--output", str(out), "--summary", str(summary))
    assert result.code == 2, result.stderr
    assert expected in result.stderr
    assert where in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""
    assert not out.exists() and not summary.exists()


BROKEN_FILES = {
    "empty": (b"", "this results file is empty (0 bytes)"),
    "gzip": (gzip.compress(b'{"tasks": []}'), "this is a gzip file (compressed), not JSON"),
    "utf-16": (codecs.BOM_UTF16_LE + '{"tasks": []}'.encode("utf-16-le"), "this file is UTF-16"),
    "utf-8 bom": (
        codecs.BOM_UTF8 + b'{"tasks": []}',
        "this results file starts with a UTF-8 byte-order mark",
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("which", ["results", "baseline"])
@pytest.mark.parametrize("case", sorted(BROKEN_FILES))
def test_a_broken_results_or_baseline_file_says_what_it_is(
    case: str, which: str, project: Project, grade_project: Any
) -> None:
    data, expected = BROKEN_FILES[case]
    project.write_eval(script_grader(project, "passes", "print('fine')\n"))
    project.write_task("t1")
    project.write_results(make_results({"t1": [make_run()]}))
    broken = project.root / "broken.json"
    broken.write_bytes(data)
    out = project.root / "out.json"
    if which == "results":
        args = ["grade", str(project.eval_path), "--results", str(broken)]
    else:
        args = [*project.grade_args(), "--baseline", str(broken), "--fail-on", "regressions"]
    result = run_cli_process([*args, "--output", str(out)], cwd=project.root)
    assert result.code == 2, result.stderr
    assert result.stderr.startswith(f"waza-ci: error: {broken}: {expected}"), result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert not out.exists()
    gate = run_cli_process(
        ["gate", "--baseline", str(broken), "--current", str(project.results_path)],
        cwd=project.root,
    )
    assert gate.code == 3, gate.stderr  # waza gate's configuration error
    assert f"waza-ci gate: error: loading baseline: {broken}: {expected}" in gate.stderr


SCRIPTS_THAT_CANNOT_START = {
    "crlf": (b"#!/bin/sh\r\nexit 0\r\n", "no such file or directory", "convert line endings to LF"),
    "no #! line": (b"echo ok\nexit 0\n", "exec format error", "add a #! line"),
}


@pytest.mark.slow
@pytest.mark.parametrize("fail_on", ["failures", "errors", "regressions"])
@pytest.mark.parametrize("case", sorted(SCRIPTS_THAT_CANNOT_START))
def test_a_grader_script_that_cannot_start_says_why(
    case: str, fail_on: str, project: Project, grade_project: Any
) -> None:
    body, errno_text, hint = SCRIPTS_THAT_CANNOT_START[case]
    script = project.root / "graders" / "check.sh"
    script.parent.mkdir()
    script.write_bytes(body)
    script.chmod(0o755)
    project.write_eval(
        "- type: program\n  name: check\n  config:\n    command: ./graders/check.sh\n"
    )
    project.write_task("t1")
    project.write_results(make_results({"t1": [make_run()]}))
    summary = project.root / "summary.md"
    baseline = ["--baseline", str(project.results_path)] if fail_on == "regressions" else []
    result = grade_project("--fail-on", fail_on, *baseline, "--summary", str(summary))
    assert result.code == 3, result.stderr
    # waza's own words stay the reason; the hint says what the script's file shows.
    assert f"fork/exec ./graders/check.sh: {errno_text}" in result.stderr
    assert f"likely fix: {hint}" in result.stderr.splitlines()[1]
    assert "check the grader's command" not in result.stderr
    assert f"**What to do:** {trusted(hint)}" in summary.read_text()


WINDOWS_PATHS = {
    # what is typed: (the arguments it changes, the exit code)
    "results": (["--results", "C:\\work\\results.json"], 2),
    "results glob": (["--results", "out\\*.json"], 2),
    "workspace": (["--workspace", "evals\\workspace"], 2),
    "working-directory": (["--working-directory", ".\\evals"], 2),
    "baseline": (["--baseline", "C:\\base\\results.json", "--fail-on", "regressions"], 1),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(WINDOWS_PATHS))
def test_a_windows_path_gets_the_slashes_as_its_fix(
    case: str, project: Project, grade_project: Any
) -> None:
    changed, code = WINDOWS_PATHS[case]
    project.write_eval(script_grader(project, "passes", "print('fine')\n"))
    project.write_task("t1")
    project.write_results(make_results({"t1": [make_run()]}))
    result = grade_project(*changed)
    assert result.code == code, result.stderr
    assert WINDOWS_PATH_HINT in result.stderr
    assert "set working-directory" not in result.stderr


@pytest.mark.slow
def test_a_windows_path_in_a_grader_or_a_tasks_glob_gets_the_slashes_as_its_fix(
    project: Project, grade_project: Any
) -> None:
    script = project.write_grader("check.py", "print('fine')\n").replace("/", "\\")
    project.write_eval(project.program_grader("check", script), tasks_glob="tasks\\*.yaml")
    project.write_task("t1")
    project.write_results(make_results({"t1": [make_run()]}))
    result = grade_project()
    assert result.code == 2, result.stderr  # no task file found: nothing to grade
    assert f"matched no file in {str(project.root)!r} ({WINDOWS_PATH_HINT})" in result.stderr
    project.write_eval(project.program_grader("check", script))
    result = grade_project()
    assert result.code == 3, result.stderr
    assert f"likely fix: {WINDOWS_PATH_HINT}" in result.stderr
    assert "set working-directory" not in result.stderr


@pytest.mark.slow
def test_set_working_directory_is_said_only_when_that_folder_has_the_grader_s_files(
    project: Project, grade_project: Any
) -> None:
    script = project.write_grader("check.py", "print('fine')\n")
    project.write_eval(project.program_grader("check", script))
    project.write_task("t1")
    project.write_results(make_results({"t1": [make_run()]}))
    (project.root / "sub").mkdir()
    wrong = grade_project("--working-directory", str(project.root / "sub"))
    assert wrong.code == 3, wrong.stderr
    # The graders are in the project folder, the current one: the hint names it.
    assert "set working-directory to '.'" in wrong.stderr
    project.write_eval(project.program_grader("check", script.replace("check", "chekc")))
    typo = grade_project()
    assert typo.code == 3, typo.stderr
    assert "set working-directory" not in typo.stderr
    assert "neither in working-directory nor in a folder above" in typo.stderr


@pytest.mark.slow
def test_unknown_config_key_names_the_yaml_line(project: Project, grade_project: Any) -> None:
    project.write_eval(
        "- type: program\n  name: g\n  config:\n    command: python3\n    shell: true\n"
    )
    project.write_task("t1")
    project.write_results(make_results({"t1": [make_run()]}))
    _assert_usage_error(
        grade_project, project, "unknown config key 'shell'", f"{project.eval_path}:9"
    )


@pytest.mark.slow
def test_empty_command_names_the_grader_and_line(project: Project, grade_project: Any) -> None:
    project.write_eval("")
    project.write_task("t1", graders="- type: program\n  name: empty\n  config:\n    command: ''\n")
    project.write_results(make_results({"t1": [make_run()]}))
    task_file = project.root / "tasks" / "t1.yaml"
    _assert_usage_error(
        grade_project, project, "program grader 'empty' must have a 'command'", f"{task_file}:7"
    )


@pytest.mark.slow
def test_unknown_task_is_exit_2(project: Project, grade_project: Any) -> None:
    project.write_eval(script_grader(project, "passes", "print('fine')\n"))
    project.write_task("t1")
    project.write_results(make_results({"t1": [make_run()]}))
    _assert_usage_error(
        grade_project_with_task(grade_project, "nope"), project, "not found in spec", "eval.yaml"
    )


def grade_project_with_task(grade_project: Any, task: str) -> Any:
    def run(*extra: str, **kwargs: Any) -> CliResult:
        result: CliResult = grade_project("--task", task, *extra, **kwargs)
        return result

    return run


@pytest.mark.slow
def test_task_missing_from_results_with_task_flag_is_exit_2(
    project: Project, grade_project: Any
) -> None:
    project.write_eval(script_grader(project, "passes", "print('fine')\n"))
    project.write_task("t1")
    project.write_task("t2")
    project.write_results(make_results({"t1": [make_run()]}))
    _assert_usage_error(
        grade_project_with_task(grade_project, "t2"),
        project,
        "not in the results file",
        str(project.results_path),
    )


@pytest.mark.slow
def test_missing_workspace_is_exit_2(project: Project, grade_project: Any) -> None:
    project.write_eval(script_grader(project, "passes", "print('fine')\n"))
    project.write_task("t1")
    project.write_results(make_results({"t1": [make_run()]}))
    shutil.rmtree(project.workspace)
    _assert_usage_error(grade_project, project, "--workspace", str(project.workspace))


# --- real waza sample files (../shared/waza-samples: a failure in CI, a skip in a plain clone) --


@pytest.mark.slow
@pytest.mark.parametrize("sample", shared_files("waza-samples", "**/*.json"))
def test_every_waza_sample_regrades(sample: Path | None, project: Project) -> None:
    require_shared("waza-samples")
    assert sample is not None
    doc = json.loads(sample.read_text())
    # The spec is of the sample's own eval: results of another eval are refused (exit 3).
    project.write_eval(
        script_grader(project, "passes", "print('fine')\n"),
        name=doc.get("eval_name") or "test eval",
        skill=doc.get("skill") or None,
    )
    for task in doc["tasks"]:
        project.write_task(task["test_id"])
    out = project.root / "out.json"
    result = run_cli_process(
        [
            "grade",
            str(project.eval_path),
            "--results",
            str(sample),
            "--workspace",
            str(project.workspace),
            "--working-directory",
            str(project.root),
            "--output",
            str(out),
        ],
        cwd=project.root,
    )
    assert result.code in (0, 1), result.stderr
    regraded = json.loads(out.read_text())
    assert len(regraded["tasks"]) == len(doc["tasks"])
    graded_runs = [r for t in regraded["tasks"] for r in t["runs"] if r["status"] != "error"]
    assert all(r["validations"]["passes"]["passed"] for r in graded_runs)
    assert regraded["summary"]["total_tests"] == len(doc["tasks"])


@pytest.mark.slow
def test_context_file_mode_survives_a_hostile_umask(project: Project, tmp_path: Path) -> None:
    record = project.root / "record.jsonl"
    project.write_eval(recorder_grader(project, "recorder", record))
    project.write_task("t1")
    project.write_results(make_results({"t1": [make_run()]}))
    old = os.umask(0)
    try:
        result = run_cli_process(project.grade_args(), cwd=project.root)
    finally:
        os.umask(old)
    assert result.code == 0, result.stderr
    (seen,) = read_records(record)
    assert (seen["dir_mode"], seen["file_mode"]) == (0o700, 0o600)
    assert stat.S_IMODE(0o700) == seen["dir_mode"]


# --- found in review: processes that escape, signals, output safety, tolerant input ----------


@pytest.mark.slow
def test_a_child_that_escaped_with_setsid_is_killed_after_grading(
    project: Project, grade_project: Any
) -> None:
    pid_file = project.root / "daemon.pid"
    source = (
        "import os, time\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    os.close(1); os.close(2)\n"
        f"    open({str(pid_file)!r}, 'w').write(str(os.getpid()))\n"
        "    time.sleep(60)\n"
        "    os._exit(0)\n"
        "time.sleep(0.3)\n"
        "print('left a daemon')\n"
    )
    project.write_eval(script_grader(project, "daemon", source))
    project.write_task("t1")
    project.write_results(make_results({"t1": [make_run()]}))
    result = grade_project()
    assert result.code == 0, result.stderr
    pid = int(pid_file.read_text())
    assert not _alive(pid), "an escaped grader child must not outlive waza-ci"


@pytest.mark.slow
def test_sigterm_kills_graders_removes_context_dirs_and_writes_nothing(
    project: Project, tmp_path: Path
) -> None:
    temp = tmp_path / "tmp"
    temp.mkdir()
    pid_file = project.root / "grader.pid"
    source = (
        f"import os, time\nopen({str(pid_file)!r}, 'w').write(str(os.getpid()))\ntime.sleep(60)\n"
    )
    project.write_eval(script_grader(project, "slow", source))
    project.write_task("t1")
    project.write_results(make_results({"t1": [make_run()]}))
    out = project.root / "out.json"
    env = {**os.environ, "PATH": FAST_PATH, "PYTHONPATH": str(ROOT), "TMPDIR": str(temp)}
    process = subprocess.Popen(
        [sys.executable, "-m", "waza_ci", *project.grade_args(), "--output", str(out)],
        cwd=project.root,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 20
    # The file exists once opened, before the pid is in it: wait for the pid itself.
    while not (pid_file.exists() and pid_file.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert pid_file.exists() and pid_file.read_text(), "the grader never started"
    started = time.monotonic()
    process.send_signal(signal.SIGTERM)
    stdout, stderr = process.communicate(timeout=20)
    assert time.monotonic() - started < 10, "waza-ci must not wait out the grader's timeout"
    assert process.returncode == 128 + signal.SIGTERM
    assert "interrupted by SIGTERM" in stderr and len(stderr.strip().splitlines()) == 1
    assert "Traceback" not in stderr and stdout == ""
    assert list(temp.iterdir()) == [], "the context directory must be removed"
    assert not out.exists()
    assert not _alive(int(pid_file.read_text()))


@pytest.mark.slow
def test_output_folder_names_stay_inside_it_and_never_overwrite_an_input(
    project: Project,
) -> None:
    project.write_eval(script_grader(project, "passes", "print('fine')\n"))
    project.write_task("t1")
    first = project.write_results(make_results({"t1": [make_run()]}))
    (project.root / "x").mkdir()
    second = project.write_results(make_results({"t1": [make_run()]}), name="x/results.json")
    before = first.read_text()
    out_dir = project.root / "regraded"
    result = run_cli_process(
        [
            "grade",
            str(project.eval_path),
            "--results",
            str(first),
            "--results",
            "x/results.json",
            "--workspace",
            str(project.workspace),
            "--output",
            str(out_dir),
        ],
        cwd=project.root,
    )
    assert result.code == 0, result.stderr
    assert first.read_text() == before and second.exists()
    assert sorted(p.relative_to(out_dir).as_posix() for p in out_dir.rglob("*.json")) == [
        "results.json",
        "x/results.json",
    ]
    assert set(result.json()["tasks"]) == {"results.json:t1", "x/results.json:t1"}


@pytest.mark.slow
@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--output", "{results}"], "would overwrite the results file"),
        (["--output", "{root}/same.md", "--summary", "{root}/same.md"], "both name"),
        (["--summary", "{results}"], "would overwrite the results file"),
    ],
)
def test_clashing_output_paths_are_usage_errors_before_grading(
    project: Project, grade_project: Any, extra: list[str], message: str
) -> None:
    record = project.root / "record.jsonl"
    project.write_eval(recorder_grader(project, "recorder", record))
    project.write_task("t1")
    project.write_results(make_results({"t1": [make_run()]}))
    before = project.results_path.read_text()
    args = [a.format(results=project.results_path, root=project.root) for a in extra]
    result = grade_project(*args)
    assert result.code == 2, result.stderr
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert not record.exists(), "no grader may run before a usage error"
    assert project.results_path.read_text() == before


@pytest.mark.slow
def test_output_must_be_a_folder_is_found_before_grading(
    project: Project, grade_project: Any
) -> None:
    record = project.root / "record.jsonl"
    project.write_eval(recorder_grader(project, "recorder", record))
    project.write_task("t1")
    project.write_results(make_results({"t1": [make_run()]}), name="a.json")
    project.write_results(make_results({"t1": [make_run()]}), name="b.json")
    taken = project.root / "taken.json"
    taken.write_text("{}")
    result = run_cli_process(
        [
            "grade",
            str(project.eval_path),
            "--results",
            str(project.root / "?.json"),
            "--workspace",
            str(project.workspace),
            "--output",
            str(taken),
        ],
        cwd=project.root,
    )
    assert result.code == 2 and "must be a folder" in result.stderr
    assert not record.exists()


@pytest.mark.slow
def test_results_are_read_as_go_reads_them(project: Project, grade_project: Any) -> None:
    record = project.root / "record.jsonl"
    project.write_eval(recorder_grader(project, "recorder", record))
    project.write_task("t1")
    doc = make_results({"t1": [make_run(1, "placeholder", error_msg=None, status=None)]})
    text = json.dumps(doc).replace('"placeholder"', '"lone \\ud800 surrogate"')
    project.results_path.write_text(text)
    out = project.root / "out.json"
    result = grade_project("--output", str(out))
    assert result.code == 0, result.stderr
    (seen,) = read_records(record)
    assert seen["stdin"] == "lone \ufffd surrogate"  # Go's decoder makes it U+FFFD
    assert "\ufffd" in out.read_text(encoding="utf-8")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            '{"tasks": [{"test_id": "t1", "runs": [{"validations": {"j": {"passed": "false"}}}]}]}',
            "$.tasks[0].runs[0].validations.j.passed",
        ),
        ('{"tasks": [{"test_id": "t1", "runs": [{"duration_ms": NaN}]}]}', "NaN"),
    ],
)
def test_values_go_would_refuse_are_input_errors(
    project: Project, grade_project: Any, content: str, message: str
) -> None:
    project.write_eval(script_grader(project, "passes", "print('fine')\n"))
    project.write_task("t1")
    project.results_path.write_text(content)
    _assert_usage_error(grade_project, project, message, str(project.results_path))


@pytest.mark.slow
def test_outcome_keys_are_sorted_and_kept_verdicts_keyed_by_their_name(
    project: Project, grade_project: Any
) -> None:
    project.write_eval(script_grader(project, "passes", "print('fine')\n"))
    project.write_task("zeta", graders="- {name: judge, type: prompt, config: {}}\n")
    project.write_task("alpha")
    saved = {
        "judge": {
            "identifier": "other-name",
            "type": "prompt",
            "score": 0.5,
            "weight": 1,
            "passed": True,
            "feedback": "",
            "duration_ms": 1,
        }
    }
    project.write_results(
        make_results({"zeta": [make_run(validations=saved)], "alpha": [make_run()]})
    )
    result = grade_project()
    assert result.code == 0, result.stderr
    outcome = result.json()
    assert list(outcome["tasks"]) == ["alpha", "zeta"]
    assert set(outcome["tasks"]["zeta"]["grader_averages"]) == {"judge", "passes"}


@pytest.mark.slow
def test_regraded_summary_drops_stale_statistics(project: Project, grade_project: Any) -> None:
    project.write_eval(script_grader(project, "fails", "import sys\nsys.exit(1)\n"))
    project.write_task("t1")
    project.write_task("t2")
    doc = make_results({"t1": [make_run(1), make_run(2)], "t2": [make_run(1), make_run(2)]})
    doc["config"]["runs_per_test"] = 2
    doc["summary"]["statistics"] = {"bootstrap_ci": {"mean": 0.99}, "is_significant": True}
    project.write_results(doc)
    out = project.root / "out.json"
    assert grade_project("--output", str(out)).code == 1
    summary = json.loads(out.read_text())["summary"]
    assert summary["statistics"]["bootstrap_ci"]["mean"] == 0
    assert "is_significant" not in summary["statistics"]


def test_usage_errors_are_one_line(project: Project) -> None:
    result = run_cli_process(["grade", "eval.yaml", "--jobs", "0"], cwd=project.root)
    assert result.code == 2
    assert result.stderr.strip().splitlines() == [
        "waza-ci grade: error: argument --jobs: must be at least 1 (see `waza-ci grade --help`)"
    ]


@pytest.mark.parametrize(
    ("flag", "value", "why"),
    [
        ("--judge-max-calls", "-1", "must be 0 or more"),
        ("--judge-jobs", "0", "must be at least 1"),
        ("--judge-max-calls", "2.5", "not a whole number: '2.5'"),
    ],
)
def test_counts_are_whole_numbers_from_their_least(
    project: Project, flag: str, value: str, why: str
) -> None:
    result = run_cli_process(["grade", "eval.yaml", flag, value], cwd=project.root)
    assert result.code == 2
    assert result.stderr.strip().splitlines() == [
        f"waza-ci grade: error: argument {flag}: {why} (see `waza-ci grade --help`)"
    ]


@pytest.mark.slow
def test_lone_surrogates_in_yaml_become_replacement_characters(
    project: Project, grade_project: Any
) -> None:
    record = project.root / "record.jsonl"
    script = project.write_grader("recorder.py", RECORDER)
    project.write_eval(
        '- type: program\n  name: "odd\\ud800name"\n  config:\n    command: python3\n'
        f'    args: [{json.dumps(script)}, {json.dumps(str(record))}, "0", "x\\udc00y"]\n'
    )
    project.write_task("t1")
    project.write_results(make_results({"t1": [make_run()]}))
    out, summary = project.root / "out.json", project.root / "summary.md"
    result = grade_project("-v", "--output", str(out), "--summary", str(summary))
    assert result.code == 0, result.stderr
    validations = json.loads(out.read_text())["tasks"][0]["runs"][0]["validations"]
    assert list(validations) == ["odd\ufffdname"]
    assert validations["odd\ufffdname"]["details"]["args"][-1] == "x\ufffdy"
    assert sorted(p.name for p in project.root.iterdir() if p.name.startswith(".")) == []


@pytest.mark.slow
def test_deeply_nested_results_are_graded(project: Project, grade_project: Any) -> None:
    project.write_eval(script_grader(project, "passes", "print('fine')\n"))
    project.write_task("t1")
    deep: Any = "bottom"
    for _ in range(900):
        deep = [deep]
    project.write_results(
        make_results({"t1": [make_run(transcript=[{"type": "x", "deep": deep}])]})
    )
    out = project.root / "out.json"
    result = grade_project("--output", str(out))
    assert result.code == 0, result.stderr
    assert "bottom" in out.read_text()
