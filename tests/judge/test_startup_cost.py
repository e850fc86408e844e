"""The SDK is a dependency of every install (and in the action's image), but a grading that
does not judge must not pay for it: neither the SDK nor its HTTP client is imported."""

from __future__ import annotations

import importlib.util

import pytest

from tests.conftest import DEMO, run_cli_process

pytestmark = pytest.mark.slow

SDK_MODULES = ("copilot", "httpx", "anyio", "dateutil")


def imported(importtime_log: str) -> set[str]:
    """The top-level packages `python -X importtime` says were imported."""
    names = set()
    for line in importtime_log.splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip().split(".")[0])
    return names


@pytest.mark.parametrize("judge", [[], ["--judge", "keep"]], ids=["default", "keep"])
def test_a_grading_without_the_judge_imports_nothing_of_the_sdk(judge: list[str]) -> None:
    assert importlib.util.find_spec("copilot") is not None, "the SDK is a dependency"
    done = run_cli_process(
        ["grade", "eval.yaml", "--results", "results.json", "--workspace", "workspace", *judge],
        cwd=DEMO,
        env={"PYTHONPROFILEIMPORTTIME": "1"},
    )
    assert done.code == 1, done.stderr
    modules = imported(done.stderr)
    assert "waza_ci" in modules and "pydantic" in modules  # the log is the whole start-up
    assert not modules & set(SDK_MODULES), sorted(modules & set(SDK_MODULES))
