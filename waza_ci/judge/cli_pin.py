"""The Copilot CLI this release is built and tested with: read from copilot-cli.env, the one pin
(the image's build stage and .ci/copilot-cli.sh fetch that package and check its sha512)."""

from __future__ import annotations

import platform
from dataclasses import dataclass
from importlib import resources


@dataclass(frozen=True)
class CliPin:
    package: str
    """npm's platform package, e.g. `@github/copilot-linux-x64`."""
    version: str
    integrity: str
    """The tarball's `sha512-…`, as npm writes it."""

    @property
    def install_hint(self) -> str:
        return (
            f"npm install {self.package}@{self.version}; the binary is "
            f"node_modules/{self.package}/copilot"
        )


_MACHINES = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "aarch64", "arm64": "aarch64"}


def parse_pin(text: str, machine: str) -> CliPin | None:
    """The pin for this machine (`uname -m`), or None when there is none."""
    fields: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and not key.startswith("#"):
            fields[key.strip()] = value.strip()
    package, _, integrity = fields.get(_MACHINES.get(machine.lower(), ""), "").partition(" ")
    version = fields.get("version", "")
    if not (package and integrity and version):
        return None
    return CliPin(package, version, integrity)


def cli_pin() -> CliPin | None:
    text = resources.files(__package__).joinpath("copilot-cli.env").read_text(encoding="utf-8")
    return parse_pin(text, platform.machine())
