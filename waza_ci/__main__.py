"""`python -m waza_ci` and the `waza-ci` command: the command-line interface.

Signals are handled before `waza_ci.cli.main` (and pydantic with it) is imported, so an interrupt
during start-up ends with one line, not a traceback.
"""

from typing import NoReturn

from waza_ci.collector import off_for_this_process
from waza_ci.sandbox.signals import end_process, exit_on_signals


def main() -> NoReturn:
    exit_on_signals()
    off_for_this_process()  # before the engine's imports, which the collector would walk
    from waza_ci.cli.main import main as cli_main  # noqa: PLC0415 - after the handlers are in place

    end_process(cli_main())


if __name__ == "__main__":
    main()
