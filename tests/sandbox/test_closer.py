"""The deferred closer: descriptors handed over are closed soon, in batches, and all of them by
`flush`; past its limit the caller closes its own."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterable, Iterator

import pytest

from waza_ci.sandbox import closer
from waza_ci.sandbox.closer import BATCH_S, DeferredCloser


def _is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


@pytest.fixture
def descriptors() -> Iterator[list[int]]:
    """Fresh descriptors (pipe ends); any the test leaves open are closed afterwards."""
    made: list[int] = []
    yield made
    for fd in made:
        if _is_open(fd):
            os.close(fd)


def _pipe_ends(made: list[int], count: int) -> list[int]:
    """`count` (even) new descriptors, remembered in `made`."""
    fresh = [fd for _ in range(count // 2) for fd in os.pipe()]
    made.extend(fresh)
    return fresh


def test_descriptors_handed_over_are_closed_soon(descriptors: list[int]) -> None:
    fds = _pipe_ends(descriptors, 4)
    deferred = DeferredCloser()
    deferred.close_soon(tuple(fds))
    deadline = time.monotonic() + 5.0
    while any(_is_open(fd) for fd in fds) and time.monotonic() < deadline:
        time.sleep(BATCH_S / 4)
    assert not any(_is_open(fd) for fd in fds)


def test_flush_closes_every_descriptor_before_it_returns(descriptors: list[int]) -> None:
    fds = _pipe_ends(descriptors, 6)
    deferred = DeferredCloser()
    for pair in (fds[:2], fds[2:4], fds[4:]):
        deferred.close_soon(tuple(pair))
    deferred.flush()
    assert not any(_is_open(fd) for fd in fds)


def test_flush_waits_for_the_batch_the_closer_is_closing(
    descriptors: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The closer has taken a batch and is still closing it (a slow disk) when flush is called:
    # flush returns only once that batch is closed too.
    fds = _pipe_ends(descriptors, 2)
    taken = threading.Event()
    release = threading.Event()
    real_close_all = closer._close_all

    def slow_close_all(batch: Iterable[int]) -> None:
        batch = list(batch)
        if batch:
            taken.set()
            release.wait(5.0)
        real_close_all(batch)

    monkeypatch.setattr(closer, "_close_all", slow_close_all)
    deferred = DeferredCloser()
    deferred.close_soon(tuple(fds))
    assert taken.wait(5.0), "the closer never took its batch"
    flushed = threading.Event()

    def flush() -> None:
        deferred.flush()
        flushed.set()

    flusher = threading.Thread(target=flush)
    flusher.start()
    time.sleep(0.1)
    assert not flushed.is_set(), "flush returned while the batch was still being closed"
    release.set()
    flusher.join(5.0)
    assert flushed.is_set()
    assert not any(_is_open(fd) for fd in fds)


def test_descriptors_handed_over_one_grader_at_a_time_are_closed_in_few_batches(
    descriptors: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The closer wakes once per batch, not once per grader: a wake-up and a GIL hand-off per
    # descriptor cost more than the close itself.
    batches: list[int] = []
    real_close_all = closer._close_all

    def counting_close_all(batch: Iterable[int]) -> None:
        batch = list(batch)
        if batch:
            batches.append(len(batch))
        real_close_all(batch)

    monkeypatch.setattr(closer, "_close_all", counting_close_all)
    fds = _pipe_ends(descriptors, 100)
    deferred = DeferredCloser()
    started = time.monotonic()
    for pair in zip(fds[::2], fds[1::2], strict=True):
        deferred.close_soon(pair)
        time.sleep(0.002)  # a grader's pace: the closer has time to wake between any two
    handed_over_s = time.monotonic() - started
    deferred.flush()
    assert sum(batches) == 100
    # Every BATCH_S at most one batch, plus the flush.
    assert len(batches) <= handed_over_s / BATCH_S + 2, batches


def test_past_the_limit_the_caller_closes_its_own(
    descriptors: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(closer, "MAX_PENDING", 4)
    deferred = DeferredCloser()
    # A closer that never gets to run: its batch stays pending.
    monkeypatch.setattr(deferred, "_work", lambda: None)
    waiting = _pipe_ends(descriptors, 4)
    deferred.close_soon(tuple(waiting))
    extra = _pipe_ends(descriptors, 2)
    deferred.close_soon(tuple(extra))
    assert not any(_is_open(fd) for fd in extra), "closed by the caller, at once"
    assert all(_is_open(fd) for fd in waiting)
    deferred.flush()
    assert not any(_is_open(fd) for fd in waiting)
