"""Partitioned filesystem tables, Flink's way: ``k1=v1/k2=v2`` folders, and partition commit.

Paths (Flink's ``PartitionPathUtils``): a partition's folder is ``key=value`` per partition
key, in the order of ``PARTITIONED BY``; keys and values are escaped (control characters
and ``"#%'*/:=?\\{}[]^`` and DEL become ``%XX``); a NULL or empty value is written as
``partition.default-name`` (``__DEFAULT_PARTITION__``) and read back as NULL. A value is
the text of Flink's internal value (``RowDataPartitionComputer``): a DATE is its day
number (``d=18263``), a TIMESTAMP its ``LocalDateTime`` text (``2020-01-02T10:05``).

Partition commit (Flink's ``PartitionCommitter`` with its two triggers): a partition whose
files an epoch published is *pending*; the driver commits it (its success file) after an
epoch when its trigger fires:

* ``partition-time``: the sink's input watermark after the epoch has passed the
  partition's time (``partition.time-extractor.*``, read in
  ``sink.partition-commit.watermark-time-zone``) plus ``sink.partition-commit.delay``
  (``watermark > time + delay``, as ``PartitionTimeCommitPredicate``);
* ``process-time``: the wall clock has passed the time the partition became pending
  plus the delay (a zero delay commits at once, as ``ProcTimeCommitPredicate``);

and at the end of a bounded input every pending partition is committed
(``PartitionCommitTrigger.endInput``). This module is the pure part (no files, no Spark).
"""
from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Optional

from sqlengine.errors import ConnectorError

DEFAULT_NAME = "__DEFAULT_PARTITION__"
_ESCAPED = frozenset([chr(c) for c in range(1, 0x20)] + list("\"#%'*/:=?\\\x7f{}[]^"))
_KV = re.compile(r"([^/]+)=([^/]+)")


def escape(text: str) -> str:
    """Flink's ``escapePathName``: characters unsafe in a path as ``%XX``."""
    if not any(c in _ESCAPED for c in text):
        return text
    return "".join(f"%{ord(c):02X}" if c in _ESCAPED else c for c in text)


def unescape(text: str) -> str:
    """Flink's ``unescapePathName``: ``%XX`` back to its character (other text kept)."""
    return re.sub(r"%([0-9a-fA-F]{2})", lambda m: chr(int(m.group(1), 16)), text)


def partition_dir(keys: list[str], values: list[str]) -> str:
    """The folder of a partition, relative to the table's path (``k1=v1/k2=v2``)."""
    return "/".join(f"{escape(k)}={escape(v)}" for k, v in zip(keys, values))


def spec_of(path: str) -> dict[str, str]:
    """The ``key -> value`` pairs of the ``k=v`` components of ``path`` (unescaped)."""
    out = {}
    for part in path.split("/"):
        m = _KV.fullmatch(part)
        if m:
            out[unescape(m.group(1))] = unescape(m.group(2))
    return out


# -- partition time ---------------------------------------------------------------------------
_DEFAULT_TS = re.compile(r"(\d{1,10})-(\d{1,2})-(\d{1,2})(?: (\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.(\d{1,9}))?)?")
# Java DateTimeFormatter letters -> strptime (the common ones).
_JAVA = [("yyyy", "%Y"), ("uuuu", "%Y"), ("MM", "%m"), ("dd", "%d"), ("HH", "%H"), ("mm", "%M"),
         ("ss", "%S"), ("SSSSSS", "%f"), ("SSS", "%f"), ("yy", "%y"), ("M", "%m"), ("d", "%d"), ("H", "%H"),
         ("m", "%M"), ("s", "%S")]


def java_to_strptime(pattern: str) -> str:
    """A Java ``DateTimeFormatter`` pattern as a ``strptime`` format ('quoted' text literal)."""
    out, i = [], 0
    while i < len(pattern):
        if pattern[i] == "'":
            end = pattern.find("'", i + 1)
            end = len(pattern) if end < 0 else end
            out.append(pattern[i + 1:end].replace("%", "%%") or "'")
            i = end + 1
            continue
        for java, py in _JAVA:
            if pattern.startswith(java, i):
                out.append(py)
                i += len(java)
                break
        else:
            if pattern[i].isalpha():
                raise ValueError(f"pattern letter '{pattern[i]}' is not supported")
            out.append(pattern[i].replace("%", "%%"))
            i += 1
    return "".join(out)


@dataclass(frozen=True)
class TimeExtractor:
    """Flink's ``DefaultPartTimeExtractor``: the partition's time from ``pattern`` (``$key``
    replaced by the key's value; none: the first value), parsed with ``formatter`` (a Java
    pattern; none: ``yyyy-[m]m-[d]d[ [h]h:[m]m:[s]s[.fraction]]``)."""

    pattern: Optional[str] = None
    formatter: Optional[str] = None

    def extract(self, keys: list[str], values: list[str]) -> dt.datetime:
        text = values[0]
        if self.pattern is not None:
            text = self.pattern
            for k, v in zip(keys, values):
                text = text.replace("$" + k, v)
        try:
            return self._parse(text)
        except ValueError as exc:
            raise ConnectorError(
                f"Cannot extract the time of partition {partition_dir(keys, values)}: '{text}' "
                f"({'pattern ' + repr(self.pattern) if self.pattern else 'the first partition value'}) "
                f"is not a timestamp{' of format ' + repr(self.formatter) if self.formatter else ''}: {exc}"
            ) from None

    def _parse(self, text: str) -> dt.datetime:
        if self.formatter is not None:
            fmt = java_to_strptime(self.formatter)
            return dt.datetime.strptime(text, fmt)
        m = _DEFAULT_TS.fullmatch(text)
        if not m:
            raise ValueError("expected yyyy-MM-dd or yyyy-MM-dd HH:mm:ss")
        y, mo, d, h, mi, s, frac = m.groups()
        base = dt.datetime(int(y), 1, 1)
        # LENIENT resolving, as Flink's formatter: out-of-range fields roll over.
        month = base.replace(year=int(y) + (int(mo) - 1) // 12, month=(int(mo) - 1) % 12 + 1)
        out = month + dt.timedelta(days=int(d) - 1, hours=int(h or 0), minutes=int(mi or 0), seconds=int(s or 0))
        return out + dt.timedelta(microseconds=int((frac or "0").ljust(9, "0")[:6]))


# -- commit -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CommitOptions:
    """A streaming sink's partition commit (``sink.partition-commit.*``)."""

    trigger: str = "process-time"
    delay_ms: int = 0
    time_zone: str = "UTC"
    extractor: TimeExtractor = TimeExtractor()
    success_file: Optional[str] = None  # None: no success-file policy

    @property
    def on_watermark(self) -> bool:
        return self.trigger == "partition-time"

    def ready(self, keys: list[str], pending: dict[str, int], watermark: int, now_ms: int,
              ended: bool) -> list[str]:
        """The pending partitions (folder -> when it became pending, ms) to commit now."""
        if ended:
            return sorted(pending)
        if self.on_watermark:
            return sorted(p for p in pending if watermark > self.partition_ms(keys, p) + self.delay_ms)
        return sorted(p for p, created in pending.items()
                      if self.delay_ms == 0 or now_ms > created + self.delay_ms)

    def partition_ms(self, keys: list[str], folder: str) -> int:
        """The partition's time as epoch milliseconds, read in the watermark's time zone."""
        from zoneinfo import ZoneInfo
        spec = spec_of(folder)
        local = self.extractor.extract(keys, [spec.get(k, "") for k in keys])
        return int(local.replace(tzinfo=ZoneInfo(self.time_zone)).timestamp() * 1000)
