"""Shared factories: a throwaway eval project on disk, and the CLI run as a real subprocess."""

from __future__ import annotations

import contextlib
import json
import os
import re
import resource
import signal
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from waza_ci.sandbox.signals import unignore_for_children

# This process starts programs as waza-ci does: what its parent ignored (a background job,
# `nohup`) is not passed on to them as ignored (see waza_ci/sandbox/signals.py).
unignore_for_children()

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "examples" / "demo"
CORPUS_VARIABLE = "WAZA_CI_CORPUS"
"""Names the folder of real waza material the corpus tests read (`waza-samples/`, real waza
files; `waza-wild/`, what waza users commit), never copied into the repository: a path, relative
to the repository root or absolute (`.ci/run` sets `../shared` and requires it), or `none` to
run without it (GitHub's runner, the unprivileged pass). See `require_shared`."""


def corpus_setting() -> str:
    return os.environ.get(CORPUS_VARIABLE, "").strip()


def corpus_wanted() -> bool:
    """Whether `WAZA_CI_CORPUS` names a corpus folder (rather than being unset or `none`)."""
    return corpus_setting() not in ("", "none")


def corpus_root() -> Path:
    """The folder `WAZA_CI_CORPUS` names (where it conventionally sits when it names none)."""
    return ROOT / (corpus_setting() if corpus_wanted() else "../shared")


SHARED = corpus_root()
# The test interpreter's folder first: graders run `python3`, and a version manager's shim
# on PATH (pyenv) would add a fraction of a second to every grader start.
FAST_PATH = os.pathsep.join((str(Path(sys.executable).parent), os.environ.get("PATH", "")))


def require_shared(name: str) -> Path:
    """`<corpus>/<name>`, or the test stops saying why: skipped when `WAZA_CI_CORPUS` is unset
    or `none`; failed when it names a folder that lacks `name`, so a run that asked for the
    corpus (`.ci/run`) can never skip these tests silently."""
    folder = corpus_root() / name
    if not corpus_wanted():
        how = "is not set" if not corpus_setting() else "is none"
        pytest.skip(
            f"{CORPUS_VARIABLE} {how}: the tests of the shared waza corpus ({name}) need it "
            f"(e.g. {CORPUS_VARIABLE}=../shared, as .ci/run sets it)"
        )
    if not folder.is_dir():
        pytest.fail(f"{CORPUS_VARIABLE}={corpus_setting()}, but {folder} is not a folder")
    return folder


def shared_files(name: str, pattern: str) -> list[Any]:
    """Parameters for a test over the corpus's `<name>` files matching `pattern`, by relative
    path; one placeholder (None) when there is none to list, so the test still runs and
    `require_shared` decides between failing and skipping."""
    folder = corpus_root() / name
    if not corpus_wanted() or not folder.is_dir():
        return [pytest.param(None, id=f"{name}-missing")]
    return [
        pytest.param(path, id=path.relative_to(folder).as_posix())
        for path in sorted(folder.glob(pattern))
    ]


def make_run(
    run_number: int = 1, final_output: str = "the answer", **fields: Any
) -> dict[str, Any]:
    run: dict[str, Any] = {
        "run_number": run_number,
        "attempts": 1,
        "status": "passed",
        "duration_ms": 1000 + run_number,
        "validations": {},
        "session_digest": {"tool_call_count": 0, "tools_used": [], "errors": []},
        "final_output": final_output,
    }
    run.update(fields)
    return run


def make_results(tasks: Mapping[str, Sequence[dict[str, Any]]], **fields: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "schemaVersion": "1.4",
        "eval_id": "run-1",
        "skill": "demo",
        "eval_name": "test eval",
        "timestamp": "2026-01-01T00:00:00Z",
        "config": {"runs_per_test": 1, "model_id": "m", "engine_type": "mock", "timeout_sec": 30},
        "summary": {"total_tests": len(tasks), "duration_ms": 5000},
        "metrics": {},
        "tasks": [
            {"test_id": task_id, "display_name": task_id, "status": "passed", "runs": list(runs)}
            for task_id, runs in tasks.items()
        ],
    }
    doc.update(fields)
    return doc


@dataclass
class Project:
    """An eval project in a temp folder: eval.yaml, tasks/, graders/, results.json, workspace/."""

    root: Path
    graders: dict[str, str] = field(default_factory=dict)

    @property
    def eval_path(self) -> Path:
        return self.root / "eval.yaml"

    @property
    def results_path(self) -> Path:
        return self.root / "results.json"

    @property
    def workspace(self) -> Path:
        return self.root / "workspace"

    def write_eval(
        self,
        global_graders: str = "",
        tasks_glob: str = "tasks/*.yaml",
        *,
        name: str = "test eval",
        skill: str | None = None,
    ) -> None:
        body = f"name: {json.dumps(name)}\n"
        if skill is not None:
            body += f"skill: {json.dumps(skill)}\n"
        body += f"tasks:\n  - {json.dumps(tasks_glob)}\n"
        if global_graders:
            body += "graders:\n" + textwrap.indent(textwrap.dedent(global_graders), "  ")
        self.eval_path.write_text(body, encoding="utf-8")

    def write_task(self, task_id: str, graders: str = "", extra: str = "") -> Path:
        path = self.root / "tasks" / f"{task_id}.yaml"
        path.parent.mkdir(exist_ok=True)
        body = f"id: {task_id}\nname: Task {task_id}\n{extra}"
        if graders:
            body += "graders:\n" + textwrap.indent(textwrap.dedent(graders), "  ")
        path.write_text(body, encoding="utf-8")
        return path

    def write_grader(self, name: str, source: str) -> str:
        path = self.root / "graders" / name
        path.parent.mkdir(exist_ok=True)
        path.write_text(textwrap.dedent(source), encoding="utf-8")
        return f"graders/{name}"

    def write_results(self, doc: Mapping[str, Any], name: str = "results.json") -> Path:
        path = self.root / name
        path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
        return path

    def grade_args(self) -> list[str]:
        """`waza-ci grade` arguments for this project (eval, results, workspace, cwd)."""
        return [
            "grade",
            str(self.eval_path),
            "--results",
            str(self.results_path),
            "--workspace",
            str(self.workspace),
            "--working-directory",
            str(self.root),
        ]

    def program_grader(self, name: str, script: str, timeout: int | None = None) -> str:
        """YAML of one program grader entry running `python3 <script>`."""
        lines = [
            "- type: program",
            f"  name: {name}",
            "  config:",
            "    command: python3",
            f"    args: [{json.dumps(script)}]",
        ]
        if timeout is not None:
            lines.append(f"    timeout: {timeout}")
        return "\n".join(lines) + "\n"


@pytest.fixture
def project(tmp_path: Path) -> Project:
    root = tmp_path / "project"
    root.mkdir()
    (root / "workspace").mkdir()
    return Project(root)


@dataclass(frozen=True)
class CliResult:
    code: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        return json.loads(self.stdout)


RunCli = Callable[..., CliResult]


def run_cli_process(
    args: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str] | None = None,
    timeout: float = 120,
    max_file_bytes: int | None = None,
) -> CliResult:
    """`waza-ci ARGS` as a real process; `max_file_bytes` sets RLIMIT_FSIZE in it (a full disk:
    writes past the size fail with EFBIG instead of killing the process)."""
    full_env = {**os.environ, "PATH": FAST_PATH, **(env or {})}
    full_env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run(
        [sys.executable, "-m", "waza_ci", *args],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        preexec_fn=None if max_file_bytes is None else limit_file_size(max_file_bytes),
    )
    return CliResult(done.returncode, done.stdout, done.stderr)


def limit_file_size(max_bytes: int) -> Callable[[], None]:
    """A preexec_fn: no file may grow past `max_bytes`, and SIGXFSZ is ignored so the write
    fails with EFBIG ("File too large") as on a full disk, instead of killing the process."""

    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (max_bytes, max_bytes))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)

    return apply


@pytest.fixture
def grade_project(project: Project) -> Callable[..., CliResult]:
    """Run `waza-ci grade` on the project with its defaults; extra args and env as given."""

    def run(*extra: str, env: Mapping[str, str] | None = None, timeout: float = 120) -> CliResult:
        args = [*project.grade_args(), *extra]
        return run_cli_process(args, cwd=project.root, env=env, timeout=timeout)

    return run


_SLOWEST = re.compile(r"<details>\n<summary>Slowest graders</summary>.*?</details>", re.S)
_TIME = re.compile(r"\b\d+(?:\.\d)? (?:ms|s)\b|\b\d+ min \d\d s\b")


def without_times(text: str) -> str:
    """A report with what measured time decides left out: durations, the slowest-graders
    list (its order too). Two gradings of the same inputs then read the same."""
    return _TIME.sub("<time>", _SLOWEST.sub("<slowest graders>", text))


@pytest.fixture
def started_pids() -> Iterator[list[int]]:
    """Processes a test made escape (or leaves running) on purpose; killed afterwards so none
    outlive the test."""
    pids: list[int] = []
    yield pids
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under pytest-xdist (`-n`, `--dist loadgroup`), the container tests share one worker:
    they build and run one image tag and name their containers after their steps."""
    for item in items:
        if item.get_closest_marker("docker"):
            item.add_marker(pytest.mark.xdist_group("docker"))
