"""What a results file that does not parse really is, and what to do about it, in our words.

Python's decoder answers a broken file in its own terms (`Expecting value (column 1)`, `not
valid UTF-8 (byte 1)`), which say neither what the file is nor how to fix it. The usual causes
are few and recognisable from the bytes: an empty file (a run or download that did not finish),
a truncated one (a download or copy cut short), a compressed file (gzip, zip), a file saved as
UTF-16 (PowerShell's `>` and `Out-File`), a UTF-8 byte-order mark, or something that is not JSON
at all (YAML, an HTML error page, a binary file). Every loader of results and baseline files
(`waza/results.py`, which `gate/` and `shard/` call too) asks this module, once the fast parse
has failed: `decode_json_bytes` before the text is decoded, `json_syntax_error` after the JSON
decoder refused it. Each answer is one line: what the file is, then the fix.
"""

from __future__ import annotations

import codecs
import json
import re
from pathlib import Path

from waza_ci.english import plural
from waza_ci.errors import InputError, Location

_GZIP = b"\x1f\x8b"
_ZIP = (b"PK\x03\x04", b"PK\x05\x06")
_UTF32 = (
    (codecs.BOM_UTF32_LE, "UTF-32 (little-endian)"),
    (codecs.BOM_UTF32_BE, "UTF-32 (big-endian)"),
)
_UTF16 = (
    (codecs.BOM_UTF16_LE, "UTF-16 (little-endian)"),
    (codecs.BOM_UTF16_BE, "UTF-16 (big-endian)"),
)
_SAMPLE_BYTES = 4096
"""How much of the file's start is enough to recognise it."""
_SHOWN_CHARS = 40

FIX_REWRITE = "write it again with `waza run --output FILE`, or download the artifact again"
FIX_UTF16 = (
    "waza writes and reads UTF-8 only; convert it (`iconv -f UTF-16 -t UTF-8 IN > OUT`, or in "
    "PowerShell 7 `Get-Content IN | Set-Content -Encoding utf8NoBOM OUT`), or let `waza run "
    "--output FILE` write the file instead of redirecting its output with `>`"
)
FIX_BOM = (
    "save it without one (PowerShell 7: `Set-Content -Encoding utf8NoBOM`; an editor's "
    "'UTF-8' rather than 'UTF-8 with BOM'; or `sed -i '1s/^\\xEF\\xBB\\xBF//' FILE`)"
)


def decode_json_bytes(data: bytes, path: Path) -> str:
    """The text of a results file's bytes; a file that cannot hold JSON text (empty, compressed,
    UTF-16, a byte-order mark, binary, not UTF-8) is an InputError saying what it is."""
    problem = _problem_of_bytes(data)
    if problem is not None:
        raise InputError(problem, Location(str(path)))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InputError(
            f"this results file is not valid UTF-8 (byte {err.start:,} is not): it was saved in "
            "another encoding (Latin-1, Windows-1252?); save it as UTF-8 without a byte-order "
            "mark, or let `waza run --output FILE` write it",
            Location(str(path)),
        ) from None


def _problem_of_bytes(data: bytes) -> str | None:
    for recognise in (_emptiness, _compression, _encoding, _binary):
        problem = recognise(data)
        if problem is not None:
            return problem
    return None


def _emptiness(data: bytes) -> str | None:
    if not data:
        return f"this results file is empty (0 bytes), not JSON: {FIX_REWRITE}"
    if not data.strip():
        return f"this results file holds only white space ({len(data):,} bytes): {FIX_REWRITE}"
    return None


def _compression(data: bytes) -> str | None:
    if data.startswith(_GZIP):
        return (
            "this is a gzip file (compressed), not JSON: decompress it first (`gunzip -k "
            "FILE.gz`, or `gzip -dc FILE > results.json`) and pass the file it holds"
        )
    if data.startswith(_ZIP):
        return (
            "this is a zip archive, not JSON (an artifact downloaded as a .zip?): unzip it "
            "first and pass the results file inside it"
        )
    return None


def _encoding(data: bytes) -> str | None:
    if data.startswith(codecs.BOM_UTF8):
        return (
            "this results file starts with a UTF-8 byte-order mark (bytes EF BB BF), which waza "
            f"refuses too: {FIX_BOM}"
        )
    for bom, encoding in (*_UTF32, *_UTF16):  # UTF-32's LE mark begins with UTF-16's
        if data.startswith(bom):
            return f"this file is {encoding}, with a byte-order mark, not UTF-8: {FIX_UTF16}"
    unmarked = _utf16_without_mark(data[:_SAMPLE_BYTES])
    if unmarked is not None:
        return f"this file is {unmarked}, not UTF-8 (every other byte is NUL): {FIX_UTF16}"
    return None


def _binary(data: bytes) -> str | None:
    if b"\x00" not in data[:_SAMPLE_BYTES]:
        return None
    return (
        f"this is a binary file, not JSON (it starts with bytes {_hex(data[:8])}): pass the "
        f"results file `waza run --output` writes; {FIX_REWRITE}"
    )


def _utf16_without_mark(sample: bytes) -> str | None:
    """UTF-16 text of ASCII characters (JSON's punctuation and keys) has a NUL in every other
    byte: the high bytes after the low ones (little-endian) or before them (big-endian)."""
    pairs = len(sample) // 2
    if pairs < 2:
        return None
    even, odd = sample[0 : pairs * 2 : 2], sample[1 : pairs * 2 : 2]
    if even.count(0) == pairs and odd.count(0) == 0:
        return "UTF-16 (big-endian)"
    if odd.count(0) == pairs and even.count(0) == 0:
        return "UTF-16 (little-endian)"
    return None


def json_syntax_error(text: str, err: json.JSONDecodeError, path: Path) -> InputError:
    """What a results file is whose text the JSON decoder refused: truncated, not JSON at all
    (YAML, an HTML page, other text), or JSON with a syntax error at a line and column."""
    end = len(text.rstrip())
    if err.msg.startswith("Unterminated string") or err.pos >= end:
        return _truncated(text, path, in_string=err.msg.startswith("Unterminated string"))
    if err.msg == "Extra data":
        return InputError(
            f"this results file holds more than one JSON document: another starts at line "
            f"{err.lineno:,}, column {err.colno:,} (two runs written into one file, or JSON "
            f"Lines?): keep one `waza run --output` file per path",
            Location(str(path), line=err.lineno),
        )
    start = len(text) - len(text.lstrip())
    if err.pos == start and err.msg == "Expecting value":
        return _not_json(text, path)
    return InputError(
        f"invalid JSON: {err.msg} (column {err.colno}); fix the file, or {FIX_REWRITE}",
        Location(str(path), line=err.lineno),
    )


# A string (perhaps cut before its closing quote) or one bracket: the containers still open at
# the end are counted without decoding a byte of the values.
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"?|[{}\[\]]', re.S)


def _truncated(text: str, path: Path, *, in_string: bool) -> InputError:
    body = text.rstrip()
    lines = body.count("\n") + 1
    column = len(body) - (body.rfind("\n") + 1)
    depth = 0
    for match in _TOKEN.finditer(body):
        token = match.group()
        if token in ("{", "["):
            depth += 1
        elif token in ("}", "]"):
            depth -= 1
    inside = "inside a string, " if in_string else ""
    still_open = f"with {plural(depth, 'object or list', 'objects or lists')} still open"
    return InputError(
        f"this results file is truncated: it ends at line {lines:,}, column {column:,} "
        f"({len(body.encode('utf-8')):,} bytes), {inside}{still_open}, before its JSON does "
        f"(a download or copy cut short, or `waza run` stopped while writing): {FIX_REWRITE}",
        Location(str(path), line=lines),
    )


def _not_json(text: str, path: Path) -> InputError:
    stripped = text.lstrip()
    shown = _shown(stripped)
    if path.suffix in (".yaml", ".yml") or _yaml_key(stripped):
        what = "YAML (an eval spec or a task file?), not a waza results file"
        fix = "give the eval spec as EVAL_YAML and `waza run --output` files with --results"
    elif stripped.startswith("<"):
        what = (
            "markup (an HTML error or sign-in page saved in place of the file?), not JSON: "
            f"it starts with {shown}"
        )
        fix = FIX_REWRITE
    else:
        what = f"not JSON: it starts with {shown}"
        fix = f"pass the results file `waza run --output` writes; {FIX_REWRITE}"
    return InputError(f"this is {what}: {fix}", Location(str(path)))


def _yaml_key(text: str) -> bool:
    """Written like YAML: its first line that is not a comment is `key:` something."""
    lines = (line for line in text.splitlines() if line.strip() and not line.startswith("#"))
    first = next(lines, "")
    return bool(re.match(r"[A-Za-z_][\w-]*:", first))


def _shown(text: str) -> str:
    """The start of the text, one line, every character that is not printable escaped: safe to
    print in a log, an annotation or a summary."""
    head = text[:_SHOWN_CHARS].rstrip()
    escaped = "".join(c if c.isprintable() else repr(c)[1:-1] for c in head)
    more = "…" if len(text) > _SHOWN_CHARS else ""
    escaped = escaped.replace("`", "'")  # the quotes around it stay the only backticks
    return f"`{escaped}{more}`"


def _hex(data: bytes) -> str:
    return " ".join(f"{byte:02X}" for byte in data)
