"""The keywords that apply to one type of value: objects (`properties`, `required`, ...),
arrays (`items`, `contains`, ...), strings (`minLength`, `pattern`) and numbers (`minimum`,
`multipleOf`, ...), and the place one schema is validated at.

They are apart from validate.py, which holds the order of the checks at one place, the
references and the combinations. A member of an object or array is checked as a place of its
own through `validate`, which Validator (validate.py) defines.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from waza_ci.golang.regexp import compile_go, matches
from waza_ci.graders.jsonschema.texts import (
    Failure,
    count,
    decimal_text,
    equal,
    exact,
    json_type,
    min_contains_text,
    missing_text,
    quote,
)

Resolver = Any  # referencing's Resolver (generic over the schema type; not exported)


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


class TypeKeywords(ABC):
    """The type keywords of Validator (validate.py), which defines `validate`."""

    draft: int

    @abstractmethod
    def validate(
        self,
        schema: Any,
        value: Any,
        location: tuple[str, ...],
        resolver: Resolver,
        *,
        referenced: bool = False,
    ) -> tuple[Failure | None, _Unevaluated]:
        """Validate `value` at `location` (a keyword's subschema calls back here); `referenced`:
        the schema is a reference's target and `resolver` already its own."""

    # -- another schema at the same place, or at a member ----------------------------------

    def _in_place(
        self, place: _Place, schema: Any, resolver: Resolver, *, referenced: bool = False
    ) -> Failure | None:
        """Go's `validateSelf`: another schema at the same place; what it evaluates counts."""
        error, unevaluated = self.validate(
            schema, place.value, place.location, resolver, referenced=referenced
        )
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
