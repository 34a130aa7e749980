"""datagen in streaming mode: rate-micro-batch, the end-of-input row and ``end_check``."""
from __future__ import annotations

from sqlengine import types as T

from connectors.datagen.source import DataGenScanResult, EndAfterOffset, rate_offset
from simple_helpers import BatchCollector, drive_to_end, scan_datagen

COLS = [("id", T.BIGINT()), ("v", T.INT()), ("s", T.STRING())]


def test_bounded_stream_ends_with_one_eoi_row_in_its_own_batch(spark, tmp_path):
    # 25 rows, 10 per micro-batch: data in batches 0-2, the __eoi row alone in batch 3,
    # and end_check true once batch 4 (after the eoi batch) has completed.
    result = scan_datagen(spark, COLS, {"number-of-rows": "25", "rows-per-second": "10",
                                        "fields.s.length": "4"}, streaming=True)
    assert isinstance(result, DataGenScanResult) and result.df.isStreaming
    assert result.rows_per_batch == 10 and result.trigger_interval_ms == 1000
    sink = BatchCollector()
    writer = result.df.writeStream.foreachBatch(sink).option("checkpointLocation", str(tmp_path))
    drive_to_end(writer, result.end_check)
    data = [(epoch, row) for epoch, rows, _ in sink.batches for row in rows]
    eoi = [epoch for epoch, _, n in sink.batches for _ in range(n)]
    assert len(data) == 25 and len(eoi) == 1
    assert eoi[0] > max(epoch for epoch, _ in data)
    assert max(epoch for epoch, _, _ in sink.batches) > eoi[0]  # a batch after the eoi one ran
    assert len({row["v"] for _, row in data}) == 25


def test_stream_and_batch_generate_the_same_rows(spark, tmp_path):
    opts = {"number-of-rows": "30", "rows-per-second": "15", "fields.id.kind": "sequence",
            "fields.id.start": "100", "fields.id.end": "1000"}
    stream = scan_datagen(spark, COLS, opts, streaming=True)
    sink = BatchCollector()
    drive_to_end(stream.df.writeStream.foreachBatch(sink).option("checkpointLocation", str(tmp_path)),
                 stream.end_check)
    streamed = sorted((tuple(r) for _, rows, _ in sink.batches for r in rows))
    batch = sorted(tuple(r) for r in scan_datagen(spark, COLS, opts).df.collect())
    assert streamed == batch and [r[0] for r in batch] == list(range(100, 130))


def test_end_check_reads_rate_offsets():
    check = EndAfterOffset(eoi_id=30, tag=7)
    mine = "RatePerMicroBatchStream[rowsPerBatch=10, numPartitions=2, startTimestamp=7, advanceMsPerBatch=1000]"
    other = mine.replace("startTimestamp=7,", "startTimestamp=8,")
    assert not check({"description": mine, "startOffset": None, "endOffset": '{"offset": 10, "timestamp": 1007}'})
    assert not check({"description": mine, "startOffset": '{"offset": 30, "timestamp": 3007}'})
    assert check({"description": mine, "startOffset": '{"offset": 40, "timestamp": 4007}'})
    assert check({"description": mine, "startOffset": {"offset": 40}})
    assert not check({"description": other, "startOffset": '{"offset": 40, "timestamp": 4008}'})
    assert rate_offset("null") == -1 and rate_offset('{"offset": 5, "timestamp": 0}') == 5


def test_unbounded_stream_has_no_end_check(spark):
    result = scan_datagen(spark, COLS, {"rows-per-second": "5000000"}, streaming=True)
    assert result.end_check is None
    assert result.rows_per_batch == 2_000_000 and result.trigger_interval_ms == 400
    assert "rate-micro-batch(rowsPerBatch=2000000, numPartitions=2)" in result.explain


def test_admission_control_caps_every_epoch(spark, tmp_path):
    """A source that could produce 1e9 rows per second enters epochs of at most
    ``sqlengine.source.max-rows-per-epoch`` rows (the default: 2,000,000, above)."""
    result = scan_datagen(spark, COLS, {"number-of-rows": "2500", "rows-per-second": "1000000000"},
                          streaming=True, conf={"sqlengine.source.max-rows-per-epoch": "1000"})
    assert result.rows_per_batch == 1000
    sink = BatchCollector()
    drive_to_end(result.df.writeStream.foreachBatch(sink).option("checkpointLocation", str(tmp_path)),
                 result.end_check)
    sizes = [len(rows) for _, rows, _ in sink.batches if rows]
    assert sizes == [1000, 1000, 500], sizes
