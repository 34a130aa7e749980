"""No setting is accepted and silently ignored (sqlengine/settings.py): ``SET`` of a key
sqlengine uses succeeds quietly; of a Flink key with no effect on Spark, with a warning
that says so (and for the keys Flink users rely on, what sqlengine does instead); of an
unknown key, with a warning naming the nearest known key."""
from __future__ import annotations

import pytest


@pytest.mark.parametrize("key, said", [
    ("restart-strategy.type", None),
    ("execution.checkpointing.interval", None),
    ("spark.sql.shuffle.partitions", None),
    # it picks Spark's state store (tests/e2e/test_runtime_settings.py), which sqlengine's operators do not use
    ("state.backend.type", "[WARNING] 'state.backend.type' selects Spark's state store (hashmap: "
                           "HDFSBackedStateStoreProvider; rocksdb, forst: RocksDBStateStoreProvider), which only "
                           "Spark's own stateful operators use; sqlengine's do not: sqlengine keeps operator state "
                           "as versioned Parquet tables in the job's checkpoint folder"),
    ("execution.checkpointing.incremental", "every checkpoint is incremental already"),
    ("table.exec.mini-batch.enabled", "sqlengine combines each key's changes per epoch"),
    ("pipeline.auto-watermark-interval", "[WARNING] 'pipeline.auto-watermark-interval' is a Flink option sqlengine "
                                         "does not use on Spark: it has no effect."),
    ("execution.checkpoint.interval", "[WARNING] Unknown configuration key 'execution.checkpoint.interval': it has "
                                      "no effect. Did you mean 'execution.checkpointing.interval'?"),
    ("parallelism.defualt", "Did you mean 'parallelism.default'?"),
])
def test_set_warns_about_a_key_without_effect(spark, key, said):
    from sqlengine.api.session import Session
    result = Session({}, spark=spark).execute_sql(f"SET '{key}' = '1'")
    lines = result.text.splitlines()
    assert lines[-1] == "[INFO] Execute statement succeeded."
    if said is None:
        assert lines == ["[INFO] Execute statement succeeded."]
    else:
        assert len(lines) == 2 and lines[0].startswith("[WARNING]") and said in lines[0], lines
