"""The dependency direction of docs/architecture.md, checked from the imports."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "waza_ci"

# Each stage (a folder, or a top-level module) and the stages it may import. The arrows point
# one way: shells (cli, action, __main__) -> engine -> stages -> waza, sandbox, errors, and
# below them all golang (Go as waza sees it), a leaf.
SHELLS = {"cli", "action", "__main__"}
STAGE_IMPORTS: dict[str, set[str]] = {
    "golang": set(),
    "errors": set(),
    "collector": set(),
    "policy": set(),
    "files": {"errors"},
    "waza": {"errors", "files", "golang"},
    "sandbox": {"golang"},
    "outputs": {"errors", "files"},
    "graders": {"errors", "golang", "waza", "sandbox"},
    "judge": {"errors", "golang", "waza"},
    "grading": {"errors", "graders", "judge", "sandbox", "waza"},
    "shard": {"errors", "grading", "waza"},
    "gate": {"errors", "files", "waza"},
    "report": {"errors", "gate", "golang", "judge", "policy", "sandbox", "waza"},
    "github": {"errors", "files", "report"},
    "publish": {"errors", "github", "outputs", "report"},
    "engine": {
        "collector",
        "errors",
        "files",
        "gate",
        "github",
        "grading",
        "judge",
        "outputs",
        "policy",
        "publish",
        "report",
        "sandbox",
        "shard",
        "waza",
    },
    "cli": {
        "engine",
        "errors",
        "files",
        "gate",
        "github",
        "golang",
        "grading",
        "judge",
        "policy",
        "report",
        "sandbox",
        "shard",
        "waza",
    },
    "action": {
        "engine",
        "errors",
        "files",
        "gate",
        "github",
        "judge",
        "policy",
        "publish",
        "report",
        "sandbox",
        "shard",
    },
    "__main__": {"cli", "collector", "sandbox"},
}


def stage_of(module: str) -> str:
    return module.split(".", maxsplit=1)[0]


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
    return {name for name in found if name and name != "__version__"}


def test_every_stage_imports_only_the_stages_below_it() -> None:
    problems = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = module_name(path)
        if name == "":
            continue
        stage = stage_of(name)
        assert stage in STAGE_IMPORTS, f"{stage} is not in the layering table; add it on purpose"
        used = {stage_of(module) for module in imported_modules(path)} - {stage, ""}
        if extra := used - STAGE_IMPORTS[stage]:
            problems.append(f"{name} imports {sorted(extra)}")
    assert problems == []


def test_golang_is_a_leaf() -> None:
    # Go as waza sees it is written once, below every stage: it may use no other part of
    # waza_ci, or a stage's knowledge would leak into the one place the others share.
    assert STAGE_IMPORTS["golang"] == set()
    for path in sorted((PACKAGE / "golang").glob("*.py")):
        assert {m for m in imported_modules(path) if stage_of(m) != "golang"} == set(), path.name


def test_the_layering_table_has_no_cycle_and_nothing_imports_a_shell() -> None:
    # Depth-first over the table itself: an edit that lets two stages import each other fails.
    done: set[str] = set()

    def visit(stage: str, path: tuple[str, ...]) -> None:
        assert stage not in path, f"cycle: {' -> '.join((*path, stage))}"
        if stage in done:
            return
        for below in STAGE_IMPORTS[stage]:
            visit(below, (*path, stage))
        done.add(stage)

    for stage in STAGE_IMPORTS:
        visit(stage, ())
    importers_of_shells = {s for s, below in STAGE_IMPORTS.items() if below & SHELLS}
    assert importers_of_shells <= {"__main__"}
    assert {s for s, below in STAGE_IMPORTS.items() if "engine" in below} <= SHELLS


def test_the_table_is_tight() -> None:
    """Every arrow the table allows is used, so the table stays a true picture of the code."""
    used: dict[str, set[str]] = {stage: set() for stage in STAGE_IMPORTS}
    for path in PACKAGE.rglob("*.py"):
        name = module_name(path)
        if name:
            stage = stage_of(name)
            used[stage] |= {stage_of(m) for m in imported_modules(path)} - {stage, ""}
    assert used == STAGE_IMPORTS


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
