"""The benchmarks run with only the project installed (`pip install .`): none imports from
tests/, and every one loads in a process where the test extras cannot be imported (a benchmark
that needs Chromium reports its row as skipped instead)."""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
import tomllib

from packaging.requirements import Requirement

from tests.conftest import ROOT
from tests.report import factories

BENCHMARKS = ROOT / "benchmarks"
MODULES = sorted(path.stem for path in BENCHMARKS.glob("*.py"))

# Import names of the test extras that differ from their distribution names.
IMPORT_NAMES = {"pytest-xdist": "xdist", "types-PyYAML": None, "types-requests": None}


def extra_import_names() -> list[str]:
    with (ROOT / "pyproject.toml").open("rb") as f:
        extras = tomllib.load(f)["project"]["optional-dependencies"]["test"]
    names = [Requirement(text).name for text in extras]
    return [found for name in names if (found := IMPORT_NAMES.get(name, name.replace("-", "_")))]


def test_no_benchmark_imports_from_tests() -> None:
    for path in BENCHMARKS.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            assert not [n for n in names if n.split(".")[0] == "tests"], f"{path.name}: {names}"


def test_every_benchmark_loads_without_the_test_extras() -> None:
    # The extras are made unimportable in a fresh interpreter (sys.modules[name] = None makes
    # `import name` raise ImportError), then every benchmark module is imported.
    blocked = extra_import_names()
    assert "pytest" in blocked
    assert "playwright" in blocked
    script = (
        "import importlib, sys\n"
        f"for name in {blocked!r}:\n"
        "    sys.modules[name] = None\n"
        f"sys.path.insert(0, {str(BENCHMARKS)!r})\n"
        f"for module in {MODULES!r}:\n"
        "    importlib.import_module(module)\n"
        "print('loaded')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "loaded"


def test_a_benchmark_needing_playwright_skips_its_row_without_it() -> None:
    script = (
        "import sys\n"
        "sys.modules['playwright'] = None\n"
        f"sys.path.insert(0, {str(BENCHMARKS)!r})\n"
        "import html_report\n"
        "row = html_report.case_row('x', 1, 1, 100, 1)\n"
        "print(row.value, '|', row.baseline, '|', row.met)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "skipped | no Chromium/Playwright | None"


def test_the_report_benchmarks_time_the_summaries_the_report_tests_check() -> None:
    """benchmarks/_summaries.py restates two of the report tests' factories (a benchmark cannot
    import from tests/): they must stay equal, or the figures time something untested."""
    spec = importlib.util.spec_from_file_location("bench_summaries", BENCHMARKS / "_summaries.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert bench.huge_summary(tasks=5) == factories.huge_summary(tasks=5)
    assert bench.huge_summary(tasks=2, feedback_bytes=90) == factories.huge_summary(
        tasks=2, feedback_bytes=90
    )
    stderr = "Traceback (most recent call last):\n  boom\n"
    assert bench.one_failure_summary(stderr) == factories.one_failure_summary(stderr)
