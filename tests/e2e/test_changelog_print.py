"""Unbounded streaming GROUP BY into print: a changelog (+I, -U/+U) whose materialized
result equals the batch answer."""
from __future__ import annotations

import re

from tests.e2e.conftest import run_cli

SCRIPT = """
CREATE TABLE orders (order_id BIGINT, product STRING, amount INT) WITH (
  'connector' = 'datagen', 'number-of-rows' = '12', 'rows-per-second' = '4',
  'fields.product.length' = '1', 'fields.amount.min' = '1', 'fields.amount.max' = '9');
CREATE TABLE per_kind (kind STRING, n BIGINT, total INT) WITH ('connector' = 'print');
INSERT INTO per_kind
SELECT CAST(product < 'c' AS STRING), COUNT(*), SUM(amount) FROM orders GROUP BY product < 'c';
"""
LINE = re.compile(r"^(?:\S+> )?([+-][IUD])\[(\w+), (\d+), (\d+)\]$")


def test_group_by_changelog_into_print(tmp_path):
    script = tmp_path / "agg.sql"
    script.write_text(SCRIPT)
    res = run_cli("-f", str(script))
    assert res.returncode == 0, res.stderr[-2000:]
    changes = [m.groups() for m in map(LINE.match, res.stdout.splitlines()) if m]
    assert {c[0] for c in changes} >= {"+I", "-U", "+U"}, res.stdout
    table: dict[str, tuple[int, int]] = {}
    for op, kind, n, total in changes:
        if op in ("+I", "+U"):
            table[kind] = (int(n), int(total))
        else:
            assert table.pop(kind) == (int(n), int(total)), "a retraction must match the last emitted row"
    assert sum(n for n, _ in table.values()) == 12
