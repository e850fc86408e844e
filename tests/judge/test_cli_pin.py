"""The Copilot CLI is pinned once (waza_ci/judge/copilot-cli.env): the product names it when no
CLI is found, and .ci/copilot-cli.sh (CI's tests and the image's build stage) fetches it."""

from __future__ import annotations

import re

import pytest

from tests.conftest import ROOT
from waza_ci.judge.cli_pin import cli_pin, parse_pin

PIN = (ROOT / "waza_ci" / "judge" / "copilot-cli.env").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("machine", "package"),
    [
        ("x86_64", "@github/copilot-linux-x64"),
        ("AMD64", "@github/copilot-linux-x64"),
        ("aarch64", "@github/copilot-linux-arm64"),
        ("arm64", "@github/copilot-linux-arm64"),
    ],
)
def test_each_machine_gets_its_platform_package_with_a_sha512(machine: str, package: str) -> None:
    pin = parse_pin(PIN, machine)
    assert pin is not None and pin.package == package
    assert re.fullmatch(r"\d+\.\d+\.\d+", pin.version)
    assert re.fullmatch(r"sha512-[A-Za-z0-9+/]{86}==", pin.integrity)
    assert f"npm install {package}@{pin.version}" in pin.install_hint


def test_an_unknown_machine_or_a_broken_pin_has_none() -> None:
    assert parse_pin(PIN, "riscv64") is None
    assert parse_pin("x86_64=@github/copilot-linux-x64 sha512-x\n", "x86_64") is None


def test_the_installed_package_reads_the_same_pin() -> None:
    assert cli_pin() is not None


def test_the_fetch_script_reads_the_pin_and_repeats_no_version() -> None:
    script = (ROOT / ".ci" / "copilot-cli.sh").read_text(encoding="utf-8")
    assert "waza_ci/judge/copilot-cli.env" in script
    assert not re.search(r"\d+\.\d+\.\d+|sha512-[A-Za-z0-9+/]", script)
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert "COPY waza_ci/judge/copilot-cli.env" in dockerfile
    assert "/build/.ci/copilot-cli.sh" in dockerfile
