"""Argument matchers (waza's `internal/graders/argmatcher`), shared by `tool_calls` `expect[].args`
and `tool_constraint` tool specs' `args`: how a decoded matcher judges one argument value.

A matcher is a one-key mapping: `equals: <any value>`, `regex: <RE2, case-sensitive, search>`,
`contains: <substring>`, `range: {gte, lte, gt, lt}` or `json_schema: <schema>`; decoding and
its load errors are in `argmatcher_decode.py`.

Matching a call's argument map: matcher keys in byte order; a missing key is
`argument "<key>": not present on tool call`, a failing matcher `argument "<key>": <reason>`.
Values compare after a JSON round trip (every number a float64), and non-strings are matched
by their compact Go JSON (`{"x":1}`).

A `json_schema` matcher is compiled and checked by the same engine as the `json_schema` grader
(graders/jsonschema/), because waza uses one library for both: argmatcher/matcher.go
and json_schema_grader.go each import github.com/santhosh-tekuri/jsonschema/v6 (microsoft/waza,
internal/graders/). The matcher's resource is `argmatcher.json`, the grader's `schema.json`, so
the URL in its texts is `file://<working directory>/argmatcher.json#`.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from waza_ci.golang.fmt import go_float, go_value
from waza_ci.golang.json import UnsupportedValueError, go_json, go_round_trip
from waza_ci.golang.regexp import GoPattern, matches
from waza_ci.golang.strconv import go_quote
from waza_ci.graders.jsonschema.compile import (
    CompiledSchema,
    SchemaCompileError,
    compile_schema,
    validation_error,
)

KINDS = ("equals", "regex", "contains", "range", "json_schema")
BOUNDS = ("gte", "lte", "gt", "lt")
"""Range bounds in waza's struct order."""


@dataclass(frozen=True)
class Matcher:
    """One decoded, compiled matcher. `kind` "" is a null matcher (fails at construction)."""

    kind: str
    operand: Any = None
    """The `equals` value, the `regex`/`contains` text, the bounds, or the schema."""
    pattern: GoPattern | None = field(default=None, compare=False)
    schema: Any = field(default=None, compare=False)
    """The schema as the library receives it (after Go's JSON round trip)."""
    compiled: dict[str, CompiledSchema | str] = field(default_factory=dict, compare=False)
    """The schema compiled under each working directory (its URL is in every text), or waza's
    compile error there: worked out once per directory."""

    @property
    def construction_error(self) -> str | None:
        return "argmatcher: matcher kind not set" if self.kind == "" else None

    def as_json(self) -> Any:
        """The matcher as waza writes it back (`details`): its one-key input shape."""
        if self.kind == "":
            return None
        return {self.kind: self.operand}

    def compiled_schema(self, working_directory: str) -> CompiledSchema | str:
        """The schema compiled as waza compiles it in `working_directory` (its process cwd),
        or waza's error text for it."""
        known = self.compiled.get(working_directory)
        if known is None:
            try:
                known = compile_schema(self.schema, working_directory, "argmatcher.json")
            except SchemaCompileError as err:
                known = f"argmatcher: invalid json_schema: {err}"
            self.compiled[working_directory] = known
        return known

    def mismatch(self, value: Any, working_directory: str) -> str | None:
        """None when the value satisfies the matcher, else waza's reason; `working_directory`
        is waza's process cwd, where a schema's URL points."""
        if self.kind == "json_schema":
            return _mismatch_schema(self.compiled_schema(working_directory), value)
        check = _CHECKS.get(self.kind)
        if check is None:
            return f"argmatcher: unsupported matcher kind {go_quote(self.kind)}"
        return check(self, value)


def argument_failures(
    matchers: Sequence[tuple[str, Matcher]], args: Mapping[str, Any], working_directory: str
) -> list[str]:
    """waza's evaluateArgMatchers: `matchers` must already be in key order."""
    failures: list[str] = []
    for key, matcher in matchers:
        if key not in args:
            failures.append(f"argument {go_quote(key)}: not present on tool call")
            continue
        reason = matcher.mismatch(args[key], working_directory)
        if reason is not None:
            failures.append(f"argument {go_quote(key)}: {reason}")
    return failures


ArgMatchers = tuple[tuple[str, Matcher], ...]
"""A spec's matchers by argument name, in byte order of the names (waza's checking order)."""


# --- matching -------------------------------------------------------------------------------


def _same(left: Any, right: Any) -> bool:
    """reflect.DeepEqual of two normalized JSON values (a bool is never a number)."""
    if isinstance(left, bool) or isinstance(right, bool):
        return type(left) is type(right) and left == right
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(_same(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(map(_same, left, right))
    if type(left) is not type(right):
        return False
    return bool(left == right)


def _rendered(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, str):
        return go_quote(value)
    return go_json(value)


def _mismatch_equals(expected: Any, actual: Any) -> str | None:
    try:
        want = go_round_trip(expected)
    except UnsupportedValueError as err:
        return f"argmatcher equals: cannot normalise expected: {err}"
    try:
        got = go_round_trip(actual)
    except UnsupportedValueError as err:
        return f"argmatcher equals: cannot normalise actual: {err}"
    if _same(want, got):
        return None
    return f"expected {_rendered(want)}, got {_rendered(got)}"


def _string_form(value: Any) -> str:
    """The value as text: a string itself, nothing for null, otherwise compact Go JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    try:
        return go_json(go_round_trip(value))
    except UnsupportedValueError:
        return go_value(value)


def _mismatch_range(bounds: Mapping[str, float], actual: Any) -> str | None:
    if isinstance(actual, bool) or not isinstance(actual, int | float):
        return f"range: value {_plain(actual)} is not numeric"
    number = float(actual)
    for name, fails, sign in _RANGE_CHECKS:
        bound = bounds.get(name)
        if bound is not None and fails(number, bound):
            return f"range: {go_float(number)} {sign} {name} {go_float(bound)}"
    return None


_RANGE_CHECKS: tuple[tuple[str, Callable[[float, float], bool], str], ...] = (
    ("gte", operator.lt, "<"),
    ("gt", operator.le, "<="),
    ("lte", operator.gt, ">"),
    ("lt", operator.ge, ">="),
)
"""waza's order of the range checks: each bound, the test that fails it, and its sign."""


def _plain(value: Any) -> str:
    """Go's `%v` of a value decoded from JSON (numbers inside are float64)."""
    try:
        return go_value(go_round_trip(value))
    except UnsupportedValueError:
        return go_value(value)


def _mismatch_schema(compiled: CompiledSchema | str, actual: Any) -> str | None:
    if isinstance(compiled, str):
        return compiled  # waza's Match answers with the compile error of a matcher it recompiles
    try:
        instance = go_round_trip(actual)
    except UnsupportedValueError as err:
        return f"json_schema: {err}"
    failure = validation_error(compiled, instance)
    return None if failure is None else f"json_schema: {failure}"


def _check_equals(matcher: Matcher, value: Any) -> str | None:
    return _mismatch_equals(matcher.operand, value)


def _check_regex(matcher: Matcher, value: Any) -> str | None:
    text = _string_form(value)
    if matcher.pattern is not None and matches(matcher.pattern, text):
        return None
    return f"regex {go_quote(matcher.operand)} did not match {go_quote(text)}"


def _check_contains(matcher: Matcher, value: Any) -> str | None:
    text = _string_form(value)
    if matcher.operand in text:
        return None
    return f"expected substring {go_quote(matcher.operand)}, got {go_quote(text)}"


def _check_range(matcher: Matcher, value: Any) -> str | None:
    return _mismatch_range(matcher.operand, value)


_CHECKS: dict[str, Callable[[Matcher, Any], str | None]] = {
    "equals": _check_equals,
    "regex": _check_regex,
    "contains": _check_contains,
    "range": _check_range,
}
