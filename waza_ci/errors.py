"""The errors every layer raises for the user's input, and where in a file they point.

Only errors of these classes are user errors: the shells print them as one line and exit with
their `exit_code`. Anything else escaping is a bug and keeps its traceback.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

EXIT_PASSED = 0
EXIT_FAILED = 1
EXIT_INPUT_ERROR = 2
EXIT_GRADER_ERROR = 3


SHOWN_NAMES = 5
"""How many alternatives a message lists before counting the rest."""


def few(names: Iterable[str], *, limit: int = SHOWN_NAMES) -> str:
    """`a, b, c and 7 more` (names quoted as Python does): enough to recognise a list."""
    unique = list(dict.fromkeys(names))
    if not unique:
        return "none"
    shown = ", ".join(repr(name) for name in unique[:limit])
    rest = len(unique) - limit
    return f"{shown} and {rest} more" if rest > 0 else shown


def closest_first(word: str, names: Iterable[str]) -> list[str]:
    """`names` with the ones most like `word` first (a typo's likely meaning leads)."""
    # Imported for a name not found only: every command imports this module at start-up.
    import difflib  # noqa: PLC0415

    unique = list(dict.fromkeys(names))
    close = difflib.get_close_matches(word, unique, n=len(unique), cutoff=0.6)
    return close + [name for name in unique if name not in close]


def did_you_mean(word: str, names: Iterable[str]) -> str:
    """` (did you mean 'program'?)` when one name is close to `word`, else ""."""
    import difflib  # noqa: PLC0415 - see closest_first

    close = difflib.get_close_matches(word, list(names), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


WINDOWS_PATH_HINT = (
    "this is a Windows path: use forward slashes (graders/check.py, not graders\\check.py) "
    "and a path relative to the checkout; on Linux a backslash is part of a file's name and "
    "a drive letter (C:) names nothing"
)

# A drive letter (`C:\\`, `C:/`) at the start or after a quote or space, or a backslash between
# two characters of a file name (`graders\\check.py`, `tasks\\*.yaml`; Go and Python quote it
# doubled): how a path typed on Windows looks in a message or a path.
_WINDOWS_PATH = re.compile(r"""(?:^|[\s'"`(=])[A-Za-z]:[\\/]|[\w.*?-]\\+[\w.*?-]""")


def windows_path(text: str) -> bool:
    """Whether `text` (a path, or a message quoting one) holds a Windows-style path; for a path
    that was not found, `WINDOWS_PATH_HINT` is then the fix, not a working directory."""
    return bool(_WINDOWS_PATH.search(text))


@dataclass(frozen=True)
class Location:
    """A place in a user's file: a YAML line, a JSON path, or just the file."""

    file: str
    line: int | None = None
    json_path: str | None = None

    def __str__(self) -> str:
        if self.line is not None:
            return f"{self.file}:{self.line}"
        if self.json_path is not None:
            return f"{self.file}: at {self.json_path}"
        return self.file


class WazaCiError(Exception):
    """Base of the errors that are the user's to fix; carries the process exit code."""

    exit_code = EXIT_INPUT_ERROR

    def __init__(self, message: str, location: Location | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.location = location

    def __str__(self) -> str:
        if self.location is None:
            return self.message
        return f"{self.location}: {self.message}"


class InputError(WazaCiError):
    """Bad input or usage: nothing was graded and nothing written (exit 2)."""

    exit_code = EXIT_INPUT_ERROR


class SetupError(WazaCiError):
    """What grading needs cannot be had (a grader module that cannot be fetched): nothing was
    graded and nothing written, and the step's setup is to fix (exit 3, as graders that
    could not run)."""

    exit_code = EXIT_GRADER_ERROR


class OutputError(WazaCiError):
    """A requested output file could not be written (exit 2: nothing half-written is left)."""

    exit_code = EXIT_INPUT_ERROR


class JudgeSetupError(WazaCiError):
    """The LLM judge could not run where it had to (`--judge-required`, or a limit the user
    set): authentication, quota, network, an unknown model, too many calls. Exit 3, in words
    that name the fix; never the credential."""

    exit_code = EXIT_GRADER_ERROR


class Interrupted(WazaCiError):
    """Grading was stopped by a signal: graders killed, context directories removed, nothing
    written. The exit code is the shell convention, 128 + the signal number."""

    def __init__(self, signum: int | None) -> None:
        import signal  # noqa: PLC0415 - on a signal only, as difflib in closest_first

        name = signal.Signals(signum).name if signum else "a cancellation"
        super().__init__(
            f"interrupted by {name}: running graders were killed and their context "
            "directories removed; nothing was written"
        )
        self.exit_code = 128 + (signum or signal.SIGTERM)
