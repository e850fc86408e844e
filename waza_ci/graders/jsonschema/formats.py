"""The `format` checks of the JSON-Schema library waza links (santhosh-tekuri/jsonschema v6),
asserted for draft-07 and older schemas only (for 2019-09 and 2020-12 `format` is an annotation).

Each check yields the reasons a string is not of its format; the first one is the library's
reason, which waza prints as `'<value>' is not valid <format>: <reason>` (a check stops at its
first reason, as the library returns). The rules are the library's; the reasons it takes from
Go's standard library (`time.Parse`, `netip.ParseAddr`, `net/url`, `strconv.Atoi`) are
approximated, and `uri-template` is checked as an IRI reference only. Values that are not
strings, and unknown format names, are not checked, as in the library.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Iterator
from datetime import date
from urllib.parse import urlsplit

from waza_ci.golang.regexp import GoRegexError, compile_go
from waza_ci.golang.strconv import go_quote

Check = Callable[[str], Iterator[str]]

_EMAIL_SPECIALS = frozenset(".!#$%&'*+-/=?^_`{|}~")
_URI_ILLEGAL = frozenset('<>" {}|\\^`')
_DECIMAL = re.compile(r"[+-]?[0-9]+")  # what strconv.Atoi takes
_FULL_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")


def _rune(char: str) -> str:
    """Go's `%q` of a rune."""
    if char == "'":
        return "'\\''"
    return "'" + go_quote(char)[1:-1].replace('\\"', '"') + "'"


def _digits(text: str) -> int:
    """How many ASCII digits `text` starts with."""
    return len(text) - len(text.lstrip("0123456789"))


def _word_char(char: str) -> bool:
    return char.isascii() and (char.isalnum() or char == "-")


def json_pointer(text: str) -> Iterator[str]:
    if text and not text.startswith("/"):
        yield "not starting with /"
    for token in text.split("/")[1:]:
        if re.search(r"~(?![01])", token):
            yield "~ must be followed by 0 or 1"


def relative_json_pointer(text: str) -> Iterator[str]:
    digits = _digits(text)
    if digits == 0:
        yield "must start with non-negative integer"
    if digits > 1 and text.startswith("0"):
        yield "starts with zero"
    if text[digits:] != "#":
        yield from json_pointer(text[digits:])


def uuid(text: str) -> Iterator[str]:
    groups = text.split("-")
    if len(groups) != 5:
        yield "must have 5 elements"
    for index, (group, length) in enumerate(zip(groups, (8, 4, 4, 4, 12), strict=False)):
        if len(group) != length:
            yield f"element {index + 1} must be {length} characters long"
        for char in group:
            if char not in "0123456789abcdefABCDEF":
                yield f"non-hex character {_rune(char)}"


def duration(text: str) -> Iterator[str]:
    if not text.startswith("P"):
        yield "must start with P"
    text = text[1:]
    if not text:
        yield "nothing after P"
    if text.endswith("W"):
        if text == "W":
            yield "no number in week"
        if not (text[:-1].isascii() and text[:-1].isdigit()):
            yield "invalid week"
        return
    all_units = ("YMD", "HMS")
    for index, part in enumerate(text.split("T")):
        if index and not part:
            yield "no time elements"
        if index >= len(all_units):
            yield "more than one T"
        yield from _duration_units(part, all_units[index])


def _duration_units(part: str, all_units: str) -> Iterator[str]:
    units = all_units
    while part:
        digits = _digits(part)
        if digits == 0:
            yield "missing number"
        if digits == len(part):
            yield "missing unit"
        unit, part = part[digits], part[digits + 1 :]
        position = units.find(unit)
        if position < 0 and unit in all_units:
            yield f"unit {_rune(unit)} out of order"
        if position < 0:
            yield f"invalid unit {_rune(unit)}"
        units = units[position + 1 :]


def ipv4(text: str) -> Iterator[str]:
    groups = text.split(".")
    if len(groups) != 4:
        yield "expected four decimals"
    for group in groups:
        if len(group) > 1 and group.startswith("0"):
            yield "leading zeros"
        if not _DECIMAL.fullmatch(group):
            yield f"strconv.Atoi: parsing {go_quote(group)}: invalid syntax"
        if not 0 <= int(group) <= 255:
            yield "decimal must be between 0 and 255"


def ipv6(text: str) -> Iterator[str]:
    if ":" not in text:
        yield "missing colon"
    address, percent, _ = text.partition("%")
    try:
        ipaddress.IPv6Address(address)
    except ValueError:
        yield f"ParseAddr({go_quote(text)}): invalid IPv6 address"
    if percent:
        yield "zone id is not a part of ipv6 address"


def hostname(text: str) -> Iterator[str]:
    text = text.removesuffix(".")
    if len(text.encode()) > 253:
        yield "more than 253 characters long"
    for label in text.split("."):
        if not 1 <= len(label.encode()) <= 63:
            yield "label must be 1 to 63 characters long"
        if label.startswith("-"):
            yield "label starts with hyphen"
        if label.endswith("-"):
            yield "label ends with hyphen"
        for char in label:
            if not _word_char(char):
                yield f"invalid character {_rune(char)}"


def email(text: str) -> Iterator[str]:
    if len(text.encode()) > 254:
        yield "more than 255 characters long"
    local, at, domain = text.rpartition("@")
    if not at:
        yield "missing @"
    if len(local.encode()) > 64:
        yield "local part more than 64 characters long"
    if len(local) > 1 and local.startswith('"') and local.endswith('"'):
        if "\\" in local[1:-1] or '"' in local[1:-1]:
            yield "backslash and quote are not allowed within quoted local part"
    else:
        yield from _email_local(local)
    if domain.startswith("[") and domain.endswith("]"):
        literal = domain[1:-1]
        if literal.startswith("IPv6:"):
            yield from (f"invalid ipv6 address: {reason}" for reason in ipv6(literal[5:]))
        else:
            yield from (f"invalid ipv4 address: {reason}" for reason in ipv4(literal))
    else:
        yield from (f"invalid domain: {reason}" for reason in hostname(domain))


def _email_local(local: str) -> Iterator[str]:
    if local.startswith("."):
        yield "starts with dot"
    if local.endswith("."):
        yield "ends with dot"
    if ".." in local:
        yield "consecutive dots"
    for char in local:
        if not (char.isascii() and char.isalnum()) and char not in _EMAIL_SPECIALS:
            yield f"invalid character {_rune(char)}"


def full_date(text: str) -> Iterator[str]:
    match = _FULL_DATE.fullmatch(text)
    if match is None:
        quoted = go_quote(text)
        yield f'parsing time {quoted} as "2006-01-02": cannot parse {quoted} as "2006"'
        return
    year, month, day = (int(part) for part in match.groups())
    if not 1 <= month <= 12:
        yield f"parsing time {go_quote(text)}: month out of range"
    try:
        date(max(year, 1), month, day)
    except ValueError:
        yield f"parsing time {go_quote(text)}: day out of range"


def full_time(text: str) -> Iterator[str]:
    if len(text) < 9:
        yield "less than 9 characters long"
    if text[2] != ":" or text[5] != ":":
        yield "missing colon in correct place"
    fields = text[:8].split(":", 2)
    if not all(_DECIMAL.fullmatch(field) for field in fields):
        yield "invalid hour/min/sec"
    hour, minute, second = (int(field) for field in fields)
    if min(hour, minute, second) < 0:
        yield "non-positive hour/min/sec"
    if hour > 23 or minute > 59 or second > 60:
        yield "hour/min/sec out of range"
    rest = text[8:]
    if rest.startswith("."):
        digits = _digits(rest[1:])
        if digits == 0:
            yield "no digits in second fraction"
        rest = rest[1 + digits :]
    minutes = hour * 60 + minute
    if rest not in ("z", "Z"):
        yield from _offset_reasons(rest)
        minutes = _shifted(rest, minutes)
    if second >= 60 and minutes != 23 * 60 + 59:
        yield "invalid leap second"


def _offset_reasons(offset: str) -> Iterator[str]:
    if len(offset) != 6:
        yield "offset must be 6 characters long"
    if offset[0] not in "+-":
        yield "offset must begin with plus/minus"
    if offset[3] != ":":
        yield "missing colon in offset in correct place"
    fields = offset[1:].split(":", 1)
    if not all(_DECIMAL.fullmatch(field) for field in fields):
        yield "invalid hour/min in offset"
    zone_hour, zone_minute = (int(field) for field in fields)
    if min(zone_hour, zone_minute) < 0:
        yield "non-positive hour/min in offset"
    if zone_hour > 23 or zone_minute > 59:
        yield "hour/min in offset out of range"


def _shifted(offset: str, minutes: int) -> int:
    """The time of day in UTC, for a valid offset."""
    zone_hour, zone_minute = (int(field) for field in offset[1:].split(":", 1))
    sign = -1 if offset[0] == "+" else 1
    return (minutes + sign * (zone_hour * 60 + zone_minute)) % (24 * 60)


def date_time(text: str) -> Iterator[str]:
    if len(text) < 20:
        yield "less than 20 characters long"
    if text[10] not in "tT":
        yield "11th character must be t or T"
    yield from (f"invalid date element: {reason}" for reason in full_date(text[:10]))
    yield from (f"invalid time element: {reason}" for reason in full_time(text[11:]))


def _resource_identifier(text: str, *, international: bool, reference: bool) -> Iterator[str]:
    if not international and not text.isascii():
        yield "has unescaped non-ASCII characters"
    if not international and any(char in _URI_ILLEGAL for char in text):
        yield "has illegal ASCII characters"
    try:
        parts = urlsplit(text)
        _ = parts.port
    except ValueError as err:
        yield f"parse {go_quote(text)}: {err}"
        return
    if not reference and not parts.scheme:
        yield "relative url"


def regex(text: str) -> Iterator[str]:
    try:
        compile_go(text)
    except GoRegexError as err:
        yield str(err)


def semver(text: str) -> Iterator[str]:
    core, plus, build = text.partition("+")
    if plus and not build:
        yield "build is empty"
    if plus:
        yield from _identifiers(build, "build", numeric_rule=False)
    core, dash, pre_release = core.partition("-")
    if dash:
        yield from _identifiers(pre_release, "pre-release", numeric_rule=True)
    numbers = core.split(".")
    if len(numbers) != 3:
        yield "versionCore must have 3 numbers separated by dot"
    for name, number in zip(("major", "minor", "patch"), numbers, strict=True):
        if not number:
            yield f"{name} is empty"
        if len(number) > 1 and number.startswith("0"):
            yield f"{name} starts with zero"
        if not (number.isascii() and number.isdigit()):
            yield f"{name} contains non-digit"


def _identifiers(text: str, what: str, *, numeric_rule: bool) -> Iterator[str]:
    for identifier in text.split("."):
        if not identifier:
            yield f"{what} identifier is empty"
        for char in identifier:
            if not _word_char(char):
                yield f"invalid character {_rune(char)} in {what} identifier"
        if numeric_rule and identifier.isdigit() and len(identifier) > 1 and identifier[0] == "0":
            yield "pre-release numeric identifier starts with zero"


def period(text: str) -> Iterator[str]:
    start, slash, end = text.partition("/")
    if not slash:
        yield "missing slash"
    if start.startswith("P"):
        yield from (f"invalid start duration: {reason}" for reason in duration(start))
        yield from (f"invalid end date-time: {reason}" for reason in date_time(end))
        return
    yield from (f"invalid start date-time: {reason}" for reason in date_time(start))
    if end.startswith("P"):
        yield from (f"invalid end duration: {reason}" for reason in duration(end))
    else:
        yield from (f"invalid end date-time: {reason}" for reason in date_time(end))


def _uri(text: str) -> Iterator[str]:
    return _resource_identifier(text, international=False, reference=False)


def _iri(text: str) -> Iterator[str]:
    return _resource_identifier(text, international=True, reference=False)


def _uri_reference(text: str) -> Iterator[str]:
    return _resource_identifier(text, international=False, reference=True)


def _iri_reference(text: str) -> Iterator[str]:
    return _resource_identifier(text, international=True, reference=True)


FORMATS: dict[str, Check] = {
    "json-pointer": json_pointer,
    "relative-json-pointer": relative_json_pointer,
    "uuid": uuid,
    "duration": duration,
    "period": period,
    "ipv4": ipv4,
    "ipv6": ipv6,
    "hostname": hostname,
    "email": email,
    "date": full_date,
    "time": full_time,
    "date-time": date_time,
    "uri": _uri,
    "iri": _iri,
    "uri-reference": _uri_reference,
    "iri-reference": _iri_reference,
    "uri-template": _iri_reference,
    "semver": semver,
    "regex": regex,
}


def format_reason(name: str, value: object) -> str | None:
    """Why `value` is not a valid `name`, or None (valid, not a string, or an unknown format)."""
    check = FORMATS.get(name)
    if check is None or not isinstance(value, str):
        return None
    return next(check(value), None)
