"""The dependency direction of README's architecture section, checked from the imports."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "waza_ci"

# module -> the waza_ci modules it may import (besides itself and the package root)
ALLOWED: dict[str, set[str]] = {
    "errors": set(),
    "files": {"errors"},
    "waza.schema_version": set(),
    "waza.spec_schema": set(),
    "waza.spec": {"errors", "files", "waza.schema_version", "waza.spec_schema"},
    "waza.results_schema": set(),
    "waza.gojson": set(),
    "waza.jsonstream": set(),
    "waza.results": {
        "errors",
        "files",
        "waza.schema_version",
        "waza.results_schema",
        "waza.gojson",
        "waza.jsonstream",
    },
    "waza.context": set(),
    "sandbox.privatedir": set(),
    "sandbox.cancellation": set(),
    "sandbox.goexec": set(),
    "sandbox.outcome": {"sandbox.goexec"},
    "sandbox.groupguard": set(),
    "sandbox.program": {
        "sandbox.cancellation",
        "sandbox.goexec",
        "sandbox.groupguard",
        "sandbox.outcome",
    },
    "sandbox.orphans": set(),
    "waza.statistics": set(),
    "waza.usage": set(),
    "waza.scoring": {"errors", "waza.statistics"},
    "grading": {
        "sandbox.cancellation",
        "errors",
        "waza.spec",
        "waza.results",
        "waza.context",
        "sandbox.goexec",
        "sandbox.groupguard",
        "sandbox.orphans",
        "sandbox.outcome",
        "sandbox.privatedir",
        "sandbox.program",
        "waza.scoring",
    },
    "shard.plan": {"errors", "waza.spec", "waza.results", "grading", "waza.scoring"},
    "shard.merge": {"errors", "grading", "waza.results", "waza.scoring", "shard.plan", "waza.spec"},
    "engine": {
        "errors",
        "files",
        "waza.spec",
        "waza.results",
        "grading",
        "waza.scoring",
        "waza.usage",
        "shard.plan",
        "shard.merge",
    },
    "outputs": {"errors", "files"},
    "report._text": set(),
    "report.reasons": {"waza.scoring", "report._text"},
    "report.model": {"waza.scoring"},
    "report.build": {"errors", "report._text", "report.model", "report.reasons", "waza.scoring"},
    "report.md": {"report._text"},
    "report.screen": {"report._text", "report.md", "report.model", "report.reasons"},
    "report.details": {
        "report._text",
        "report.md",
        "report.model",
        "report.reasons",
        "report.screen",
    },
    "report.markdown": {
        "report._text",
        "report.details",
        "report.md",
        "report.model",
        "report.screen",
    },
    "report.text": {"report._text", "report.model", "report.screen"},
    "report.annotations": {"report._text", "report.build", "report.model"},
    "gate": set(),
    "gate.waza_gate": {"errors", "waza.results"},
    "gate.baseline": {"gate.waza_gate", "waza.scoring", "waza.statistics"},
    "gate.baseline_io": {
        "gate.baseline",
        "errors",
        "gate.waza_gate",
        "waza.results",
        "waza.scoring",
    },
    "report.regressions": {
        "gate.baseline",
        "report._text",
        "report.gate",
        "report.markdown",
        "report.model",
        "report.screen",
        "waza.scoring",
    },
    "report.gate": {"gate.waza_gate", "report._text", "report.markdown"},
    "report.comment": {
        "gate.baseline",
        "report._text",
        "report.markdown",
        "report.regressions",
        "waza.scoring",
    },
    "publish.comment": {
        "gate.baseline",
        "gate.step",
        "github.http",
        "github.runner",
        "github.comments",
        "report.comment",
        "waza.scoring",
    },
    "gate.step": {"gate.baseline", "gate.baseline_io", "errors", "gate.waza_gate", "waza.scoring"},
    "cli.gate": {"errors", "gate.waza_gate", "github.runner", "report.gate", "waza.results"},
    "github.runner": {"errors", "files"},
    "github.retry": set(),
    "github.http": {"github.retry"},
    "github.checks": {"report.annotations", "github.http"},
    "github.comments": {"github.http"},
    "cli.main": {
        "cli.gate",
        "gate.waza_gate",
        "gate.baseline",
        "gate.baseline_io",
        "report.regressions",
        "engine",
        "shard.plan",
        "errors",
        "files",
        "grading",
        "outputs",
        "report._text",
        "report.markdown",
        "report.build",
        "report.model",
        "report.text",
        "waza.results",
        "waza.scoring",
    },
    "action.settings": {
        "errors",
        "files",
        "gate.step",
        "github.runner",
        "report.screen",
        "shard.plan",
    },
    "publish.step": {
        "action.settings",
        "gate.baseline",
        "gate.baseline_io",
        "errors",
        "gate.step",
        "github.checks",
        "github.http",
        "github.runner",
        "outputs",
        "publish.comment",
        "report._text",
        "report.annotations",
        "report.markdown",
        "report.build",
        "report.model",
        "report.regressions",
        "waza.results",
        "waza.scoring",
        "shard.plan",
    },
    "action.main": {
        "action.settings",
        "publish.step",
        "gate.baseline_io",
        "gate.step",
        "engine",
        "errors",
        "grading",
        "outputs",
        "report._text",
        "report.annotations",
        "report.build",
        "report.model",
        "report.text",
        "waza.results",
        "github.runner",
    },
    "__main__": {"cli.main", "sandbox.signals"},
    "sandbox.signals": set(),
    "sandbox.isolation": set(),
}


def module_name(path: Path) -> str:
    relative = path.relative_to(PACKAGE).with_suffix("")
    parts = [p for p in relative.parts if p != "__init__"]
    return ".".join(parts)


def imported_modules(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("waza_ci"):
            found.add(node.module.removeprefix("waza_ci").removeprefix("."))
        elif isinstance(node, ast.Import):
            found.update(
                alias.name.removeprefix("waza_ci.")
                for alias in node.names
                if alias.name.startswith("waza_ci.")
            )
    return {name for name in found if name}


def test_every_module_imports_only_what_the_layering_allows() -> None:
    problems = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = module_name(path)
        if name in (
            "",
            "report",
            "github",
            "waza",
            "sandbox",
            "shard",
            "cli",
            "publish",
            "action",
            "gate",
        ):
            continue
        assert name in ALLOWED, f"{name} is not in the layering table; add it on purpose"
        extra = imported_modules(path) - ALLOWED[name] - {name}
        if extra:
            problems.append(f"{name} imports {sorted(extra)}")
    assert problems == []


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


def test_only_program_and_the_watchman_start_processes() -> None:
    # groupguard.py starts one process, the watchman; the kills it does are in the watchman.
    starters, killers = set(), set()
    for path in PACKAGE.rglob("*.py"):
        used = os_calls(path)
        if used & (_STARTS_PROCESSES | {"subprocess"}):
            starters.add(module_name(path))
        if used & _KILLS_PROCESSES:
            killers.add(module_name(path))
    assert starters == {"sandbox.program", "sandbox.groupguard"}
    assert killers == {"sandbox.program", "sandbox.orphans"}
