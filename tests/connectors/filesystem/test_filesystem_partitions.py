"""Partitioned filesystem tables (connectors/filesystem/partitions.py): ``k=v`` folders with
Flink's escaping and default name, partition commit (success files) by partition time and
by processing time, epoch by epoch, across a crash, in batch; reading partitions back.

What Flink 2.3 wrote for the same tables (PyFlink, recorded by hand): folders
``d=18263/ts=2020-01-02T10%3A05/str=a%3Ab%2Fc d+e%25`` and ``d=__DEFAULT_PARTITION__/
ts=2020-01-02T10%3A05%3A01.500/str=__DEFAULT_PARTITION__`` (a DATE as its day number, a
TIMESTAMP as ``LocalDateTime.toString``, NULL and '' as the default name); the partition
columns are not in the csv lines; ``_SUCCESS`` in every partition in batch and streaming
with ``'sink.partition-commit.policy.kind' = 'success-file'``, and in batch also at the path
of a table without partitions (not in streaming)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from connectors.filesystem import factory as FF
from connectors.filesystem import partitions as PT
from connectors.filesystem import writer as W
from sqlengine.api.session import Session
from sqlengine.errors import SqlEngineError
from tests.runtime.changelog_util import write_jsonl


def session(spark, tmp_path: Path, mode: str = "streaming", per_epoch: int = 4, **conf) -> Session:
    return Session({"execution.runtime-mode": mode, "execution.checkpointing.dir": str(tmp_path / "ckpt"),
                    "parallelism.default": "2", "sqlengine.filesystem.max-lines-per-batch": str(per_epoch),
                    **conf}, spark=spark)


def run(s: Session, *statements: str):
    for st in statements[:-1]:
        s.execute_sql(st)
    result = s.execute_sql(statements[-1])
    if result.job is not None:
        result.job.wait(300)
    return result


def tree(root: Path) -> dict[str, list[str]]:
    """Partition folder -> the sorted lines of its visible part files (``_SUCCESS`` aside)."""
    out: dict[str, list[str]] = {}
    for f in sorted(root.rglob("part-*")):
        rel = f.relative_to(root)
        if any(p.startswith((".", "_")) for p in rel.parts):
            continue
        out.setdefault(str(rel.parent), []).extend(f.read_text().splitlines())
    return {k: sorted(v) for k, v in out.items()}


def committed(root: Path, name: str = "_SUCCESS") -> list[str]:
    return sorted(str(f.relative_to(root).parent) for f in root.rglob(name) if ".staging" not in f.parts)


# -- paths and partition time (pure) ---------------------------------------------------------

def test_escaping_and_partition_time_as_flink():
    assert PT.partition_dir(["dt", "hm"], ["2024-01-01", "10:05"]) == "dt=2024-01-01/hm=10%3A05"
    assert PT.escape('a:b/c d+e%"#\'*=?\\{}[]^\x01\x7f') == "a%3Ab%2Fc d+e%25%22%23%27%2A%3D%3F%5C%7B%7D%5B%5D%5E%01%7F"
    assert PT.spec_of("/t/dt=2024-01-01/hm=10%3A05/part-1") == {"dt": "2024-01-01", "hm": "10:05"}
    pattern = PT.TimeExtractor("$dt $hm:00")
    assert str(pattern.extract(["dt", "hm"], ["2024-01-01", "10:05"])) == "2024-01-01 10:05:00"
    assert str(PT.TimeExtractor().extract(["d"], ["2024-1-2"])) == "2024-01-02 00:00:00"
    formatted = PT.TimeExtractor("$d$h", "yyyyMMddHH")
    assert str(formatted.extract(["d", "h"], ["20240102", "07"])) == "2024-01-02 07:00:00"
    commit = PT.CommitOptions("partition-time", 60_000, "UTC", pattern, "_SUCCESS")
    ten = commit.partition_ms(["dt", "hm"], "dt=2024-01-01/hm=10%3A05")
    assert ten == 1704103500000
    pending = {"dt=2024-01-01/hm=10%3A05": 0}
    assert commit.ready(["dt", "hm"], pending, ten + 60_000, 0, False) == []  # the watermark must pass it
    assert commit.ready(["dt", "hm"], pending, ten + 60_001, 0, False) == list(pending)
    assert commit.ready(["dt", "hm"], pending, 0, 0, True) == list(pending)  # end of input
    shanghai = PT.CommitOptions("partition-time", 0, "Asia/Shanghai", pattern, "_SUCCESS")
    assert shanghai.partition_ms(["dt", "hm"], "dt=2024-01-01/hm=10%3A05") == ten - 8 * 3_600_000
    later = PT.CommitOptions("process-time", 1000, success_file="_SUCCESS")
    assert later.ready([], {"p": 5}, 0, 1005, False) == [] and later.ready([], {"p": 5}, 0, 1006, False) == ["p"]
    assert PT.CommitOptions().ready([], {"p": 5}, 0, 0, False) == ["p"]  # no delay: at once


@pytest.mark.parametrize("option, message", [
    ({"sink.partition-commit.policy.kind": "metastore"},
     "Can not configure a 'metastore' partition commit policy for a file system table"),
    ({"sink.partition-commit.policy.kind": "success-file,custom", "sink.partition-commit.policy.class": "a.B"},
     "Partition commit policy 'custom' of connector 'filesystem' is not supported: it loads a Java class"),
    ({"partition.time-extractor.kind": "custom"}, "Partition time extractor 'custom'"),
    ({"sink.partition-commit.trigger": "sometimes"}, "Valid values: process-time, partition-time"),
    ({"sink.partition-commit.delay": "soon"}, "Could not parse value 'soon' for key 'sink.partition-commit.delay'"),
    ({"sink.partition-commit.watermark-time-zone": "Mars/Base"}, "'Mars/Base' is not a time zone id"),
    ({"sink.rolling-policy.file-size": "big"}, "expected a memory size"),
])
def test_refused_options_say_why(option, message):
    with pytest.raises(SqlEngineError, match=message.replace("(", r"\(").replace(")", r"\)")):
        FF.FilesystemFactory().validate_sink_options({"connector": "filesystem", "path": "p", "format": "csv",
                                                      **option})


def test_flink_options_are_accepted():
    FF.FilesystemFactory().validate_sink_options({
        "connector": "filesystem", "path": "p", "format": "csv", "partition.default-name": "none",
        "sink.shuffle-by-partition.enable": "true", "sink.rolling-policy.file-size": "128MB",
        "sink.rolling-policy.rollover-interval": "1min", "sink.rolling-policy.check-interval": "1min",
        "sink.rolling-policy.inactivity-interval": "30 s", "sink.partition-commit.trigger": "partition-time",
        "sink.partition-commit.delay": "1 min", "sink.partition-commit.watermark-time-zone": "Asia/Shanghai",
        "partition.time-extractor.kind": "default", "partition.time-extractor.timestamp-pattern": "$dt $hm:00",
        "partition.time-extractor.timestamp-formatter": "yyyy-MM-dd HH:mm:ss",
        "sink.partition-commit.policy.kind": "success-file", "sink.partition-commit.success-file.name": "_DONE"})


# -- batch -------------------------------------------------------------------------------------

ODD = "CREATE TABLE o (a INT, d DATE, ts TIMESTAMP(3), str STRING) PARTITIONED BY (d, ts, str) WITH " \
      "('connector' = 'filesystem', 'path' = '{path}', 'format' = 'csv'{more})"
ODD_ROWS = "INSERT INTO o VALUES (1, DATE '2020-01-02', TIMESTAMP '2020-01-02 10:05:00', 'a:b/c d+e%'), " \
           "(2, CAST(NULL AS DATE), TIMESTAMP '2020-01-02 10:05:01.5', ''), " \
           "(3, DATE '2020-01-02', TIMESTAMP '2020-01-02 10:05:00', 'x'), " \
           "(4, DATE '2020-01-02', TIMESTAMP '2020-01-02 10:05:00', CAST(NULL AS STRING))"
FLINK_FOLDERS = {"d=18263/ts=2020-01-02T10%3A05/str=a%3Ab%2Fc d+e%25": ["1"],
                 "d=__DEFAULT_PARTITION__/ts=2020-01-02T10%3A05%3A01.500/str=__DEFAULT_PARTITION__": ["2"],
                 "d=18263/ts=2020-01-02T10%3A05/str=x": ["3"],
                 "d=18263/ts=2020-01-02T10%3A05/str=__DEFAULT_PARTITION__": ["4"]}


@pytest.mark.parametrize("mode", ["batch", "streaming"])
def test_folders_escaping_and_null_partitions_as_flink_writes_them(spark, tmp_path, mode):
    out = tmp_path / "o"
    policy = ", 'sink.partition-commit.policy.kind' = 'success-file'"
    run(session(spark, tmp_path, mode), ODD.format(path=out, more=policy), ODD_ROWS)
    assert tree(out) == FLINK_FOLDERS, "partition columns are not in the lines"
    assert committed(out) == sorted(FLINK_FOLDERS)
    rows = run(session(spark, tmp_path, "batch"), ODD.format(path=out, more=""), "SELECT * FROM o").collect()
    import datetime as dt
    day, ten = dt.date(2020, 1, 2), dt.datetime(2020, 1, 2, 10, 5)
    assert sorted(tuple(r) for r in rows) == [
        (1, day, ten, "a:b/c d+e%"), (2, None, dt.datetime(2020, 1, 2, 10, 5, 1, 500000), None),
        (3, day, ten, "x"), (4, day, ten, None)]


def test_batch_success_files_only_with_the_policy(spark, tmp_path):
    out, flat = tmp_path / "o", tmp_path / "flat"
    run(session(spark, tmp_path, "batch"), ODD.format(path=out, more=", 'partition.default-name' = 'none'"), ODD_ROWS)
    assert committed(out) == [] and "d=none/ts=2020-01-02T10%3A05%3A01.500/str=none" in tree(out)
    ddl = f"CREATE TABLE f (a INT) WITH ('connector' = 'filesystem', 'path' = '{flat}', 'format' = 'csv', " \
          "'sink.partition-commit.policy.kind' = 'success-file', 'sink.partition-commit.success-file.name' = '_DONE')"
    run(session(spark, tmp_path, "batch"), ddl, "INSERT INTO f VALUES (1)")
    assert committed(flat, "_DONE") == ["."] and tree(flat) == {".": ["1"]}  # as Flink's batch sink


# -- streaming: partition commit epoch by epoch --------------------------------------------------

MINUTES = 5


def bids(tmp_path: Path) -> Path:
    """Four bids a minute from 10:00 to 10:04 (seconds 0, 15, 30, 45), in time order."""
    rows = [{"ts": f"2024-01-01 10:{m:02d}:{s:02d}", "price": m * 100 + s} for m in range(MINUTES)
            for s in (0, 15, 30, 45)]
    return write_jsonl(tmp_path / "in" / "bids.jsonl", rows)


def q10_like(tmp_path: Path, out: Path, commit: str) -> list[str]:
    return [f"CREATE TABLE bids (ts TIMESTAMP(3), price INT, WATERMARK FOR ts AS ts) WITH ("
            f"'connector' = 'filesystem', 'path' = '{bids(tmp_path)}', 'format' = 'json')",
            f"CREATE TABLE o (price INT, ts TIMESTAMP(3), dt STRING, hm STRING) PARTITIONED BY (dt, hm) WITH ("
            f"'connector' = 'filesystem', 'path' = '{out}', 'format' = 'csv', "
            f"'sink.partition-commit.policy.kind' = 'success-file', {commit})",
            "INSERT INTO o SELECT price, ts, DATE_FORMAT(ts, 'yyyy-MM-dd'), DATE_FORMAT(ts, 'HH:mm') FROM bids"]


@pytest.fixture
def epochs(monkeypatch):
    """After each epoch's partition step: (the epoch's folders with files, committed folders)."""
    seen: list[tuple[list[str], list[str]]] = []
    original = FF.FilesystemSink.end_epoch

    def record(self, epoch_id, query_id, watermark):
        original(self, epoch_id, query_id, watermark)
        root = Path(self.t.path)
        seen.append((sorted(tree(root)), committed(root)))
    monkeypatch.setattr(FF.FilesystemSink, "end_epoch", record)
    return seen


def hm(*minutes: int) -> list[str]:
    return [f"dt=2024-01-01/hm=10%3A{m:02d}" for m in minutes]


def test_partition_time_commits_once_the_watermark_passes_partition_time_plus_delay(spark, tmp_path, epochs):
    out = tmp_path / "o"
    run(session(spark, tmp_path), *q10_like(tmp_path, out, "'sink.partition-commit.trigger' = 'partition-time', "
                                            "'sink.partition-commit.delay' = '1 min', "
                                            "'partition.time-extractor.timestamp-pattern' = '$dt $hm:00'"))
    # Epoch k reads minute k (watermark 10:0k:45): minute j commits when 10:0k:45 > 10:0j:00 + 1 min,
    # i.e. from epoch j + 1; the last epoch ends the input and commits the rest.
    assert epochs == [(hm(*range(k + 1)), hm(*range(k))) for k in range(MINUTES - 1)] + \
        [(hm(*range(MINUTES)), hm(*range(MINUTES)))]
    assert tree(out)[hm(2)[0]] == sorted(f"{200 + s},\"2024-01-01 10:02:{s:02d}\"" for s in (0, 15, 30, 45))


def test_process_time_without_delay_commits_after_each_epoch(spark, tmp_path, epochs):
    run(session(spark, tmp_path), *q10_like(tmp_path, tmp_path / "o", "'sink.partition-commit.delay' = '0 s'"))
    assert epochs == [(hm(*range(k + 1)), hm(*range(k + 1))) for k in range(MINUTES)]


def test_process_time_with_a_delay_commits_at_the_end_of_input(spark, tmp_path, epochs):
    run(session(spark, tmp_path), *q10_like(tmp_path, tmp_path / "o", "'sink.partition-commit.delay' = '1 h'"))
    assert epochs == [(hm(*range(k + 1)), []) for k in range(MINUTES - 1)] + \
        [(hm(*range(MINUTES)), hm(*range(MINUTES)))]


def test_without_a_policy_no_partition_is_committed(spark, tmp_path, epochs):
    out = tmp_path / "o"
    script = q10_like(tmp_path, out, "'sink.partition-commit.delay' = '0 s'")
    script[1] = script[1].replace("'sink.partition-commit.policy.kind' = 'success-file', ", "")
    run(session(spark, tmp_path), *script)
    assert committed(out) == [] and sorted(tree(out)) == hm(*range(MINUTES))


# -- crash between the file commit and the partition commit --------------------------------------

def test_pending_partitions_survive_a_crash_between_file_and_partition_commit(tmp_path):
    """The marker that commits an epoch's files also records its partitions as pending: after
    a crash before the partition step, recovery publishes the files, and the replayed epoch's
    step commits the partitions (once; a second replay changes nothing)."""
    root, keys = tmp_path / "o", ["dt", "hm"]
    commit = PT.CommitOptions("partition-time", 0, "UTC", PT.TimeExtractor("$dt $hm:00"), "_SUCCESS")
    staged = W._write_partitioned(str(root), keys, iter([_rows(["a", "b"], [("2024-01-01", "10:00")] * 2)]),
                                  lambda n: f"part-q-0-3.0.{n}.inprogress", lambda n, r: "part-q-0-3", "")
    W.commit_epoch(str(root), "q", 3, [staged], track=True)  # killed before commit_partitions
    assert committed(root) == [] and tree(root) == {hm(0)[0]: ["a", "b"]}
    marker = W.read_marker(*W.FS.resolve(str(root)), "q")
    assert list(marker["pending"]) == hm(0)
    W.recover(str(root), "q")
    ten_one = 1704103260000  # 10:01 UTC
    assert W.commit_partitions(str(root), "q", 3, keys, commit, ten_one, False) == hm(0)  # the replay
    assert committed(root) == hm(0)
    (root / hm(0)[0] / "_SUCCESS").unlink()
    W.recover(str(root), "q")  # a crash after the partition step's marker: its success files again
    assert committed(root) == hm(0)
    assert W.commit_partitions(str(root), "q", 3, keys, commit, ten_one, False) == []
    assert W.read_marker(*W.FS.resolve(str(root)), "q")["pending"] == {}


def _rows(lines: list[str], parts: list[tuple[str, str]]):
    import pyarrow as pa
    return pa.record_batch([pa.array(lines), pa.array([p[0] for p in parts]), pa.array([p[1] for p in parts])],
                           names=["line", "__p0", "__p1"])


def test_a_job_failing_at_the_partition_commit_restarts_exactly(spark, tmp_path, monkeypatch, epochs):
    folder = tmp_path / "faults"
    folder.mkdir()
    monkeypatch.setenv("SQLENGINE_FAULT", "partition-commit")
    monkeypatch.setenv("SQLENGINE_FAULT_ACTION", f"raise:{folder}")
    out = tmp_path / "o"
    s = session(spark, tmp_path, **{"restart-strategy.type": "fixed-delay",
                                    "restart-strategy.fixed-delay.delay": "0 s", "pipeline.job-id": "q10like"})
    script = q10_like(tmp_path, out, "'sink.partition-commit.trigger' = 'partition-time', "
                                     "'partition.time-extractor.timestamp-pattern' = '$dt $hm:00'")
    for st in script[:-1]:
        s.execute_sql(st)
    job = s.execute_sql(script[-1]).job
    job.wait(300)
    assert (folder / "raised-partition-commit").exists() and job.restarts == 1
    assert committed(out) == hm(*range(MINUTES))
    lines = tree(out)
    assert sorted(lines) == hm(*range(MINUTES)) and all(len(v) == 4 for v in lines.values()), \
        "nothing lost, nothing written twice"
    assert len(list(out.rglob("part-*"))) == MINUTES


# -- reading -------------------------------------------------------------------------------------

def test_reading_fills_partition_columns_from_folders(spark, tmp_path):
    out = tmp_path / "t"
    for folder, lines in {"dt=2024-01-01/n=1": ["a,1"], "dt=2024-01-02/n=2": ["b,2", "c,3"],
                          "dt=__DEFAULT_PARTITION__/n=3": ["d,4"]}.items():
        (out / folder).mkdir(parents=True)
        (out / folder / "part-0").write_text("\n".join(lines) + "\n")
        (out / folder / "_SUCCESS").write_text("")
        (out / folder / ".part-1.inprogress").write_text("x,9\n")
    ddl = f"CREATE TABLE t (s STRING, v INT, dt DATE, n BIGINT) PARTITIONED BY (dt, n) WITH (" \
          f"'connector' = 'filesystem', 'path' = '{out}', 'format' = 'csv')"
    import datetime as dt
    for mode in ("batch", "streaming"):
        rows = run(session(spark, tmp_path, mode), ddl, "SELECT s, v, dt, n FROM t WHERE n >= 2").collect()
        got = sorted(tuple(r)[-4:] for r in rows)  # (streaming: the row kind first)
        assert got == [("b", 2, dt.date(2024, 1, 2), 2), ("c", 3, dt.date(2024, 1, 2), 2), ("d", 4, None, 3)], mode
