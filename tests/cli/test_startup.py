"""`waza-ci grade --help` (and `--version`, a usage error's start) loads what the parser needs
and nothing more: the gate's maths, the log's escaping and the engine load once a command is
parsed (`python benchmarks/import_time.py` measures what this keeps)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import ROOT

# A fresh interpreter imports the command, prints `grade --help` and lists what it imported.
HELP = """
import contextlib, io, sys
from waza_ci.cli.main import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
    main(["grade", "--help"])
print(" ".join(sorted(sys.modules)))
"""

NOT_AT_START = (
    "waza_ci.engine",
    "pydantic",
    "waza_ci.cli.gate",  # the gate command: its maths and the eval identity
    "waza_ci.gate.waza_gate",
    "waza_ci.waza.identity",
    "waza_ci.golang.strconv",  # `--golden-must-pass=false` only
    "waza_ci.report.text_safety",  # its patterns compile in milliseconds; a usage error only
    "waza_ci.sandbox.capture",
    "difflib",  # errors.py: a name not found only
    "signal",  # errors.py: an interruption only
)


@pytest.fixture(scope="module")
def help_modules() -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", HELP],
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    return set(done.stdout.split())


def test_the_help_loads_the_parser(help_modules: set[str]) -> None:
    assert {"argparse", "waza_ci.cli.arguments", "waza_ci.policy"} <= help_modules


@pytest.mark.parametrize("module", NOT_AT_START)
def test_the_help_loads_nothing_a_parsed_command_needs(help_modules: set[str], module: str) -> None:
    assert module not in help_modules
