"""blackhole sink: Spark's noop format, batch and streaming; no options."""
from __future__ import annotations

import pytest

import connectors.blackhole as blackhole
from connectors.base import Options, SinkContext
from sqlengine import types as T
from sqlengine.errors import ConnectorError


COLS = [("id", T.BIGINT())]


def make(spark, options=None, streaming=False):
    opts = Options("blackhole", {"connector": "blackhole", **(options or {})})
    return blackhole.FACTORY.sink(SinkContext(spark, streaming, 2, "T", COLS, opts, updating=True))


def test_batch_and_stream_swallow_everything(spark):
    make(spark).write_batch(spark.range(10))
    make(spark, streaming=True).write_epoch(spark.range(7), 0, "q")  # an epoch of a streaming job


def test_no_options(spark):
    with pytest.raises(ConnectorError, match="Unsupported options:\n\nsink.parallelism"):
        blackhole.FACTORY.validate_sink_options({"connector": "blackhole", "sink.parallelism": "2"})
    with pytest.raises(ConnectorError, match="Unsupported options"):
        make(spark, {"x": "1"})
    assert blackhole.FACTORY.accepts_updates and make(spark).explain == "BlackHole"
