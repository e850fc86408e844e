"""The dependency direction of docs/architecture.md: import-linter's contracts (pyproject.toml),
run here, and what import-linter cannot see: a stage of the layers that nothing uses, who reads
the environment, starts or kills processes."""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import grimp
import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "waza_ci"
ROOT = PACKAGE.parent
OUTSIDE = "(outside)"
"""What starts the package from outside it: the console script, the action's entrypoint.py."""


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


def pyproject() -> dict[str, Any]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def layers_contract() -> dict[str, Any]:
    contracts = pyproject()["tool"]["importlinter"]["contracts"]
    (layers,) = [c for c in contracts if c["type"] == "layers"]
    return dict(layers)


def test_the_layers_name_every_top_level_module() -> None:
    # `exhaustive` makes import-linter fail on a stage missing from the layers; this keeps the
    # contract exhaustive, so a new stage is placed on purpose.
    layers = layers_contract()
    assert layers["exhaustive"] is True and layers["containers"] == ["waza_ci"]
    named = {m.strip() for layer in layers["layers"] for m in layer.split("|")}
    stages = {p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__"}
    stages |= {p.parent.name for p in PACKAGE.glob("*/__init__.py")}
    assert named == stages


def unused_stages(layers: Sequence[str], importers: Mapping[str, set[str]]) -> list[str]:
    """The stages of `layers` (top first, siblings split by `|`) that no stage above them
    imports, nor OUTSIDE: `importers` maps a stage to the stages that import it."""
    above = {OUTSIDE}
    unused = []
    for layer in layers:
        row = [stage.strip() for stage in layer.split("|")]
        unused += [stage for stage in row if not importers.get(stage, set()) & above]
        above.update(row)
    return unused


def stage_importers() -> dict[str, set[str]]:
    """Who imports each stage, from import-linter's own graph (grimp: every import statement,
    those inside functions too), and from outside the package: the console script and
    entrypoint.py."""
    importers: dict[str, set[str]] = {}
    graph = grimp.build_graph("waza_ci", cache_dir=None)
    for module in graph.modules:
        for imported in graph.find_modules_directly_imported_by(module):
            stage, target = _stage(module), _stage(imported)
            if target and target != stage:
                importers.setdefault(target, set()).add(stage)
    for script in pyproject()["project"]["scripts"].values():
        importers.setdefault(_stage(script.split(":")[0]), set()).add(OUTSIDE)
    tree = ast.parse((ROOT / "entrypoint.py").read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            importers.setdefault(_stage(node.module), set()).add(OUTSIDE)
    return importers


def _stage(module: str) -> str:
    """`waza_ci.report.model` -> `report`; the package itself -> ""."""
    return module.split(".")[1] if module.startswith("waza_ci.") else ""


def test_every_stage_of_the_layers_is_used_from_above() -> None:
    # The layers allow every import downwards, so they cannot go stale by an unused arrow as
    # the old stage table could; what can go stale is a stage: one that nothing above it (nor
    # the console script or the action) imports is dead, or is kept in the wrong layer.
    assert unused_stages(layers_contract()["layers"], stage_importers()) == []


@pytest.mark.parametrize(
    ("importers", "unused"),
    [
        ({"a": {OUTSIDE}, "b": {"a"}, "c": {"a"}, "d": {"b"}}, []),
        ({"a": {OUTSIDE}, "b": {"a"}, "d": {"c"}}, ["c"]),  # nothing imports c
        ({"b": {"a"}, "c": {"a"}, "d": {"b"}}, ["a"]),  # not started from outside
        ({"a": {OUTSIDE}, "b": {"a"}, "c": {"a"}, "d": {"d"}}, ["d"]),  # only from itself
        ({"a": {OUTSIDE}, "b": {"a", "c"}, "c": {"b"}, "d": {"b"}}, ["c"]),  # only a sibling
    ],
)
def test_an_unused_stage_is_found(importers: dict[str, set[str]], unused: list[str]) -> None:
    assert unused_stages(["a", "b | c", "d"], importers) == unused


def test_a_stage_that_became_unused_is_found_in_the_real_layers() -> None:
    importers = stage_importers()
    importers["graders"] = set()  # as if grading/ ran no grader any more
    assert unused_stages(layers_contract()["layers"], importers) == ["graders"]


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
