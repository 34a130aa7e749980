"""What the shell completes beside the live catalog: built-in functions, window TVFs,
catalog types, connectors, formats, and the values of enumerated options, each read
from the module that owns it."""
from __future__ import annotations


def window_tvfs() -> tuple[str, ...]:
    from sqlengine.dialect.flink import WINDOW_TVFS
    return tuple(WINDOW_TVFS)


def builtin_functions() -> dict[str, str]:
    """Flink's built-in functions: name -> function | aggregate function | window function."""
    from sqlengine.binder.over import BATCH_RANKING, OFFSET_FNS, RANKING
    from sqlengine.functions.registry import AGGREGATES, SCALARS
    found = {n: "function" for n in SCALARS}
    found.update({n: "aggregate function" for n in AGGREGATES})
    found.update({n: "window function" for n in RANKING + OFFSET_FNS + tuple(BATCH_RANKING)})
    return found


def catalog_types() -> dict:
    """Catalog type -> its class (with ``valid_keys()``)."""
    from catalog.factory import CATALOG_TYPES
    return dict(CATALOG_TYPES)


def connectors() -> list[str]:
    from connectors.base import known_connectors
    return list(known_connectors())


def formats(kafka: bool) -> list[str]:
    """The formats a table takes (byte formats only with Kafka)."""
    from connectors.formats import BYTE_FORMATS, SUPPORTED
    return sorted(SUPPORTED + (BYTE_FORMATS if kafka else ()))


def datagen_field_options() -> tuple[str, ...]:
    """datagen's per-column options (``fields.<column>.<option>``)."""
    from connectors.datagen.options import OPTION_NAMES
    return tuple(OPTION_NAMES)


def option_values(connector: "str | None", key: str) -> tuple[str, ...]:
    """The values an enumerated option takes, from the connector's own constants."""
    if connector in ("kafka", "upsert-kafka"):
        from connectors.kafka import options as KO
        return {"scan.startup.mode": KO.STARTUP_MODES, "scan.bounded.mode": KO.BOUNDED_MODES,
                "sink.delivery-guarantee": KO.GUARANTEES, "sink.partitioner": KO.PARTITIONERS,
                "value.fields-include": ("ALL", "EXCEPT_KEY")}.get(key, ())
    if connector == "jdbc":
        from connectors.jdbc import options as JO
        return {"lookup.cache": JO.CACHES, "sink.delivery-guarantee": JO.GUARANTEES}.get(key, ())
    if key.startswith("fields.") and key.endswith(".kind"):
        return ("random", "sequence")
    return ()


def keywords() -> frozenset:
    """Flink SQL's keywords (reserved and not)."""
    from sqlengine.dialect.keywords import KEYWORDS
    return frozenset(KEYWORDS)
