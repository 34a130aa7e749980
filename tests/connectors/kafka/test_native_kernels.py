"""The compiled loops of the native Kafka reader (connectors/kafka/native_kernels.py) over
synthetic ``rd_kafka_message_t`` structs, against what the structs hold. (The whole reader
against confluent-kafka's on a real broker: test_native_reader.py.)"""
from __future__ import annotations

import ctypes

import numpy as np
import pytest

from connectors.kafka import native_kernels as k
from connectors.kafka.rdkafka_abi import MESSAGE

N = 2000


@pytest.fixture(scope="module")
def batch():
    """N messages: values of 0-399 bytes (10% NULL), keys of 0-29 bytes (30% NULL)."""
    rng = np.random.default_rng(7)
    msgs = np.zeros(N, MESSAGE)
    values = [rng.integers(0, 256, n, dtype=np.uint8).tobytes() for n in rng.integers(0, 400, N)]
    keys = [rng.integers(0, 256, n, dtype=np.uint8).tobytes() for n in rng.integers(0, 30, N)]
    held = [ctypes.create_string_buffer(b, max(len(b), 1)) for b in values + keys]  # kept alive
    addresses = np.array([ctypes.addressof(h) for h in held], np.uint64)
    value_null, key_null = rng.random(N) < 0.1, rng.random(N) < 0.3
    msgs["err"] = rng.integers(-5, 1, N)
    msgs["rkt"] = rng.integers(1, 1 << 40, N, dtype=np.uint64)
    msgs["partition"] = rng.integers(0, 8, N)
    msgs["offset"] = rng.integers(0, 1 << 40, N)
    msgs["payload"] = np.where(value_null, 0, addresses[:N])
    msgs["len"] = [len(v) for v in values]
    msgs["key"] = np.where(key_null, 0, addresses[N:])
    msgs["key_len"] = [len(b) for b in keys]
    ptrs = (msgs.ctypes.data + np.arange(N, dtype=np.uint64) * MESSAGE.itemsize).astype(np.uint64)
    yield {"msgs": msgs, "ptrs": ptrs, "values": [None if n else v for v, n in zip(values, value_null)],
           "keys": [None if n else b for b, n in zip(keys, key_null)], "rng": rng}
    del held


def test_scan_reads_every_messages_fields_and_lengths_null_as_minus_one(batch):
    msgs = batch["msgs"]
    out = [np.empty(N, t) for t in (np.int32, np.uint64, np.int32, np.int64, np.int64, np.int64)]
    k.scan(batch["ptrs"], *out)
    err, rkt, partition, offset, value_len, key_len = out
    assert (err == msgs["err"]).all() and (rkt == msgs["rkt"]).all()
    assert (partition == msgs["partition"]).all() and (offset == msgs["offset"]).all()
    assert value_len.tolist() == [-1 if v is None else len(v) for v in batch["values"]]
    assert key_len.tolist() == [-1 if b is None else len(b) for b in batch["keys"]]
    k.scan(batch["ptrs"][:0], *[a[:0] for a in out])  # no message: nothing read or written


@pytest.mark.parametrize("key", [False, True])
@pytest.mark.parametrize("sep, null_as", [(False, b""), (True, b"null")])
def test_copy_joins_the_payloads_of_the_rows_asked_for(batch, key, sep, null_as):
    rows = batch["rng"].permutation(N)[: N // 2].astype(np.int64)
    payloads = [(batch["keys"] if key else batch["values"])[r] for r in rows]
    expected = (b"\n" if sep else b"").join(null_as if p is None else p for p in payloads)
    out = np.zeros(len(expected), np.uint8)
    written = k.copy(batch["ptrs"], rows, key, out, sep, np.frombuffer(null_as, np.uint8) if null_as
                     else np.zeros(0, np.uint8))
    assert written == len(expected) and out.tobytes() == expected
    assert k.copy(batch["ptrs"], rows[:0], key, out, sep, np.zeros(0, np.uint8)) == 0


def test_the_function_loops_call_the_function_given_once_per_message(batch):
    ptrs, rows = batch["ptrs"], np.arange(N - 1, -1, -3, dtype=np.int64)
    stamp = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_void_p, ctypes.POINTER(ctypes.c_int32))(
        lambda m, kind: kind.__setitem__(0, m % 3) or m // 8)
    ts, kind = np.empty(len(rows), np.int64), np.empty(len(rows), np.int32)
    k.timestamps(ptrs, rows, ctypes.cast(stamp, ctypes.c_void_p).value, ts, kind)
    assert (ts == ptrs[rows] // 8).all() and (kind == ptrs[rows] % 3).all()
    epoch = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p)(lambda m: m % 1000)
    epochs = np.empty(len(rows), np.int32)
    k.leader_epochs(ptrs, rows, ctypes.cast(epoch, ctypes.c_void_p).value, epochs)
    assert (epochs == ptrs[rows] % 1000).all()
    seen: list = []
    destroy = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(seen.append)
    k.destroy(ptrs, ctypes.cast(destroy, ctypes.c_void_p).value)
    assert seen == ptrs.tolist()
