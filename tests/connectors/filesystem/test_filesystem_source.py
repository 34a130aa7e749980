"""The filesystem source: line reading, offsets and end of input, decoding errors."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from pyspark.sql import functions as F
from pyspark.sql.streaming.datasource import ReadAllAvailable, ReadMaxRows

from connectors.base import Options, ScanContext, factory_for
from connectors.filesystem import reader as R
from connectors.filesystem.factory import CONF_MAX_LINES, CONF_MIN_SPLIT, observation
from sqlengine import types as T
from sqlengine.errors import ConnectorError

COLS = [("id", T.BIGINT()), ("v", T.STRING())]


def make_tree(root: Path) -> Path:
    """a.jsonl (7 lines, a blank one), sub/b.jsonl (no final newline, CRLF), hidden files."""
    (root / "sub").mkdir(parents=True)
    (root / "_tmp").mkdir()
    lines = [json.dumps({"id": i, "v": f"a{i}"}) for i in range(7)]
    lines.insert(3, "   ")
    (root / "a.jsonl").write_text("\n".join(lines) + "\n")
    (root / "sub" / "b.jsonl").write_bytes("\r\n".join(json.dumps({"id": 100 + i, "v": f"b{i}"})
                                                       for i in range(5)).encode())
    (root / "_tmp" / "c.jsonl").write_text('{"id": -1}\n')
    (root / ".hidden.jsonl").write_text('{"id": -2}\n')
    (root / "sub" / ".part.inprogress").write_text('{"id": -3}\n')
    return root


def read_all(rd, partitions) -> list[tuple]:
    rows = []
    for p in partitions:
        for batch in rd.read(p):
            rows.extend(zip(*[batch.column(i).to_pylist() for i in range(4)]))
    return rows


EXPECTED = ([(f"a.jsonl", n, json.dumps({"id": i, "v": f"a{i}"})) for i, n in zip(range(7), [1, 2, 3, 5, 6, 7, 8])]
            + [("sub/b.jsonl", i + 1, json.dumps({"id": 100 + i, "v": f"b{i}"})) for i in range(5)])


def relative(rows, root: Path):
    return [(str(Path(f).relative_to(root)), n, t) for f, n, t, eoi in rows if not eoi]


@pytest.mark.parametrize("parts, min_split", [(1, 1 << 20), (3, 1), (8, 1)])
def test_batch_reader_lines_numbers_and_hidden_files(tmp_path, parts, min_split):
    root = make_tree(tmp_path)
    rd = R.FilesBatchReader({"path": str(root), "num_partitions": str(parts), "min_split_bytes": str(min_split)})
    partitions = rd.partitions()
    assert len(partitions) == (1 if min_split > 1000 else parts)
    assert sorted(relative(read_all(rd, partitions), root)) == sorted(EXPECTED)


def test_single_file_and_missing_path(tmp_path):
    root = make_tree(tmp_path)
    rd = R.FilesBatchReader({"path": str(root / "sub" / "b.jsonl")})
    assert [n for _, n, _, _ in read_all(rd, rd.partitions())] == [1, 2, 3, 4, 5]
    rd = R.FilesBatchReader({"path": str(root / "nope")})
    assert read_all(rd, rd.partitions()) == []


def test_stream_offsets_batches_then_end_of_input(tmp_path):
    root = make_tree(tmp_path)
    rd = R.FilesStreamReader({"path": str(root), "source_id": "s1", "num_partitions": "2", "min_split_bytes": "1"})
    start, batches = rd.initialOffset(), []
    while True:
        end = rd.latestOffset(start, ReadMaxRows(3))
        if end == start:
            break
        assert json.loads(json.dumps(end)) == end  # plain JSON
        batches.append(read_all(rd, rd.partitions(start, end)))
        start = end
    assert batches[-2][-1] == (None, None, None, True)  # the __eoi row, with the last lines
    data = [relative(b, root) for b in batches[:-2]] + [relative(batches[-2][:-1], root)]
    assert [len(b) for b in data] == [3, 2, 3, 3, 1]  # 3 physical lines per batch; blank line skipped
    assert sorted(sum(data, [])) == sorted(EXPECTED)
    assert batches[-1] == []  # the final empty step
    assert start["phase"] == R.DONE and start["src"] == "s1"


def test_stream_read_all_and_retag_after_restart(tmp_path):
    root = make_tree(tmp_path)
    rd = R.FilesStreamReader({"path": str(root), "source_id": "run1"})
    o0 = rd.initialOffset()
    o2 = rd.latestOffset(o0, ReadAllAvailable())
    rows = read_all(rd, rd.partitions(o0, o2))
    assert rows[-1] == (None, None, None, True) and sorted(relative(rows[:-1], root)) == sorted(EXPECTED)
    o3 = rd.latestOffset(o2, ReadAllAvailable())
    assert (o2["phase"], o3["phase"]) == (R.EOI_PLANNED, R.DONE)
    assert rd.latestOffset(o3, ReadAllAvailable()) == o3
    again = R.FilesStreamReader({"path": str(root), "source_id": "run2"})  # restarted from a checkpoint
    o4 = again.latestOffset(o3, ReadAllAvailable())
    assert o4 == {**o3, "src": "run2"} and again.partitions(o3, o4) == []
    assert again.latestOffset(o4, ReadAllAvailable()) == o4


def test_empty_folder_still_ends(tmp_path):
    rd = R.FilesStreamReader({"path": str(tmp_path), "source_id": "e"})
    o0 = rd.initialOffset()
    o1 = rd.latestOffset(o0, ReadAllAvailable())
    assert o1["phase"] == R.EOI_PLANNED and read_all(rd, rd.partitions(o0, o1)) == [(None, None, None, True)]


# -- through Spark ------------------------------------------------------------------------
def scan(spark, path, streaming=False, columns=COLS, conf=None, **options):
    opts = {"path": str(path), "format": "json", **options}
    ctx = ScanContext(spark, streaming, 2, "default_catalog.default_database.t", columns,
                      Options("filesystem", opts), conf=conf or {})
    return factory_for("filesystem", "t").scan(ctx)


def test_streaming_scan_micro_batches_eoi_and_end_check(spark, tmp_path):
    root = make_tree(tmp_path / "in")
    result = scan(spark, root, streaming=True, conf={CONF_MAX_LINES: "4", CONF_MIN_SPLIT: "1"})
    q = (result.df.writeStream.format("memory").queryName("fs_stream_test")
         .option("checkpointLocation", str(tmp_path / "ck")).trigger(availableNow=True).start())
    q.awaitTermination()
    progress = q.recentProgress
    rows = spark.table("fs_stream_test").collect()
    assert sorted((r.id, r.v) for r in rows if not r["__eoi"]) == sorted(
        (json.loads(t)["id"], json.loads(t)["v"]) for _, _, t in EXPECTED)
    assert [(r.id, r.v) for r in rows if r["__eoi"]] == [(None, None)]
    counts = [p["numInputRows"] for p in progress]
    # the last data micro-batch carries the __eoi row; one empty step follows
    assert counts[-1] == 0 and sum(counts) == len(EXPECTED) + 1 and len(counts) >= 4
    ended = [result.end_check(p["sources"][0]) for p in progress]
    assert ended[-1] and not any(ended[:-1])
    assert not result.end_check({"endOffset": json.dumps({**json.loads(progress[-1]["sources"][0]["endOffset"]),
                                                           "src": "other"})})


def test_batch_scan_has_no_eoi_row(spark, tmp_path):
    result = scan(spark, make_tree(tmp_path))
    rows = result.df.collect()
    assert len(rows) == len(EXPECTED) and not any(r["__eoi"] for r in rows)
    assert result.end_check is None


def test_malformed_line_fails_naming_file_and_line(spark, tmp_path):
    (tmp_path / "x.jsonl").write_text('{"id": 1}\n\n{"id": "oops"}\n')
    with pytest.raises(Exception) as info:
        scan(spark, tmp_path).df.collect()
    text = str(info.value)
    assert "Failed to deserialize JSON '{\"id\": \"oops\"}' in file" in text
    assert f"{tmp_path}/x.jsonl line 3" in text and "field: id." in text
    with pytest.raises(Exception, match="line 3"):  # even when no decoded column is read
        scan(spark, tmp_path).df.select(F.lit(1)).count()


def test_ignore_parse_errors_skips_and_counts(spark, tmp_path):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "x.jsonl").write_text('{"id": 1}\nnot json\n{"id": 2, "v": "ok"}\n[1]\n{"id": "x"}\n')
    result = scan(spark, tmp_path / "in", streaming=True, **{"json.ignore-parse-errors": "true"})
    q = (result.df.writeStream.format("memory").queryName("fs_ignore_test")
         .option("checkpointLocation", str(tmp_path / "ck")).trigger(availableNow=True).start())
    q.awaitTermination()
    rows = spark.table("fs_ignore_test").where(~F.col("__eoi")).collect()
    assert sorted(((r.id, r.v) for r in rows), key=str) == [(1, None), (2, "ok"), (None, None)]
    observed = [m for p in q.recentProgress for m in (p.get("observedMetrics") or {}).values()]
    assert sum(m["skipped"] for m in observed) == 2 and sum(m["lines"] for m in observed) == 6  # 5 + __eoi
    assert result.metric_messages["skipped"].format(n=2).startswith("Skipped 2 malformed line(s) in table")


def test_ignore_parse_errors_counts_in_batch(spark, tmp_path):
    (tmp_path / "x.jsonl").write_text('{"id": 1}\nnot json\n{"id": 2}\n')
    result = scan(spark, tmp_path, **{"json.ignore-parse-errors": "true"})
    assert sorted(r.id for r in result.df.collect()) == [1, 2]
    assert observation(result).get == {"lines": 3, "skipped": 1}


def test_csv_source(spark, tmp_path):
    (tmp_path / "side.csv").write_text('1,abc\n2,"x, y"\n3,\n')
    result = scan(spark, tmp_path, columns=[("key", T.BIGINT()), ("value", T.STRING())], format="csv")
    assert sorted(tuple(r)[:2] for r in result.df.collect()) == [(1, "abc"), (2, "x, y"), (3, "")]


def test_option_validation(spark, tmp_path):
    with pytest.raises(ConnectorError, match="continuous directory monitoring is not supported"):
        scan(spark, tmp_path, **{"source.monitor-interval": "1s"})
    with pytest.raises(ConnectorError, match="Unsupported options found for 'filesystem'") as info:
        scan(spark, tmp_path, **{"json.nope": "1"})
    assert "json.ignore-parse-errors" in str(info.value) and "path" in str(info.value)
    with pytest.raises(ConnectorError, match="Available format identifiers are: csv, debezium-json, json"):
        scan(spark, tmp_path, format="avro")
    with pytest.raises(ConnectorError, match="Missing required option 'format'"):
        factory_for("filesystem", "t").scan(ScanContext(spark, False, 1, "t", COLS, Options("filesystem", {"path": "x"})))
    scan(spark, tmp_path, **{"sink.rolling-policy.file-size": "1MB", "sink.partition-commit.delay": "1 h",
                             "partition.default-name": "x"})
