"""Started with SIGINT, SIGQUIT and SIGHUP ignored (a background job, `nohup`): graders still
start with the dispositions waza gives them (at their defaults but SIGHUP and the job-control
signals, which Go leaves as they were), and the tests that assume default dispositions pass."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

from tests.conftest import FAST_PATH, ROOT, Project, make_results, make_run

IGNORED = (signal.SIGINT, signal.SIGQUIT, signal.SIGHUP)
SIGNAL_SENSITIVE = (
    "tests/sandbox/test_program.py::test_a_real_core_dump_is_reported",
    "tests/sandbox/test_groupguard.py::"
    "test_the_group_guard_has_its_own_session_and_ignores_signals_meant_for_waza_ci",
)


def _run_ignoring(
    args: list[str], cwd: str, ignored: tuple[int, ...] = IGNORED
) -> subprocess.CompletedProcess[str]:
    """`python ARGS` started as `trap '' <ignored>` would start it."""

    def ignore() -> None:
        for number in ignored:
            signal.signal(number, signal.SIG_IGN)

    return subprocess.run(
        [sys.executable, *args],
        cwd=cwd,
        env={**os.environ, "PATH": FAST_PATH, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        preexec_fn=ignore,  # the point of the test
    )


def test_the_signal_sensitive_tests_pass_when_the_suite_starts_ignoring_signals() -> None:
    done = _run_ignoring(
        ["-m", "pytest", "-q", "-p", "no:cacheprovider", *SIGNAL_SENSITIVE], str(ROOT)
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert " passed" in done.stdout and "failed" not in done.stdout, done.stdout


# SIGUSR1: reset like SIGQUIT; SIGTTOU: a job-control signal, left as it was.
REPORTED = (*IGNORED, signal.SIGUSR1, signal.SIGTTOU)
_REPORT_IGNORED = f"""\
import re
NUMBERS = {[(s.name.removeprefix("SIG"), int(s)) for s in REPORTED]}
status = open("/proc/self/status").read()
mask = int(re.search(r"^SigIgn:\\s*([0-9a-f]+)", status, re.M).group(1), 16)
names = [name for name, number in NUMBERS if mask >> (number - 1) & 1]
print("ignored: " + (" ".join(names) or "none"))
"""


def test_graders_of_a_waza_ci_started_ignoring_signals_get_waza_s_dispositions(
    project: Project,
) -> None:
    # Under waza (Go) a child gets every signal at its default except SIGHUP and SIGINT when
    # waza itself was started with them ignored, and the job-control signals as they were;
    # waza-ci handles SIGINT itself (as a Go program that asks for it), so its graders get
    # SIGINT at the default too.
    script = project.write_grader("ignored.py", _REPORT_IGNORED)
    project.write_eval(project.program_grader("dispositions", script))
    project.write_task("t1")
    project.write_results(make_results({"t1": [make_run()]}))
    output = project.root / "out.json"
    done = _run_ignoring(
        ["-m", "waza_ci", *project.grade_args(), "--output", str(output)],
        str(project.root),
        ignored=REPORTED,
    )
    assert done.returncode == 0, done.stderr
    verdict = json.loads(output.read_text())["tasks"][0]["runs"][0]["validations"]["dispositions"]
    assert verdict["feedback"] == "ignored: HUP TTOU"
