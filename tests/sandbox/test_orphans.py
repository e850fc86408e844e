"""The census of this process's children that grading takes before and after the graders."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from waza_ci.sandbox import orphans

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").is_file(), reason="needs Linux /proc")

# Run in a fresh interpreter: the test runner itself may have children (the group guard).
_CENSUS = """\
import subprocess, sys
from waza_ci.sandbox import orphans
scans = []
real = orphans._child_pids
orphans._child_pids = lambda: scans.append(1) or real()
alone = orphans.child_pids()
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
try:
    print(sorted(alone), len(scans), sorted(orphans.child_pids()) == [child.pid], len(scans))
finally:
    child.kill()
    child.wait()
"""


def test_a_process_without_children_is_counted_without_reading_the_process_table() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _CENSUS], capture_output=True, text=True, check=True
    )
    # No child: an empty census and no scan; one child: found by the scan, which ran once.
    assert done.stdout.split() == ["[]", "0", "True", "1"]


def test_the_census_finds_a_running_child_and_reaps_nothing() -> None:
    running = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert running.pid in orphans.child_pids()
        assert running.poll() is None
    finally:
        running.kill()
        running.wait()
