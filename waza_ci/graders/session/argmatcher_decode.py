"""Decoding argument matchers from the spec (waza's `argmatcher.Matcher.UnmarshalYAML` and
`Compile`), with waza's load errors.

A matcher decodes itself while waza loads the YAML, so its errors are load errors inside
waza's `invalid grader config` wrapper; only a null matcher (`query:` with no value) gets
through, and fails when the grader is constructed (`argmatcher: matcher kind not set`).
Operands are read as yaml.v3 reads YAML into Go values (golang/yaml.py).

A `json_schema` matcher is compiled as the `json_schema` grader compiles a schema (argmatcher.py
says why). waza compiles it while loading, in its process cwd; waza-ci compiles it while
loading in its own cwd, so a schema that does not compile is a load error, and again for each
working directory it grades in (the same directory unless `--working-directory` names another,
which only a `$ref` to a file can tell apart): a failure there is the matcher's reason, as
waza's `Match` gives it for a matcher it has to recompile.
"""

from __future__ import annotations

import os
from typing import Any

import yaml

from waza_ci.golang.errors import GoError
from waza_ci.golang.json import go_round_trip
from waza_ci.golang.regexp import GoRegexError, compile_go
from waza_ci.golang.strconv import go_quote
from waza_ci.golang.yaml import child, is_null, node_value, resolve
from waza_ci.graders.base import GoStruct
from waza_ci.graders.params import config_error
from waza_ci.graders.session.argmatcher import BOUNDS, KINDS, ArgMatchers, Matcher
from waza_ci.waza.spec import GraderSpec

_ALLOWED = ", ".join(KINDS)
_MAP_TYPE = "map[string]interface {}"


class MatcherError(GoError):
    """A matcher waza refuses while decoding the YAML; `str()` is waza's text."""

    def __init__(self, message: str, node: yaml.Node | None = None) -> None:
        super().__init__(message)
        self.node = node


def listed_arg_matchers(
    grader: GraderSpec, list_field: str, go_type: str
) -> dict[int, ArgMatchers]:
    """The `args` matchers of each entry of the list `config.<list_field>`, by entry index.

    Decoded before the rest of the config is checked, because yaml.v3 stops at a matcher's
    error at once but collects type errors to report at the end: a bad matcher is the error
    waza reports even when an unknown key comes first."""
    config = grader.config
    found: dict[int, ArgMatchers] = {}
    entries = child(config, list_field) if config is not None else None
    if config is None or not isinstance(entries, yaml.SequenceNode):
        return found
    for index, entry in enumerate(entries.value):
        args = child(entry, "args")
        if not isinstance(args, yaml.MappingNode):
            continue  # absent, null, or a shape error the strict decoding reports
        try:
            matchers = {str(key.value): decode_matcher(value, config) for key, value in args.value}
        except MatcherError as err:
            message = f"failed to decode grader parameters of type models.{go_type}: {err}"
            raise config_error(grader, message, err.node) from None
        found[index] = tuple(sorted(matchers.items(), key=lambda item: item[0]))
    return found


def decode_matcher(node: yaml.Node, config: yaml.Node) -> Matcher:
    """One matcher from its YAML node; `config` is the grader's `config` node (waza counts
    lines from it). Raises MatcherError with waza's text, pointing at the matcher."""
    try:
        return _decode_matcher(node, config)
    except MatcherError as err:
        raise MatcherError(str(err), node) from None


def _decode_matcher(node: yaml.Node, config: yaml.Node) -> Matcher:
    if is_null(node):
        return Matcher("")  # yaml.v3 never hands a null to the matcher's own decoder
    if not isinstance(node, yaml.MappingNode):
        kind = "sequence" if isinstance(node, yaml.SequenceNode) else "scalar"
        raise MatcherError(f"argmatcher: expected mapping (e.g. {{regex: '^foo'}}), got {kind}")
    if not node.value:
        raise MatcherError(f"argmatcher: empty matcher; expected one of {_ALLOWED}")
    if len(node.value) > 1:
        keys = ", ".join(str(key.value) for key, _ in node.value)
        raise MatcherError(
            f"argmatcher: exactly one matcher kind allowed, got {len(node.value)} ({keys})"
        )
    key_node, value = node.value[0]
    kind = str(key_node.value)
    if kind not in KINDS:
        raise MatcherError(
            f"argmatcher: unknown matcher kind {go_quote(kind)} (allowed: {_ALLOWED})"
        )
    lines = _Lines(config)
    if kind == "equals":
        return Matcher(kind, node_value(value))
    if kind in ("regex", "contains"):
        return _compile_text(kind, lines.string(kind, value))
    if kind == "range":
        return _compile_range(lines.bounds(value))
    return _compile_schema(lines.schema(value))


def _compile_text(kind: str, text: str) -> Matcher:
    if kind == "contains":
        if text == "":
            raise MatcherError("argmatcher: contains matcher requires a non-empty substring")
        return Matcher(kind, text)
    if text == "":
        raise MatcherError("argmatcher: regex matcher requires a non-empty pattern")
    try:
        pattern = compile_go(text)
    except GoRegexError as err:
        raise MatcherError(f"argmatcher: invalid regex {go_quote(text)}: {err}") from None
    return Matcher(kind, text, pattern=pattern)


def _compile_range(bounds: dict[str, float]) -> Matcher:
    if not bounds:
        raise MatcherError(
            "argmatcher: range matcher requires at least one bound (gte, lte, gt, lt)"
        )
    # waza's range matcher is a struct: its bounds print in field order, gte, lte, gt, lt.
    return Matcher("range", GoStruct({name: bounds[name] for name in BOUNDS if name in bounds}))


def _compile_schema(schema: dict[str, Any] | None) -> Matcher:
    if not schema:
        raise MatcherError("argmatcher: json_schema matcher requires a non-empty schema")
    try:
        library_schema = go_round_trip(schema)
    except ValueError as err:
        raise MatcherError(f"argmatcher: failed to serialize json_schema: {err}") from None
    matcher = Matcher("json_schema", schema, schema=library_schema)
    compiled = matcher.compiled_schema(os.getcwd())
    if isinstance(compiled, str):
        raise MatcherError(compiled)
    return matcher


class _Lines:
    """Decodes a matcher's operand as yaml.v3 decodes it into a typed Go field, with its
    type errors in yaml.v3's words and line numbers (counted within the grader's `config`,
    which waza re-serialises before decoding)."""

    def __init__(self, config: yaml.Node) -> None:
        self.first_line = config.start_mark.line

    def string(self, kind: str, node: yaml.Node) -> str:
        if is_null(node):
            return ""
        if isinstance(node, yaml.ScalarNode):
            return str(node.value)  # yaml.v3 reads any scalar into a string as its text
        raise self._error(kind, [self._cannot(node, "string")])

    def bounds(self, node: yaml.Node) -> dict[str, float]:
        if is_null(node):
            return {}
        if not isinstance(node, yaml.MappingNode):
            raise self._error("range", [self._cannot(node, "argmatcher.RangeSpec")])
        found: dict[str, float] = {}
        problems: list[str] = []
        for key, value in node.value:
            name = str(key.value)
            if name not in BOUNDS or is_null(value):
                continue  # unknown keys are ignored: the decoder is not strict in here
            number = _float_of(value)
            if number is None:
                problems.append(self._cannot(value, "float64"))
            else:
                found[name] = number
        if problems:
            raise self._error("range", problems)
        return {name: found[name] for name in BOUNDS if name in found}

    def schema(self, node: yaml.Node) -> dict[str, Any] | None:
        if is_null(node):
            return None
        if not isinstance(node, yaml.MappingNode):
            raise self._error("json_schema", [self._cannot(node, _MAP_TYPE)])
        schema = node_value(node)
        return schema if isinstance(schema, dict) else None

    def _cannot(self, node: yaml.Node, go_type: str) -> str:
        line = node.start_mark.line - self.first_line + 1
        if isinstance(node, yaml.ScalarNode):
            text = str(node.value)
            shown = f"{text[:7]}..." if len(text) > 10 else text
            return f"line {line}: cannot unmarshal !!{_scalar_tag(node)} `{shown}` into {go_type}"
        tag = "seq" if isinstance(node, yaml.SequenceNode) else "map"
        return f"line {line}: cannot unmarshal !!{tag} into {go_type}"

    @staticmethod
    def _error(kind: str, problems: list[str]) -> MatcherError:
        return MatcherError(f"argmatcher {kind}: yaml: unmarshal errors: {'; '.join(problems)}")


def _scalar_tag(node: yaml.Node) -> str:
    return resolve(node)[0]


def _float_of(node: yaml.Node) -> float | None:
    if not isinstance(node, yaml.ScalarNode):
        return None
    tag, value = resolve(node)
    return float(value) if tag in ("int", "float") else None
