"""Pure renderers of a GradeSummary: the Markdown report and the check-run annotations."""
