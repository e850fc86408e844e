"""Writes that fail: a full disk, a read-only folder, a missing folder.

`--output`/`--summary` are written whole or not at all (exit 2, one line naming the path and the
OS error, an existing file intact, no temporary file left); GITHUB_OUTPUT and GITHUB_STEP_SUMMARY
appends are all or nothing, and in the action a failed append is only a warning.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.action.test_entrypoint import DEMO_EXIT, DEMO_INPUTS, TOKEN, Runner
from tests.conftest import DEMO, run_cli_process
from tests.fake_github import FakeGitHub

LIMIT = 256 * 1024  # RLIMIT_FSIZE in the child: the "disk" takes files up to 256 KiB


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    """The demo project with a results file whose regraded copy is larger than LIMIT."""
    root = tmp_path / "repo" / "examples" / "demo"
    shutil.copytree(DEMO, root)
    results = root / "results.json"
    doc = json.loads(results.read_text(encoding="utf-8"))
    doc["padding"] = "x" * (LIMIT + 1024)  # kept verbatim in --output, never in a grader context
    results.write_text(json.dumps(doc), encoding="utf-8")
    return root


def grade(demo: Path, *extra: str, max_file_bytes: int | None = None) -> tuple[int, str]:
    args = [
        "grade",
        str(demo / "eval.yaml"),
        "--results",
        str(demo / "results.json"),
        "--workspace",
        str(demo / "workspace"),
        "--working-directory",
        str(demo),
        *extra,
    ]
    done = run_cli_process(args, cwd=demo, max_file_bytes=max_file_bytes)
    return done.code, done.stderr


@pytest.mark.slow
def test_a_full_disk_keeps_the_old_output_and_leaves_no_temporary_file(
    demo: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    target = out / "regraded.json"
    target.write_text("the previous file\n")
    code, stderr = grade(demo, "--output", str(target), max_file_bytes=LIMIT)
    assert code == 2, stderr
    lines = stderr.splitlines()
    assert len(lines) == 1, lines
    assert str(target) in lines[0] and "File too large" in lines[0]
    assert target.read_text() == "the previous file\n"
    assert sorted(p.name for p in out.iterdir()) == ["regraded.json"]


@pytest.mark.slow
def test_a_full_disk_for_the_summary_writes_neither_file(demo: Path, tmp_path: Path) -> None:
    out, summary = tmp_path / "regraded.json", tmp_path / "big" / "summary.md"
    code, stderr = grade(
        demo, "--output", str(out), "--summary", str(summary), max_file_bytes=LIMIT
    )
    assert code == 2 and len(stderr.splitlines()) == 1, stderr
    assert not out.exists() and not summary.exists()
    assert [p.name for p in tmp_path.rglob(".*")] == []


@pytest.mark.skipif(
    os.geteuid() == 0,
    reason="root ignores folder permissions; .ci/run repeats the suite as an unprivileged user",
)
def test_a_read_only_folder_is_one_line_with_the_os_error(demo: Path, tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        code, stderr = grade(demo, "--summary", str(locked / "summary.md"))
    finally:
        locked.chmod(0o755)
    assert code == 2 and len(stderr.splitlines()) == 1, stderr
    assert str(locked / "summary.md") in stderr and "Permission denied" in stderr
    assert list(locked.iterdir()) == []


@pytest.mark.slow
def test_the_action_cuts_failed_appends_back_and_keeps_its_verdict(
    tmp_path: Path, demo: Path
) -> None:
    workspace = demo.parent.parent
    with FakeGitHub(token=TOKEN) as fake:
        runner = Runner(tmp_path, fake, workspace)
        # Both files are nearly at the limit, so each append fails part-way through.
        before_output = "earlier=" + "o" * (LIMIT - 20) + "\n"
        before_summary = "earlier summary " + "s" * (LIMIT - 30) + "\n"
        runner.output_path.write_text(before_output)
        runner.summary_path.write_text(before_summary)
        result = runner.run(
            {**DEMO_INPUTS, "results": "examples/demo/results.json"}, max_file_bytes=LIMIT
        )
        assert result.code == DEMO_EXIT, result.log
        assert len(fake.check_runs) == 1, "the check run still happens"
    assert runner.output_path.read_text() == before_output, "no partial line or heredoc"
    assert runner.summary_path.read_text() == before_summary
    warnings = [line for line in result.stdout.splitlines() if line.startswith("::warning")]
    assert len(warnings) == 2, warnings
    assert all("File too large" in w for w in warnings)
    assert any(str(runner.output_path) in w for w in warnings)


@pytest.mark.slow
def test_the_action_warns_about_a_missing_folder_and_keeps_its_verdict(
    tmp_path: Path, demo: Path
) -> None:
    with FakeGitHub(token=TOKEN) as fake:
        runner = Runner(tmp_path, fake, demo.parent.parent)
        missing = tmp_path / "gone" / "file"
        result = runner.run(
            DEMO_INPUTS, env={"GITHUB_OUTPUT": str(missing), "GITHUB_STEP_SUMMARY": str(missing)}
        )
    assert result.code == DEMO_EXIT, result.log
    warnings = [line for line in result.stdout.splitlines() if line.startswith("::warning")]
    assert len(warnings) == 2 and all("No such file" in w for w in warnings), warnings
    assert not missing.parent.exists()
