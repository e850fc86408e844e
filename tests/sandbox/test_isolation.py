"""The entrypoint's first step: secrets leave the process's own /proc/<pid>/environ.

Real processes: each test starts a Python script that calls `scrubbed_environment()` the way
entrypoint.py does and reports what it sees, and how many times it was started.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SECRET = "s3cret-token-value"

# `first_setenv`: replace the secret through the C library before scrubbing, so its entry no
# longer lives in the initial environment block (which still holds the old one).
SCRIPT = """\
import ctypes, json, os, sys
sys.path.insert(0, {root!r})
with open({starts!r}, "a") as log:
    log.write("start\\n")
if {first_setenv!r} and "WAZA_CI_SECRETS_FD" not in os.environ:
    ctypes.CDLL(None).setenv(b"INPUT_GITHUB-TOKEN", {secret!r}.encode(), 1)
from waza_ci.sandbox.isolation import scrubbed_environment
env = scrubbed_environment()
block = open("/proc/self/environ", "rb").read().decode(errors="replace")
print(json.dumps({{"env": env, "block": block, "os_environ": dict(os.environ)}}))
"""


def run_script(tmp_path: Path, *, first_setenv: bool) -> tuple[dict[str, object], int]:
    starts = tmp_path / "starts.log"
    script = tmp_path / "probe.py"
    script.write_text(
        SCRIPT.format(root=str(ROOT), starts=str(starts), first_setenv=first_setenv, secret=SECRET)
    )
    env = {
        "PATH": os.environ.get("PATH", ""),
        "INPUT_GITHUB-TOKEN": SECRET,
        "GITHUB_TOKEN": SECRET + "-runner",
        "INPUT_EVAL": "eval.yaml",
        "KEPT": "visible",
    }
    done = subprocess.run(
        [sys.executable, str(script)], env=env, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout), len(starts.read_text().splitlines())


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs Linux /proc")
def test_secrets_are_scrubbed_in_place_with_one_interpreter_start(tmp_path: Path) -> None:
    seen, starts = run_script(tmp_path, first_setenv=False)
    assert starts == 1, "no re-execution when the block can be scrubbed in place"
    assert SECRET not in str(seen["block"]) and "INPUT_" not in str(seen["block"])
    assert "KEPT=visible" in str(seen["block"])
    env = seen["env"]
    assert isinstance(env, dict)
    assert env["INPUT_GITHUB-TOKEN"] == SECRET and env["GITHUB_TOKEN"] == SECRET + "-runner"
    assert env["INPUT_EVAL"] == "eval.yaml" and env["KEPT"] == "visible"
    inherited = seen["os_environ"]
    assert isinstance(inherited, dict)
    assert not [name for name in inherited if "TOKEN" in name or "INPUT_" in name]


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "memfd_create"), reason="the fallback needs memfd_create")
def test_an_entry_outside_the_block_falls_back_to_re_execution(tmp_path: Path) -> None:
    seen, starts = run_script(tmp_path, first_setenv=True)
    assert starts == 2, "the in-place scrub could not be verified, so the script re-executed"
    assert SECRET not in str(seen["block"]) and "INPUT_" not in str(seen["block"])
    env = seen["env"]
    assert isinstance(env, dict)
    assert env["INPUT_GITHUB-TOKEN"] == SECRET and env["KEPT"] == "visible"
    assert "WAZA_CI_SECRETS_FD" not in env
