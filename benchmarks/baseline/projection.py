"""PySpark baseline (a): projection, ``SELECT id, user_id, amount * 2 FROM src``."""
from __future__ import annotations

from pyspark.sql import functions as F

import _common as c


def main() -> None:
    args = c.parse_args("projection")
    spark = c.session(args, "projection")
    rows = c.bounded_rows(spark, args)
    result = rows.select("id", "user_id", (F.col("amount") * 2).alias("amount"))
    c.run("projection", args, spark, result, c.source_done(args))
    spark.stop()


if __name__ == "__main__":
    main()
