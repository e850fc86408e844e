"""The JSON Schema engine against python-jsonschema, on generated schemas and instances.

A few hundred schemas of drafts 7 and 2020-12, built from a fixed seed out of the keywords
both libraries implement the same way, each validated on generated instances: the engine's
verdict (valid or not) must be python-jsonschema's. Two of python-jsonschema's choices differ
from waza's library on purpose and are set to the library's here:
- `pattern` is RE2 there; the patterns generated are those where RE2 and Python's `re` agree
  (literals, classes, anchors, `.`, repetition, groups and alternation, on ASCII text with no
  newline);
- `multipleOf` is exact there (big.Rat on the number's decimal); python-jsonschema divides
  floats, so its keyword is replaced by an exact one.
No `format`: the library asserts it for draft-07 and older, python-jsonschema only when
asked, each with checks of its own.

The schemas and instances go through the engine as the grader hands them over: the schema
through Go's JSON round trip, the instance decoded by Go's `json.Unmarshal`.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from decimal import Decimal
from fractions import Fraction
from typing import Any

import jsonschema
import pytest
from jsonschema.exceptions import ValidationError
from jsonschema.protocols import Validator as JsonschemaValidator

from waza_ci.golang.json import go_round_trip
from waza_ci.golang.json_scanner import go_unmarshal
from waza_ci.graders.jsonschema.compile import (
    compile_schema,
    validation_error,
)

SEED = 20_240_611
SCHEMAS = 300
INSTANCES = 8
DRAFTS = {
    7: ("http://json-schema.org/draft-07/schema#", jsonschema.Draft7Validator),
    2020: ("https://json-schema.org/draft/2020-12/schema", jsonschema.Draft202012Validator),
}
KEYS = ["a", "b", "c", "d"]
LETTERS = "abc"


def _exact(number: float) -> Fraction:
    return Fraction(Decimal(repr(float(number))))


def _multiple_of(
    validator: JsonschemaValidator, divisor: Any, instance: Any, schema: Any
) -> Iterator[ValidationError]:
    """multipleOf as waza's library checks it: exactly, on the numbers' decimals."""
    if not validator.is_type(instance, "number"):
        return
    if (_exact(instance) / _exact(divisor)).denominator != 1:
        yield ValidationError(f"{instance!r} is not a multiple of {divisor!r}")


def _reference(draft: int) -> type[JsonschemaValidator]:
    base = DRAFTS[draft][1]
    extended: type[JsonschemaValidator] = jsonschema.validators.extend(
        base, {"multipleOf": _multiple_of}
    )
    return extended


# --- generation -------------------------------------------------------------------------------


def _pattern(rng: random.Random) -> str:
    """A regular expression RE2 and Python's `re` read alike (on ASCII text, no newline)."""
    atoms: list[Callable[[], str]] = [
        lambda: rng.choice(LETTERS),
        lambda: "[" + "".join(sorted(set(rng.choices(LETTERS, k=2)))) + "]",
        lambda: "[a-b]",
        lambda: ".",
        lambda: "(" + rng.choice(LETTERS) + "|" + rng.choice(LETTERS) + ")",
        lambda: "[^c]",
        lambda: "\\d",
    ]
    quantifiers = ["", "", "*", "+", "?", "{1,2}", "{2}"]
    body = "".join(rng.choice(atoms)() + rng.choice(quantifiers) for _ in range(rng.randint(1, 3)))
    return ("^" if rng.random() < 0.4 else "") + body + ("$" if rng.random() < 0.3 else "")


def _number(rng: random.Random) -> int | float:
    if rng.random() < 0.6:
        return rng.randint(-5, 10)
    return rng.choice([0.5, 1.5, -2.5, 0.1, 0.2, 0.3, 2.25, 7.75, 0.7, 1.1])


def _string(rng: random.Random) -> str:
    return "".join(rng.choices(LETTERS + "1", k=rng.randint(0, 4)))


def _value(rng: random.Random, depth: int = 0) -> Any:
    pick = rng.randrange(7 if depth < 2 else 5)
    if pick == 0:
        return None
    if pick == 1:
        return rng.random() < 0.5
    if pick == 2:
        return _number(rng)
    if pick in (3, 4):
        return _string(rng)
    if pick == 5:
        return [_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    return {key: _value(rng, depth + 1) for key in rng.sample(KEYS, rng.randint(0, 3))}


def _schema(rng: random.Random, draft: int, depth: int = 0) -> Any:
    if depth > 0 and rng.random() < 0.1:
        return rng.random() < 0.7  # a boolean schema
    schema: dict[str, Any] = {}
    for _ in range(rng.randint(1, 3)):
        schema.update(_keyword(rng, draft, depth))
    return schema


def _keyword(rng: random.Random, draft: int, depth: int) -> dict[str, Any]:  # noqa: PLR0911, PLR0912 - one per keyword
    kinds = ["null", "boolean", "integer", "number", "string", "array", "object"]
    choice = rng.randrange(16 if depth < 2 else 9)
    if choice == 0:
        many = rng.sample(kinds, rng.randint(1, 2))
        return {"type": many[0] if len(many) == 1 else many}
    if choice == 1:
        bound = _number(rng)
        word = rng.choice(["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"])
        return {word: bound}
    if choice == 2:
        return {"multipleOf": rng.choice([2, 3, 0.5, 0.1, 0.25, 1.5, 0.3])}
    if choice == 3:
        return {rng.choice(["minLength", "maxLength"]): rng.randint(0, 3)}
    if choice == 4:
        return {"pattern": _pattern(rng)}
    if choice == 5:
        return {rng.choice(["minItems", "maxItems"]): rng.randint(0, 3)}
    if choice == 6:
        return {rng.choice(["minProperties", "maxProperties"]): rng.randint(0, 3)}
    if choice == 7:
        return {"required": rng.sample(KEYS, rng.randint(1, 2))}
    if choice == 8:
        values = [_value(rng, 2) for _ in range(rng.randint(1, 3))]
        return {"enum": values} if len(values) > 1 else {"const": values[0]}
    if choice == 9:
        return {"uniqueItems": rng.random() < 0.8}
    if choice == 10:
        keys = rng.sample(KEYS, rng.randint(1, 2))
        return {"properties": {key: _schema(rng, draft, depth + 1) for key in keys}}
    if choice == 11:
        return {"additionalProperties": _schema(rng, draft, depth + 1)}
    if choice == 12:
        word = rng.choice(["allOf", "anyOf", "oneOf"])
        return {word: [_schema(rng, draft, depth + 1) for _ in range(rng.randint(1, 3))]}
    if choice == 13:
        return {"not": _schema(rng, draft, depth + 1)}
    if choice == 14:
        if rng.random() < 0.5:
            return {"contains": _schema(rng, draft, depth + 1)}
        return {"items": _schema(rng, draft, depth + 1)}
    return {
        "if": _schema(rng, draft, depth + 1),
        "then": _schema(rng, draft, depth + 1),
        "else": _schema(rng, draft, depth + 1),
    }


def _instance(rng: random.Random, schema: Any) -> Any:
    """A value, now and then one built to come close to the schema (its enum, its keys)."""
    if isinstance(schema, dict) and rng.random() < 0.3:
        if "enum" in schema:
            return rng.choice(schema["enum"])
        if "const" in schema:
            return schema["const"]
        if "multipleOf" in schema:  # a multiple as a decimal, which a float may miss
            return float(Decimal(repr(float(schema["multipleOf"]))) * rng.randint(1, 9))
        if "required" in schema or "properties" in schema:
            return {key: _value(rng, 1) for key in KEYS if rng.random() < 0.6}
    return _value(rng)


def _cases() -> Iterator[tuple[int, Any, list[Any]]]:
    rng = random.Random(SEED)
    for number in range(SCHEMAS):
        draft = rng.choice(list(DRAFTS))
        schema = {"$schema": DRAFTS[draft][0], **_schema(rng, draft)}
        yield number, schema, [_instance(rng, schema) for _ in range(INSTANCES)]


# --- the check --------------------------------------------------------------------------------


def _engine_says_valid(schema: Any, instance: Any, tmp: str) -> bool:
    compiled = compile_schema(go_round_trip(schema), tmp)
    return validation_error(compiled, go_unmarshal(json.dumps(instance))) is None


def test_the_generator_covers_every_keyword_and_both_drafts() -> None:
    # The comparison below means something only if the cases exercise what they claim.
    seen: set[str] = set()
    drafts: set[str] = set()

    def walk(schema: Any) -> None:
        if isinstance(schema, dict):
            seen.update(schema)
            for key, value in schema.items():
                children = value.values() if key == "properties" else [value]
                for child in value if isinstance(value, list) else children:
                    walk(child)

    for _, schema, _ in _cases():
        drafts.add(schema["$schema"])
        walk(schema)
    assert drafts == {url for url, _ in DRAFTS.values()}
    assert {
        "type",
        "minimum",
        "exclusiveMaximum",
        "multipleOf",
        "minLength",
        "pattern",
        "maxItems",
        "minProperties",
        "required",
        "enum",
        "const",
        "uniqueItems",
        "properties",
        "additionalProperties",
        "allOf",
        "anyOf",
        "oneOf",
        "not",
        "contains",
        "items",
        "if",
    } <= seen


def test_the_engine_gives_python_jsonschemas_verdicts(tmp_path: Any) -> None:
    differ: list[str] = []
    both = {True: 0, False: 0}
    for number, schema, instances in _cases():
        reference = _reference(7 if "draft-07" in schema["$schema"] else 2020)(schema)
        for instance in instances:
            want = reference.is_valid(instance)
            both[want] += 1
            if _engine_says_valid(schema, instance, str(tmp_path)) != want:
                differ.append(f"case {number}: {json.dumps(schema)} on {json.dumps(instance)}")
    assert differ == [], f"{len(differ)} verdicts differ, the first:\n" + "\n".join(differ[:5])
    # Both verdicts are common, so neither side can agree by always saying the same.
    assert min(both.values()) > SCHEMAS * INSTANCES // 10, both


@pytest.mark.parametrize(
    ("schema", "instance", "valid"),
    [
        ({"multipleOf": 0.1}, 0.3, True),  # exact: 0.3 is 3 x 0.1 as decimals
        ({"multipleOf": 0.01}, 0.07, True),
        ({"pattern": "^a+$"}, "aa", True),
        ({"pattern": "^a+$"}, "ab", False),
    ],
)
def test_the_reference_is_exact_where_waza_s_library_is(
    schema: dict[str, Any], instance: Any, valid: bool, tmp_path: Any
) -> None:
    # The patched reference and the engine agree on what python-jsonschema's float division
    # (0.3 / 0.1 = 2.9999999999999996) would get wrong.
    full = {"$schema": DRAFTS[2020][0], **schema}
    assert _reference(2020)(full).is_valid(instance) is valid
    assert _engine_says_valid(full, instance, str(tmp_path)) is valid
