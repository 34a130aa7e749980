"""What a configuration key means to sqlengine, so that no setting is accepted and silently
ignored: ``SET 'key' = 'value'`` (and ``-D key=value``) with a key sqlengine does not use
prints one warning line, saying why.

* Keys sqlengine reads (``USED``, and every ``spark.*`` / ``sqlengine.*`` key): silent.
* Flink's keys that have no effect on Spark: accepted, so that a Flink script runs, with a
  warning; the ones a Flink user relies on most say what sqlengine does instead
  (``EXPLAINED``). Flink's keys are those of Flink 2.3 (``flink_options.txt``, made by
  ``scripts/flink_options/regenerate.sh``).
* Any other key: a warning naming the nearest known key (a typo, most likely).
"""
from __future__ import annotations

import difflib
import functools
import os
from typing import Optional

USED = frozenset({
    "execution.runtime-mode", "execution.target", "parallelism.default", "pipeline.max-parallelism",
    "pipeline.name", "pipeline.job-id",
    "execution.checkpointing.dir", "execution.checkpointing.interval", "execution.checkpointing.savepoint-dir",
    "state.savepoints.dir", "state.checkpoints.dir", "execution.state-recovery.path",
    "execution.state-recovery.claim-mode",
    "restart-strategy", "restart-strategy.type", "restart-strategy.fixed-delay.attempts",
    "restart-strategy.fixed-delay.delay", "restart-strategy.failure-rate.delay",
    "restart-strategy.failure-rate.failure-rate-interval", "restart-strategy.failure-rate.max-failures-per-interval",
    "restart-strategy.exponential-delay.initial-backoff", "restart-strategy.exponential-delay.max-backoff",
    "restart-strategy.exponential-delay.backoff-multiplier", "restart-strategy.exponential-delay.reset-backoff-threshold",
    "restart-strategy.exponential-delay.jitter-factor",
    "restart-strategy.exponential-delay.attempts-before-reset-backoff",
    "high-availability.type", "high-availability", "high-availability.storageDir", "high-availability.cluster-id",
    "high-availability.zookeeper.quorum", "high-availability.zookeeper.path.root",
    "high-availability.zookeeper.client.session-timeout", "high-availability.zookeeper.client.connection-timeout",
    "rest.address", "rest.port", "rest.bind-address", "sql-gateway.endpoint.rest.port",
    "sql-gateway.endpoint.rest.address", "sql-gateway.endpoint.rest.bind-address", "sql-gateway.session.idle-timeout",
    "sql-client.execution.result-mode", "sql-client.execution.max-table-result.rows", "sql-client.verbose",
    "table.dml-sync", "table.local-time-zone", "table.exec.state.ttl", "table.exec.source.idle-timeout",
    "table.exec.source.cdc-events-duplicate", "table.display.max-column-width",
})
USED_PREFIXES = ("spark.", "sqlengine.")

STATE = ("sqlengine keeps operator state as versioned Parquet tables in the job's checkpoint folder "
         "(one delta per epoch, compacted into snapshots)")
# Flink's keys that sqlengine passes on to Spark though its own operators do not read them:
# what they do (the whole warning after the key).
PASSED_ON = {
    key: ("selects Spark's state store (hashmap: HDFSBackedStateStoreProvider; rocksdb, forst: "
          "RocksDBStateStoreProvider), which only Spark's own stateful operators use; sqlengine's do not: "
          + STATE)
    for key in ("state.backend.type", "state.backend")
}
# Flink's keys whose effect sqlengine has in its own way: what it does instead.
EXPLAINED = {
    "execution.checkpointing.incremental": STATE + ": every checkpoint is incremental already",
    "state.backend.incremental": STATE + ": every checkpoint is incremental already",
    "execution.checkpointing.mode": "every epoch of a sqlengine job is an exactly-once checkpoint",
    "table.exec.mini-batch.enabled": "sqlengine combines each key's changes per epoch (a mini-batch of one epoch)",
    "table.exec.mini-batch.allow-latency": "sqlengine combines each key's changes per epoch; "
                                           "'execution.checkpointing.interval' sets how often epochs start",
    "table.exec.mini-batch.size": "sqlengine combines each key's changes per epoch; "
                                  "'sqlengine.source.max-rows-per-epoch' bounds an epoch",
    "table.optimizer.distinct-agg.split.enabled": "sqlengine aggregates DISTINCT per epoch without splitting",
    "execution.checkpointing.timeout": "an epoch runs until it completes or fails",
    "execution.checkpointing.min-pause": "'execution.checkpointing.interval' sets how often epochs start",
}


@functools.lru_cache(maxsize=1)
def flink_keys() -> frozenset[str]:
    path = os.path.join(os.path.dirname(__file__), "flink_options.txt")
    with open(path) as fh:
        return frozenset(line.strip() for line in fh if line.strip() and not line.startswith("#"))


def warning(key: str) -> Optional[str]:
    """The warning line for ``SET key``, or None when sqlengine uses the key."""
    if key in USED or key.startswith(USED_PREFIXES):
        return None
    if key in PASSED_ON:
        return f"[WARNING] '{key}' {PASSED_ON[key]}."
    if key in EXPLAINED:
        return f"[WARNING] '{key}' has no effect on Spark: {EXPLAINED[key].format(key=key)}."
    if key in flink_keys():
        return f"[WARNING] '{key}' is a Flink option sqlengine does not use on Spark: it has no effect."
    near = difflib.get_close_matches(key, sorted(USED | flink_keys()), n=1, cutoff=0.75)
    hint = f" Did you mean '{near[0]}'?" if near else ""
    return f"[WARNING] Unknown configuration key '{key}': it has no effect.{hint}"
