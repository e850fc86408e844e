"""Every exception that carries Go's error text has the one base, `GoError`, and keeps its text."""

from __future__ import annotations

import pytest

from waza_ci.golang.errors import GoError
from waza_ci.golang.json_scanner import GoJSONError, go_unmarshal
from waza_ci.golang.os import GoFileError
from waza_ci.golang.regexp import GoRegexError, compile_go
from waza_ci.graders.inprocess import GraderError
from waza_ci.graders.jsonschema.compile import SchemaCompileError
from waza_ci.graders.session.argmatcher_decode import MatcherError
from waza_ci.graders.skill.skill_md import SkillError
from waza_ci.graders.workspace.paths import RootError
from waza_ci.judge.config import RubricError
from waza_ci.sandbox.goexec import CannotStart


@pytest.mark.parametrize(
    "kind",
    [
        GoJSONError,
        GoFileError,
        GoRegexError,
        CannotStart,
        SchemaCompileError,
        RootError,
        GraderError,
        MatcherError,
        SkillError,
        RubricError,
    ],
)
def test_every_go_error_text_has_the_one_base(kind: type[Exception]) -> None:
    assert issubclass(kind, GoError)


def test_a_go_error_is_still_what_it_was_and_says_gos_text() -> None:
    # The scanner's and regexp's errors stay ValueErrors, as callers catch them.
    with pytest.raises(GoError) as scanned:
        go_unmarshal('{"a" 1}')
    assert isinstance(scanned.value, ValueError)
    assert str(scanned.value) == "invalid character '1' after object key"
    with pytest.raises(GoError) as refused:
        compile_go("a(")
    assert isinstance(refused.value, ValueError)
    assert str(refused.value) == "error parsing regexp: missing closing ): `a(`"
