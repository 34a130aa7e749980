"""PySpark baseline (c): 10 s tumbling event-time windows, COUNT and SUM per ``user_id % 1000``."""
from __future__ import annotations

from pyspark.sql import functions as F

import _common as c


def main() -> None:
    args = c.parse_args("tumble")
    spark = c.session(args, "tumble")
    events = c.bounded_events(spark, args)
    result = c.window_aggregate(events, F.window("ts", "10 seconds"))
    c.run("tumble", args, spark, result, c.windows_done(args))
    spark.stop()


if __name__ == "__main__":
    main()
