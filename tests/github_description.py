"""GitHub's REST API description, and every request the fake receives checked against it.

The description is GitHub's own, as the npm package `@octokit/openapi` publishes it
(`generated/api.github.com.deref.json`, OpenAPI 3.0.3 with every `$ref` resolved in place). It is
not in this repository: `bash .ci/openapi.sh` fetches a pinned version with npm into
`.ci/.npm/octokit-openapi/` (git-ignored), and `WAZA_CI_GITHUB_OPENAPI` may name the file instead
(the unprivileged CI pass uses it). Without the file the fake cannot check requests: when `CI` is
set that is an error (`require_description`), elsewhere the fake serves unchecked and the tests
that need the description skip, saying why.

The file is 73 MB and takes about a second (and 400 MB) to parse. What the checks need of it is
derived once: every operation's method, path template, parameters and request body, plus the
response schemas of the operations the fake serves (`RESPONSE_OPERATIONS`), with OpenAPI 3.0's
`nullable` turned into JSON Schema and the annotations (descriptions, examples) dropped. That
extract (about 1 MB) is cached beside the description, keyed by the file's size and time and by
this module's source, and read in a few milliseconds afterwards; a folder the user may not write
just means deriving it in memory each time.

`RestDescription.check(...)` takes one HTTP request (method, path, query, content type, body) and
answers a `Verdict`: which operation it is, and every way it breaks the description, with the
status GitHub would answer (404 for a path or method it does not have, 422 for a bad parameter or
body, 400 for a body that is not JSON).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import tempfile
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, cast
from urllib.parse import unquote

JsonObject = dict[str, Any]

ENV_VAR = "WAZA_CI_GITHUB_OPENAPI"
ROOT = Path(__file__).resolve().parent.parent
PACKAGE_DIR = ROOT / ".ci" / ".npm" / "octokit-openapi"
DESCRIPTION_NAME = "api.github.com.deref.json"
DEFAULT_PATH = PACKAGE_DIR / "generated" / DESCRIPTION_NAME
INSTALL_HINT = "bash .ci/openapi.sh"

# The success answer of the operations the fake serves: derived too, so tests can check the
# fake's answers against GitHub's own response schemas.
RESPONSE_OPERATIONS = {
    "checks/create": "201",
    "checks/get": "200",
    "checks/update": "200",
    "checks/list-for-ref": "200",
    "checks/list-annotations": "200",
    "issues/list-comments": "200",
    "issues/create-comment": "201",
    "issues/update-comment": "200",
    "users/get-authenticated": "200",
    "repos/get-content": "200",
}
_METHODS = ("get", "put", "post", "patch", "delete", "head", "options")
# Schema keywords that only annotate: dropped from the extract (they validate nothing).
_ANNOTATIONS = frozenset(
    {"description", "example", "examples", "title", "default", "deprecated", "externalDocs", "xml"}
)


class DescriptionMissing(FileNotFoundError):
    """The description file is not where the tests look for it."""


# --- where the description is, and what its absence means --------------------------------------


def description_path() -> Path:
    """`WAZA_CI_GITHUB_OPENAPI` when set, else where `.ci/openapi.sh` installs it."""
    named = os.environ.get(ENV_VAR)
    return Path(named) if named else DEFAULT_PATH


def in_ci() -> bool:
    """True when `CI` is set (to anything but "", "0" or "false"): a missing description fails."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false")


def missing_message(path: Path) -> str:
    source = f"${ENV_VAR}" if os.environ.get(ENV_VAR) else "the default location"
    return (
        f"GitHub's REST API description is not at {path} ({source}). Install it with "
        f"`{INSTALL_HINT}` (npm package @octokit/openapi, pinned there), or set {ENV_VAR} to an "
        f"{DESCRIPTION_NAME}."
    )


def load_description() -> RestDescription:
    """The description at `description_path()` (loaded once per process and path).

    Raises DescriptionMissing when the file is not there."""
    path = description_path()
    if not path.is_file():
        raise DescriptionMissing(missing_message(path))
    return _load(path.resolve())


def require_description() -> RestDescription | None:
    """The description, or None outside CI when it is not installed (checks are then skipped).

    With `CI` set a missing description raises DescriptionMissing saying so: CI must never pass
    without having checked the requests."""
    try:
        return load_description()
    except DescriptionMissing as missing:
        if in_ci():
            raise DescriptionMissing(
                f"{missing} CI is set, so this is a failure, not a skip."
            ) from None
        return None


# --- the derived extract and its cache ---------------------------------------------------------


@cache
def _load(path: Path) -> RestDescription:
    return RestDescription(_derived(path), path)


def _derived(path: Path) -> JsonObject:
    stat = path.stat()
    key = {
        "size": stat.st_size,
        "mtime_ns": stat.st_mtime_ns,
        "code": hashlib.sha256(Path(__file__).read_bytes()).hexdigest(),
    }
    cache_file = path.with_name(f".{path.name}.waza-ci-extract.json")
    with contextlib.suppress(OSError, ValueError):
        cached = json.loads(cache_file.read_bytes())
        if isinstance(cached, dict) and cached.get("key") == key:
            return cast(JsonObject, cached["extract"])
    extract = derive(json.loads(path.read_bytes()))
    # Best effort, atomically: a folder we may not write (another user's install) means no cache.
    with contextlib.suppress(OSError):
        handle, partial = tempfile.mkstemp(prefix=cache_file.name, dir=path.parent)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                json.dump({"key": key, "extract": extract}, out, separators=(",", ":"))
            os.chmod(partial, 0o644)
            os.replace(partial, cache_file)
        except OSError:
            os.unlink(partial)
            raise
    return extract


def derive(document: Mapping[str, Any]) -> JsonObject:
    """What the checks need of a (dereferenced) OpenAPI 3.0 description, as plain JSON."""
    operations = []
    for template, item in document["paths"].items():
        shared = list(item.get("parameters") or [])
        for method in _METHODS:
            operation = item.get(method)
            if not isinstance(operation, dict):
                continue
            # Operation parameters override path-level ones of the same name and location.
            params: dict[tuple[str, str], Any] = {
                (p["name"], p["in"]): p for p in [*shared, *(operation.get("parameters") or [])]
            }
            body = operation.get("requestBody")
            operation_id = str(operation.get("operationId") or f"{method} {template}")
            responses: JsonObject = {}
            status = RESPONSE_OPERATIONS.get(operation_id)
            if status is not None:
                answer = (operation.get("responses") or {}).get(status) or {}
                schema = ((answer.get("content") or {}).get("application/json") or {}).get("schema")
                responses[status] = to_json_schema(schema) if schema is not None else None
            operations.append(
                {
                    "method": method.upper(),
                    "path": template,
                    "operation_id": operation_id,
                    "docs_url": (operation.get("externalDocs") or {}).get("url"),
                    "parameters": [
                        {
                            "name": p["name"],
                            "in": p["in"],
                            "required": bool(p.get("required")),
                            "multi_segment": bool(p.get("x-multi-segment")),
                            "schema": to_json_schema(p.get("schema") or {}),
                        }
                        for p in params.values()
                        if p["in"] in ("path", "query")
                    ],
                    "body": None
                    if body is None
                    else {
                        "required": bool(body.get("required")),
                        "content": {
                            media: to_json_schema(entry.get("schema") or {})
                            for media, entry in (body.get("content") or {}).items()
                        },
                    },
                    "responses": responses,
                }
            )
    return {"version": str(document.get("info", {}).get("version", "?")), "operations": operations}


def to_json_schema(node: Any) -> Any:
    """An OpenAPI 3.0 schema object as a JSON Schema (Draft 4) the `jsonschema` package checks.

    `nullable: true` becomes a "null" type (or an anyOf with one, when the schema composes
    others); `discriminator`, `readOnly`/`writeOnly`, `x-*` extensions and annotations go. Only
    schema positions are walked, so a property *named* "description" stays.
    """
    if not isinstance(node, dict):
        return node
    out: JsonObject = {}
    for key, value in node.items():
        if key in _ANNOTATIONS or key.startswith("x-"):
            continue
        if key in ("discriminator", "readOnly", "writeOnly", "nullable"):
            continue
        if key in ("properties", "patternProperties") and isinstance(value, dict):
            out[key] = {name: to_json_schema(sub) for name, sub in value.items()}
        elif key in ("allOf", "anyOf", "oneOf") and isinstance(value, list):
            out[key] = [to_json_schema(sub) for sub in value]
        elif key in ("items", "additionalProperties", "not"):
            out[key] = to_json_schema(value)
        else:
            out[key] = value
    if node.get("nullable") is not True:
        return out
    composed = any(key in out for key in ("allOf", "anyOf", "oneOf", "not"))
    if isinstance(out.get("type"), str) and not composed:
        out["type"] = [out["type"], "null"]
        if isinstance(out.get("enum"), list) and None not in out["enum"]:
            out["enum"] = [*out["enum"], None]
        return out
    return {"anyOf": [{"type": "null"}, out]}


# --- operations, matching and checking ---------------------------------------------------------


@dataclass(frozen=True)
class Parameter:
    name: str
    location: str  # "path" or "query"
    required: bool
    multi_segment: bool
    schema: JsonObject


@dataclass(frozen=True)
class Operation:
    method: str
    path: str
    operation_id: str
    docs_url: str | None
    parameters: tuple[Parameter, ...]
    body_required: bool
    body_content: Mapping[str, JsonObject] | None  # media type -> schema; None: takes no body
    responses: Mapping[str, JsonObject | None]
    segments: tuple[_Segment, ...] = field(repr=False, compare=False)
    # Orders the templates one path matches: at the first segment where they differ, a literal
    # before a parameter ("/issues/comments" before "/issues/{issue_number}") before a parameter
    # that may span segments (`x-multi-segment`).
    specificity: tuple[int, ...] = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Operation:
        parameters = tuple(
            Parameter(p["name"], p["in"], p["required"], p["multi_segment"], p["schema"])
            for p in data["parameters"]
        )
        multi = {p.name for p in parameters if p.location == "path" and p.multi_segment}
        segments = tuple(_Segment.parse(part, multi) for part in data["path"].split("/"))
        body = data["body"]
        return cls(
            method=data["method"],
            path=data["path"],
            operation_id=data["operation_id"],
            docs_url=data["docs_url"],
            parameters=parameters,
            body_required=bool(body and body["required"]),
            body_content=None if body is None else dict(body["content"]),
            responses=dict(data["responses"]),
            segments=segments,
            specificity=tuple(segment.rank for segment in segments),
        )

    def match(self, parts: list[str]) -> tuple[int, dict[str, str]] | None:
        """The raw path arguments when the path's `parts` fit this template, with how many
        extra segments multi-segment parameters took (fewer is the better match)."""
        return _match(self.segments, parts, 0, {})

    def response_schema(self, status: str) -> JsonObject:
        schema = self.responses.get(status)
        if schema is None:
            raise KeyError(f"no JSON response schema for {self.operation_id} {status} derived")
        return schema


@dataclass(frozen=True)
class _Segment:
    """One "/"-separated part of a path template: literal text, one parameter, a parameter
    that may span several parts, or a mix such as `{base}...{head}`."""

    literal: str | None = None
    name: str | None = None
    multi: bool = False
    mixed: re.Pattern[str] | None = None

    @classmethod
    def parse(cls, part: str, multi_segment: set[str]) -> _Segment:
        if "{" not in part:
            return cls(literal=part)
        whole = re.fullmatch(r"\{([^{}]+)\}", part)
        if whole:
            return cls(name=whole[1], multi=whole[1] in multi_segment)
        regex = "".join(
            f"(?P<{_group(piece[1:-1])}>.+?)" if piece.startswith("{") else re.escape(piece)
            for piece in re.split(r"(\{[^{}]+\})", part)
            if piece
        )
        return cls(mixed=re.compile(regex))

    def fit(self, part: str) -> dict[str, str] | None:
        """A literal or mixed segment: the arguments `part` gives it, None if it does not fit."""
        if self.literal is not None:
            return {} if self.literal in (part, unquote(part)) else None
        assert self.mixed is not None
        found = self.mixed.fullmatch(part)
        return None if found is None else found.groupdict()

    @property
    def rank(self) -> int:
        return 0 if self.literal is not None else 2 if self.multi else 1


def _match(
    segments: tuple[_Segment, ...], parts: list[str], extra: int, args: dict[str, str]
) -> tuple[int, dict[str, str]] | None:
    if not segments or not parts:
        return (extra, args) if not segments and not parts else None
    segment, rest = segments[0], segments[1:]
    if segment.name is None:
        fitted = segment.fit(parts[0])
        return None if fitted is None else _match(rest, parts[1:], extra, {**args, **fitted})
    widths = range(1, len(parts) - len(rest) + 1) if segment.multi else (1,)
    for width in widths:
        if not all(parts[:width]):
            break
        value = "/".join(parts[:width])
        matched = _match(rest, parts[width:], extra + width - 1, {**args, segment.name: value})
        if matched is not None:
            return matched
    return None


@dataclass(frozen=True)
class Verdict:
    """How a request fares against the description. `status` is what GitHub would answer a
    refused request (404, 422, 400); 0 when there is no problem."""

    method: str
    path: str
    operation: Operation | None
    problems: tuple[str, ...]
    status: int
    path_args: Mapping[str, str]

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def operation_id(self) -> str | None:
        return None if self.operation is None else self.operation.operation_id

    def answer(self) -> JsonObject:
        """The error body GitHub would send (message, documentation_url, status)."""
        if self.status == 404:
            message = "Not Found"
        elif self.status == 400:
            message = "Problems parsing JSON"
        else:
            message = "Invalid request.\n\n" + "\n".join(_capped(self.problems))
        docs = self.operation.docs_url if self.operation is not None else None
        return {
            "message": message,
            "documentation_url": docs or "https://docs.github.com/rest",
            "status": str(self.status),
        }

    def describe(self) -> str:
        """One line per problem, headed by the request and the operation it matched."""
        name = self.operation_id or "no operation"
        return "\n".join(f"{self.method} {self.path} ({name}): {p}" for p in _capped(self.problems))


class RestDescription:
    """The derived description: operations by method, matched against request paths."""

    def __init__(self, extract: Mapping[str, Any], source: Path) -> None:
        self.source = source
        self.version: str = extract["version"]
        self.operations = [Operation.from_json(item) for item in extract["operations"]]
        self._by_id = {op.operation_id: op for op in self.operations}
        # Candidates by the number of "/"-separated parts; templates with a multi-segment
        # parameter are tried for every path.
        self._by_parts: dict[int, list[Operation]] = {}
        self._spanning: list[Operation] = []
        for op in self.operations:
            if any(segment.multi for segment in op.segments):
                self._spanning.append(op)
            else:
                self._by_parts.setdefault(len(op.segments), []).append(op)
        self._validators: dict[int, Callable[[Any], list[str]]] = {}

    def __repr__(self) -> str:
        return f"RestDescription({self.source.name} {self.version}, {len(self.operations)} ops)"

    def operation(self, operation_id: str) -> Operation:
        return self._by_id[operation_id]

    def match(self, method: str, path: str) -> tuple[Operation | None, dict[str, str], list[str]]:
        """The operation for `method` `path`, its raw path arguments, and the methods the best
        matching template has when `method` is not one of them."""
        parts = path.split("/")
        found: list[tuple[tuple[int, tuple[int, ...]], Operation, dict[str, str]]] = []
        for operation in [*self._by_parts.get(len(parts), []), *self._spanning]:
            matched = operation.match(parts)
            if matched is not None:
                extra, args = matched
                found.append(((extra, operation.specificity), operation, args))
        found.sort(key=lambda item: item[0])
        for _, operation, args in found:
            # The best template with this method: GET /repos/o/r/issues/comments is
            # issues/list-comments-for-repo, not issues/get with issue_number "comments".
            if operation.method == method:
                return operation, args, []
        best = [op.method for key, op, _ in found if key == found[0][0]] if found else []
        return None, {}, sorted(set(best))

    def check(
        self,
        method: str,
        path: str,
        query: Mapping[str, list[str]],
        *,
        content_type: str | None = None,
        body: Any = None,
        raw_body: bytes = b"",
    ) -> Verdict:
        """Every way this request breaks the description (see the module's docstring).

        `body` is the parsed JSON of `raw_body` (None when it is empty or not JSON)."""
        method = method.upper()
        operation, raw_args, methods = self.match(method, path)
        if operation is None:
            if methods:
                problem = (
                    f"the description has no {method} operation for this path "
                    f"(it has {', '.join(methods)})"
                )
            else:
                problem = f"no path of GitHub's REST description ({self.version}) matches"
            return Verdict(method, path, None, (problem,), 404, {})
        args = {
            p.name: unquote(raw_args.get(p.name, raw_args.get(_group(p.name), "")))
            for p in operation.parameters
            if p.location == "path"
        }
        path_problems = [
            f"path parameter {parameter.name}: {problem}"
            for parameter in operation.parameters
            if parameter.location == "path"
            for problem in self._errors(
                parameter.schema, _coerce(args[parameter.name], parameter.schema)
            )
        ]
        if path_problems:  # GitHub answers 404 for a path it cannot route (/check-runs/abc)
            return Verdict(method, path, operation, tuple(path_problems), 404, args)
        problems = [
            *self._query_problems(operation, query),
            *self._body_problems(operation, content_type, body, raw_body),
        ]
        not_json = raw_body.strip() and body is None and _is_json(content_type)
        status = 400 if not_json else 422 if problems else 0
        return Verdict(method, path, operation, tuple(problems), status, args)

    def response_errors(self, operation_id: str, status: str, answer: Any) -> list[str]:
        """Where the fake's `answer` breaks the operation's response schema."""
        return self._errors(self.operation(operation_id).response_schema(status), answer)

    # the parts of a request

    def _query_problems(self, operation: Operation, query: Mapping[str, list[str]]) -> list[str]:
        declared = {p.name: p for p in operation.parameters if p.location == "query"}
        problems = [
            f"query parameter {name!r} is not one the operation takes"
            for name in query
            if name not in declared
        ]
        for name, parameter in declared.items():
            values = list(query.get(name) or [])
            if not values:
                if parameter.required:
                    problems.append(f"query parameter {name!r} is required")
                continue
            if parameter.schema.get("type") == "array":
                item_schema = parameter.schema.get("items") or {}
                value: Any = [_coerce(v, item_schema) for v in values]
            elif len(values) > 1:
                problems.append(f"query parameter {name!r} is given {len(values)} times")
                continue
            else:
                value = _coerce(values[0], parameter.schema)
            problems += [
                f"query parameter {name!r}: {error}"
                for error in self._errors(parameter.schema, value)
            ]
        return problems

    def _body_problems(
        self, operation: Operation, content_type: str | None, body: Any, raw_body: bytes
    ) -> list[str]:
        sent = bool(raw_body.strip())
        if operation.body_content is None:
            return ["the operation takes no request body, but one was sent"] if sent else []
        if not sent:
            return ["the request body is required"] if operation.body_required else []
        media = (content_type or "").split(";")[0].strip().lower()
        schema = operation.body_content.get(media)
        if schema is None:
            accepted = ", ".join(operation.body_content) or "none"
            return [f"content type {media or '(none)'!r} is not one it accepts ({accepted})"]
        if not _is_json(media):
            return []
        if body is None:
            return ["the request body is not JSON"]
        return [f"body {error}" for error in self._errors(schema, body)]

    def _errors(self, schema: JsonObject, instance: Any) -> list[str]:
        validate = self._validators.get(id(schema))
        if validate is None:
            validate = _validator(schema)
            self._validators[id(schema)] = validate
        return validate(instance)


def _validator(schema: JsonObject) -> Callable[[Any], list[str]]:
    import jsonschema  # the test extra's; imported late so a plain import of this module is light

    validator = jsonschema.Draft4Validator(schema)

    def errors(instance: Any) -> list[str]:
        found = sorted(validator.iter_errors(instance), key=lambda e: list(e.absolute_path))
        return [f"{error.json_path}: {_message(error)}" for error in found]

    return errors


def _capped(problems: tuple[str, ...], limit: int = 12) -> list[str]:
    if len(problems) <= limit:
        return list(problems)
    return [*problems[: limit - 1], f"… and {len(problems) - limit + 1} more"]


def _message(error: Any) -> str:
    """jsonschema's message, or, when that quotes a long instance, a short one naming the rule."""
    if len(error.message) <= 200:
        return str(error.message)
    instance = error.instance
    size = f" of {len(instance)} items" if isinstance(instance, list) else ""
    if isinstance(instance, str):
        size = f" of {len(instance)} characters"
    elif isinstance(instance, dict):
        size = " (an object)"
    kind = type(instance).__name__
    return f"a {kind}{size} fails {error.validator}: {json.dumps(error.validator_value)[:150]}"


def _group(name: str) -> str:
    return re.sub(r"\W", "_", name)


def _coerce(value: str, schema: Mapping[str, Any]) -> Any:
    """A path or query string as the type its schema wants, when it reads as one."""
    kind = schema.get("type")
    if kind == "integer" and re.fullmatch(r"-?[0-9]+", value):
        return int(value)
    if kind == "number" and re.fullmatch(r"-?[0-9]+(\.[0-9]+)?", value):
        return float(value)
    if kind == "boolean" and value in ("true", "false"):
        return value == "true"
    return value


def _is_json(content_type: str | None) -> bool:
    media = (content_type or "").split(";")[0].strip().lower()
    return media == "application/json" or media.endswith("+json")


def describe_all(verdicts: Iterable[Verdict]) -> str:
    return "\n".join(verdict.describe() for verdict in verdicts if not verdict.ok)
