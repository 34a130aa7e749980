"""Nexmark q14's user-defined function, in Python (upstream: com.github.nexmark.flink.udf.CountChar).

``count_char(s, c)``: how many bytes of ``s`` (UTF-8) equal the first byte of ``c``; 0 for
a NULL ``s``. Vectorized (a pandas UDF counting with Arrow): one call per batch, no
Python per row."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from sqlengine.udf import DataTypes, udf


@udf(result_type=DataTypes.BIGINT(False), func_type="pandas")
def count_char(s: pd.Series, c: pd.Series) -> pd.Series:
    text = pa.array(s, pa.string()).cast(pa.binary())
    firsts = pc.binary_slice(pa.array(c, pa.string()).cast(pa.binary()), 0, 1)
    # the distinct first bytes (q14 passes one literal): no Python object per row
    wanted = {v for v in pc.unique(firsts).to_pylist() if v}
    out = np.zeros(len(s), np.int64)
    for byte in wanted:
        counts = pc.fill_null(pc.count_substring(text, pattern=byte), 0).to_numpy(zero_copy_only=False)
        mask = pc.fill_null(pc.equal(firsts, pa.scalar(byte, pa.binary())), False)
        mask = mask.to_numpy(zero_copy_only=False)
        out = np.where(np.asarray(mask, bool), counts, out)
    return pd.Series(out)
