"""What is kept of a long output: its head and its tail around one cut line (capture.py),
within the cap, in bounded memory; by unit and against real processes at 10 KiB, 1 MiB,
1.4 MiB and 100 MiB."""

from __future__ import annotations

import random
import sys
import textwrap
import tracemalloc

import pytest

from waza_ci.sandbox.capture import (
    ALIGN_WINDOW,
    KeptOutput,
    OutputCapture,
    cut_line,
    find_cut_lines,
    parse_cut_line,
)
from waza_ci.sandbox.outcome import DEFAULT_OUTPUT_CAP_BYTES, ProgramOutcome
from waza_ci.sandbox.program import run_program

KIB = 1024
MIB = 1024 * KIB
LAST_LINE = "DISTINCTIVE-LAST-LINE: AssertionError: expected 42 got 41"


def run(code: str, *, output_cap_bytes: int = DEFAULT_OUTPUT_CAP_BYTES) -> ProgramOutcome:
    return run_program(
        [sys.executable, "-c", textwrap.dedent(code)],
        stdin=b"",
        env={},
        cwd="/",
        timeout_s=60.0,
        output_cap_bytes=output_cap_bytes,
    )


def capture(data: bytes, cap: int, chunk: int = 64 * KIB) -> KeptOutput:
    kept = OutputCapture(cap)
    for start in range(0, len(data), chunk):
        kept.add(data[start : start + chunk])
    return kept.kept()


def split(kept: KeptOutput, data: bytes) -> tuple[bytes, bytes]:
    """The kept head and tail of `data` (bytes), read back from the kept text."""
    (start, end, _lines, _size), *more = find_cut_lines(kept.text)
    assert not more, "one cut line per stream"
    head = kept.text[:start].encode()
    tail = kept.text[end + 1 :].encode()
    if len(head) + kept.dropped_bytes + len(tail) != len(data):
        head = head[:-1]  # the line break before the cut line was ours: the head ended inside
    return head, tail


# --- unit: what is kept -------------------------------------------------------------------------


def test_an_output_within_the_cap_is_kept_whole() -> None:
    data = b"".join(b"line %d\n" % i for i in range(100_000))[: 1 * MIB]
    assert len(data) == MIB
    assert capture(data, MIB) == KeptOutput(data.decode())
    assert capture(b"", MIB) == KeptOutput("")


def test_a_long_output_keeps_head_and_tail_on_line_breaks_and_counts_the_rest() -> None:
    lines = [b"line %05d: %s\n" % (i, b"x" * 280) for i in range(1, 5000)]
    data = b"".join(lines) + LAST_LINE.encode() + b"\n"
    kept = capture(data, MIB)
    head, tail = split(kept, data)
    assert data.startswith(head) and data.endswith(tail)
    assert head.endswith(b"\n") and tail.startswith(b"line ")  # whole lines on both sides
    assert len(head) <= MIB // 2 and len(tail) <= MIB // 2
    assert len(head) + kept.dropped_bytes + len(tail) == len(data)
    dropped = data[len(head) : len(data) - len(tail)]
    assert kept.dropped_lines == dropped.count(b"\n")
    assert kept.text.endswith(LAST_LINE + "\n")
    assert cut_line(kept.dropped_lines, kept.dropped_bytes, MIB // 2) in kept.text
    # ASCII in, ASCII out: the text stays one byte a character in memory.
    assert kept.text.isascii()


@pytest.mark.parametrize("seed", range(40))
def test_head_dropped_tail_add_up_whatever_the_chunks(seed: int) -> None:
    rng = random.Random(seed)
    cap = rng.choice([2, 7, 64, 1000, 4096])
    size = rng.choice([0, cap - 1, cap, cap + 1, cap * 3, cap * 50 + 7])
    data = bytes(rng.choice(b"ab\n") for _ in range(max(size, 0)))
    kept = capture(data, cap, chunk=rng.choice([1, 3, 100, 5000]))
    if len(data) <= cap:
        assert kept == KeptOutput(data.decode())
        return
    head, tail = split(kept, data)
    assert data.startswith(head) and data.endswith(tail)
    assert len(head) <= cap // 2 and len(tail) <= cap - cap // 2
    assert len(head) + kept.dropped_bytes + len(tail) == len(data)
    dropped = data[len(head) : len(data) - len(tail)]
    assert kept.dropped_lines == dropped.count(b"\n") + (0 if dropped.endswith(b"\n") else 1)


def test_a_cut_without_a_line_break_nearby_never_splits_a_character() -> None:
    data = "é€😀".encode() * 100_000  # 9 bytes a round, no line break at all
    kept = capture(data, 1001)
    head, tail = split(kept, data)
    assert data.startswith(head) and data.endswith(tail)
    assert "\ufffd" not in kept.text
    assert len(head) + kept.dropped_bytes + len(tail) == len(data)
    assert kept.dropped_lines == 1  # part of one (very long) line


def test_a_very_long_line_is_cut_inside_not_dropped_whole() -> None:
    data = b"start\n" + b"y" * (8 * ALIGN_WINDOW) + b"\nend\n"
    kept = capture(data, 4 * ALIGN_WINDOW)
    head, tail = split(kept, data)
    assert len(head) == len(tail) == 2 * ALIGN_WINDOW
    assert kept.text.endswith("y\nend\n")


def test_the_cut_line_reads_back() -> None:
    line = cut_line(1_421, 416_353, 512 * KIB)
    assert line == (
        "... 1,421 lines cut (416,353 bytes): waza-ci keeps the first and last 512 KiB"
        " of each output stream ..."
    )
    assert parse_cut_line(line) == (1_421, 416_353)
    assert parse_cut_line(cut_line(1, 1, 5)) == (1, 1)
    assert parse_cut_line("... 3 lines cut (9 bytes) ...") is None  # the report's own marker
    assert parse_cut_line("x" + line) is None
    assert find_cut_lines(f"a\n{line}\nb") == [(2, 2 + len(line), 1_421, 416_353)]
    assert find_cut_lines(f"a {line}\nb") == []  # only on a line of its own


# --- real processes ----------------------------------------------------------------------------

PRINTER = r"""
import sys
total = {size}
first = b"FIRST-LINE: the output begins\n"
last = {last!r}.encode() + b"\n"
line = b"filler %08d " + b"y" * 80 + b"\n"
out = sys.stderr.buffer
out.write(first)
left, n, block = total - len(first) - len(last), 0, []
while left > 0:
    piece = line % n
    if len(piece) > left:  # the last filler line is shorter; every line ends
        piece = b"z" * (left - 1) + b"\n"
    n += 1
    left -= len(piece)
    block.append(piece)
    if len(block) == 20000:
        out.write(b"".join(block))
        block = []
out.write(b"".join(block) + last)
sys.exit(1)
"""


@pytest.mark.slow
@pytest.mark.parametrize(
    "size",
    [10 * KIB, MIB, 1_468_006, 100 * MIB],
    ids=["10KiB", "1MiB", "1.4MiB", "100MiB"],
)
def test_the_last_line_is_kept_at_any_size_in_bounded_memory(size: int) -> None:
    tracemalloc.start()
    try:
        outcome = run(PRINTER.format(size=size, last=LAST_LINE))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert outcome.exit_error == "exit status 1"
    assert outcome.stderr.startswith("FIRST-LINE: the output begins\n")
    assert outcome.stderr.endswith("\n" + LAST_LINE + "\n")
    if size <= DEFAULT_OUTPUT_CAP_BYTES:
        assert len(outcome.stderr.encode()) == size
        assert outcome.stderr_dropped_bytes == outcome.stderr_dropped_lines == 0
        assert find_cut_lines(outcome.stderr) == []
    else:
        [(_, _, lines, dropped)] = find_cut_lines(outcome.stderr)
        assert (lines, dropped) == (outcome.stderr_dropped_lines, outcome.stderr_dropped_bytes)
        kept = len(outcome.stderr.encode()) - len(cut_line(lines, dropped, MIB // 2).encode()) - 1
        assert kept + dropped == size
        assert kept <= DEFAULT_OUTPUT_CAP_BYTES
    # The head, the ring and their text: a few MiB whatever was printed.
    assert peak < 8 * MIB


def test_output_is_returned_untrimmed_and_decoded_with_replacement() -> None:
    outcome = run(
        r"""
        import sys
        sys.stdout.buffer.write(b"  spaced out \n\n")
        sys.stderr.buffer.write(b"bad \xff byte\n")
        """
    )
    assert outcome.stdout == "  spaced out \n\n"
    assert outcome.stderr == "bad \ufffd byte\n"
    assert outcome.stdout_dropped_bytes == 0 and outcome.stderr_dropped_bytes == 0


@pytest.mark.slow
def test_each_stream_is_capped_on_its_own() -> None:
    outcome = run(
        """
        import sys
        sys.stdout.buffer.write(b"o" * (50 << 20))
        sys.stderr.buffer.write(b"e" * (3 << 20))
        """
    )
    assert outcome.exit_error is None
    half = "o" * (DEFAULT_OUTPUT_CAP_BYTES // 2)
    dropped = 50 * MIB - DEFAULT_OUTPUT_CAP_BYTES
    assert outcome.stdout == f"{half}\n{cut_line(1, dropped, MIB // 2)}\n{half}"
    assert outcome.stdout_dropped_bytes == dropped
    assert outcome.stderr_dropped_bytes == 3 * MIB - DEFAULT_OUTPUT_CAP_BYTES


def test_the_cap_is_a_parameter() -> None:
    outcome = run("print('0123456789', end='')", output_cap_bytes=4)
    assert outcome.stdout == f"01\n{cut_line(1, 6, 2)}\n89"
    assert outcome.stdout_dropped_bytes == 6
    assert outcome.output_cap_bytes == 4
