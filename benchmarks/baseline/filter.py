"""PySpark baseline (b): filter, ``SELECT id, user_id, amount FROM src WHERE amount > 0.5``."""
from __future__ import annotations

from pyspark.sql import functions as F

import _common as c


def main() -> None:
    args = c.parse_args("filter")
    spark = c.session(args, "filter")
    rows = c.bounded_rows(spark, args)
    result = rows.where(F.col("amount") > 0.5).select("id", "user_id", "amount")
    c.run("filter", args, spark, result, c.source_done(args))
    spark.stop()


if __name__ == "__main__":
    main()
