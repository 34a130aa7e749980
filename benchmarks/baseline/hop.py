"""PySpark baseline (d): 10 s event-time windows sliding by 5 s, COUNT and SUM per ``user_id % 1000``."""
from __future__ import annotations

from pyspark.sql import functions as F

import _common as c


def main() -> None:
    args = c.parse_args("hop")
    spark = c.session(args, "hop")
    events = c.bounded_events(spark, args)
    result = c.window_aggregate(events, F.window("ts", "10 seconds", "5 seconds"))
    c.run("hop", args, spark, result, c.windows_done(args))
    spark.stop()


if __name__ == "__main__":
    main()
