"""The release workflow, statically: what it builds, how its actions are pinned, and that the
action.yml line it rewrites is still there (the linters in .ci/lint.sh check the rest)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / ".github" / "workflows" / "release.yml"


def load() -> dict[Any, Any]:
    doc: dict[Any, Any] = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    return doc


def steps(job: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = load()["jobs"][job]["steps"]
    return found


def test_runs_on_version_tags_only_with_no_default_permissions() -> None:
    doc = load()
    triggers = doc[True]  # PyYAML reads the key `on` as a boolean
    assert list(triggers) == ["push"] and list(triggers["push"]) == ["tags"]
    assert doc["permissions"] == {}
    assert doc["jobs"]["image"]["permissions"] == {"contents": "read", "packages": "write"}
    assert doc["jobs"]["action"]["permissions"] == {"contents": "write"}


def test_every_action_is_pinned_to_a_full_commit_sha_with_its_version() -> None:
    text = WORKFLOW.read_text(encoding="utf-8")
    uses = re.findall(r"^\s*(?:- )?uses: (\S+)@(\S+)(.*)$", text, flags=re.MULTILINE)
    assert {name for name, _ref, _comment in uses} >= {
        "docker/setup-buildx-action",
        "docker/login-action",
        "docker/build-push-action",
    }
    for name, ref, comment in uses:
        assert re.fullmatch(r"[0-9a-f]{40}", ref), f"{name} is not pinned by SHA"
        assert re.search(r"# v\d+\.\d+\.\d+", comment), f"{name} has no version comment"


def test_builds_both_architectures_with_provenance_and_pushes() -> None:
    build = next(s for s in steps("image") if "build-push-action" in s.get("uses", ""))
    assert build["with"]["platforms"] == "linux/amd64,linux/arm64"
    assert build["with"]["push"] is True
    assert build["with"]["provenance"] == "mode=max"


def test_the_rewritten_action_yml_line_exists() -> None:
    script = next(s for s in steps("action") if "run" in s)["run"]
    assert "grep -qx '  image: Dockerfile' action.yml" in script
    lines = (ROOT / "action.yml").read_text(encoding="utf-8").splitlines()
    assert "  image: Dockerfile" in lines, "release.yml rewrites this exact line"
