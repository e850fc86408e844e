"""Both entry points turn the cyclic collector off before the engine is imported:
the process grades once and ends with `os._exit`, so a collection only walks what importing
and loading made (10 ms of a grading's start). `tests/grading/test_collector.py` covers the
pause that library callers of the engine get instead."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT

# Each script starts an entry point in a fresh interpreter and reports, as the process ends,
# whether the collector was running and whether the heavy modules (the CLI's engine, the
# action's shell) had been imported by then.
CLI = """
import gc, sys
import waza_ci.__main__ as entry
def report(code):
    print(gc.isenabled(), "waza_ci.engine" in sys.modules, code)
    sys.stdout.flush()
    raise SystemExit(0)
entry.end_process = report
sys.argv = ["waza-ci", "grade", "no-such-eval.yaml", "--results", "no-such-results.json"]
entry.main()
"""
ACTION = """
import gc, sys
sys.path.insert(0, sys.argv[1])
import entrypoint
code = entrypoint.main()
print(gc.isenabled(), "waza_ci.action.main" in sys.modules, code)
"""


@pytest.mark.parametrize(("script", "args"), [(CLI, []), (ACTION, [str(ROOT)])])
def test_the_entry_points_grade_with_the_collector_off(script: str, args: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-c", script, *args],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        # This machine's PATH and nothing else: no INPUT_*, so the action stops at its first input.
        env={"PATH": os.environ.get("PATH", os.defpath)},
    )
    # The last line: the action writes its workflow commands (the error) to stdout first.
    collecting, heavy_loaded, code = done.stdout.splitlines()[-1].split()
    assert (collecting, heavy_loaded) == ("False", "True"), done.stderr
    assert code == "2"  # a usage error, after the heavy modules were imported
