"""Readers of what the action writes for the runner, as the runner itself reads it."""

from __future__ import annotations

import re


def parse_github_output(text: str) -> dict[str, str]:
    """GITHUB_OUTPUT as the runner reads it: `name=value`, or `name<<DELIM` … `DELIM`."""
    outputs: dict[str, str] = {}
    lines = text.split("\n")
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if not line:
            continue
        equals, heredoc = line.find("="), line.find("<<")
        if equals >= 0 and (heredoc < 0 or equals < heredoc):
            outputs[line[:equals]] = line[equals + 1 :]
            continue
        assert heredoc > 0, f"unparseable line {line!r}"
        name, delimiter = line[:heredoc], line[heredoc + 2 :]
        body: list[str] = []
        while lines[index] != delimiter:  # IndexError here means an unterminated heredoc
            body.append(lines[index])
            index += 1
        index += 1
        outputs[name] = "\n".join(body)
    return outputs


def parse_command(line: str) -> tuple[str, dict[str, str], str]:
    """`::name k=v,k=v::message` -> (name, properties, message), as the runner reads it."""
    match = re.fullmatch(r"::([a-z-]+)(?: ([^:]*))?::(.*)", line)
    assert match is not None, line
    properties = dict(p.split("=", 1) for p in (match.group(2) or "").split(",") if p)
    return match.group(1), properties, match.group(3)
