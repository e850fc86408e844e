"""Keep secrets out of the action process's own environment before any grader starts.

The environment a process started with stays readable in /proc/<pid>/environ for its whole
life, by any process of the same user: a grader included. The kernel shows there whatever the
process's initial environment block holds *now*, so the entrypoint first overwrites the secret
entries of that block with zero bytes (keeping their values in its own memory) and checks, by
reading /proc/self/environ, that none is left: one interpreter start, a millisecond of work.

Where that cannot be done or checked (no C library `environ`, no /proc, an entry that no longer
lives in the block), it falls back to moving the secrets into an anonymous in-memory file,
re-executing itself without them, and reading them back (closing the file) before grading.

Standard library only, and called before anything heavy is imported.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Collection, Mapping

SECRETS_FD_VARIABLE = "WAZA_CI_SECRETS_FD"
_RUNNER_CREDENTIALS = frozenset(
    {
        "GITHUB_TOKEN",
        "ACTIONS_RUNTIME_TOKEN",
        "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
        "ACTIONS_ID_TOKEN_REQUEST_URL",
    }
)


def scrubbed_environment() -> dict[str, str]:
    """The full environment (secrets included) for the action to use, once the process's own
    start-up environment no longer holds them. May replace the process (exec) to get there."""
    env = dict(os.environ)
    if SECRETS_FD_VARIABLE in env:
        return _receive_secrets(env)
    secrets = {name: value for name, value in env.items() if _is_secret(name)}
    if not secrets:
        return env
    if _scrub_in_place(secrets):
        for name in secrets:
            os.environ.pop(name, None)  # as after a re-exec: not inherited by anything we start
        return env
    if hasattr(os, "memfd_create"):
        _reexec_without(secrets, env)  # does not return
    return env


def _is_secret(name: str) -> bool:
    return name.startswith("INPUT_") or name in _RUNNER_CREDENTIALS


def _scrub_in_place(secrets: Mapping[str, str]) -> bool:
    """Zero the secret entries of this process's initial environment block; True only when
    /proc/self/environ is then seen to hold none of them."""
    try:
        import ctypes  # noqa: PLC0415 - only on this path, before anything else is imported

        libc = ctypes.CDLL(None)
        entries = ctypes.POINTER(ctypes.c_void_p).in_dll(libc, "environ")
    except (OSError, ValueError, AttributeError):
        return False
    prefixes = tuple(f"{name}=".encode("utf-8", "surrogateescape") for name in secrets)
    index = 0
    while entries[index]:
        address = entries[index]
        entry = ctypes.string_at(address)
        if entry.startswith(prefixes):
            ctypes.memset(address, 0, len(entry))
        index += 1
    return _none_left(prefixes)


def _none_left(prefixes: tuple[bytes, ...]) -> bool:
    try:
        with open("/proc/self/environ", "rb") as stream:
            block = stream.read()
    except OSError:
        return False  # cannot check, so do not trust it: re-execute instead
    return not any(entry.startswith(prefixes) for entry in block.split(b"\0"))


def _reexec_without(secrets: Mapping[str, str], env: Mapping[str, str]) -> None:
    fd = os.memfd_create("waza-ci-inputs", 0)  # no name on disk; inherited across exec only
    os.write(fd, json.dumps(dict(secrets)).encode("utf-8", "surrogateescape"))
    os.lseek(fd, 0, os.SEEK_SET)
    os.set_inheritable(fd, True)
    clean = {name: value for name, value in env.items() if name not in secrets}
    clean[SECRETS_FD_VARIABLE] = str(fd)
    sys.stdout.flush()
    os.execve(sys.executable, [sys.executable, *sys.argv], clean)  # noqa: S606 - ourselves


def _receive_secrets(env: Mapping[str, str]) -> dict[str, str]:
    fd = int(env[SECRETS_FD_VARIABLE])
    with os.fdopen(fd, "rb") as stream:  # closed before any grader exists
        secrets = json.loads(stream.read().decode("utf-8", "surrogateescape"))
    received = {name: value for name, value in env.items() if name != SECRETS_FD_VARIABLE}
    received.update(secrets)
    return received


# Variables the runner gives the action that graders must never see: the action's inputs
# (the token among them), the runner's own credentials, and the runner's command files (a
# grader writing to GITHUB_OUTPUT could forge the step's `passed` output).
_SECRET_VARIABLES = frozenset(
    {
        "GITHUB_OUTPUT",
        "GITHUB_ENV",
        "GITHUB_PATH",
        "GITHUB_STATE",
        "GITHUB_STEP_SUMMARY",
        "GITHUB_TOKEN",
        "GH_TOKEN",  # read by the command to fetch grader modules, as waza reads it
        "COPILOT_GITHUB_TOKEN",  # the Copilot judge's token, whichever judge this grading uses
        "ACTIONS_RUNTIME_TOKEN",
        "ACTIONS_RUNTIME_URL",
        "ACTIONS_RESULTS_URL",
        "ACTIONS_CACHE_URL",
        "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
        "ACTIONS_ID_TOKEN_REQUEST_URL",
    }
)


def grader_environment(env: Mapping[str, str], also: Collection[str] = ()) -> dict[str, str]:
    """The environment graders inherit: the caller's, less inputs, runner credentials, the
    runner's command files, and `also` (the variables that hold the LLM judge's credential)."""
    return {
        name: value
        for name, value in env.items()
        if not name.startswith("INPUT_") and name not in _SECRET_VARIABLES and name not in also
    }
