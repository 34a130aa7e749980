"""A streaming SELECT's result stream (no Spark): order, refresh ticks, errors, and
backpressure: an unread result holds the query back instead of growing without bound."""
from __future__ import annotations

import threading

import pytest

from sqlengine.runtime.results import ResultStream


def test_batches_in_order_then_end():
    s = ResultStream()
    s.push([["+I", 1]])
    s.push([["+I", 2], ["-U", 2]])
    s.finish()
    assert list(s.batches()) == [[["+I", 1]], [["+I", 2], ["-U", 2]]]
    assert s.rows() == []  # reading consumes


def test_timeout_yields_empty_batches_while_running():
    s = ResultStream()
    it = s.batches(timeout=0.01)
    assert next(it) == []
    s.push([["+I", 1]])
    assert next(it) == [["+I", 1]]
    s.finish()
    assert list(it) == []


def test_failure_is_raised_to_the_reader():
    s = ResultStream()
    s.push([["+I", 1]])
    s.finish(RuntimeError("boom"))
    it = s.batches()
    assert next(it) == [["+I", 1]]
    with pytest.raises(RuntimeError, match="boom"):
        next(it)


def test_backpressure_and_cancel():
    s = ResultStream(max_buffered=3)
    s.started.set()  # as start_stream does once its query runs (cancel waits for that first)
    s.push([["+I", i] for i in range(3)])  # the buffer is full
    pushed = threading.Event()
    t = threading.Thread(target=lambda: (s.push([["+I", 9]]), pushed.set()))
    t.start()
    assert not pushed.wait(0.3), "an epoch waits while its reader is behind"
    it = s.batches()
    assert len(next(it)) == 3
    assert pushed.wait(10), "reading lets the query go on"
    assert next(it) == [["+I", 9]]
    s.push([["+I", i] for i in range(3)])
    blocked = threading.Thread(target=s.push, args=([["+I", 10]],))
    blocked.start()
    s.cancel()  # no job: only the waiting epoch is released (its rows dropped)
    blocked.join(10)
    assert not blocked.is_alive()
    t.join(10)
