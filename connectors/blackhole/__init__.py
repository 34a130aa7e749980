"""Flink's ``blackhole`` sink: swallows every change, lowered to Spark's ``noop`` format.

Useful for benchmarks: the query runs completely (every operator, every
micro-batch) and nothing is written. Takes no options besides ``connector``.
"""
from __future__ import annotations

from typing import Any

from connectors.base import ConnectorFactory, Options, Sink, SinkContext, register


class BlackholeSink(Sink):
    explain = "BlackHole"

    def write_batch(self, df: Any) -> None:
        df.write.format("noop").mode("overwrite").save()


class BlackholeFactory(ConnectorFactory):
    identifier = "blackhole"
    accepts_updates = True

    def sink(self, ctx: SinkContext) -> Sink:
        ctx.options.finish()
        return BlackholeSink()

    def validate_sink_options(self, options: dict[str, str]) -> None:
        Options(self.identifier, options).finish()


FACTORY = register(BlackholeFactory())

__all__ = ["BlackholeFactory", "BlackholeSink", "FACTORY"]
