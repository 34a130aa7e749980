"""A Kafka consumer whose records reach Arrow without a Python object each.

confluent-kafka's ``consume`` makes a ``Message`` (and a ``bytes`` per value) for every
record: 1.75 µs an event of the reader's ~4.3 at 10M Nexmark events (benchmarks/README.md,
"The Kafka reader without a Python object per record"). This module drives the same
librdkafka (the copy confluent-kafka ships, through ``ctypes``) and reads the records of a
``rd_kafka_consume_batch_queue`` batch with loops compiled by llvmlite: their fields land in
NumPy arrays and their payloads are copied once into a buffer from which Arrow's arrays
(and the JSON decoder's input, connectors/formats/json_arrow.py) are built.

The contract is the reader's (connectors/kafka/reader.py): ``assign`` at start offsets,
``take`` a batch, ``positions`` after it, ``drop`` finished partitions, ``close``; the
records and errors a batch yields are those of confluent-kafka's ``consume`` on the same
configuration (tests/connectors/kafka/test_native_reader.py compares the two paths' Arrow
batches). ``rd_kafka_message_t`` and ``rd_kafka_topic_partition_t`` are librdkafka's public
structs (unchanged since 1.0); a 64-bit platform is required. Without llvmlite, or without a
loadable librdkafka, ``available()`` is false and the reader uses confluent-kafka.
"""
from __future__ import annotations

import ctypes
import glob
import logging
import os
from functools import lru_cache
from typing import Optional

import numpy as np

from connectors.kafka.rdkafka_abi import MESSAGE

log = logging.getLogger("sqlengine.kafka")
PARTITION_EOF, AUTO_OFFSET_RESET = -191, -140  # RD_KAFKA_RESP_ERR__PARTITION_EOF, __AUTO_OFFSET_RESET
PRODUCER, CONSUMER = 0, 1  # RD_KAFKA_PRODUCER, RD_KAFKA_CONSUMER
QUEUE_FULL = -184  # RD_KAFKA_RESP_ERR__QUEUE_FULL
MSG_F_COPY = 0x2  # RD_KAFKA_MSG_F_COPY
PARTITION_UA = -1  # RD_KAFKA_PARTITION_UA: the configured partitioner picks
NO_TIMESTAMP = -1


class _TopicPartition(ctypes.Structure):
    _fields_ = [("topic", ctypes.c_char_p), ("partition", ctypes.c_int32), ("offset", ctypes.c_int64),
                ("metadata", ctypes.c_void_p), ("metadata_size", ctypes.c_size_t), ("opaque", ctypes.c_void_p),
                ("err", ctypes.c_int), ("_private", ctypes.c_void_p)]


class _PartitionList(ctypes.Structure):
    _fields_ = [("cnt", ctypes.c_int), ("size", ctypes.c_int), ("elems", ctypes.POINTER(_TopicPartition))]


_LOG_CB = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p)
_DR_CB = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
_LEVELS = {0: logging.CRITICAL, 1: logging.CRITICAL, 2: logging.CRITICAL, 3: logging.ERROR, 4: logging.WARNING,
           5: logging.INFO, 6: logging.INFO, 7: logging.DEBUG}


@_LOG_CB
def _log(rk, level, fac, buf):  # librdkafka's log lines to the log file, as confluent-kafka's ``logger``
    try:
        log.log(_LEVELS.get(level, logging.DEBUG), "%s %s", (fac or b"").decode(errors="replace"),
                (buf or b"").decode(errors="replace"))
    except Exception:  # noqa: BLE001 - never raise into librdkafka's threads
        pass


def _library_path() -> Optional[str]:
    import confluent_kafka
    base = os.path.dirname(confluent_kafka.__file__)
    found = sorted(glob.glob(base + ".libs/librdkafka*.so*")) + sorted(glob.glob(os.path.join(base, ".dylibs",
                                                                                             "librdkafka*.dylib")))
    if found:
        return found[0]
    import ctypes.util
    return ctypes.util.find_library("rdkafka")


@lru_cache(maxsize=None)
def _lib():
    """librdkafka with the signatures used here, or None."""
    if ctypes.sizeof(ctypes.c_void_p) != 8:
        return None
    path = _library_path()
    if path is None:
        return None
    lib = ctypes.CDLL(path)
    vp, cp, i = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int
    sig = {
        "rd_kafka_conf_new": ([], vp), "rd_kafka_conf_set": ([vp, cp, cp, cp, ctypes.c_size_t], i),
        "rd_kafka_conf_set_log_cb": ([vp, _LOG_CB], None), "rd_kafka_conf_destroy": ([vp], None),
        "rd_kafka_new": ([i, vp, cp, ctypes.c_size_t], vp), "rd_kafka_destroy": ([vp], None),
        "rd_kafka_consumer_close": ([vp], i), "rd_kafka_queue_get_consumer": ([vp], vp),
        "rd_kafka_queue_destroy": ([vp], None),
        "rd_kafka_consume_batch_queue": ([vp, i, vp, ctypes.c_size_t], ctypes.c_ssize_t),
        "rd_kafka_topic_partition_list_new": ([i], ctypes.POINTER(_PartitionList)),
        "rd_kafka_topic_partition_list_add": ([ctypes.POINTER(_PartitionList), cp, ctypes.c_int32],
                                              ctypes.POINTER(_TopicPartition)),
        "rd_kafka_topic_partition_list_destroy": ([ctypes.POINTER(_PartitionList)], None),
        "rd_kafka_assign": ([vp, ctypes.POINTER(_PartitionList)], i),
        "rd_kafka_incremental_unassign": ([vp, ctypes.POINTER(_PartitionList)], vp),
        "rd_kafka_error_string": ([vp], cp), "rd_kafka_error_destroy": ([vp], None),
        "rd_kafka_position": ([vp, ctypes.POINTER(_PartitionList)], i),
        "rd_kafka_err2str": ([i], cp), "rd_kafka_topic_name": ([vp], cp),
        "rd_kafka_message_destroy": ([vp], None), "rd_kafka_message_timestamp": ([vp, vp], ctypes.c_int64),
        "rd_kafka_message_leader_epoch": ([vp], ctypes.c_int32),
        "rd_kafka_conf_set_dr_msg_cb": ([vp, _DR_CB], None),
        "rd_kafka_topic_new": ([vp, cp, vp], vp), "rd_kafka_topic_destroy": ([vp], None),
        "rd_kafka_produce_batch": ([vp, ctypes.c_int32, i, vp, i], i),
        "rd_kafka_poll": ([vp, i], i), "rd_kafka_flush": ([vp, i], i), "rd_kafka_outq_len": ([vp], i),
        "rd_kafka_init_transactions": ([vp, i], vp), "rd_kafka_begin_transaction": ([vp], vp),
        "rd_kafka_send_offsets_to_transaction": ([vp, ctypes.POINTER(_PartitionList), vp, i], vp),
        "rd_kafka_commit_transaction": ([vp, i], vp), "rd_kafka_abort_transaction": ([vp, i], vp),
        "rd_kafka_consumer_group_metadata_new": ([cp], vp),
        "rd_kafka_consumer_group_metadata_destroy": ([vp], None),
    }
    for name, (args, res) in sig.items():
        f = getattr(lib, name)
        f.argtypes, f.restype = args, res
    return lib


@lru_cache(maxsize=None)
def _kernels():
    """The compiled loops (connectors/kafka/native_kernels.py), or None without llvmlite."""
    try:
        from connectors.kafka import native_kernels
        native_kernels.compiled()  # (llvmlite is imported here)
    except ImportError:
        return None
    return native_kernels


def plain(conf: dict) -> bool:
    """Whether every client property is one librdkafka takes as text (a Python callback,
    other than confluent-kafka's ``logger``, is confluent-kafka's to call)."""
    return all(k == "logger" or isinstance(v, (str, int, float, bool)) for k, v in conf.items())


def available() -> bool:
    try:
        return _lib() is not None and _kernels() is not None
    except OSError:
        return False


def _fn(name: str) -> int:
    return ctypes.cast(getattr(_lib(), name), ctypes.c_void_p).value


class NativeError(RuntimeError):
    pass


def _client(lib, kind: int, conf: dict, dr_cb=None) -> int:
    """A ``rd_kafka_t`` of ``kind`` on ``conf`` (confluent-kafka's ``logger`` key left out: logs go to ours)."""
    cf = lib.rd_kafka_conf_new()
    err = ctypes.create_string_buffer(512)
    for k, v in conf.items():
        if k == "logger":
            continue
        v = ("true" if v else "false") if isinstance(v, bool) else str(v)
        if lib.rd_kafka_conf_set(cf, k.encode(), v.encode(), err, len(err)) != 0:
            lib.rd_kafka_conf_destroy(cf)
            raise NativeError(f"Kafka client property {k}: {err.value.decode(errors='replace')}")
    lib.rd_kafka_conf_set_log_cb(cf, _log)
    if dr_cb is not None:
        lib.rd_kafka_conf_set_dr_msg_cb(cf, dr_cb)
    rk = lib.rd_kafka_new(kind, cf, err, len(err))  # owns the conf from here, on success only
    if not rk:
        lib.rd_kafka_conf_destroy(cf)
        raise NativeError(f"Could not create a Kafka client: {err.value.decode(errors='replace')}")
    return rk


def _partition_list(lib, tps):
    """A ``rd_kafka_topic_partition_list_t`` of (topic, partition[, offset]) (the caller destroys it)."""
    lst = lib.rd_kafka_topic_partition_list_new(max(1, len(tps)))
    for tp in tps:
        el = lib.rd_kafka_topic_partition_list_add(lst, tp[0].encode(), tp[1])
        if len(tp) > 2:
            el.contents.offset = tp[2]
    return lst


def _check(lib, error: Optional[int], what: str) -> None:
    """Raise for a ``rd_kafka_error_t`` (and free it)."""
    if error:
        text = lib.rd_kafka_error_string(error).decode(errors="replace")
        lib.rd_kafka_error_destroy(error)
        raise NativeError(f"{what}: {text}")


class Consumer:
    """A consumer on assigned partitions (no group membership), as reader.py uses one."""

    def __init__(self, conf: dict):
        self.lib = lib = _lib()
        self.rk = _client(lib, CONSUMER, conf)
        self.queue = lib.rd_kafka_queue_get_consumer(self.rk)
        self.k = _kernels()
        self._names: dict[int, str] = {}

    def assign(self, tps: list[tuple[str, int, int]]) -> None:
        lst = _partition_list(self.lib, tps)
        try:
            rc = self.lib.rd_kafka_assign(self.rk, lst)
        finally:
            self.lib.rd_kafka_topic_partition_list_destroy(lst)
        if rc != 0:
            raise NativeError(f"Could not assign Kafka partitions: {self.lib.rd_kafka_err2str(rc).decode()}")

    def drop(self, tps: list[tuple[str, int]]) -> None:
        lst = _partition_list(self.lib, tps)
        try:
            error = self.lib.rd_kafka_incremental_unassign(self.rk, lst)
        finally:
            self.lib.rd_kafka_topic_partition_list_destroy(lst)
        self._names.clear()  # a topic handle may go with its partitions
        _check(self.lib, error, "Could not unassign Kafka partitions")

    def positions(self, tps: list[tuple[str, int]]) -> dict[tuple[str, int], int]:
        lst = _partition_list(self.lib, tps)
        try:
            rc = self.lib.rd_kafka_position(self.rk, lst)
            if rc != 0:
                raise NativeError(f"Could not read Kafka positions: {self.lib.rd_kafka_err2str(rc).decode()}")
            els = lst.contents.elems
            return {(els[i].topic.decode(), els[i].partition): els[i].offset for i in range(lst.contents.cnt)}
        finally:
            self.lib.rd_kafka_topic_partition_list_destroy(lst)

    def take(self, n: int, timeout_s: float) -> Optional["Batch"]:
        ptrs = np.zeros(n, np.uint64)
        got = self.lib.rd_kafka_consume_batch_queue(self.queue, int(timeout_s * 1000), ptrs.ctypes.data, n)
        if got < 0:
            raise NativeError(f"Consuming from Kafka failed: {self.lib.rd_kafka_err2str(-1).decode()}")
        return Batch(self, ptrs[:got]) if got else None

    def topic(self, rkt: int) -> str:
        name = self._names.get(rkt)
        if name is None:
            name = self._names[rkt] = self.lib.rd_kafka_topic_name(rkt).decode()
        return name

    def close(self) -> None:
        if self.rk:
            self.lib.rd_kafka_queue_destroy(self.queue)
            self.lib.rd_kafka_consumer_close(self.rk)
            self.lib.rd_kafka_destroy(self.rk)
            self.rk = None


class Batch:
    """The messages of one consume call; ``release`` frees them (after the columns are built)."""

    def __init__(self, consumer: Consumer, ptrs: np.ndarray):
        self.consumer, self.ptrs = consumer, ptrs
        n = len(ptrs)
        self.err = np.empty(n, np.int32)
        self.rkt = np.empty(n, np.uint64)
        self.partition = np.empty(n, np.int32)
        self.offset = np.empty(n, np.int64)
        self.value_len = np.empty(n, np.int64)  # -1: NULL
        self.key_len = np.empty(n, np.int64)
        consumer.k.scan(ptrs, self.err, self.rkt, self.partition, self.offset, self.value_len, self.key_len)
        self._released = False

    def error_text(self, i: int) -> str:
        """``rd_kafka_message_errstr``: the payload of an error message, else the code's text."""
        ptr = int(self.ptrs[i])
        m = np.frombuffer((ctypes.c_char * MESSAGE.itemsize).from_address(ptr), MESSAGE)[0]
        if m["payload"]:
            return ctypes.string_at(int(m["payload"]), int(m["len"])).decode(errors="replace")
        return self.consumer.lib.rd_kafka_err2str(int(m["err"])).decode(errors="replace")

    def topics(self, rows: np.ndarray) -> tuple[list[str], np.ndarray]:
        """The topic names of the messages at ``rows`` and each one's index in them (sorted)."""
        handles = self.rkt[rows]
        uniq, inverse = np.unique(handles, return_inverse=True)
        names = [self.consumer.topic(int(h)) for h in uniq]
        order = sorted(range(len(names)), key=names.__getitem__)
        rank = np.empty(len(order), np.int32)
        rank[order] = np.arange(len(order), dtype=np.int32)
        return sorted(names), rank[inverse].astype(np.int32)

    def payloads(self, rows: np.ndarray, key: bool, sep: bool = False, null_as: bytes = b"") -> tuple:
        """The values (or keys) at ``rows``: (data as a bytearray, int32 start offsets, present).
        With ``sep``, a newline between two payloads (``b"\\n".join``) and ``null_as`` for a NULL one."""
        lens = (self.key_len if key else self.value_len)[rows]
        present = lens >= 0
        sizes = np.where(present, lens, len(null_as))
        total = int(sizes.sum()) + (max(len(rows) - 1, 0) if sep else 0)
        data = bytearray(total)
        if total:
            self.consumer.k.copy(self.ptrs, rows.astype(np.int64), key, np.frombuffer(data, np.uint8), sep,
                                 np.frombuffer(null_as, np.uint8) if null_as else np.zeros(0, np.uint8))
        return data, sizes, present

    def timestamps(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        ts = np.empty(len(rows), np.int64)
        kind = np.empty(len(rows), np.int32)
        self.consumer.k.timestamps(self.ptrs, rows.astype(np.int64), _fn("rd_kafka_message_timestamp"), ts, kind)
        return ts, kind

    def leader_epochs(self, rows: np.ndarray) -> np.ndarray:
        out = np.empty(len(rows), np.int32)
        self.consumer.k.leader_epochs(self.ptrs, rows.astype(np.int64), _fn("rd_kafka_message_leader_epoch"), out)
        return out

    def release(self) -> None:
        if not self._released:
            self._released = True
            self.consumer.k.destroy(self.ptrs, _fn("rd_kafka_message_destroy"))


class Producer:
    """A producer of Arrow binary columns (``rd_kafka_produce_batch``, payloads copied by
    librdkafka), with the transaction calls of confluent-kafka's ``Producer`` that
    connectors/kafka/writer.py makes. A failed delivery's error lands in ``errors``."""

    def __init__(self, conf: dict):
        self.lib = lib = _lib()
        self.errors: list[str] = []

        def delivered(rk, message, opaque) -> None:
            try:
                m = np.frombuffer((ctypes.c_char * MESSAGE.itemsize).from_address(message), MESSAGE)[0]
                if m["err"] and not self.errors:
                    self.errors.append(lib.rd_kafka_err2str(int(m["err"])).decode(errors="replace"))
            except Exception:  # noqa: BLE001 - never raise into librdkafka
                pass
        self._dr = _DR_CB(delivered)  # kept alive as long as the producer
        self.rk = _client(lib, PRODUCER, {**conf, "delivery.report.only.error": "true"}, self._dr)
        self._topics: dict[str, int] = {}
        self._empty = ctypes.create_string_buffer(1)  # the payload of an empty (not NULL) value

    def _topic(self, name: str) -> int:
        rkt = self._topics.get(name)
        if rkt is None:
            rkt = self._topics[name] = self.lib.rd_kafka_topic_new(self.rk, name.encode(), None)
            if not rkt:
                raise NativeError(f"Could not open Kafka topic {name} for writing")
        return rkt

    def _fill(self, msgs, array, pointer: str, length: str) -> None:
        """Point ``msgs``' ``pointer``/``length`` fields at the values of a binary Arrow array."""
        import pyarrow as pa
        n = len(array)
        bufs = array.buffers()
        wide = pa.types.is_large_binary(array.type) or pa.types.is_large_string(array.type)
        offsets = np.frombuffer(bufs[1], np.int64 if wide else np.int32)[array.offset:array.offset + n + 1]
        sizes = np.diff(offsets)
        base = bufs[2].address if bufs[2] is not None and bufs[2].size else 0
        addresses = (base + offsets[:-1].astype(np.uint64)) if base else np.zeros(n, np.uint64)
        addresses = np.where(sizes == 0, ctypes.addressof(self._empty), addresses)
        if array.null_count:
            valid = array.is_valid().to_numpy(zero_copy_only=False)
            addresses = np.where(valid, addresses, 0)
        msgs[pointer] = addresses
        msgs[length] = sizes

    def produce(self, topic: str, values, keys=None, partition: int = PARTITION_UA) -> None:
        """One message per row of ``values`` (a binary array, NULL a tombstone) with ``keys``;
        waits while librdkafka's queue is full."""
        n = len(values)
        if not n:
            return
        msgs = np.zeros(n, MESSAGE)
        self._fill(msgs, values, "payload", "len")
        if keys is not None:
            self._fill(msgs, keys, "key", "key_len")
        rkt = self._topic(topic)
        while len(msgs):
            done = self.lib.rd_kafka_produce_batch(rkt, partition, MSG_F_COPY, msgs.ctypes.data, len(msgs))
            if done == len(msgs):
                return
            errs = msgs["err"]
            bad = errs[(errs != 0) & (errs != QUEUE_FULL)]
            if len(bad):
                raise NativeError(f"Writing to Kafka topic {topic} failed: "
                                  f"{self.lib.rd_kafka_err2str(int(bad[0])).decode(errors='replace')}")
            msgs = msgs[errs == QUEUE_FULL].copy()  # the queue is full: let deliveries drain, then again
            msgs["err"] = 0
            self.lib.rd_kafka_poll(self.rk, 50)

    def poll(self, timeout_s: float = 0) -> int:
        return self.lib.rd_kafka_poll(self.rk, int(timeout_s * 1000))

    def flush(self, timeout_s: float) -> int:
        """Messages still not delivered after ``timeout_s`` (0: all delivered)."""
        self.lib.rd_kafka_flush(self.rk, int(timeout_s * 1000))
        return self.lib.rd_kafka_outq_len(self.rk)

    def init_transactions(self, timeout_s: float) -> None:
        _check(self.lib, self.lib.rd_kafka_init_transactions(self.rk, int(timeout_s * 1000)),
               "Kafka transactions could not start")

    def begin_transaction(self) -> None:
        _check(self.lib, self.lib.rd_kafka_begin_transaction(self.rk), "Kafka transaction could not begin")

    def send_offsets_to_transaction(self, offsets: list[tuple[str, int, int]], group: str, timeout_s: float) -> None:
        lst = _partition_list(self.lib, offsets)
        meta = self.lib.rd_kafka_consumer_group_metadata_new(group.encode())
        try:
            error = self.lib.rd_kafka_send_offsets_to_transaction(self.rk, lst, meta, int(timeout_s * 1000))
        finally:
            self.lib.rd_kafka_consumer_group_metadata_destroy(meta)
            self.lib.rd_kafka_topic_partition_list_destroy(lst)
        _check(self.lib, error, "Kafka transaction could not take the consumer offsets")

    def commit_transaction(self, timeout_s: float) -> None:
        _check(self.lib, self.lib.rd_kafka_commit_transaction(self.rk, int(timeout_s * 1000)),
               "Kafka transaction could not commit")

    def abort_transaction(self, timeout_s: float) -> None:
        _check(self.lib, self.lib.rd_kafka_abort_transaction(self.rk, int(timeout_s * 1000)),
               "Kafka transaction could not abort")

    def close(self) -> None:
        if self.rk:
            for rkt in self._topics.values():
                self.lib.rd_kafka_topic_destroy(rkt)
            self._topics.clear()
            self.lib.rd_kafka_destroy(self.rk)
            self.rk = None

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001
            pass
