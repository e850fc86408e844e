"""`python -m waza_ci` runs the command-line interface."""

from waza_ci.cli import main

raise SystemExit(main())
