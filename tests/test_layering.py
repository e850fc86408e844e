"""The dependency direction of README's architecture section, checked from the imports."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "waza_ci"

# module -> the waza_ci modules it may import (besides itself and the package root)
ALLOWED: dict[str, set[str]] = {
    "errors": set(),
    "files": {"errors"},
    "schema_version": set(),
    "spec_schema": set(),
    "spec": {"errors", "files", "schema_version", "spec_schema"},
    "results_schema": set(),
    "gojson": set(),
    "jsonstream": set(),
    "results": {"errors", "files", "schema_version", "results_schema", "gojson", "jsonstream"},
    "context": set(),
    "privatedir": set(),
    "cancellation": set(),
    "goexec": set(),
    "outcome": {"goexec"},
    "groupguard": set(),
    "program": {"cancellation", "goexec", "groupguard", "outcome"},
    "orphans": set(),
    "statistics": set(),
    "usage": set(),
    "scoring": {"errors", "statistics"},
    "grading": {
        "cancellation",
        "errors",
        "spec",
        "results",
        "context",
        "goexec",
        "groupguard",
        "orphans",
        "outcome",
        "privatedir",
        "program",
        "scoring",
    },
    "shard": {"errors", "spec", "results", "grading", "scoring"},
    "merge": {"errors", "grading", "results", "scoring", "shard", "spec"},
    "engine": {
        "errors",
        "files",
        "spec",
        "results",
        "grading",
        "scoring",
        "usage",
        "shard",
        "merge",
    },
    "outputs": {"errors", "files"},
    "report._text": set(),
    "report.reasons": {"scoring", "report._text"},
    "report.model": {"scoring"},
    "report.build": {"errors", "report._text", "report.model", "report.reasons", "scoring"},
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
    "gate.waza_gate": {"errors", "results"},
    "gate.baseline": {"gate.waza_gate", "scoring", "statistics"},
    "gate.baseline_io": {"gate.baseline", "errors", "gate.waza_gate", "results", "scoring"},
    "report.regressions": {
        "gate.baseline",
        "report._text",
        "report.gate",
        "report.markdown",
        "report.model",
        "report.screen",
        "scoring",
    },
    "report.gate": {"gate.waza_gate", "report._text", "report.markdown"},
    "report.comment": {
        "gate.baseline",
        "report._text",
        "report.markdown",
        "report.regressions",
        "scoring",
    },
    "gate.pr_comment": {
        "gate.baseline",
        "gate.step",
        "github.http",
        "github.runner",
        "github.comments",
        "report.comment",
        "scoring",
    },
    "gate.step": {"gate.baseline", "gate.baseline_io", "errors", "gate.waza_gate", "scoring"},
    "gate.cli": {"errors", "gate.waza_gate", "github.runner", "report.gate", "results"},
    "github.runner": {"errors", "files"},
    "github.retry": set(),
    "github.http": {"github.retry"},
    "github.checks": {"report.annotations", "github.http"},
    "github.comments": {"github.http"},
    "cli": {
        "gate.cli",
        "gate.waza_gate",
        "gate.baseline",
        "gate.baseline_io",
        "report.regressions",
        "engine",
        "shard",
        "errors",
        "files",
        "grading",
        "outputs",
        "report._text",
        "report.markdown",
        "report.build",
        "report.model",
        "report.text",
        "results",
        "scoring",
    },
    "action_settings": {"errors", "files", "gate.step", "github.runner", "report.screen", "shard"},
    "action_publish": {
        "action_settings",
        "gate.baseline",
        "gate.baseline_io",
        "errors",
        "gate.step",
        "github.checks",
        "github.http",
        "github.runner",
        "outputs",
        "gate.pr_comment",
        "report._text",
        "report.annotations",
        "report.markdown",
        "report.build",
        "report.model",
        "report.regressions",
        "results",
        "scoring",
        "shard",
    },
    "action": {
        "action_settings",
        "action_publish",
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
        "results",
        "github.runner",
    },
    "__main__": {"cli", "signals"},
    "signals": set(),
    "isolation": set(),
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
        if name in ("", "report", "github"):
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
    assert readers == {"cli", "isolation"}  # the action gets its environment as a mapping


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
    assert starters == {"program", "groupguard"}
    assert killers == {"program", "orphans"}
