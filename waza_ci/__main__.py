"""`python -m waza_ci` and the `waza-ci` command: the command-line interface.

Signals are handled before `waza_ci.cli.main` (and pydantic with it) is imported, so an interrupt
during start-up ends with one line, not a traceback.
"""

from waza_ci.sandbox.signals import exit_on_signals


def main() -> int:
    exit_on_signals()
    from waza_ci.cli.main import main as cli_main  # noqa: PLC0415 - after the handlers are in place

    return cli_main()


if __name__ == "__main__":
    raise SystemExit(main())
