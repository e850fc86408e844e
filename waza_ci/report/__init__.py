"""The report: one machine-readable model of an evaluation and its pure renderers (Markdown
job summary and check run, annotations, terminal, pull-request comment body, waza gate's
formats). Same input, same bytes.

evaluation.py  what an evaluation found and decided (summary, model and its decision, comparison)
model.py, build.py  the Report and its JSON; GradeSummary -> Report
modules.py     the grader modules `ref:` graders came from, as every report names them
reasons.py     why a verdict did not pass, in one line (telling.py: which line of the output)
screen.py, details.py, markdown.py, md.py  the Markdown documents GitHub shows
annotations.py  check-run annotations on the graders' YAML lines
text.py        the terminal's first screen
regressions.py, comment.py, gate.py  the baseline comparison, the PR comment, waza gate's formats
trends.py      the history's trends as text: a Mermaid chart, sparklines (html/trends.py: SVG)
benchmark.py   the figures in github-action-benchmark's customBiggerIsBetter JSON
_text.py       text hygiene shared by the renderers (and github/'s last-moment guards)
github_limits.py  GitHub's size limits, each number once
"""
