"""waza-ci: re-grade saved waza runs with their program graders and report to GitHub."""

__version__ = "1.0.0"
