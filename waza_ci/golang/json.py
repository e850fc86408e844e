"""JSON the way Go's `json.MarshalIndent(v, "", "  ")` prints it, written as a stream.

waza is written in Go, so a regraded results file should read like one waza wrote: two-space
indent, `<`, `>`, `&`, U+2028 and U+2029 escaped, a float with no fraction printed as an
integer. The bytes are the same as `json.dumps(indent=2, ensure_ascii=False)` after those
rewrites, which is what earlier versions produced.

Speed and memory: the top levels of the document (the results file, its tasks) are walked here
and each of their members (a run, whole) is encoded by pydantic-core's `to_json` (native code)
and written out at once, so at most one run's bytes exist at a time, never the whole
document's. A member holding a float that needs Go's integer spelling gets a converted copy
first; one holding a float whose spelling differs between the two encoders (below 1e-4,
or not finite) is encoded by the standard library instead, so the output bytes never depend on
which encoder ran.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Iterator
from decimal import Decimal
from typing import Any, BinaryIO

from pydantic_core import PydanticSerializationError, to_json

from waza_ci.golang.errors import GoError
from waza_ci.golang.fmt import go_float
from waza_ci.golang.json_scanner import GoJSONError

_SPLIT_DEPTH = 4
"""Containers above this depth are walked here; deeper values are encoded whole. A results
file's runs sit at depth 4 (document, tasks, task, runs, run), so one run is the largest piece
encoded at once. Splitting runs into their members too (depth 5) bounded memory no better, a
run being mostly its transcript, and took twice as long: 0.34 s against 0.18 s for 10,000
graded runs (21.7 MB), one call per member."""

_INDENT = b"  "
HTML_UNSAFE = "<>&\u2028\u2029"
"""The characters Go's encoder writes as `\\u` escapes inside strings (so that JSON can sit in
HTML); the HTML report's embedded data escapes the same ones."""
_HTML_ESCAPES = tuple((char.encode(), f"\\u{ord(char):04x}".encode()) for char in HTML_UNSAFE)
_GO_INTEGER_LIMIT = 1e21  # Go prints floats from 1e21 up in exponent form
_SMALLEST_SAME_SPELLING = 1e-4  # below this, Python and pydantic-core spell floats differently

_PLAIN, _INTEGRAL_FLOATS, _OTHER_FLOATS = 0, 1, 2


def write_go_json(value: Any, stream: BinaryIO) -> None:
    """Write `value` to `stream` as Go's MarshalIndent would, plus a final newline."""
    for chunk in _chunks(value, depth=0):
        stream.write(chunk)
    stream.write(b"\n")


def dumps_go_json(value: Any) -> str:
    """`write_go_json` into a string (for small documents such as the GradeOutcome)."""
    return b"".join([*_chunks(value, depth=0), b"\n"]).decode("utf-8")


def _chunks(value: Any, depth: int) -> Iterator[bytes]:
    if depth >= _SPLIT_DEPTH or not isinstance(value, dict | list) or not value:
        yield _encode(value, depth)
        return
    inner = _INDENT * (depth + 1)
    if isinstance(value, dict):
        yield b"{\n"
        last = len(value) - 1
        for index, (key, item) in enumerate(value.items()):
            yield inner + _escape(json.dumps(str(key), ensure_ascii=False).encode()) + b": "
            yield from _chunks(item, depth + 1)
            yield b",\n" if index < last else b"\n"
        yield _INDENT * depth + b"}"
    else:
        yield b"[\n"
        last = len(value) - 1
        for index, item in enumerate(value):
            yield inner
            yield from _chunks(item, depth + 1)
            yield b",\n" if index < last else b"\n"
        yield _INDENT * depth + b"]"


def _encode(value: Any, depth: int) -> bytes:
    """One value, indented as if it started at `depth`, HTML-escaped."""
    floats = _float_kind(value)
    encoded: bytes | None = None
    if floats != _OTHER_FLOATS:
        try:
            encoded = to_json(go_numbers(value) if floats else value, indent=2)
        except PydanticSerializationError:
            encoded = None  # e.g. a lone surrogate: let the standard library decide
    if encoded is None:
        # allow_nan=False: NaN and Infinity are not JSON; writing one is a bug, so it fails.
        text = json.dumps(go_numbers(value), indent=2, ensure_ascii=False, allow_nan=False)
        encoded = text.encode("utf-8")
    if depth and b"\n" in encoded:
        # A raw newline is never inside a JSON string, so this only re-indents lines.
        encoded = encoded.replace(b"\n", b"\n" + _INDENT * depth)
    return _escape(encoded)


def _escape(encoded: bytes) -> bytes:
    # These characters only ever occur inside strings: JSON syntax has none of them. Looking
    # before replacing is cheap and spares a copy of the bytes when one is absent.
    for raw, escaped in _HTML_ESCAPES:
        if raw in encoded:
            encoded = encoded.replace(raw, escaped)
    return encoded


def _float_kind(value: Any) -> int:
    """_PLAIN when `value` holds no float that needs attention; _INTEGRAL_FLOATS when some
    float must be printed as an integer; _OTHER_FLOATS when one would be spelled differently
    by pydantic-core than by the standard library.

    Only containers are stacked; the loop over their members is the whole cost, so the common
    member types are dismissed first."""
    if not isinstance(value, dict | list | tuple):
        return _number_kind(value) if isinstance(value, float) else _PLAIN
    kind = _PLAIN
    pending = [value]
    while pending:
        container = pending.pop()
        for item in container.values() if isinstance(container, dict) else container:
            cls = type(item)
            if cls is str or cls is int or cls is bool or item is None:
                continue
            if cls is dict or cls is list or isinstance(item, dict | list | tuple):
                pending.append(item)
            elif isinstance(item, float):
                found = _number_kind(item)
                if found == _OTHER_FLOATS:
                    return found
                kind = max(kind, found)
    return kind


def _number_kind(number: float) -> int:
    if not math.isfinite(number) or (number and abs(number) < _SMALLEST_SAME_SPELLING):
        return _OTHER_FLOATS
    if number.is_integer() and abs(number) < _GO_INTEGER_LIMIT:
        return _INTEGRAL_FLOATS
    return _PLAIN


def go_number(value: float) -> float | int:
    """A float as Go spells it in JSON when that is an integer (below 1e21): Go prints a
    float64 of 1.0 as `1`, Python as `1.0`. Values made this way need no conversion when
    written."""
    if value.is_integer() and abs(value) < _GO_INTEGER_LIMIT:
        return int(value)
    return value


def go_numbers(value: Any) -> Any:
    """A copy of a parsed JSON value with every integral float (below 1e21) as an int."""

    def number(item: Any) -> Any:
        return go_number(item) if isinstance(item, float) else item

    return map_json(value, number, str)


def map_json(value: Any, scalar: Callable[[Any], Any], key: Callable[[str], str]) -> Any:
    """A copy of a parsed JSON value with `scalar` applied to every non-container value and
    `key` to every object key, key order kept.

    Iterative, not recursive: a results file nested as deeply as the JSON parser allows must
    not overflow Python's stack here.
    """
    if not isinstance(value, dict | list):
        return scalar(value)
    root: dict[str, Any] | list[Any] = {} if isinstance(value, dict) else []
    pending: list[tuple[Any, dict[str, Any] | list[Any]]] = [(value, root)]

    def convert(item: Any) -> Any:
        if not isinstance(item, dict | list):
            return scalar(item)
        container: dict[str, Any] | list[Any] = {} if isinstance(item, dict) else []
        pending.append((item, container))  # filled later; its place in the parent is kept
        return container

    while pending:
        source, target = pending.pop()
        if isinstance(target, dict):
            for name, item in source.items():
                target[key(name)] = convert(item)
        else:
            target.extend(convert(item) for item in source)
    return root


class UnsupportedValueError(GoError, ValueError):
    """json.Marshal's refusal of a float JSON cannot hold; `str()` is Go's text
    (`json: unsupported value: +Inf`)."""


def go_round_trip(value: Any) -> Any:
    """`value` as Go holds it after `json.Marshal` and `json.Unmarshal` into `any`: every
    number a float64, every map key a string, a tuple a list, a lone surrogate (a `\\ud800`
    escape, which Go decodes to U+FFFD) U+FFFD; key order kept. A value of no JSON kind is
    left as it is.

    Raises UnsupportedValueError for a NaN or an infinity (the first Go's encoder meets: map
    keys in sorted order, depth first), and GoJSONError for an integer beyond float64's range,
    as Unmarshal refuses it."""
    try:
        return _round_trip(value)
    except _NotFinite:
        first = _first_not_finite(value)
        raise UnsupportedValueError(
            f"json: unsupported value: {go_float(math.nan if first is None else first)}"
        ) from None


class _NotFinite(Exception):
    pass


def _round_trip(value: Any) -> Any:
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, int | float):
        try:
            number = float(value)
        except OverflowError:
            raise GoJSONError(
                f"json: cannot unmarshal number {value} into Go value of type float64"
            ) from None
        if not math.isfinite(number):
            raise _NotFinite
        return number
    if isinstance(value, dict):
        return {_round_trip(str(key)): _round_trip(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_round_trip(item) for item in value]
    return value


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _first_not_finite(value: Any) -> float | None:
    """The NaN or infinity json.Marshal reports: it walks maps in sorted key order."""
    if isinstance(value, float):
        return None if math.isfinite(value) else value
    if isinstance(value, dict):
        items: Iterable[Any] = (value[key] for key in sorted(value, key=str))
    elif isinstance(value, list | tuple):
        items = value
    else:
        return None
    for item in items:
        found = _first_not_finite(item)
        if found is not None:
            return found
    return None


def go_json(value: Any) -> str:
    """Go's `json.Marshal`: compact, map keys sorted, `<>&` escaped, floats shortest with no
    `.0`, exponent form only below 1e-6 or from 1e21 (`1e-07`, `1e+21`)."""
    return "".join(_json_parts(value))


_JSON_ESCAPES = (
    ("<", "\\u003c"),
    (">", "\\u003e"),
    ("&", "\\u0026"),
    ("\u2028", "\\u2028"),
    ("\u2029", "\\u2029"),
)


def _json_parts(value: Any) -> Iterable[str]:
    if isinstance(value, float):
        yield go_json_float(value)
    elif isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)
        for raw, escaped in _JSON_ESCAPES:
            text = text.replace(raw, escaped)
        yield text
    elif isinstance(value, dict):
        yield "{"
        for index, key in enumerate(sorted(value)):
            yield from ("," if index else "", *_json_parts(str(key)), ":")
            yield from _json_parts(value[key])
        yield "}"
    elif isinstance(value, list | tuple):
        yield "["
        for index, item in enumerate(value):
            yield "," if index else ""
            yield from _json_parts(item)
        yield "]"
    else:  # None, bool, int
        yield json.dumps(value)


def go_json_float(value: float) -> str:
    """One float as Go's encoding/json prints it."""
    magnitude = abs(value)
    if magnitude != 0 and (magnitude < 1e-6 or magnitude >= 1e21):
        mantissa, _, exponent = f"{Decimal(repr(value)):e}".partition("e")
        return f"{mantissa}e{exponent[0]}{int(exponent[1:])}"
    if value.is_integer():
        return str(int(value))
    return format(Decimal(repr(value)), "f")
