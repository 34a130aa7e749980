"""Watermarks, Flink's way, in an epoch job: a watermark assigner's watermark after an
epoch is the largest event time it has seen minus its delay; an operator's watermark is
the minimum over its inputs; a bounded input that has ended holds the maximum watermark.

Watermarks are epoch-level facts, as numbers (milliseconds since the epoch). A watermark
assigner's value is lazy (``LazyWatermark``): observed on the rows as the event-time
operator downstream reads them, so no pass over the epoch is spent on it.
"""
from __future__ import annotations

from typing import Any, Callable, Optional

from pyspark.sql import DataFrame

WM_MIN = -(1 << 62)  # no watermark yet
WM_MAX = 1 << 62  # end of input: every timer fires


class LazyWatermark:
    """A watermark assigner's watermark, computed from observed metrics (the largest
    event time, ``DataFrame.observe``) of the rows that flow through it: once the
    event-time operator downstream has run an action over those rows
    (``EpochContext.settle``), the value is in that action's metrics, without a pass
    over the epoch of its own and without caching the epoch's input for one. Needed
    before that, it runs one aggregation over the observed rows. ``finish`` turns the
    epoch's largest event time (None: no row) into the watermark."""

    def __init__(self, observed: DataFrame, name: str, top: Any, finish: Callable[[Optional[int]], int]):
        self.observed, self.name, self.top, self.finish = observed, name, top, finish
        self._value: Optional[int] = None

    def leaves(self) -> list["LazyWatermark"]:
        return [self]

    @property
    def known(self) -> bool:
        return self._value is not None

    def found(self, metrics: Any) -> None:
        """Take the value from an action's observed metrics (a JVM map), if there."""
        entry = metrics.get(self.name)
        if not self.known and entry.isDefined():
            self._value = self.finish(entry.get().get(0))

    @property
    def value(self) -> int:
        if self._value is None:
            self._value = self.finish(self.observed.agg(self.top.alias("m")).collect()[0][0])
        return self._value


class LazyMin:
    """The minimum of watermarks some of which are lazy (an operator with several inputs)."""

    def __init__(self, parts: list[Any]):
        self.parts = parts

    def leaves(self) -> list[LazyWatermark]:
        return [leaf for p in self.parts if not isinstance(p, int) for leaf in p.leaves()]

    @property
    def value(self) -> int:
        return min(as_int(p) for p in self.parts)


def as_int(wm: Any) -> int:
    return wm if isinstance(wm, int) else wm.value


def known(wm: Any) -> Optional[int]:
    """The watermark as a number if that needs no pass over the epoch (every lazy part has
    its value already); None otherwise."""
    if isinstance(wm, int):
        return wm
    return wm.value if all(leaf.known for leaf in wm.leaves()) else None


def wm_min(values: list[Any], default: int = WM_MAX) -> Any:
    if not values:
        return default
    if all(isinstance(v, int) for v in values):
        return min(values)
    return LazyMin(values)
