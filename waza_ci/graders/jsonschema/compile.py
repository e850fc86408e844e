"""A schema compiled as waza compiles it: added to a fresh compiler of santhosh-tekuri/jsonschema
v6 as a resource (`schema.json` for the json_schema grader, `argmatcher.json` for an argument
matcher), so its URL is `file://<process cwd>/<resource>`, and checked before use.

The draft is the one `$schema` names (4, 6, 7, 2019-09, 2020-12), 2020-12 without it. The
schema must be valid against its metaschema; every RE2 pattern must compile; every reference
must resolve. Metaschemas are built in (no network). Other references resolve against the
schema's URL: `file:` URLs are read from disk, as the library's default loader does (without
blocking: a FIFO reads as empty, where the library would wait), and any other scheme fails to
load (the library has no loader for it, online or not). A custom metaschema (any other
`$schema`) is refused, where the library would load it. Each failure is
the compile error waza reports (`failed to compile JSON schema: …`); the texts for unresolved
references and bad patterns are modelled on the library's and not verified byte for byte.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote as url_quote
from urllib.parse import unquote, urljoin, urlsplit

import jsonschema_specifications  # type: ignore[import-untyped]
from referencing import Registry, Resource, Specification
from referencing.exceptions import NoSuchAnchor, PointerToNowhere, Unresolvable
from referencing.jsonschema import (
    DRAFT4,
    DRAFT6,
    DRAFT7,
    DRAFT201909,
    DRAFT202012,
    specification_with,
)

from waza_ci.golang.errors import GoError
from waza_ci.golang.json_scanner import GoJSONError, go_decode_document
from waza_ci.golang.os import GoFileError, go_read_file
from waza_ci.golang.regexp import GoRegexError, compile_go
from waza_ci.golang.strconv import go_quote
from waza_ci.graders.jsonschema.texts import Failure, quote, render
from waza_ci.graders.jsonschema.type_keywords import Resolver
from waza_ci.graders.jsonschema.validate import Validator

SPECIFICATIONS: dict[int, Specification[Any]] = {
    4: DRAFT4,
    6: DRAFT6,
    7: DRAFT7,
    2019: DRAFT201909,
    2020: DRAFT202012,
}
METASCHEMAS = {
    4: "http://json-schema.org/draft-04/schema",
    6: "http://json-schema.org/draft-06/schema",
    7: "http://json-schema.org/draft-07/schema",
    2019: "https://json-schema.org/draft/2019-09/schema",
    2020: "https://json-schema.org/draft/2020-12/schema",
}
_DRAFTS_BY_URL = {
    **{url.split("://", 1)[1]: draft for draft, url in METASCHEMAS.items()},
    "json-schema.org/schema": 2020,
}


class SchemaCompileError(GoError):
    """The library refuses the schema; `str()` is its error."""


@dataclass(frozen=True)
class CompiledSchema:
    schema: Any
    location: str
    """The schema's URL with its empty fragment, as the library's messages show it."""
    validator: Validator
    resolver: Resolver


def schema_url(working_directory: str, resource: str = "schema.json") -> str:
    """The URL the library gives the resource: the absolute path under the process cwd,
    escaped as Go's net/url escapes a path."""
    path = f"{working_directory.rstrip('/')}/{resource}"
    return "file://" + url_quote(path, safe="/$&+,:;=@")


Loader = Callable[[str], Any]
"""The document at a URL that is not a `file:` URL (a loader of the library's
`UseLoaderContext`); raises when it has none, and the exception's text is the cause shown."""


def compile_schema(
    schema: Any,
    working_directory: str,
    resource: str = "schema.json",
    *,
    default_draft: int = 2020,
    loader: Loader | None = None,
) -> CompiledSchema:
    """Raises SchemaCompileError with the library's error. waza compiles with the library's
    defaults; `default_draft` (for a schema without `$schema`) and `loader` are the library's
    `DefaultDraft` and `UseLoaderContext`, which the official test suite's runs use."""
    url = schema_url(working_directory, resource)
    draft = _draft(schema, default_draft)
    specification = SPECIFICATIONS[draft]
    base = _BASE_REGISTRY if loader is None else _registry(_Retriever(loader, draft))
    registry = base.with_resource(url, specification.create_resource(schema)).crawl()
    _check_against_metaschema(schema, draft, registry, url)
    resolver = registry.resolver(base_uri=url)
    _check_patterns_and_references(schema, draft, resolver, url)
    return CompiledSchema(schema, f"{url}#", Validator(draft, specification), resolver)


def validation_error(compiled: CompiledSchema, value: Any) -> str | None:
    """`%v` of the library's validation error for `value`, or None when it is valid."""
    error = compiled.validator.check(compiled.schema, value, compiled.resolver)
    return None if error is None else _rooted(error, compiled.location)


def _rooted(error: Failure, location: str) -> str:
    causes = error.causes if error.kind == "group" else [error]
    root = Failure((), f"jsonschema validation failed with {quote(location)}", causes, "schema")
    return render(root)


def _draft(schema: Any, default: int) -> int:
    named = schema.get("$schema") if isinstance(schema, dict) else None
    if not isinstance(named, str):
        return default  # a non-string `$schema` is left to the metaschema to refuse
    bare = named.split("#", 1)[0].split("://", 1)[-1]
    draft = _DRAFTS_BY_URL.get(bare)
    if draft is None:
        raise SchemaCompileError(_load_failure(named.split("#", 1)[0]))
    return draft


def _check_against_metaschema(schema: Any, draft: int, registry: Registry[Any], url: str) -> None:
    meta_url = METASCHEMAS[draft]
    resolved = registry.resolver(base_uri=meta_url).lookup(meta_url)
    error = Validator(draft, SPECIFICATIONS[draft]).check(
        resolved.contents, schema, resolved.resolver
    )
    if error is not None:
        raise SchemaCompileError(
            f"{go_quote(url + '#')} is not valid against metaschema: "
            f"{_rooted(error, meta_url + '#')}"
        )


# -- the checks the library makes while compiling ---------------------------------------------

_ONE = (
    *("not", "if", "then", "else", "contains", "propertyNames", "additionalProperties"),
    *("additionalItems", "unevaluatedProperties", "unevaluatedItems", "contentSchema"),
)
_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
_MAPS = ("properties", "patternProperties", "dependentSchemas")


def _check_patterns_and_references(schema: Any, draft: int, resolver: Resolver, url: str) -> None:
    """Every schema the validation can reach, from the root through its keywords and its
    references (as the library compiles them; an unreferenced `$defs` entry is not compiled)."""
    specification = SPECIFICATIONS[draft]
    id_keyword = "id" if draft == 4 else "$id"
    # Each schema with the resolver of the schema around it, or (a reference's target) its own.
    pending: list[tuple[Any, Resolver, str, bool]] = [(schema, resolver, f"{url}#", False)]
    seen: set[int] = set()
    while pending:
        subschema, outer, where, referenced = pending.pop()
        if not isinstance(subschema, dict) or id(subschema) in seen:
            continue
        seen.add(id(subschema))
        here = outer
        if id_keyword in subschema and not referenced:
            here = outer.in_subresource(specification.create_resource(subschema))
        _check_patterns(subschema, where)
        for keyword in ("$ref", "$dynamicRef"):
            reference = subschema.get(keyword)
            if isinstance(reference, str):
                target = _check_reference(here, reference)
                located = _located(here, reference)
                pending.append((target.contents, target.resolver, located, True))
        pending.extend(
            (child, here, f"{where}/{path}", False) for path, child in _children(subschema)
        )


def _children(schema: dict[str, Any]) -> list[tuple[str, Any]]:
    children = [(keyword, schema[keyword]) for keyword in _ONE if keyword in schema]
    items = schema.get("items")
    if isinstance(items, list):
        children.extend((f"items/{index}", item) for index, item in enumerate(items))
    elif items is not None:
        children.append(("items", items))
    for keyword in _LISTS:
        if isinstance(schema.get(keyword), list):
            children.extend((f"{keyword}/{i}", s) for i, s in enumerate(schema[keyword]))
    for keyword in (*_MAPS, "dependencies"):
        if isinstance(schema.get(keyword), dict):
            children.extend(
                (f"{keyword}/{_escape(name)}", child) for name, child in schema[keyword].items()
            )
    return children


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def _check_patterns(schema: dict[str, Any], location: str) -> None:
    patterns = [("pattern", schema["pattern"])] if isinstance(schema.get("pattern"), str) else []
    names = schema.get("patternProperties")
    if isinstance(names, dict):
        patterns.extend((f"patternProperties/{_escape(name)}", name) for name in names)
    for where, pattern in patterns:
        try:
            compile_go(pattern)
        except GoRegexError as err:
            raise SchemaCompileError(
                f"invalid regex {go_quote(pattern)} at {go_quote(f'{location}/{where}')}: {err}"
            ) from None


def _check_reference(resolver: Resolver, reference: str) -> Any:
    """The reference resolved (referencing's `Resolved`); SchemaCompileError when it cannot be."""
    try:
        return resolver.lookup(reference)
    except PointerToNowhere as err:
        raise SchemaCompileError(
            f"json-pointer in {go_quote(_absolute(resolver, reference))} not found"
        ) from err
    except NoSuchAnchor as err:
        raise SchemaCompileError(
            f"anchor in {go_quote(_absolute(resolver, reference))} not found"
        ) from err
    except Unresolvable as err:
        raise SchemaCompileError(_cause_text(err, _absolute(resolver, reference))) from err


def _absolute(resolver: Resolver, reference: str) -> str:
    return urljoin(str(resolver._base_uri), reference)


def _located(resolver: Resolver, reference: str) -> str:
    """Where a reference leads, as the library names a schema's location (with `#`)."""
    target = _absolute(resolver, reference)
    return target if "#" in target else f"{target}#"


class _LoadError(Exception):
    pass


def _cause_text(err: BaseException, reference: str) -> str:
    cause: BaseException | None = err
    while cause is not None:
        if isinstance(cause, _LoadError):
            return str(cause)
        cause = cause.__cause__
    return _load_failure(reference.split("#", 1)[0])


def _load_failure(url: str) -> str:
    return f"failing loading {go_quote(url)}: invalid file url: {url}"


@dataclass(frozen=True)
class _Retriever:
    """The library's loaders: `file:` URLs from disk (its FileLoader), any other URL from the
    loader given to the compiler, if any; a document without `$schema` is of `draft`."""

    loader: Loader | None = None
    draft: int = 2020

    def __call__(self, uri: str) -> Resource[Any]:
        parts = urlsplit(uri)
        if parts.scheme == "file":
            contents = _read_file(uri, unquote(parts.path))
        elif self.loader is not None:
            try:
                contents = self.loader(uri)
            except Exception as err:
                raise _LoadError(f"failing loading {go_quote(uri)}: {err}") from err
        else:
            raise _LoadError(_load_failure(uri))
        named = contents.get("$schema") if isinstance(contents, dict) else None
        default = SPECIFICATIONS[self.draft]
        try:
            specification = specification_with(named, default=default) if named else default
        except Exception:  # an unknown dialect: the library would load it as a metaschema
            specification = default
        return specification.create_resource(contents)


def _read_file(uri: str, path: str) -> Any:
    """The library's FileLoader: Go's os.Open and its JSON decoder, with Go's texts. Read
    without blocking, so a FIFO named by a reference reads as empty rather than hanging."""
    try:
        return go_decode_document(go_read_file(path))
    except (GoFileError, GoJSONError) as err:
        raise _LoadError(f"failing loading {go_quote(uri)}: {err}") from err


def _registry(retrieve: _Retriever) -> Registry[Any]:
    """The built-in metaschemas (no network), then the loaders."""
    return Registry(retrieve=retrieve).combine(  # type: ignore[call-arg]
        jsonschema_specifications.REGISTRY
    )


_BASE_REGISTRY = _registry(_Retriever())
