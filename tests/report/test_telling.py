"""The one-line reason: the telling line of real-looking grader outputs, table-driven.

Each case is what a kind of grader really prints when it fails (pytest, unittest, node's
assert, go test, a shell script under `set -e`, a script that prints one message and exits 1)
and the line a reviewer should see in the failures table.
"""

from __future__ import annotations

import textwrap
import time

import pytest

from tests.report import factories
from waza_ci.report.reasons import reason_for
from waza_ci.report.telling import TELLING_WINDOW, telling_line
from waza_ci.sandbox.capture import cut_line


def _text(block: str) -> str:
    return textwrap.dedent(block).lstrip("\n")


PYTEST = _text(
    """
    ============================= test session starts ==============================
    platform linux -- Python 3.12.1, pytest-9.2.0, pluggy-1.7.0
    collected 2 items

    test_x.py FF                                                             [100%]

    =================================== FAILURES ===================================
    ___________________________________ test_sum ___________________________________

        def test_sum():
    >       assert add(1, 2) == 4
    E       assert 3 == 4
    E        +  where 3 = add(1, 2)

    test_x.py:5: AssertionError
    ___________________________________ test_msg ___________________________________

        def test_msg():
            x = 3
    >       assert x == 4, "x should be 4"
    E       AssertionError: x should be 4
    E       assert 3 == 4

    test_x.py:9: AssertionError
    =========================== short test summary info ============================
    FAILED test_x.py::test_sum - assert 3 == 4
    FAILED test_x.py::test_msg - AssertionError: x should be 4
    ============================== 2 failed in 0.05s ===============================
    """
)
PYTEST_SHORT_NO_SUMMARY = _text(  # pytest --tb=short -rN
    """
    test_x.py F                                                              [100%]

    =================================== FAILURES ===================================
    ___________________________________ test_sum ___________________________________
    test_x.py:5: in test_sum
        assert add(1, 2) == 4
    E   assert 3 == 4
    E    +  where 3 = add(1, 2)
    ============================== 1 failed in 0.02s ===============================
    """
)
UNITTEST = _text(
    """
    F
    ======================================================================
    FAIL: test_sum (__main__.T.test_sum)
    ----------------------------------------------------------------------
    Traceback (most recent call last):
      File "/tmp/graders/ut.py", line 4, in test_sum
        self.assertEqual(1 + 2, 4)
    AssertionError: 3 != 4

    ----------------------------------------------------------------------
    Ran 1 test in 0.001s

    FAILED (failures=1)
    """
)
NODE_ASSERT = _text(
    """
    node:assert:90
      throw new AssertionError(obj);
      ^

    AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:

    3 !== 4

        at Object.<anonymous> (/tmp/graders/a.js:1:42)
        at Module._compile (node:internal/modules/cjs/loader:1521:14)
        at node:internal/main/run_main_module:28:49 {
      generatedMessage: true,
      code: 'ERR_ASSERTION',
      actual: 3,
      expected: 4,
      operator: 'strictEqual'
    }

    Node.js v20.20.2
    """
)
GO_TEST = _text(
    """
    === RUN   TestSum
        sum_test.go:12: Sum(1, 2) = 3, want 4
    --- FAIL: TestSum (0.00s)
    === RUN   TestParse
    --- PASS: TestParse (0.00s)
    FAIL
    exit status 1
    FAIL\texample.com/sum\t0.003s
    """
)
SHELL_SET_E = _text(  # bash -ex: the trace, then the failing command's own message
    """
    + echo 'checking the build output'
    checking the build output
    + npm run --silent lint
    0 errors, 2 warnings
    + test -d dist
    + cp dist/app.js out/
    cp: cannot stat 'dist/app.js': No such file or directory
    """
)
SHELL_GREP = _text(
    """
    error handling: checked
    grep: CHANGELOG.md: No such file or directory
    """
)
PYTHON_CHAINED = _text(
    """
    Traceback (most recent call last):
      File "/g/check.py", line 3, in <module>
        data = json.loads(text)
    json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)

    During handling of the above exception, another exception occurred:

    Traceback (most recent call last):
      File "/g/check.py", line 5, in <module>
        raise ValueError("the reply is not JSON")
    ValueError: the reply is not JSON
    """
)
DEDUPE = (
    "".join(
        f"dedupe-line-{i:03d}: the widget registry returned entries in an unexpected order\n"
        for i in range(1, 201)
    )
    + "DEDUPE-REASON: widget count mismatch (7 != 8)\n"
)


@pytest.mark.parametrize(
    ("stderr", "stdout", "reason"),
    [
        pytest.param(
            "", PYTEST, "FAILED test_x.py::test_msg - AssertionError: x should be 4", id="pytest"
        ),
        pytest.param("", PYTEST_SHORT_NO_SUMMARY, "E assert 3 == 4", id="pytest-tb-short-rN"),
        pytest.param(UNITTEST, "", "AssertionError: 3 != 4", id="unittest"),
        pytest.param(
            NODE_ASSERT,
            "",
            "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:",
            id="node-assert",
        ),
        pytest.param("", GO_TEST, "sum_test.go:12: Sum(1, 2) = 3, want 4", id="go-test"),
        pytest.param(
            SHELL_SET_E,
            "",
            "cp: cannot stat 'dist/app.js': No such file or directory",
            id="shell-set-e",
        ),
        pytest.param(
            SHELL_GREP, "", "grep: CHANGELOG.md: No such file or directory", id="shell-grep"
        ),
        pytest.param(
            "version.txt says 1.1.0, the release is 1.2.0\n",
            "checking version.txt\n",
            "version.txt says 1.1.0, the release is 1.2.0",
            id="exit-1-one-message",
        ),
        pytest.param(
            "version.txt says 1.1.0, the release is 1.2.0\n"
            "warning: could not remove /tmp/scratch\n",
            "",
            "version.txt says 1.1.0, the release is 1.2.0",
            id="exit-1-then-a-warning",
        ),
        pytest.param(
            DEDUPE,
            "",
            "DEDUPE-REASON: widget count mismatch (7 != 8)",
            id="unexpected-is-not-expected",
        ),
        pytest.param(
            "the order was unexpected\nthe count is 3\n",
            "",
            "the count is 3",
            id="words-not-substrings",
        ),
        pytest.param(PYTHON_CHAINED, "", "ValueError: the reply is not JSON", id="python-chained"),
        pytest.param(
            "checking colour\nvalue mismatch: wanted blue got red\n",
            "",
            "value mismatch: wanted blue got red",
            id="wanted-got",
        ),
        pytest.param("", "only stdout\n", "only stdout", id="stdout-when-stderr-is-empty"),
    ],
)
def test_the_reason_is_the_telling_line(stderr: str, stdout: str, reason: str) -> None:
    assert reason_for(factories.failed("g", stderr, stdout=stdout)).text == reason


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("collecting\nE   assert 1 == 2\n\n1 failed in 0.1s\n", "E   assert 1 == 2"),
        ("Traceback (most recent call last):\n  x\nValueError: bad\n", "ValueError: bad"),
        ("FAIL src/a.test.js\n  ● sum\n\n1 failed\n", "1 failed"),
        ("checking\nversion.txt says '1.1.0'\n\n", "version.txt says '1.1.0'"),
        ("\x1b[31mred error: boom\x1b[0m\n", "red error: boom"),
        # Of two assertion-like lines the last wins: the cause is printed last.
        ("AssertionError: first\nsome noise\nAssertionError: second\n", "AssertionError: second"),
        # An assertion says more than a later error or failure count.
        (
            "AssertionError: expected 2 got 3\nerror: 1 check failed\n",
            "AssertionError: expected 2 got 3",
        ),
        ("warning: only warnings here\n", "warning: only warnings here"),
        ("", ""),
    ],
)
def test_the_telling_line(output: str, expected: str) -> None:
    assert telling_line(output) == expected


@pytest.mark.slow
def test_only_the_end_of_a_huge_output_is_searched() -> None:
    huge = "error: early\n" + "x\n" * 1_000_000 + "the last line\n"
    assert telling_line(huge) == "the last line"
    assert len(huge) > 10 * TELLING_WINDOW


def test_the_capture_s_cut_line_is_never_the_reason() -> None:
    # The cut line says "cut" and "cannot" nowhere, but it is never a candidate at all.
    text = "the real reason\n" + cut_line(1_000, 123_456, 512 * 1024) + "\n\n"
    assert telling_line(text) == "the real reason"


@pytest.mark.parametrize(
    "line",
    [
        "expected " * 7_000,
        "want got " * 7_000,
        "Ab." * 20_000,
        "A" + "b" * 60_000,
        "é€𝄞 " * 15_000,
        "ErrorX" * 10_000,
        "a.b" * 20_000 + ":",
        "(Ab" * 20_000,
    ],
    ids=[
        "expected",
        "want-got",
        "dotted-names",
        "one-word",
        "non-ascii",
        "error-word",
        "dotted-colon",
        "parens",
    ],
)
def test_a_long_line_costs_linear_time(line: str) -> None:
    # A quadratic pattern takes seconds on a 64 KiB line; every rule scans it a few times.
    started = time.perf_counter()
    telling_line(line)
    assert time.perf_counter() - started < 0.5
