"""What Go's os/exec does before it forks, and the words Go uses for what went wrong.

waza runs program graders with Go's exec.Command; a regraded results file must carry the same
error texts, so the executable lookup, the errno and exit texts are restated here.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping, Sequence

from waza_ci.golang.strconv import go_quote

# Go's syscall signal names on Linux (what `signal: <name>` prints); others are "signal N".
_GO_SIGNAL_NAMES = {
    1: "hangup",
    2: "interrupt",
    3: "quit",
    4: "illegal instruction",
    5: "trace/breakpoint trap",
    6: "aborted",
    7: "bus error",
    8: "floating point exception",
    9: "killed",
    10: "user defined signal 1",
    11: "segmentation fault",
    12: "user defined signal 2",
    13: "broken pipe",
    14: "alarm clock",
    15: "terminated",
    16: "stack fault",
    17: "child exited",
    18: "continued",
    19: "stopped (signal)",
    20: "stopped",
    21: "stopped (tty input)",
    22: "stopped (tty output)",
    23: "urgent I/O condition",
    24: "CPU time limit exceeded",
    25: "file size limit exceeded",
    26: "virtual timer expired",
    27: "profiling timer expired",
    28: "window changed",
    29: "I/O possible",
    30: "power failure",
    31: "bad system call",
}

# The characters Go's strings.TrimSpace removes (unicode.IsSpace). Python's str.strip() would
# also remove U+001C..U+001F, which Go keeps.
_GO_SPACE = (
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000"
)


class CannotStart(Exception):
    """The program was not started; the message is Go's error text for the reason."""


def go_trim_space(text: str) -> str:
    """`strings.TrimSpace`: waza trims program output with Go's notion of white space."""
    return text.strip(_GO_SPACE)


def go_exit_text(si_code: int, si_status: int) -> str | None:
    """Go's `ProcessState.String()` for a child's exit, from waitid's code and status.

    None for a clean exit 0, which Go does not report as an error at all.
    """
    if si_code == os.CLD_EXITED:
        return None if si_status == 0 else f"exit status {si_status}"
    text = f"signal: {_GO_SIGNAL_NAMES.get(si_status, f'signal {si_status}')}"
    if si_code == os.CLD_DUMPED:
        text += " (core dumped)"
    return text


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


def go_errno_text(error: OSError | int) -> str:
    """Go's text of a Unix errno (`syscall.Errno.Error()`): the C library's message with its
    first letter lowered, unless the first word is an acronym (`RFS specific error`). An
    OSError without an errno gives its own text."""
    code = error if isinstance(error, int) else error.errno
    if code is None:
        return str(error)
    message = os.strerror(code)
    if len(message) > 1 and message[0].isupper() and message[1].islower():
        message = message[0].lower() + message[1:]
    return message
