"""Making the driver JVM's class-data archive (``runtime/classdata.py``) now, by running
a short job through the API: ``python -m sqlengine.api.classdata`` (``scripts/setup.sh``
runs it once per machine)."""
from __future__ import annotations

import atexit


def _train() -> int:
    """Make the archive now: a short streaming statement set (datagen, a window and a
    group aggregation over a join, Parquet state, blackhole sinks) and a batch query."""
    import sys

    from sqlengine.api.session import Session
    from sqlengine.runtime import classdata
    from sqlengine.runtime.spark import driver_conf

    conf = {"spark.master": "local[2]"}
    ahead = classdata.plan(driver_conf(conf))
    if ahead is None or ahead.dump_to is None:  # nothing to make: no JVM started
        print(f"[INFO] class-data archive: {ahead.archive if ahead else 'not used'}")
        return 0
    ahead.release()  # only a look: the session's JVM below claims the dump itself
    session = Session(conf)
    spark = session.spark
    data = classdata.ACTIVE
    if data is None or data.dump_to is None:
        print(f"[INFO] class-data archive: {data.archive if data else 'not used'}")
        return 0
    session.execute_sql(TRAINING_SQL)
    session.execute_sql("SET 'execution.runtime-mode' = 'batch'")
    session.execute_sql("SELECT name, COUNT(*) FROM d GROUP BY name").collect()
    proc = getattr(spark.sparkContext._gateway, "proc", None)
    atexit.unregister(classdata.finish_dump)
    if proc is None or not classdata.finish_dump(proc, data.dump_to, data.archive):
        print("[WARN] class-data archive not written", file=sys.stderr)
        return 1
    print(f"[INFO] class-data archive: {data.archive}")
    return 0


TRAINING_SQL = """
CREATE TABLE e (k BIGINT, v DOUBLE, ts AS TO_TIMESTAMP_LTZ(k * 10, 3),
                WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'datagen', 'number-of-rows' = '2000', 'fields.k.kind' = 'sequence',
        'fields.k.start' = '0', 'fields.k.end' = '1999');
CREATE TABLE d (k BIGINT, name STRING)
  WITH ('connector' = 'datagen', 'number-of-rows' = '100', 'fields.k.kind' = 'sequence',
        'fields.k.start' = '0', 'fields.k.end' = '99', 'fields.name.length' = '3');
CREATE TABLE out1 (w TIMESTAMP(3), n BIGINT, s DOUBLE) WITH ('connector' = 'blackhole');
CREATE TABLE out2 (name STRING, n BIGINT) WITH ('connector' = 'blackhole');
EXECUTE STATEMENT SET BEGIN
INSERT INTO out1 SELECT window_start, COUNT(*), SUM(v) FROM TABLE(
  TUMBLE(TABLE e, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY window_start, window_end;
INSERT INTO out2 SELECT d.name, COUNT(*) FROM e JOIN d ON MOD(e.k, 100) = d.k GROUP BY d.name;
END;
"""


if __name__ == "__main__":
    raise SystemExit(_train())
