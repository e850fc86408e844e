"""Keep secrets out of the action process's own environment before any grader starts.

The environment a process started with stays readable in /proc/<pid>/environ for its whole
life, by any process of the same user: a grader included. So the entrypoint moves the action's
inputs (the token among them) and the runner's credentials into an anonymous in-memory file,
re-executes itself without them, and reads them back (closing the file) before grading.

Standard library only, and called before anything heavy is imported: the re-execution then
costs one interpreter start, not two imports of the whole package.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping

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
    if secrets and hasattr(os, "memfd_create"):
        _reexec_without(secrets, env)  # does not return
    return env


def _is_secret(name: str) -> bool:
    return name.startswith("INPUT_") or name in _RUNNER_CREDENTIALS


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
