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

The keywords of one type of value (objects, arrays, strings, numbers) are in type_keywords.py.
"""

from __future__ import annotations

from typing import Any

from referencing import Specification
from referencing.jsonschema import lookup_recursive_ref

from waza_ci.graders.jsonschema.formats import format_reason
from waza_ci.graders.jsonschema.texts import (
    Failure,
    count,
    display,
    enum_text,
    equal,
    is_integer,
    json_type,
)
from waza_ci.graders.jsonschema.type_keywords import (
    Resolver,
    TypeKeywords,
    _Place,
    _Unevaluated,
)

_TYPE_ORDER = ("null", "boolean", "number", "integer", "string", "array", "object")


class Validator(TypeKeywords):
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
        self,
        schema: Any,
        value: Any,
        location: tuple[str, ...],
        resolver: Resolver,
        *,
        referenced: bool = False,
    ) -> tuple[Failure | None, _Unevaluated]:
        unevaluated = _Unevaluated.of(value)
        if schema is False:
            return Failure(location, "false schema"), unevaluated
        if not isinstance(schema, dict):
            return None, unevaluated  # `true`
        if self._id_keyword in schema and not referenced:
            # A new base URI for the references below (a reference's target comes with its own
            # resolver already there: a relative `$id` must not apply twice).
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
            error = self._in_place(place, resolved.contents, resolved.resolver, referenced=True)
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
