"""waza-ci's runner of a `code` grader's Python assertions, run by the user's own Python.

It behaves as waza's embedded Python runner does, so that assertions pass, fail and fail
with the same messages as under `waza grade`:

* stdin holds one JSON document: `output`, `outcome`, `transcript`, `tool_calls`,
  `duration_ms`, `assertions`, `debug` (when true, the document is echoed to stderr);
* each assertion is a Python expression evaluated with `eval`, with no builtins but the
  names below, and the run's values as its local names. Those locals are one mapping shared
  by all assertions of the grader, so a name bound by `(x := ...)` is seen by the next ones;
* the result of an assertion is "" when its value is truthy, "fail" when it is not, and the
  exception's text when evaluating it (or testing its truth) raised one;
* stdout receives `{"results": [...]}`, one result per assertion, nothing else.

`errors` lists the transcript events whose type contains "error", or whose content does.

This file is run as a script by Python 3.7 or later (whatever `python3` the user has), so
it keeps to what every such version understands. Nothing but the JSON may go to stdout.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any


def error_events(transcript: list[Any]) -> list[Any]:
    """The events whose type or content mentions "error" (case-sensitive)."""
    return [
        event
        for event in transcript
        if "error" in event.get("type") or "error" in str(event.get("content", ""))
    ]


def assertion_names(run: dict[str, Any]) -> dict[str, Any]:
    """What an assertion can name: the run's values and a few safe builtins."""
    return {
        "output": run["output"] or "",
        "outcome": run["outcome"],
        "transcript": run["transcript"],
        "tool_calls": run["tool_calls"],
        "errors": error_events(run["transcript"]),
        "duration_ms": run["duration_ms"],
        "len": len,
        "any": any,
        "all": all,
        "re": re,
        "str": str,
        "int": int,
        "float": float,
        "bool": bool,
        "list": list,
        "dict": dict,
        "True": True,
        "False": False,
    }


def check(assertion: str, names: dict[str, Any]) -> str:
    """ "" when the assertion holds, "fail" when it does not, else the error it raised."""
    try:
        # The user's own expression, evaluated as waza evaluates it: that is the grader.
        held = bool(eval(assertion, {"__builtins__": {}}, names))  # noqa: S307
    except Exception as error:
        return str(error)
    return "" if held else "fail"


def main() -> None:
    document = sys.stdin.buffer.read().decode("utf-8")
    run = json.loads(document)
    if run.get("debug"):
        sys.stderr.write(document + "\n")
    names = assertion_names(run)
    results = [check(assertion, names) for assertion in run["assertions"]]
    sys.stdout.write(json.dumps({"results": results}) + "\n")


if __name__ == "__main__":
    main()
