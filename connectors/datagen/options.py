"""Typed access to the per-field ``fields.<path>.<option>`` keys of a datagen table.

Each generator pops exactly the keys Flink's generator for that type and kind
accepts; anything left over is reported by ``Options.finish()`` together with
the keys that were valid (Flink's "Unsupported options" message). Values are
parsed the way Flink's ``ConfigOption`` types parse them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional, TypeVar

from connectors.base import Options
from sqlengine.errors import ConnectorError

T = TypeVar("T")

KIND = "kind"
MIN = "min"
MAX = "max"
MAX_PAST = "max-past"
LENGTH = "length"
START = "start"
END = "end"
NULL_RATE = "null-rate"
VAR_LEN = "var-len"
OPTION_NAMES = (KIND, MIN, MAX, MAX_PAST, LENGTH, START, END, NULL_RATE, VAR_LEN)

# Flink's TimeUtils.parseDuration units (the default unit is milliseconds).
def key(path: str, option: str) -> str:
    return f"fields.{path}.{option}"


def parse_duration_ms(raw: str, option_key: str) -> int:
    """Flink's duration syntax: ``500``, ``500 ms``, ``5s``, ``1 min``, ``2 h``, ``1d``."""
    from sqlengine.config import duration_ms
    ms = duration_ms(raw)
    if ms is None:
        raise _unparsable(raw, option_key, "a duration such as '5 s', '100 ms' or '1 min'")
    return ms


def _unparsable(raw: str, option_key: str, what: str) -> ConnectorError:
    return ConnectorError(f"Could not parse value '{raw}' for key '{option_key}': expected {what}.")


def _parse_int(raw: str) -> int:
    return int(raw.strip())


def _parse_float(raw: str) -> float:
    return float(raw.strip())


def _parse_bool(raw: str) -> bool:
    low = raw.strip().lower()
    if low not in ("true", "false"):
        raise ValueError(raw)
    return low == "true"


_PARSERS: dict[type, tuple[Callable[[str], object], str]] = {
    int: (_parse_int, "an integer"),
    float: (_parse_float, "a number"),
    bool: (_parse_bool, "a boolean (true or false)"),
}


@dataclass
class FieldOptions:
    """The ``fields.<path>.*`` options of one (possibly nested) field."""

    options: Options
    path: str

    def key(self, option: str) -> str:
        return key(self.path, option)

    def raw(self, option: str) -> Optional[str]:
        return self.options.pop(self.key(option))

    def get(self, option: str, kind: type[T], default: Optional[T] = None) -> Optional[T]:
        raw = self.raw(option)
        if raw is None:
            return default
        parse, what = _PARSERS[kind]
        try:
            return parse(raw)  # type: ignore[return-value]
        except ValueError:
            raise _unparsable(raw, self.key(option), what) from None

    def require(self, option: str, kind: type[T], role: str) -> T:
        value = self.get(option, kind)
        if value is None:
            raise ConnectorError(
                f"Could not find required property '{self.key(option)}' for {role} generator.")
        return value

    def duration_ms(self, option: str, default: int = 0) -> int:
        raw = self.raw(option)
        return default if raw is None else parse_duration_ms(raw, self.key(option))

    def child(self, name: str) -> "FieldOptions":
        return FieldOptions(self.options, f"{self.path}.{name}")
