"""Flink's restart strategies: whether, and after how long, a failed streaming job restarts
from its last checkpoint inside its JobManager (sqlengine/runtime/job.py ``JobRunner.wait``).

Keys and defaults are Flink 2.3's (``RestartStrategyOptions``). ``restart-strategy.type``:
``none`` (also ``off``, ``disable``), ``fixed-delay``, ``failure-rate``,
``exponential-delay`` (also without the dash). Unset, it is ``exponential-delay`` when
checkpointing is on (``execution.checkpointing.interval`` set) and ``none`` otherwise, as
in Flink: sqlengine checkpoints every epoch either way, but a job without the interval
fails at its first error, as a Flink job without checkpointing does.

A strategy is told of each failure (``on_failure``, with a monotonic clock's seconds) and
answers the delay before the restart, or None when the job must fail.
"""
from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass, field
from typing import Optional

from sqlengine.config import CHECKPOINT_INTERVAL, duration_ms
from sqlengine.errors import ValidationError

TYPE = "restart-strategy.type"
_KINDS = {"none": "none", "off": "none", "disable": "none",
          "fixed-delay": "fixed-delay", "fixeddelay": "fixed-delay",
          "failure-rate": "failure-rate", "failurerate": "failure-rate",
          "exponential-delay": "exponential-delay", "exponentialdelay": "exponential-delay"}


@dataclass
class RestartStrategy:
    kind: str = "none"
    attempts: int = 1  # fixed-delay: restarts before the job fails
    delay_s: float = 1.0  # fixed-delay, failure-rate
    max_failures: int = 1  # failure-rate: failures allowed per interval
    interval_s: float = 60.0  # failure-rate
    initial_s: float = 1.0  # exponential-delay
    max_s: float = 60.0
    multiplier: float = 1.5
    reset_s: float = 3600.0
    jitter: float = 0.1
    max_attempts: int = 2147483647  # exponential-delay: attempts before the backoff resets
    _failures: deque = field(default_factory=deque)
    _backoff: float = 0.0
    _attempt: int = 0
    _last: Optional[float] = None
    restarts: int = 0

    def on_failure(self, now: float) -> Optional[float]:
        """A failure at ``now`` (seconds): the delay before restarting, or None (the job fails)."""
        delay = self._decide(now)
        if delay is not None:
            self.restarts += 1
        return delay

    def _decide(self, now: float) -> Optional[float]:
        if self.kind == "none":
            return None
        if self.kind == "fixed-delay":
            return self.delay_s if self.restarts < self.attempts else None
        if self.kind == "failure-rate":
            self._failures.append(now)
            while self._failures and now - self._failures[0] > self.interval_s:
                self._failures.popleft()
            return self.delay_s if len(self._failures) <= self.max_failures else None
        # exponential-delay: the backoff grows per failure, and starts over once the job ran
        # ``reset-backoff-threshold`` without failing.
        if self._last is not None and now - self._last >= self.reset_s + self._backoff:
            self._backoff, self._attempt = 0.0, 0
        self._last = now
        self._attempt += 1
        if self._attempt > self.max_attempts:
            return None
        self._backoff = self.initial_s if self._backoff == 0.0 else min(self._backoff * self.multiplier, self.max_s)
        spread = self._backoff * self.jitter
        return max(0.0, self._backoff + random.uniform(-spread, spread))

    def describe(self) -> str:
        """The strategy as Flink's REST API (``/jobs/:id/config``) names it."""
        if self.kind == "fixed-delay":
            return f"Restart with fixed delay ({self.delay_s:g} s). #{self.attempts} restart attempts."
        if self.kind == "failure-rate":
            return (f"Failure rate restart with maximum of {self.max_failures} failures within interval "
                    f"{self.interval_s:g} s and fixed delay {self.delay_s:g} s.")
        if self.kind == "exponential-delay":
            return (f"Restart with exponential delay: starting at {self.initial_s:g} s, increasing by "
                    f"{self.multiplier:g}, with maximum {self.max_s:g} s.")
        return "Restart deactivated."


def restart_strategy(conf: dict[str, str]) -> RestartStrategy:
    """The strategy ``conf`` selects; an invalid value is an error naming its key."""
    raw = (conf.get(TYPE) or conf.get("restart-strategy") or "").strip()
    if not raw:
        kind = "exponential-delay" if (conf.get(CHECKPOINT_INTERVAL) or "").strip() else "none"
    else:
        kind = _KINDS.get(raw.lower())
        if kind is None:
            raise ValidationError(f"Unknown restart strategy '{raw}' in '{TYPE}'. Valid values: "
                                  f"none, fixed-delay, failure-rate, exponential-delay.")
    s = RestartStrategy(kind)
    p = "restart-strategy."
    s.attempts = _int(conf, p + "fixed-delay.attempts", s.attempts)
    s.delay_s = _seconds(conf, p + ("failure-rate.delay" if kind == "failure-rate" else "fixed-delay.delay"), s.delay_s)
    s.max_failures = _int(conf, p + "failure-rate.max-failures-per-interval", s.max_failures)
    s.interval_s = _seconds(conf, p + "failure-rate.failure-rate-interval", s.interval_s)
    e = p + "exponential-delay."
    s.initial_s = _seconds(conf, e + "initial-backoff", s.initial_s)
    s.max_s = _seconds(conf, e + "max-backoff", s.max_s)
    s.multiplier = _float(conf, e + "backoff-multiplier", s.multiplier, 1.0)
    s.reset_s = _seconds(conf, e + "reset-backoff-threshold", s.reset_s)
    s.jitter = _float(conf, e + "jitter-factor", s.jitter, 0.0, 1.0)
    s.max_attempts = _int(conf, e + "attempts-before-reset-backoff", s.max_attempts)
    if s.initial_s > s.max_s and kind == "exponential-delay":
        raise ValidationError(f"'{e}initial-backoff' ({s.initial_s:g} s) must not be larger than "
                              f"'{e}max-backoff' ({s.max_s:g} s).")
    return s


def _raw(conf: dict[str, str], key: str) -> Optional[str]:
    v = conf.get(key)
    return v.strip() if v is not None and v.strip() else None


def _int(conf: dict[str, str], key: str, default: int) -> int:
    raw = _raw(conf, key)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = -1
    if value < 0:
        raise ValidationError(f"Invalid value for '{key}': '{raw}' (a whole number of at least 0).")
    return value


def _float(conf: dict[str, str], key: str, default: float, low: float, high: Optional[float] = None) -> float:
    raw = _raw(conf, key)
    if raw is None:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not (value >= low and (high is None or value <= high)):
        bound = f"between {low:g} and {high:g}" if high is not None else f"at least {low:g}"
        raise ValidationError(f"Invalid value for '{key}': '{raw}' (a number {bound}).")
    return value


def _seconds(conf: dict[str, str], key: str, default: float) -> float:
    raw = _raw(conf, key)
    if raw is None:
        return default
    ms = duration_ms(raw)
    if ms is None:
        raise ValidationError(f"Invalid value for '{key}': '{raw}' is not a duration (for example '10 s').")
    return ms / 1000.0
