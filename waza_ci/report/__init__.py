"""The report: one machine-readable model of an evaluation and its pure renderers (Markdown
job summary and check run, annotations, terminal, pull-request comment body, waza gate's
formats). Same input, same bytes.

evaluation.py  what an evaluation found and decided (summary, model and its decision, comparison)
model.py, build.py  the Report and its JSON; GradeSummary -> Report
modules.py     the grader modules `ref:` graders came from, as every report names them
reasons.py     why a verdict did not pass, in one line (telling.py: which line of the output)
words.py       the words every report shares: verdict labels, the counts, not evaluated, …
github_documents.py  the Markdown documents GitHub shows (job summary, check-run summary
               and text): markdown_screen.py (their first screen), details.py (the failing
               graders' outputs), gfm.py (GitHub-flavoured Markdown for untrusted text)
annotations.py  check-run annotations on the graders' YAML lines
terminal.py    the terminal's first screen
regressions.py, comment.py  the baseline comparison, the pull-request comment
waza_gate_formats.py  waza gate's formats (human, markdown, GitHub Actions)
trends.py      the history's trends as text: a Mermaid chart, sparklines (html/trends.py: SVG)
benchmark.py   the figures in github-action-benchmark's customBiggerIsBetter JSON
text_safety.py  untrusted text made safe, cut by bytes: shared by the renderers (and
               github/'s last-moment guards)
github_limits.py  GitHub's size limits, each number once
"""
