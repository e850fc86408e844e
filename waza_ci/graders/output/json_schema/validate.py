"""Validation of a JSON value against a JSON Schema, in the order and with the error tree of
the library waza links (santhosh-tekuri/jsonschema v6), so a failure reads as waza prints it:

    jsonschema validation failed with 'file:///home/u/proj/schema.json#'
    - at '/age': got string, want integer

At one place in the instance the library checks, in this order: `type`, `const`, `enum`,
`format` (each failing alone stops the checks there), then `$ref`, the object, array, string and
number keywords, the dynamic references, `not`/`allOf`/`anyOf`/`oneOf`/`if`, and the
`unevaluated*` keywords. One failure is reported as itself, several as `validation failed` with
the failures nested; a value inside an object or array is checked as a place of its own.
References (`$ref`, `$dynamicRef`, `$recursiveRef`) are resolved by `referencing`, the resolver
python-jsonschema uses, so scopes and dynamic anchors follow the specification.

Numbers are Go's float64 values; numeric keywords compare them exactly as decimals (the
library uses big.Rat), so `0.3` is a multiple of `0.1`. Deliberate differences: the library
visits an object's properties in Go's random map order, here they follow the order in the
output (waza's own line order changes from run to run); a schema reached through `$ref` is
validated with the draft of the root schema; a reference cycle is reported as `reference
cycle` without the library's keyword locations.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from referencing import Specification
from referencing.jsonschema import lookup_recursive_ref

from waza_ci.graders.goregex import compile_go, matches
from waza_ci.graders.output.json_schema.formats import format_reason
from waza_ci.graders.output.json_schema.texts import (
    Failure,
    count,
    decimal_text,
    display,
    enum_text,
    equal,
    exact,
    is_integer,
    json_type,
    min_contains_text,
    missing_text,
    quote,
)

Resolver = Any  # referencing's Resolver (generic over the schema type; not exported)
_TYPE_ORDER = ("null", "boolean", "number", "integer", "string", "array", "object")


@dataclass
class _Unevaluated:
    """What no keyword has evaluated yet at one place (for `unevaluated*`)."""

    props: set[str]
    items: set[int]

    @classmethod
    def of(cls, value: Any) -> _Unevaluated:
        props = set(value) if isinstance(value, dict) else set()
        items = set(range(len(value))) if isinstance(value, list) else set()
        return cls(props, items)

    def keep_only(self, other: _Unevaluated) -> None:
        self.props &= other.props
        self.items &= other.items


@dataclass
class _Place:
    """One validation of one schema at one place of the instance (Go's `validator`)."""

    schema: dict[str, Any]
    value: Any
    location: tuple[str, ...]
    resolver: Resolver
    unevaluated: _Unevaluated
    errors: list[Failure] = field(default_factory=list)

    def fail(self, message: str, causes: list[Failure] | None = None, kind: str = "leaf") -> None:
        self.errors.append(Failure(self.location, message, causes or [], kind))


class Validator:
    """Validates values against schemas of one draft, producing the library's error tree."""

    def __init__(self, draft: int, specification: Specification[Any]) -> None:
        self.draft = draft
        self.specification = specification
        self.assert_format = draft < 2019
        self._id_keyword = "id" if draft == 4 else "$id"
        self._active_refs: set[tuple[int, tuple[str, ...]]] = set()

    def check(self, schema: Any, value: Any, resolver: Resolver) -> Failure | None:
        """The error of validating the whole value, or None when it is valid."""
        error, _ = self.validate(schema, value, (), resolver)
        return error

    def validate(
        self, schema: Any, value: Any, location: tuple[str, ...], resolver: Resolver
    ) -> tuple[Failure | None, _Unevaluated]:
        unevaluated = _Unevaluated.of(value)
        if schema is False:
            return Failure(location, "false schema"), unevaluated
        if not isinstance(schema, dict):
            return None, unevaluated  # `true`
        if self._id_keyword in schema:  # a new base URI for the references below
            resolver = resolver.in_subresource(self.specification.create_resource(schema))
        place = _Place(schema, value, location, resolver, unevaluated)
        early = self._stopping_error(place)
        if early is not None:
            return early, unevaluated
        if "$ref" in schema:
            self._reference(place, resolver.lookup(schema["$ref"]))
            if self.draft < 2019:
                return self._result(place)
        if isinstance(value, dict):
            self._object(place)
        elif isinstance(value, list):
            self._array(place)
        elif isinstance(value, str):
            self._string(place)
        elif json_type(value) == "number":
            self._number(place)
        if self.draft >= 2019:
            self._dynamic_references(place)
        self._conditions(place)
        if self.draft >= 2019:
            self._unevaluated(place)
        return self._result(place)

    def _result(self, place: _Place) -> tuple[Failure | None, _Unevaluated]:
        if not place.errors:
            return None, place.unevaluated
        if len(place.errors) == 1:
            return place.errors[0], place.unevaluated
        return Failure(place.location, "validation failed", place.errors, "group"), (
            place.unevaluated
        )

    # -- the checks that stop everything else at a place ----------------------------------

    def _stopping_error(self, place: _Place) -> Failure | None:
        schema, value = place.schema, place.value
        if self.draft < 2019 and "$ref" in schema:
            return None  # the reference replaces every other keyword
        wanted = schema.get("type")
        if wanted is not None:
            names = [wanted] if isinstance(wanted, str) else list(wanted)
            got = json_type(value)
            if got not in names and not ("integer" in names and is_integer(value)):
                want = " or ".join(t for t in _TYPE_ORDER if t in names)
                return Failure(place.location, f"got {got}, want {want}")
        if self.draft >= 6 and "const" in schema and not equal(value, schema["const"]):
            want = schema["const"]
            text = (
                "'const' failed"
                if isinstance(want, list | dict)
                else f"value must be {display(want)}"
            )
            return Failure(place.location, text)
        if "enum" in schema and not any(equal(value, item) for item in schema["enum"]):
            return Failure(place.location, enum_text(schema["enum"]))
        if self.assert_format and isinstance(schema.get("format"), str):
            reason = format_reason(schema["format"], value)
            if reason is not None:
                return Failure(
                    place.location, f"{display(value)} is not valid {schema['format']}: {reason}"
                )
        return None

    # -- references ------------------------------------------------------------------------

    def _reference(self, place: _Place, resolved: Any) -> None:
        key = (id(resolved.contents), place.location)
        if key in self._active_refs:
            place.fail("reference cycle")
            return
        self._active_refs.add(key)
        try:
            error = self._in_place(place, resolved.contents, resolved.resolver)
        finally:
            self._active_refs.discard(key)
        if error is not None:
            causes = error.causes if error.kind == "group" else [error]
            place.fail("validation failed", causes, "reference")

    def _dynamic_references(self, place: _Place) -> None:
        schema = place.schema
        if self.draft == 2019 and "$recursiveRef" in schema:
            self._reference(place, lookup_recursive_ref(place.resolver))
        if self.draft >= 2020 and "$dynamicRef" in schema:
            self._reference(place, place.resolver.lookup(schema["$dynamicRef"]))

    def _in_place(self, place: _Place, schema: Any, resolver: Resolver) -> Failure | None:
        """Go's `validateSelf`: another schema at the same place; what it evaluates counts."""
        error, unevaluated = self.validate(schema, place.value, place.location, resolver)
        if error is None:
            place.unevaluated.keep_only(unevaluated)
        return error

    def _below(self, place: _Place, schema: Any, value: Any, token: str) -> Failure | None:
        """Go's `validateVal`: a member of the value, checked as a place of its own."""
        error, _ = self.validate(schema, value, (*place.location, token), place.resolver)
        return error

    # -- objects ---------------------------------------------------------------------------

    def _object(self, place: _Place) -> None:
        schema, value = place.schema, place.value
        _size_limits(place, len(value), "minProperties", "maxProperties")
        missing = [name for name in schema.get("required", ()) if name not in value]
        if missing:
            place.fail(missing_text(missing))
        if self.draft < 2019:
            self._dependencies(place, schema.get("dependencies", {}), "dependencies")
        self._properties(place)
        if self.draft == 4:
            return
        if "propertyNames" in schema:
            self._property_names(place, schema["propertyNames"])
        if self.draft < 2019:
            return
        self._dependencies(place, schema.get("dependentSchemas", {}), "dependentSchemas")
        self._dependencies(place, schema.get("dependentRequired", {}), "dependentRequired")

    def _dependencies(self, place: _Place, dependencies: dict[str, Any], keyword: str) -> None:
        for name, dependency in dependencies.items():
            if name not in place.value:
                continue
            if isinstance(dependency, list):
                missing = [other for other in dependency if other not in place.value]
                if missing:
                    wanted = ", ".join(quote(other) for other in missing)
                    place.fail(f"properties {wanted} required, if {quote(name)} exists")
            else:
                error = self._in_place(place, dependency, place.resolver)
                if error is not None:
                    place.errors.append(error)

    def _properties(self, place: _Place) -> None:
        schema, value = place.schema, place.value
        properties = schema.get("properties", {})
        patterns = schema.get("patternProperties", {})
        additional = schema.get("additionalProperties")
        refused: list[str] = []
        for name, member in value.items():
            evaluated = False
            if name in properties:
                evaluated = True
                self._add(place, self._below(place, properties[name], member, name))
            for pattern, subschema in patterns.items():
                if matches(compile_go(pattern), name):
                    evaluated = True
                    self._add(place, self._below(place, subschema, member, name))
            if not evaluated and additional is not None:
                evaluated = True
                if additional is False:
                    refused.append(name)
                else:
                    self._add(place, self._below(place, additional, member, name))
            if evaluated:
                place.unevaluated.props.discard(name)
        if refused:
            names = ", ".join(quote(name) for name in refused)
            place.fail(f"additional properties {names} not allowed")

    def _property_names(self, place: _Place, names_schema: Any) -> None:
        for name in place.value:
            error, _ = self.validate(names_schema, name, (), place.resolver)
            if error is not None:
                causes = error.causes if error.kind == "group" else [error]
                place.fail(f"invalid propertyName {quote(name)}", causes)

    # -- arrays ----------------------------------------------------------------------------

    def _array(self, place: _Place) -> None:
        schema, value = place.schema, place.value
        _size_limits(place, len(value), "minItems", "maxItems")
        if schema.get("uniqueItems") is True:
            pair = _first_duplicate(value)
            if pair is not None:
                place.fail(f"items at {count(pair[0])} and {count(pair[1])} are equal")
        prefix, rest, rest_refused_at_once = self._item_schemas(schema)
        for index, member in enumerate(value):
            subschema = prefix[index] if index < len(prefix) else rest
            if subschema is _NONE:
                continue
            place.unevaluated.items.discard(index)
            if not (index >= len(prefix) and rest_refused_at_once):
                self._add(place, self._below(place, subschema, member, str(index)))
        if rest_refused_at_once and len(value) > len(prefix):
            place.fail(f"last {count(len(value) - len(prefix))} additionalItem(s) not allowed")
        if "contains" in schema:
            self._contains(place, schema)

    def _item_schemas(self, schema: dict[str, Any]) -> tuple[list[Any], Any, bool]:
        """The schemas of the leading items, the schema of every further item, and whether
        further items are refused with one error (`additionalItems: false` after an `items`
        array, before 2020-12) rather than one per item."""
        if self.draft >= 2020:
            return list(schema.get("prefixItems", [])), schema.get("items", _NONE), False
        items = schema.get("items", _NONE)
        if isinstance(items, list):
            additional = schema.get("additionalItems", _NONE)
            return items, additional, additional is False
        return [], items, False

    def _contains(self, place: _Place, schema: dict[str, Any]) -> None:
        errors: list[Failure] = []
        matched: list[int] = []
        for index, member in enumerate(place.value):
            error = self._below(place, schema["contains"], member, str(index))
            if error is None:
                matched.append(index)
                if self.draft >= 2020:
                    place.unevaluated.items.discard(index)
            else:
                errors.append(error)
        minimum = schema.get("minContains") if self.draft >= 2019 else None
        if minimum is not None:
            if len(matched) < minimum:
                place.fail(min_contains_text(int(minimum), matched), errors)
        elif not matched:
            place.fail("no items match contains schema", errors)
        maximum = schema.get("maxContains") if self.draft >= 2019 else None
        if maximum is not None and len(matched) > maximum:
            at = " ".join(str(index) for index in matched)
            place.fail(
                f"max {count(int(maximum))} items required to match contains schema, but "
                f"matched {count(len(matched))} items at {at}"
            )

    # -- strings and numbers ---------------------------------------------------------------

    def _string(self, place: _Place) -> None:
        schema, value = place.schema, place.value
        _size_limits(place, len(value), "minLength", "maxLength")  # runes, as Go counts them
        pattern = schema.get("pattern")
        if isinstance(pattern, str) and not matches(compile_go(pattern), value):
            place.fail(f"{quote(value)} does not match pattern {quote(pattern)}")

    def _number(self, place: _Place) -> None:
        number = exact(place.value)
        for keyword, want in _bounds(place.schema, self.draft).items():
            if _refused(keyword, number, want):
                place.fail(f"{keyword}: got {decimal_text(number)}, want {decimal_text(want)}")

    # -- combinations ----------------------------------------------------------------------

    def _conditions(self, place: _Place) -> None:
        schema = place.schema
        if "not" in schema:
            error, _ = self.validate(schema["not"], place.value, place.location, place.resolver)
            if error is None:
                place.fail("'not' failed")
        if schema.get("allOf"):
            failed = [e for s in schema["allOf"] if (e := self._in_place(place, s, place.resolver))]
            if failed:
                place.fail("'allOf' failed", failed)
        if schema.get("anyOf"):
            failed = [e for s in schema["anyOf"] if (e := self._in_place(place, s, place.resolver))]
            if len(failed) == len(schema["anyOf"]):
                place.fail("'anyOf' failed", failed)
        if schema.get("oneOf"):
            self._one_of(place, schema["oneOf"])
        if self.draft >= 7 and "if" in schema:
            self._if_then_else(place, schema)

    def _one_of(self, place: _Place, subschemas: list[Any]) -> None:
        failed: list[Failure] = []
        first: int | None = None
        for index, subschema in enumerate(subschemas):
            error = self._in_place(place, subschema, place.resolver)
            if error is not None:
                if first is None:
                    failed.append(error)
            elif first is None:
                first = index
            else:
                place.fail(f"'oneOf' failed, subschemas {count(first)}, {count(index)} matched")
                return
        if first is None:
            place.fail("'oneOf' failed, none matched", failed)

    def _if_then_else(self, place: _Place, schema: dict[str, Any]) -> None:
        if self._in_place(place, schema["if"], place.resolver) is None:
            branch = schema.get("then")
        else:
            branch = schema.get("else")
        if branch is not None:
            self._add(place, self._in_place(place, branch, place.resolver))

    def _unevaluated(self, place: _Place) -> None:
        schema, value = place.schema, place.value
        if isinstance(value, dict) and "unevaluatedProperties" in schema:
            for name in [name for name in value if name in place.unevaluated.props]:
                self._add(
                    place, self._below(place, schema["unevaluatedProperties"], value[name], name)
                )
            place.unevaluated.props.clear()
        if isinstance(value, list) and "unevaluatedItems" in schema:
            for index in sorted(place.unevaluated.items):
                self._add(
                    place, self._below(place, schema["unevaluatedItems"], value[index], str(index))
                )
            place.unevaluated.items.clear()

    @staticmethod
    def _add(place: _Place, error: Failure | None) -> None:
        if error is not None:
            place.errors.append(error)


_NONE: Any = object()
"""No schema for these items (distinct from a `false` or `{}` schema)."""


def _size_limits(place: _Place, size: int, minimum: str, maximum: str) -> None:
    for keyword, refused in ((minimum, size.__lt__), (maximum, size.__gt__)):
        limit: Any = place.schema.get(keyword)
        if json_type(limit) == "number" and refused(int(limit)):
            place.fail(f"{keyword}: got {count(size)}, want {count(int(limit))}")


def _first_duplicate(items: list[Any]) -> tuple[int, int] | None:
    for later in range(1, len(items)):
        for earlier in range(later):
            if equal(items[later], items[earlier]):
                return earlier, later
    return None


def _refused(keyword: str, number: Fraction, want: Fraction) -> bool:
    if keyword == "minimum":
        return number < want
    if keyword == "maximum":
        return number > want
    if keyword == "exclusiveMinimum":
        return number <= want
    if keyword == "exclusiveMaximum":
        return number >= want
    return (number / want).denominator != 1  # multipleOf


def _bounds(schema: dict[str, Any], draft: int) -> dict[str, Fraction]:
    """The numeric limits as exact decimals; draft 4's boolean `exclusiveMinimum` makes
    `minimum` exclusive (and is then reported as `exclusiveMinimum`)."""
    bounds = {
        keyword: exact(schema[keyword])
        for keyword in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")
        if json_type(schema.get(keyword)) == "number"
    }
    if draft == 4:
        for exclusive, limit in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
            if schema.get(exclusive) is True and limit in bounds:
                bounds[exclusive] = bounds.pop(limit)
    return bounds
