"""A persistent catalog made with SQL in one process is listed by a second process."""
from __future__ import annotations

from tests.e2e.conftest import run_cli


def test_file_catalog_survives_the_process(tmp_path):
    store = tmp_path / "catalog"
    make = tmp_path / "make.sql"
    make.write_text(f"""
CREATE CATALOG lake WITH ('type' = 'file', 'path' = '{store}');
USE CATALOG lake;
CREATE TABLE orders (id BIGINT, amount DECIMAL(10, 2), ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '/tmp/orders', 'format' = 'json');
CREATE VIEW big AS SELECT id FROM orders WHERE amount > 100;
""")
    first = run_cli("-f", str(make))
    assert first.returncode == 0, first.stderr
    read = tmp_path / "read.sql"
    read.write_text(f"""
CREATE CATALOG lake WITH ('type' = 'file', 'path' = '{store}');
USE CATALOG lake;
SHOW TABLES;
DESCRIBE orders;
""")
    second = run_cli("-f", str(read))
    assert second.returncode == 0, second.stderr
    out = second.stdout
    assert "| orders |" in out.replace("  ", " ") or "orders" in out
    assert "big" in out
    assert "TIMESTAMP(3) *ROWTIME*" in out
    assert "`ts` - INTERVAL '5' SECOND" in out


def test_unknown_connector_option_names_the_valid_ones(tmp_path):
    script = tmp_path / "bad.sql"
    script.write_text("""
CREATE TABLE t (a INT) WITH ('connector' = 'datagen', 'rows-per-sec' = '5');
CREATE TABLE s (a INT) WITH ('connector' = 'blackhole');
INSERT INTO s SELECT a FROM t;
""")
    res = run_cli("-f", str(script))
    assert res.returncode != 0
    assert [l for l in res.stderr.splitlines() if l.startswith("[ERROR]")] and "rows-per-sec" in res.stderr
    assert "rows-per-second" in res.stderr and "Traceback" not in res.stderr
