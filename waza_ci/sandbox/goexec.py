"""What Go's os/exec does before it forks: the executable lookup and the working directory's
check, with Go's error texts (the errno, exit and quoting texts are golang/'s).

waza runs program graders with Go's exec.Command; a regraded results file must carry the same
error texts.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping, Sequence

from waza_ci.golang.errors import GoError
from waza_ci.golang.os import go_errno_text
from waza_ci.golang.strconv import go_quote
from waza_ci.sandbox.startcheck import StartProblem


class CannotStart(GoError):
    """The program was not started; the message is Go's error text for the reason, and
    `problem` what the program's file shows about it (startcheck.py), when it shows more."""

    def __init__(self, message: str, problem: StartProblem | None = None) -> None:
        super().__init__(message)
        self.problem = problem


def resolve_executable(argv: Sequence[str], env: Mapping[str, str], cwd: str) -> str:
    """The file to execute for argv[0], looked up the way Go's exec.Command does."""
    if not argv or argv[0] == "":
        raise CannotStart("exec: no command")
    command = argv[0]
    if "/" in command:
        return command
    found = _find_on_path(command, env.get("PATH", ""), cwd)
    if found is None:
        raise CannotStart(f"exec: {go_quote(command)}: executable file not found in $PATH")
    return found


def _find_on_path(name: str, search_path: str, cwd: str) -> str | None:
    """The first executable `name` along `search_path` (the child's PATH), as Go finds it.

    Go refuses a match in an empty, "." or other relative entry (its ErrDot) rather than run a
    program found relative to the current directory, and so do we: such a match is an error,
    not a reason to look further. A missing PATH searches nothing (no default path).
    """
    if not search_path:
        return None
    for directory in search_path.split(os.pathsep):
        if not directory.startswith("/"):
            if _is_executable_file(os.path.join(cwd or ".", directory or ".", name)):
                raise CannotStart(
                    f"exec: {go_quote(name)}: cannot run executable found relative to "
                    "current directory"
                )
            continue
        # Go cleans the joined path, and that spelling shows in later fork/exec errors.
        candidate = os.path.normpath(f"{directory}/{name}")
        if _is_executable_file(candidate):
            return candidate
    return None


def _is_executable_file(path: str) -> bool:
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    if stat.S_ISDIR(mode):
        return False
    return os.access(path, os.X_OK, effective_ids=os.access in os.supports_effective_ids)


def check_working_directory(cwd: str) -> None:
    # Go stats the directory before forking and reports that failure as a chdir error.
    if not cwd:
        return
    try:
        os.stat(cwd)
    except OSError as error:
        raise CannotStart(f"chdir {cwd}: {go_errno_text(error)}") from error
