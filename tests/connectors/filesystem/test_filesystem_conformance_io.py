"""The conformance corpus through our formats.

* Every ``expected/<sink>.jsonl`` line was written by Flink's JSON format; decoding it
  with the sink's schema and encoding it again must give the same text, byte for byte.
* Every JSON input file decodes without errors and re-encodes to an equivalent
  object (inputs are not in Flink's output form: ``.170`` vs ``.17``).
"""
from __future__ import annotations

import json
import re
from functools import reduce

import pytest
from pyspark.sql import functions as F

from connectors.formats import json as J
from fs_case_tables import cases_dir, tables


def _signature(t) -> tuple:
    return tuple(str(ty) for _, ty in t.columns)


def _sink_files():
    """One expected file per distinct sink schema (column types), to keep the test quick."""
    out, seen = [], set()
    for case in sorted(cases_dir().iterdir()):
        if not (case / "case.sql").exists():
            continue
        for t in tables(case):
            path = t.options.get("path", "")
            expected = case / "expected" / f"{t.name}.jsonl"
            if path.startswith("${OUT_DIR}") and expected.exists() and _signature(t) not in seen:
                seen.add(_signature(t))
                out.append((t, expected))
    return out


def _input_files():
    out = {}
    for case in sorted(cases_dir().iterdir()):
        if not (case / "case.sql").exists():
            continue
        for t in tables(case):
            path = t.options.get("path", "")
            if path.startswith("${CASE_DIR}") and t.options.get("format") == "json":
                file = (case / path.replace("${CASE_DIR}/", "")).resolve()
                out.setdefault((file.name, _signature(t)), (t, file))
    return list(out.values())


def _reencode(spark, items):
    """One Spark job: (id, original line, bad, re-encoded line) for the lines of every (columns, file)."""
    frames = []
    for i, (columns, file) in enumerate(items):
        df = spark.read.text(str(file)).where(F.trim("value") != "").limit(500)
        d = J.decode_detailed(F.col("value"), columns, J.JsonOptions())
        line = J.encode_with([(F.col(f"`{n}`"), t, n) for n, t in columns], J.JsonOptions())
        decoded = df.select("*", *d.prelude).select(F.col("value").alias("__t"), *d.columns, d.bad.alias("__bad"))
        frames.append(decoded.select(F.lit(i).alias("id"), F.col("__t").alias("t"), F.col("__bad").alias("bad"),
                                     line.alias("out")))
    return reduce(lambda a, b: a.unionByName(b), frames).collect()


def test_flink_output_reencodes_byte_for_byte(spark):
    files = _sink_files()
    assert len(files) > 20
    items = [(t.columns, f) for t, f in files]
    mismatches = [(files[r.id][1].parent.parent.name, r.t, r.out) for r in _reencode(spark, items)
                  if r.bad or r.t != r.out]
    assert mismatches == []


_FRACTION = re.compile(r"^(\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d)(?:\.(\d*?))0*(Z?)$")


def _canonical(value):
    """Flink's text of a timestamp drops trailing fraction zeros; compare numbers as numbers."""
    if isinstance(value, dict):
        return {k: _canonical(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_canonical(v) for v in value]
    if isinstance(value, str):
        m = _FRACTION.match(value)
        if m:
            return m.group(1) + (f".{m.group(2)}" if m.group(2) else "") + m.group(3)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return value


def test_inputs_decode_and_reencode(spark):
    files = _input_files()
    assert len(files) >= 10
    items = [(t.columns, f) for t, f in files]
    rows = _reencode(spark, items)
    assert [r.t for r in rows if r.bad] == []
    for r in rows:
        names = [n for n, _ in files[r.id][0].columns]
        original = json.loads(r.t)
        expected = {n: original.get(n) for n in names}
        assert _canonical(json.loads(r.out)) == _canonical(expected), files[r.id][1]


@pytest.mark.parametrize("name", ["people.jsonl"])
def test_people_input_is_found(name):
    assert any(f.name == name for _, f in _input_files())
