"""The judge's real parts: the Copilot CLI binary (`.ci/copilot-cli.sh` installs it; CI always
has it) and the fake model on loopback."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.judge.fake_model import FakeModel

ROOT = Path(__file__).resolve().parents[2]
INSTALLED = ROOT / ".ci" / ".npm" / "copilot-cli" / "copilot"


def cli_binary() -> str:
    """COPILOT_CLI_PATH, else the one `.ci/copilot-cli.sh` installed. Missing: a failure under
    CI (which installs it), a skip saying how to install it elsewhere."""
    named = os.environ.get("COPILOT_CLI_PATH", "")
    path = Path(named) if named else INSTALLED
    if path.is_file():
        return str(path)
    why = f"no Copilot CLI at {path}: run `bash .ci/copilot-cli.sh`"
    if os.environ.get("CI"):
        pytest.fail(why)
    pytest.skip(why)


@pytest.fixture
def copilot_cli() -> str:
    return cli_binary()


@pytest.fixture
def model() -> Iterator[FakeModel]:
    fake = FakeModel()
    yield fake
    fake.close()
