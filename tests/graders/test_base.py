"""waza's verdict shape: `details` keys print sorted (a Go map) except inside a Go struct,
whose fields keep their declaration order, at any depth; `details` None is left out."""

from __future__ import annotations

import json

from waza_ci.errors import Location
from waza_ci.golang.json import dumps_go_json
from waza_ci.graders.base import GoStruct, raw_verdict
from waza_ci.waza.spec import GraderSpec

GRADER = GraderSpec("g", "diff", 0.0, Location("eval.yaml", 1))


def test_maps_print_sorted_and_structs_in_field_order() -> None:
    details = {
        "workspace_dir": ".",
        "expected_files": [GoStruct(path="a", snapshot="s", contains=["x"])],
        "extra": {"z": 1, "a": GoStruct(lte=2, gt=1)},
    }
    raw = raw_verdict(GRADER, True, "ok", details, 0, score=0.5, written_type="")
    text = dumps_go_json(raw)
    assert list(json.loads(text)) == [
        "identifier",
        "type",
        "score",
        "weight",
        "passed",
        "feedback",
        "details",
        "duration_ms",
    ]
    assert text.index('"expected_files"') < text.index('"extra"') < text.index('"workspace_dir"')
    assert text.index('"path"') < text.index('"snapshot"') < text.index('"contains"')
    assert text.index('"a"') < text.index('"z"') and text.index('"lte"') < text.index('"gt"')
    assert raw["type"] == "" and raw["score"] == 0.5 and raw["weight"] == 1.0


def test_details_none_is_left_out() -> None:
    assert "details" not in raw_verdict(GRADER, False, "no", None, 3)


def test_kinds_that_write_details_as_made_make_them_in_go_order() -> None:
    # A kind that skips sort_keys (for speed) must build exactly what sort_keys would leave.
    import textwrap
    from pathlib import Path
    from tempfile import TemporaryDirectory

    from tests.graders.harness import grade, grader_task
    from waza_ci.graders import KINDS, SYNTHETIC_KINDS
    from waza_ci.graders.base import sort_keys

    presorted = {
        name
        for name, kind in {**KINDS, **SYNTHETIC_KINDS}.items()
        if getattr(kind, "details_in_go_order", False)
    }
    assert presorted == {"text"}
    entry = textwrap.dedent(
        """\
        name: t
        type: text
        config: {contains: [a], not_contains_cs: [b], regex_match: ['x+'], contains_cs: []}
        """
    )
    with TemporaryDirectory() as folder:
        result = grade(grader_task(Path(folder), entry), "t", {"final_output": "a x"})
    details = result.raw["details"]
    assert details == sort_keys(details)
    assert list(details) == sorted(details)
