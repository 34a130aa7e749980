"""Session keys whose value is derived or validated in one place."""
from __future__ import annotations

from sqlengine.errors import ValidationError

PARALLELISM = "parallelism.default"
MAX_PARALLELISM = "pipeline.max-parallelism"
DEFAULT_PARALLELISM = 2


def _positive_int(conf: dict[str, str], key: str) -> int | None:
    raw = (conf.get(key) or "").strip()
    if not raw:
        return None
    try:
        value = int(raw)
    except ValueError:
        raise ValidationError(f"Invalid value for '{key}': '{raw}' is not an integer.") from None
    if value == -1 and key == PARALLELISM:  # Flink's "use the default"
        return None
    if value <= 0:
        raise ValidationError(f"Invalid value for '{key}': {value} must be positive.")
    return value


def parallelism(conf: dict[str, str]) -> int:
    return _positive_int(conf, PARALLELISM) or DEFAULT_PARALLELISM


def max_parallelism(conf: dict[str, str]) -> int:
    """Key groups: ``pipeline.max-parallelism``, else derived from the parallelism.

    As Flink derives its default from the parallelism, rounded up to a power of two,
    but without Flink's floor of 128: on Spark each key group is a state-store
    partition and a task per stateful stage and micro-batch, and on a 2-core laptop
    every key group beyond the cores costs throughput (benchmarks/README.md has the
    measurements). A job keeps its key groups for the life of its checkpoint: set the
    key explicitly when a job will be restarted with a higher parallelism.
    """
    explicit = _positive_int(conf, MAX_PARALLELISM)
    if explicit is not None:
        return explicit
    p = parallelism(conf)
    return max(2, 1 << (p - 1).bit_length())
