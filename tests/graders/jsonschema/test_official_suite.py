"""The JSON Schema engine against the official JSON-Schema-Test-Suite (read from the shared
folder, never copied): every required test of the five drafts the engine claims (4, 6, 7,
2019-09, 2020-12; `optional/` is left out), each group compiled as the library's own suite
test compiles it (santhosh-tekuri/jsonschema v6, `suite_test.go`): the draft as the default
for a schema without `$schema`, and a loader serving `http://localhost:1234/` from `remotes/`.
The verdict of each test must be the suite's, except the known deviations below, each with
its reason; a known deviation that starts to pass fails too, so the list stays true. The
figure (tests passed, known deviations) is in docs/compatibility.md, checked here."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, require_shared, shared_files
from waza_ci.graders.jsonschema.compile import (
    SchemaCompileError,
    compile_schema,
    validation_error,
)

SUITE = "json-schema-test-suite"
DRAFTS = {"draft4": 4, "draft6": 6, "draft7": 7, "draft2019-09": 2019, "draft2020-12": 2020}
REMOTES = "http://localhost:1234/"

CUSTOM_METASCHEMA = (
    "a `$schema` naming a metaschema other than the five drafts': the library loads it and "
    "honours its `$vocabulary`; this engine refuses the schema when compiling it, so the "
    "grader errors (it fails closed, never a wrong verdict)"
)
KNOWN_DEVIATIONS: dict[tuple[str, str, str], str] = {
    (draft, "vocabulary.json", group): CUSTOM_METASCHEMA
    for draft in ("draft2019-09", "draft2020-12")
    for group in (
        "schema that uses custom metaschema with with no validation vocabulary",
        "ignore unrecognized optional vocabulary",
    )
}
"""(draft folder, file, group description) -> why the engine answers otherwise."""


@dataclass(frozen=True)
class Outcome:
    test: str
    expected: bool
    got: bool | str  # valid or not, or why the schema did not compile


def remote_loader(suite: Path) -> Any:
    def load(url: str) -> Any:
        if not url.startswith(REMOTES):
            raise ValueError("no internet")
        return json.loads((suite / "remotes" / url.removeprefix(REMOTES)).read_text("utf-8"))

    return load


def run_group(suite: Path, draft: int, group: dict[str, Any], tmp: str) -> list[Outcome]:
    try:
        compiled = compile_schema(
            group["schema"], tmp, default_draft=draft, loader=remote_loader(suite)
        )
    except SchemaCompileError as err:
        return [
            Outcome(t["description"], t["valid"], f"compile error: {err}") for t in group["tests"]
        ]
    return [
        Outcome(t["description"], t["valid"], validation_error(compiled, t["data"]) is None)
        for t in group["tests"]
    ]


def groups(path: Path) -> list[dict[str, Any]]:
    loaded: list[dict[str, Any]] = json.loads(path.read_text("utf-8"))
    return loaded


@pytest.mark.parametrize("path", shared_files(SUITE, "tests/draft*/*.json"))
def test_the_official_suite(path: Path | None, tmp_path: Path) -> None:
    suite = require_shared(SUITE)
    assert path is not None
    folder = path.parent.name
    for group in groups(path):
        outcomes = run_group(suite, DRAFTS[folder], group, str(tmp_path))
        wrong = [o for o in outcomes if o.got != o.expected]
        key = (folder, path.name, group["description"])
        if key in KNOWN_DEVIATIONS:
            assert wrong, f"{key} is a known deviation and now passes: take it off the list"
            continue
        assert not wrong, f"{group['description']!r}: " + "; ".join(
            f"{o.test!r}: want {'valid' if o.expected else 'invalid'}, got {o.got}" for o in wrong
        )


def test_every_draft_folder_is_run() -> None:
    suite = require_shared(SUITE)
    assert sorted(p.name for p in (suite / "tests").iterdir() if p.name in DRAFTS) == sorted(DRAFTS)


def test_every_known_deviation_names_a_group_of_the_suite() -> None:
    suite = require_shared(SUITE)
    for folder, name, description in KNOWN_DEVIATIONS:
        found = [g["description"] for g in groups(suite / "tests" / folder / name)]
        assert description in found, f"{folder}/{name} has no group {description!r}"


@pytest.mark.slow
def test_the_figure_in_the_compatibility_page(tmp_path: Path) -> None:
    suite = require_shared(SUITE)
    passed = deviating = 0
    for folder, draft in DRAFTS.items():
        for path in sorted((suite / "tests" / folder).glob("*.json")):
            for group in groups(path):
                for outcome in run_group(suite, draft, group, str(tmp_path)):
                    if outcome.got == outcome.expected:
                        passed += 1
                    else:
                        deviating += 1
    page = (ROOT / "docs" / "compatibility.md").read_text("utf-8")
    figure = re.search(r"official JSON-Schema-Test-Suite: \*\*([\d,]+) of ([\d,]+)\*\*", page)
    assert figure is not None, "docs/compatibility.md states no figure for the official suite"
    assert (figure[1], figure[2]) == (f"{passed:,}", f"{passed + deviating:,}")
