"""A grader output longer than the capture, through the report: the reason, the job summary's
and the check run's head-and-tail view, the report JSON and the notes are built from the head
and the tail that were kept, and the cut marker counts what the grader really printed."""

from __future__ import annotations

import json
import re
from dataclasses import replace

import pytest

from tests.report import factories
from waza_ci.report.evaluation import Evaluation
from waza_ci.report.github_documents import (
    render_check_summary,
    render_check_text,
    render_markdown,
)
from waza_ci.report.github_limits import CHECK_OUTPUT_BYTES, JOB_SUMMARY_BYTES
from waza_ci.report.model import report_json_text
from waza_ci.report.text_safety import head_tail
from waza_ci.sandbox.capture import OutputCapture, cut_line, find_cut_lines

MIB = 1024 * 1024
FIRST = "FIRST-LINE: the output begins"
LAST = "LAST-LINE: AssertionError: expected 42 got 41"
NOTE = "stderr: 123 bytes (4 lines) in the middle were not kept; waza-ci keeps …"
MARKER = re.compile(r"^… ([\d,]+) lines cut \(([\d,]+) bytes\) …$", re.MULTILINE)


def printed(size: int) -> bytes:
    """About `size` bytes of numbered lines, the first and last distinctive."""
    line_size = len(b"filler 00000000 " + b"y" * 60 + b"\n")
    body = b"".join(b"filler %08d %s\n" % (n, b"y" * 60) for n in range(size // line_size))
    return f"{FIRST}\n".encode() + body + f"{LAST}\n".encode()


def kept_text(data: bytes) -> str:
    capture = OutputCapture(MIB)
    for start in range(0, len(data), 65_536):
        capture.add(data[start : start + 65_536])
    return capture.kept().text


def report_for(stderr: str) -> Evaluation:
    verdict = replace(factories.failed("tests_pass", stderr), notes=(NOTE,))
    summary = factories.one_failure_summary("")
    task = replace(summary.tasks[0], runs=(factories.run(1, verdict),))
    return Evaluation.build(replace(summary, tasks=(task,)), repo_root=factories.REPO)


@pytest.mark.parametrize(
    "size",
    [int(1.4 * MIB), pytest.param(100 * MIB, marks=pytest.mark.slow)],
    ids=["1.4MiB", "100MiB"],
)
def test_every_view_is_built_from_the_head_and_the_tail(size: int) -> None:
    data = printed(size)
    report = report_for(kept_text(data))
    (row,) = report.model.problems
    assert row.reason == LAST  # the tail holds the assertion
    assert row.notes == (NOTE,)
    document = json.loads(report_json_text(report.model, report.decision))
    (feedback,) = document["tasks"][0]["graders"][0]["feedback"]
    assert feedback["text"].startswith(FIRST) and LAST in feedback["text"]
    assert len(find_cut_lines(feedback["text"])) == 1  # the report JSON keeps what was kept
    assert feedback["text"].endswith(f"waza-ci: {NOTE}")
    for render, limit in (
        (render_markdown, JOB_SUMMARY_BYTES),
        (render_check_text, CHECK_OUTPUT_BYTES),
    ):
        view = render(report)
        assert len(view.encode()) <= limit
        assert FIRST in view and LAST in view
    assert LAST in render_check_summary(report)


@pytest.mark.slow
def test_the_marker_counts_what_the_grader_printed_not_what_was_kept() -> None:
    data = printed(100 * MIB)
    view = render_check_text(report_for(kept_text(data)))
    assert find_cut_lines(view) == []  # the capture's cut line is folded into the marker
    lines = view.split("\n")
    first, last = lines.index(FIRST), lines.index(LAST)
    (marker,) = [n for n in range(first, last) if MARKER.match(lines[n])]
    match = MARKER.match(lines[marker])
    assert match is not None
    cut_lines, cut_bytes = (int(group.replace(",", "")) for group in match.groups())
    shown = lines[first:marker] + lines[marker + 1 : last + 1]
    assert len(shown) + cut_lines == data.count(b"\n")
    # What is shown, what is cut: the grader's bytes, give or take the marker's line break.
    shown_bytes = sum(len(line.encode()) + 1 for line in shown)
    assert abs(shown_bytes + cut_bytes - len(data)) <= 1


def test_a_cut_that_keeps_the_capture_s_line_leaves_both_markers() -> None:
    text = kept_text(printed(int(1.4 * MIB)))
    shortened = head_tail(text, len(text.encode()) - 1000)
    assert len(find_cut_lines(shortened)) == 1
    assert len(MARKER.findall(shortened)) == 1


def test_a_text_with_no_capture_cut_is_cut_as_before() -> None:
    text = "\n".join(f"line {n}" for n in range(1000))
    shortened = head_tail(text, 2000)
    (match,) = MARKER.finditer(shortened)
    head = shortened[: match.start()].count("\n")
    tail = shortened[match.end() + 1 :].count("\n") + 1
    assert head + int(match[1].replace(",", "")) + tail == 1000
    assert cut_line(1, 1, 1) not in shortened
