"""The loops of connectors/kafka/native.py over a batch of ``rd_kafka_message_t`` pointers,
written in LLVM IR and compiled in-process by llvmlite (LLVM's JIT, without numba).

numba compiled these loops before; importing it and loading its cached code cost each
Kafka reader process ~145 MB of RSS, ~40 MB of it private (its typing and lowering
machinery); llvmlite adds ~2 MB of private memory and its library (~63 MB mapped, shared by
the processes) (benchmarks/README.md, "The Kafka readers' compiled loops without numba"). The loops only load the public fields of
``rd_kafka_message_t`` (connectors/kafka/rdkafka_abi.py), copy payloads with ``memcpy`` and
call librdkafka's functions at the addresses they are given; nothing process-specific is
compiled in, and each process compiles them once (a few tens of milliseconds).

Each function takes NumPy arrays (C-contiguous, of the dtypes ``Batch`` in native.py
allocates) and works on their data pointers.
"""
from __future__ import annotations

import ctypes
from functools import lru_cache

import numpy as np

from connectors.kafka.rdkafka_abi import MESSAGE

_F = {name: MESSAGE.fields[name][1] for name in MESSAGE.names}  # byte offsets of the fields


def _loop(signature: str, body: str, rows: bool = True, prelude: str = "") -> str:
    """A function that runs ``body`` for ``%j`` from 0 to ``%n`` - 1 with ``%m``, the message
    at ``ptrs[rows[j]]`` (``ptrs[j]`` without ``rows``), after ``prelude`` once."""
    index = ("  %pr = getelementptr i64, ptr %rows, i64 %j\n  %row = load i64, ptr %pr\n" if rows else
             "  %row = add i64 %j, 0\n")
    return f"""
define void {signature} {{
entry:
{prelude}  %none = icmp sle i64 %n, 0
  br i1 %none, label %done, label %loop
loop:
  %j = phi i64 [0, %entry], [%j1, %loop]
{index}  %pm = getelementptr i64, ptr %ptrs, i64 %row
  %m = load ptr, ptr %pm
{body}  %j1 = add i64 %j, 1
  %more = icmp slt i64 %j1, %n
  br i1 %more, label %loop, label %done
done:
  ret void
}}
"""


def _field(name: str, kind: str, out: str) -> str:
    """Store the message's field ``name`` (of LLVM type ``kind``) at ``out[j]``."""
    return (f"  %a_{name} = getelementptr i8, ptr %m, i64 {_F[name]}\n  %v_{name} = load {kind}, ptr %a_{name}\n"
            f"  %d_{name} = getelementptr {kind}, ptr %{out}, i64 %j\n  store {kind} %v_{name}, ptr %d_{name}\n")


def _length(address: str, size: str, out: str) -> str:
    """Store the length ``size`` at ``out[j]``, -1 where the pointer ``address`` is NULL."""
    return (f"  %a_{address} = getelementptr i8, ptr %m, i64 {_F[address]}\n  %v_{address} = load i64, ptr %a_{address}\n"
            f"  %a_{size} = getelementptr i8, ptr %m, i64 {_F[size]}\n  %v_{size} = load i64, ptr %a_{size}\n"
            f"  %h_{size} = icmp ne i64 %v_{address}, 0\n  %s_{size} = select i1 %h_{size}, i64 %v_{size}, i64 -1\n"
            f"  %d_{size} = getelementptr i64, ptr %{out}, i64 %j\n  store i64 %s_{size}, ptr %d_{size}\n")


IR = "declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)\n" + _loop(
    "@scan(ptr %ptrs, i64 %n, ptr %err, ptr %rkt, ptr %part, ptr %off, ptr %vlen, ptr %klen)",
    _field("err", "i32", "err") + _field("rkt", "i64", "rkt") + _field("partition", "i32", "part") +
    _field("offset", "i64", "off") + _length("payload", "len", "vlen") + _length("key", "key_len", "klen"),
    rows=False) + _loop(
    "@timestamps(ptr %ptrs, ptr %rows, i64 %n, ptr %fn, ptr %ts, ptr %kind)",
    "  %t = call i64 %fn(ptr %m, ptr %tmp)\n  %dt = getelementptr i64, ptr %ts, i64 %j\n  store i64 %t, ptr %dt\n"
    "  %k = load i32, ptr %tmp\n  %dk = getelementptr i32, ptr %kind, i64 %j\n  store i32 %k, ptr %dk\n",
    prelude="  %tmp = alloca i32\n") + _loop(
    "@leader_epochs(ptr %ptrs, ptr %rows, i64 %n, ptr %fn, ptr %out)",
    "  %e = call i32 %fn(ptr %m)\n  %de = getelementptr i32, ptr %out, i64 %j\n  store i32 %e, ptr %de\n") + _loop(
    "@destroy(ptr %ptrs, i64 %n, ptr %fn)", "  call void %fn(ptr %m)\n", rows=False) + f"""
define i64 @copy(ptr %ptrs, ptr %rows, i64 %n, i32 %key, ptr %out, i32 %sep, ptr %nullas, i64 %nulllen) {{
entry:
  %isk = icmp ne i32 %key, 0
  %fa = select i1 %isk, i64 {_F["key"]}, i64 {_F["payload"]}
  %fl = select i1 %isk, i64 {_F["key_len"]}, i64 {_F["len"]}
  %hassep = icmp ne i32 %sep, 0
  %none = icmp sle i64 %n, 0
  br i1 %none, label %done, label %loop
loop:
  %j = phi i64 [0, %entry], [%j1, %next]
  %pos = phi i64 [0, %entry], [%pos3, %next]
  %notfirst = icmp sgt i64 %j, 0
  %needsep = and i1 %hassep, %notfirst
  br i1 %needsep, label %dosep, label %body
dosep:
  %ps = getelementptr i8, ptr %out, i64 %pos
  store i8 10, ptr %ps
  %posa = add i64 %pos, 1
  br label %body
body:
  %pos1 = phi i64 [%pos, %loop], [%posa, %dosep]
  %pr = getelementptr i64, ptr %rows, i64 %j
  %row = load i64, ptr %pr
  %pm = getelementptr i64, ptr %ptrs, i64 %row
  %m = load ptr, ptr %pm
  %ma = getelementptr i8, ptr %m, i64 %fa
  %addr = load ptr, ptr %ma
  %ml = getelementptr i8, ptr %m, i64 %fl
  %size = load i64, ptr %ml
  %isnull = icmp eq ptr %addr, null
  %dst = getelementptr i8, ptr %out, i64 %pos1
  br i1 %isnull, label %null, label %value
null:
  call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr %nullas, i64 %nulllen, i1 false)
  %posn = add i64 %pos1, %nulllen
  br label %next
value:
  call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr %addr, i64 %size, i1 false)
  %posv = add i64 %pos1, %size
  br label %next
next:
  %pos3 = phi i64 [%posn, %null], [%posv, %value]
  %j1 = add i64 %j, 1
  %more = icmp slt i64 %j1, %n
  br i1 %more, label %loop, label %done
done:
  %total = phi i64 [0, %entry], [%pos3, %next]
  ret i64 %total
}}
"""

_P, _I64, _I32 = ctypes.c_void_p, ctypes.c_int64, ctypes.c_int32
_SIGNATURES = {
    "scan": ctypes.CFUNCTYPE(None, _P, _I64, _P, _P, _P, _P, _P, _P),
    "copy": ctypes.CFUNCTYPE(_I64, _P, _P, _I64, _I32, _P, _I32, _P, _I64),
    "timestamps": ctypes.CFUNCTYPE(None, _P, _P, _I64, _P, _P, _P),
    "leader_epochs": ctypes.CFUNCTYPE(None, _P, _P, _I64, _P, _P),
    "destroy": ctypes.CFUNCTYPE(None, _P, _I64, _P),
}


@lru_cache(maxsize=None)
def compiled() -> dict:
    """The functions, compiled once per process (the engine is kept with them); ImportError
    without llvmlite."""
    import llvmlite.binding as llvm
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    module = llvm.parse_assembly(IR)
    module.verify()
    machine = llvm.Target.from_default_triple().create_target_machine(opt=2)
    engine = llvm.create_mcjit_compiler(module, machine)
    engine.finalize_object()
    functions = {name: sig(engine.get_function_address(name)) for name, sig in _SIGNATURES.items()}
    functions["_engine"] = (engine, module)
    return functions


def _data(array: np.ndarray, dtype) -> int:
    assert array.dtype == dtype and array.flags.c_contiguous, (array.dtype, dtype)
    return array.ctypes.data


def scan(ptrs, err, rkt, partition, offset, value_len, key_len) -> None:
    """Each message's error code, topic handle, partition and offset; its value's and key's
    lengths (-1: NULL)."""
    compiled()["scan"](_data(ptrs, np.uint64), len(ptrs), _data(err, np.int32), _data(rkt, np.uint64),
                        _data(partition, np.int32), _data(offset, np.int64), _data(value_len, np.int64),
                        _data(key_len, np.int64))


def copy(ptrs, rows, key, out, sep, null_as) -> int:
    """The values (keys) of the messages at ``rows`` one after another into ``out``, ``null_as``
    for a NULL one, a newline between two with ``sep``; the bytes written."""
    return compiled()["copy"](_data(ptrs, np.uint64), _data(rows, np.int64), len(rows), int(bool(key)),
                               _data(out, np.uint8), int(bool(sep)), _data(null_as, np.uint8), len(null_as))


def timestamps(ptrs, rows, fn, ts, kind) -> None:
    """``fn`` (``rd_kafka_message_timestamp``) of the messages at ``rows``: times and types."""
    compiled()["timestamps"](_data(ptrs, np.uint64), _data(rows, np.int64), len(rows), fn,
                              _data(ts, np.int64), _data(kind, np.int32))


def leader_epochs(ptrs, rows, fn, out) -> None:
    """``fn`` (``rd_kafka_message_leader_epoch``) of the messages at ``rows``."""
    compiled()["leader_epochs"](_data(ptrs, np.uint64), _data(rows, np.int64), len(rows), fn,
                                 _data(out, np.int32))


def destroy(ptrs, fn) -> None:
    """``fn`` (``rd_kafka_message_destroy``) of every message."""
    compiled()["destroy"](_data(ptrs, np.uint64), len(ptrs), fn)
