"""The dependency direction of docs/architecture.md: import-linter's contracts (pyproject.toml),
run here, and what import-linter cannot see: who reads the environment, starts or kills
processes."""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "waza_ci"
ROOT = PACKAGE.parent


def module_name(path: Path) -> str:
    relative = path.relative_to(PACKAGE).with_suffix("")
    parts = [p for p in relative.parts if p != "__init__"]
    return ".".join(parts)


def test_the_import_contracts_are_kept() -> None:
    # The stages' order, the leaves, and no import circle anywhere are import-linter's
    # contracts ([tool.importlinter] in pyproject.toml); this runs them in the quick loop.
    lint_imports = Path(sys.executable).parent / "lint-imports"
    assert lint_imports.exists(), "install the test extras: pip install -e '.[test]'"
    done = subprocess.run(
        [str(lint_imports), "--no-cache"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


def test_the_layers_name_every_top_level_module() -> None:
    # `exhaustive` makes import-linter fail on a stage missing from the layers; this keeps the
    # contract exhaustive, so a new stage is placed on purpose.
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (layers,) = [c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers"]
    assert layers["exhaustive"] is True and layers["containers"] == ["waza_ci"]
    named = {m.strip() for layer in layers["layers"] for m in layer.split("|")}
    stages = {p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__"}
    stages |= {p.parent.name for p in PACKAGE.glob("*/__init__.py")}
    assert named == stages


def reads_environment(path: Path) -> bool:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "os"
            and node.attr in ("environ", "getenv", "environb")
        ):
            return True
    return False


def test_only_the_shells_read_the_process_environment() -> None:
    readers = {module_name(path) for path in PACKAGE.rglob("*.py") if reads_environment(path)}
    assert readers == {
        "cli.main",
        "sandbox.isolation",
    }  # the action gets its environment as a mapping


_STARTS_PROCESSES = {
    "fork",
    "forkpty",
    "popen",
    "posix_spawn",
    "posix_spawnp",
    "spawnl",
    "spawnle",
    "spawnlp",
    "spawnlpe",
    "spawnv",
    "spawnve",
    "spawnvp",
    "spawnvpe",
    "system",
}
_KILLS_PROCESSES = {"kill", "killpg", "pidfd_send_signal"}


def os_calls(path: Path) -> set[str]:
    """The names this module uses from `os`, plus "subprocess" when it imports that module."""
    used: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if node.value.id == "os":
                used.add(node.attr)
        elif isinstance(node, ast.Import) and any(a.name == "subprocess" for a in node.names):
            used.add("subprocess")
        elif isinstance(node, ast.ImportFrom) and node.module in ("subprocess", "os"):
            used.update(alias.name for alias in node.names)
            if node.module == "subprocess":
                used.add("subprocess")
    return used


def test_only_program_and_the_group_guard_start_processes() -> None:
    # groupguard.py starts one process, the group guard; the kills it does are in the group guard.
    starters, killers = set(), set()
    for path in PACKAGE.rglob("*.py"):
        used = os_calls(path)
        if used & (_STARTS_PROCESSES | {"subprocess"}):
            starters.add(module_name(path))
        if used & _KILLS_PROCESSES:
            killers.add(module_name(path))
    assert starters == {"sandbox.program", "sandbox.groupguard"}
    assert killers == {"sandbox.program", "sandbox.orphans"}
