#!/usr/bin/env python3
"""The container's entry point: run the waza-ci action with the runner's environment."""

from waza_ci.collector import off_for_this_process
from waza_ci.sandbox.isolation import scrubbed_environment
from waza_ci.sandbox.signals import end_process, exit_on_signals


def main() -> int:
    exit_on_signals()  # before anything heavy: an interrupt now is one line, not a traceback
    env = scrubbed_environment()  # first: it may re-execute this script without the secrets
    off_for_this_process()  # before the engine's imports, which the collector would walk
    from waza_ci.action.main import main as run_action  # noqa: PLC0415 - only after the re-exec

    return run_action(env)


if __name__ == "__main__":
    end_process(main())
