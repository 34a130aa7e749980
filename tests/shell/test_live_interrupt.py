"""Ctrl-C during a live streaming result cancels the query even when the signal lands
while Python runs a finalizer, where a KeyboardInterrupt is printed as "Exception ignored"
and dropped (py4j releases JVM objects from weakref callbacks: seen in CI, where such a
press left the query running)."""
from __future__ import annotations

import io
import signal
import sys

import pytest

from sqlengine.api.result import TableResult
from sqlengine.types import BIGINT, STRING
from shell.live import show_live


class _PressInFinalizer:
    def __del__(self):
        signal.raise_signal(signal.SIGINT)  # the handler runs here, inside the finalizer


class _Stream:
    """A running query's changes: one row, then Ctrl-C pressed inside a finalizer, then
    empty batches (as a live query with no new rows gives) until 50 have passed."""
    bounded = False

    def __init__(self):
        self.cancelled = False

    def batches(self, timeout=None):
        yield [["+I", 1]]
        _PressInFinalizer()  # collected at once: the KeyboardInterrupt is swallowed
        for _ in range(50):
            if self.cancelled:
                return
            yield []

    def cancel(self):
        self.cancelled = True


def _raising(signum, frame):
    raise KeyboardInterrupt


@pytest.mark.parametrize("handler", ["python", "spark-like"])
@pytest.mark.parametrize("mode", ["table", "changelog", "tableau"])
def test_ctrl_c_swallowed_by_a_finalizer_still_cancels(mode, handler, capsys):
    """Over Python's SIGINT handler and over one like SparkContext's (the shell's, once
    Spark runs: it cancels Spark's jobs, then raises KeyboardInterrupt)."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler if handler == "python" else _raising)
    try:
        hook = sys.unraisablehook
        stream = _Stream()
        result = TableResult("ROWS", header=["op", "n"], types=[STRING(), BIGINT()], stream=stream)
        out = io.StringIO()
        show_live(result, mode, out)
        assert stream.cancelled, "the query was not cancelled"
        expected = "Query terminated by the user (Ctrl-C)." if mode == "tableau" else "[INFO] Query cancelled."
        assert expected in out.getvalue()
        assert signal.getsignal(signal.SIGINT) is (signal.default_int_handler if handler == "python" else _raising), \
            "the handler was not restored"
        assert sys.unraisablehook is hook, "the unraisable hook was not restored"
        assert "Traceback" not in capsys.readouterr().err, "the dropped press was printed"
    finally:
        signal.signal(signal.SIGINT, before)


def test_a_handler_that_does_not_raise_is_left_to_its_work():
    """A script's SIGINT handler stops its jobs at an epoch boundary and returns: the
    live view goes on to the query's end, not cancelled."""
    calls = []
    before = signal.signal(signal.SIGINT, lambda signum, frame: calls.append(signum))
    try:
        stream = _Stream()
        result = TableResult("ROWS", header=["op", "n"], types=[STRING(), BIGINT()], stream=stream)
        out = io.StringIO()
        show_live(result, "changelog", out)
        assert calls == [signal.SIGINT] and not stream.cancelled
        assert "query finished" in out.getvalue()
    finally:
        signal.signal(signal.SIGINT, before)
