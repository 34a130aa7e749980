"""Session keys whose value is derived or validated in one place."""
from __future__ import annotations

import re
from typing import Optional

from sqlengine.errors import ValidationError

PARALLELISM = "parallelism.default"
MAX_PARALLELISM = "pipeline.max-parallelism"
# Flink's bounds of the default max-parallelism (KeyGroupRangeAssignment).
DEFAULT_MAX_PARALLELISM = 128
UPPER_BOUND_MAX_PARALLELISM = 1 << 15
DEFAULT_PARALLELISM = 2


def _positive_int(conf: dict[str, str], key: str, minimum: int = 1) -> int | None:
    raw = (conf.get(key) or "").strip()
    if not raw:
        return None
    try:
        value = int(raw)
    except ValueError:
        raise ValidationError(f"Invalid value for '{key}': '{raw}' is not an integer.") from None
    if value == -1 and key == PARALLELISM:  # Flink's "use the default"
        return None
    if value < minimum:
        bound = "positive" if minimum == 1 else f"{minimum} or more"
        raise ValidationError(f"Invalid value for '{key}': {value} must be {bound}.")
    return value


def parallelism(conf: dict[str, str]) -> int:
    return _positive_int(conf, PARALLELISM) or DEFAULT_PARALLELISM


def max_parallelism(conf: dict[str, str]) -> int:
    """Key groups: ``pipeline.max-parallelism``, else Flink's default for the parallelism
    (``KeyGroupRangeAssignment.computeDefaultMaxParallelism``: 128 at small parallelism).

    Key groups are the unit of keyed state, not tasks: a stateful stage runs
    ``parallelism.default`` tasks, each owning a contiguous range of key groups, so a
    job restores at another parallelism with no setting; a checkpoint keeps its key
    groups for its life, as in Flink (``runtime/keygroups.py``).
    """
    explicit = _positive_int(conf, MAX_PARALLELISM)
    if explicit is not None:
        if explicit > UPPER_BOUND_MAX_PARALLELISM:
            raise ValidationError(f"'{MAX_PARALLELISM}' = {explicit} is larger than the upper bound "
                                  f"{UPPER_BOUND_MAX_PARALLELISM}.")
        return explicit
    p = parallelism(conf)
    return min(max(1 << (p + p // 2 - 1).bit_length(), DEFAULT_MAX_PARALLELISM), UPPER_BOUND_MAX_PARALLELISM)


DURATION_UNITS_MS = {
    "ns": 1e-6, "nano": 1e-6, "nanos": 1e-6, "nanosecond": 1e-6, "nanoseconds": 1e-6,
    "us": 1e-3, "µs": 1e-3, "micro": 1e-3, "micros": 1e-3, "microsecond": 1e-3, "microseconds": 1e-3,
    "ms": 1, "milli": 1, "millis": 1, "millisecond": 1, "milliseconds": 1,
    "s": 1000, "sec": 1000, "secs": 1000, "second": 1000, "seconds": 1000,
    "m": 60_000, "min": 60_000, "mins": 60_000, "minute": 60_000, "minutes": 60_000,
    "h": 3_600_000, "hour": 3_600_000, "hours": 3_600_000,
    "d": 86_400_000, "day": 86_400_000, "days": 86_400_000,
}
_DURATION = re.compile(r"^\s*(\d+)\s*([a-zµ]*)\s*$", re.IGNORECASE)


def duration_ms(raw: str) -> Optional[int]:
    """Flink's duration syntax (``500``, ``500 ms``, ``5s``, ``1 min``, ``2 h``, ``1d``), or
    None when ``raw`` is not one."""
    match = _DURATION.match(raw)
    unit = match.group(2).lower() if match else None
    if not match or (unit and unit not in DURATION_UNITS_MS):
        return None
    return int(int(match.group(1)) * DURATION_UNITS_MS[unit or "ms"])


STATE_TTL = "table.exec.state.ttl"


def duration_option_ms(conf: dict[str, str], key: str, example: str) -> int:
    """A duration setting in milliseconds (0 when unset); an invalid value is an error
    naming the key and giving ``example``."""
    raw = (conf.get(key) or "").strip()
    if not raw:
        return 0
    ms = duration_ms(raw)
    if ms is None:
        raise ValidationError(f"Invalid value for '{key}': '{raw}' is not a duration (for example {example}).")
    return ms


def state_ttl_ms(conf: dict[str, str]) -> int:
    """``table.exec.state.ttl``: how long an idle key's state is kept (0: forever)."""
    return duration_option_ms(conf, STATE_TTL, "'1 h', '30 min' or '0 ms'")


CHECKPOINT_INTERVAL = "execution.checkpointing.interval"


def checkpoint_interval_ms(conf: dict[str, str]) -> int:
    """``execution.checkpointing.interval``: how often a streaming job's epochs (its
    checkpoints) start; 0 (unset): back to back, each as soon as the last one committed."""
    return duration_option_ms(conf, CHECKPOINT_INTERVAL, "'10 s' or '500 ms'")


SOURCE_IDLE_TIMEOUT = "table.exec.source.idle-timeout"
SCAN_IDLE_TIMEOUT = "scan.watermark.idle-timeout"  # the table option (Flink 1.18+, FLIP-296)


def source_idle_timeout_ms(conf: dict[str, str]) -> int:
    """``table.exec.source.idle-timeout``: a source split without new rows for this long
    no longer holds its watermark back (0: never idle)."""
    return duration_option_ms(conf, SOURCE_IDLE_TIMEOUT, "'30 s' or '0 ms'")


MAX_ROWS_PER_EPOCH = "sqlengine.source.max-rows-per-epoch"
STATE_WRITE_THREADS = "sqlengine.state.write-threads"
DEFAULT_STATE_WRITE_THREADS = 4


def write_threads(conf: dict[str, str]) -> int:
    """How many of an epoch's state writes run at once off the epoch's thread
    (``EpochRun.background``); 0: each inline, one after another."""
    value = _positive_int(conf, STATE_WRITE_THREADS, minimum=0)
    return DEFAULT_STATE_WRITE_THREADS if value is None else value


DEFAULT_MAX_ROWS_PER_EPOCH = 2_000_000  # chosen by measurement: benchmarks/README.md


def max_rows_per_epoch(conf: dict[str, str], override_key: str = "") -> int:
    """Admission control (Flink's backpressure): at most this many rows of one source
    enter an epoch, so an epoch's work and memory are bounded whatever the input rate or
    backlog. ``0``: no cap. A connector's own key (``override_key``) wins."""
    for key in (override_key, MAX_ROWS_PER_EPOCH):
        raw = (conf.get(key) or "").strip() if key else ""
        if raw:
            try:
                value = int(raw)
            except ValueError:
                raise ValidationError(f"Invalid value for '{key}': '{raw}' is not an integer.") from None
            if value < 0:
                raise ValidationError(f"Invalid value for '{key}': {value} must be 0 (no cap) or positive.")
            return value
    return DEFAULT_MAX_ROWS_PER_EPOCH


def streaming(conf) -> bool:
    """``execution.runtime-mode``: streaming (the default) or batch."""
    return conf.get("execution.runtime-mode", "streaming").strip().lower() != "batch"
