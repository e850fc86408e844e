"""waza's tool-name contract for `allow_only` (`models.CanonicalToolName` and
`models.MatchesToolCallName`): exact names, case-insensitive, with a few built-in aliases.

A name is trimmed (Go's white space) and lower-cased (Go's simple mapping). `builtin:` is
dropped; a declared `mcp:`/`custom:` name matches the bare observed name (observations may carry
no source), and keeps its prefix otherwise, without aliases. Aliases: readfile, fileread and
view are `read`; writefile, filewrite and edit are `write`; runcommand is `bash`; web_fetch is
`fetch`. Not a regex: `bash` does not allow `bashful`.
"""

from __future__ import annotations

import functools

from waza_ci.golang.strings import go_lower, go_trim_space

_ALIASES = {
    "readfile": "read",
    "fileread": "read",
    "view": "read",
    "writefile": "write",
    "filewrite": "write",
    "edit": "write",
    "runcommand": "bash",
    "web_fetch": "fetch",
}
_SOURCE_PREFIXES = ("mcp:", "custom:")
_BUILTIN = "builtin:"


def canonical_tool_name(name: str) -> str:
    name = go_lower(go_trim_space(name))
    if name.startswith(_SOURCE_PREFIXES):
        return name  # an MCP or custom tool is its own name: no alias applies
    name = name.removeprefix(_BUILTIN)
    return _ALIASES.get(name, name)


@functools.lru_cache(maxsize=4096)
def matches_tool_call_name(declared: str, observed: str) -> bool:
    """Whether an `allow_only` entry's `tool` names the observed call's tool. Cached: a
    spec's few names meet the same few tool names in every run."""
    declared = go_lower(go_trim_space(declared))
    observed = go_lower(go_trim_space(observed))
    if ":" not in observed:
        for prefix in _SOURCE_PREFIXES:
            if declared.startswith(prefix):
                return declared.removeprefix(prefix) == observed
    return canonical_tool_name(declared) == canonical_tool_name(observed)
