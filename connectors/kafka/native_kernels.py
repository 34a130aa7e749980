"""The loops of connectors/kafka/native.py over a batch of ``rd_kafka_message_t`` pointers,
compiled by numba (``cache=True``: each machine compiles them once; librdkafka's functions
are passed as addresses, so nothing process-specific is baked into the cached code)."""
from __future__ import annotations

import numba
import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from connectors.kafka.rdkafka_abi import MESSAGE

_i8p = ir.IntType(8).as_pointer()


@intrinsic
def _ptr(typingctx, address):
    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], cgutils.voidptr_t)
    return types.voidptr(address), codegen


@intrinsic
def _call_void(typingctx, fn, a):
    """``void fn(void *a)`` at address ``fn``."""
    def codegen(context, builder, signature, args):
        f = builder.inttoptr(args[0], ir.FunctionType(ir.VoidType(), [_i8p]).as_pointer())
        builder.call(f, [builder.inttoptr(args[1], _i8p)])
        return context.get_dummy_value()
    return types.void(fn, a), codegen


@intrinsic
def _call_i64(typingctx, fn, a, b):
    """``int64_t fn(void *a, void *b)`` at address ``fn``."""
    def codegen(context, builder, signature, args):
        f = builder.inttoptr(args[0], ir.FunctionType(ir.IntType(64), [_i8p, _i8p]).as_pointer())
        return builder.call(f, [builder.inttoptr(args[1], _i8p), builder.inttoptr(args[2], _i8p)])
    return types.int64(fn, a, b), codegen


@intrinsic
def _call_i32(typingctx, fn, a):
    """``int32_t fn(void *a)`` at address ``fn``."""
    def codegen(context, builder, signature, args):
        f = builder.inttoptr(args[0], ir.FunctionType(ir.IntType(32), [_i8p]).as_pointer())
        return builder.call(f, [builder.inttoptr(args[1], _i8p)])
    return types.int32(fn, a), codegen


@njit(cache=True, nogil=True)
def _message(address):
    return numba.carray(_ptr(address), (1,), MESSAGE)[0]


@njit(cache=True, nogil=True)
def scan(ptrs, err, rkt, partition, offset, value_len, key_len):
    for i in range(ptrs.shape[0]):
        m = _message(ptrs[i])
        err[i] = m.err
        rkt[i] = m.rkt
        partition[i] = m.partition
        offset[i] = m.offset
        value_len[i] = np.int64(m.len) if m.payload != 0 else -1
        key_len[i] = np.int64(m.key_len) if m.key != 0 else -1


@njit(cache=True, nogil=True)
def copy(ptrs, rows, key, out, sep, null_as):
    pos = 0
    for j in range(rows.shape[0]):
        if sep and j > 0:
            out[pos] = 10
            pos += 1
        m = _message(ptrs[rows[j]])
        address = m.key if key else m.payload
        size = np.int64(m.key_len if key else m.len)
        if address == 0:
            for b in range(null_as.shape[0]):
                out[pos + b] = null_as[b]
            pos += null_as.shape[0]
        elif size > 0:
            out[pos:pos + size] = numba.carray(_ptr(address), (size,), np.uint8)
            pos += size
    return pos


@njit(cache=True, nogil=True)
def timestamps(ptrs, rows, fn, ts, kind):
    tmp = np.zeros(1, np.int32)
    for j in range(rows.shape[0]):
        ts[j] = _call_i64(fn, ptrs[rows[j]], tmp.ctypes.data)
        kind[j] = tmp[0]


@njit(cache=True, nogil=True)
def leader_epochs(ptrs, rows, fn, out):
    for j in range(rows.shape[0]):
        out[j] = _call_i32(fn, ptrs[rows[j]])


@njit(cache=True, nogil=True)
def destroy(ptrs, fn):
    for i in range(ptrs.shape[0]):
        _call_void(fn, ptrs[i])
