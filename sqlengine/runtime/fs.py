"""The files of checkpoints, savepoints and operator state, on a local disk or remote.

A path with a scheme other than ``file`` (``hdfs://namenode:8020/ckpt``, ``s3a://...``) is
read and written through Hadoop's ``FileSystem`` API in the driver's JVM, with the
Hadoop configuration of the running Spark session (Spark carries the client; its
executors write the state tables and Spark's own logs there themselves). A local path
(or ``file:``) is handled with the standard library, without a round trip to the JVM.

Every function takes and returns path strings; a missing file raises
``FileNotFoundError`` and another failure ``OSError``, on either side, so callers never
tell the two apart.
"""
from __future__ import annotations

import glob as _glob
import os
import shutil
import uuid
from typing import Callable, Iterator, Optional
from urllib.parse import urlparse

from sqlengine.errors import ExecutionError


class FileSystemError(ExecutionError, OSError):
    """A remote file system failed (unreachable, refused, ...), not a missing file; it
    names the path."""


def remote(path: str) -> bool:
    """Whether ``path`` names a file system other than the local one."""
    scheme = urlparse(path).scheme
    return len(scheme) > 1 and scheme != "file"


def local(path: str) -> str:
    """A path as Flink prints one (``file:/x``, ``file:///x``) as a local path (``/x``)."""
    if path.startswith("file://"):
        return path[len("file://"):]
    return path[len("file:"):] if path.startswith("file:") else path


class _Hadoop:
    """The Hadoop ``FileSystem`` of one remote path, through the driver's JVM."""

    def __init__(self, path: str):
        from pyspark import SparkContext
        sc = SparkContext._active_spark_context
        if sc is None:
            raise ExecutionError(f"Cannot use '{path}': a remote path is read through Spark's Hadoop FileSystem, "
                                 f"and Spark is not running.")
        self.jvm = sc._jvm
        self.gateway = sc._gateway
        self.conf = sc._jsc.hadoopConfiguration()
        self.path = self.jvm.org.apache.hadoop.fs.Path(path)
        self.fs = self.path.getFileSystem(self.conf)

    def p(self, path: str):
        return self.jvm.org.apache.hadoop.fs.Path(path)


def _call(path: str, fn: Callable[[_Hadoop], object]):
    """``fn`` on ``path``'s FileSystem, its Java exceptions as Python's."""
    from py4j.protocol import Py4JJavaError
    try:
        return fn(_Hadoop(path))
    except Py4JJavaError as exc:
        java = exc.java_exception
        if java.getClass().getName().endswith("FileNotFoundException"):
            raise FileNotFoundError(f"{path}: {_first_line(java)}") from None
        inner = java
        while inner.getCause() is not None and inner.getCause() != inner:
            inner = inner.getCause()
        raise FileSystemError(f"Cannot use '{path}': {inner.getClass().getSimpleName()}: {_first_line(inner)}") from exc


def _first_line(java) -> str:
    """A Java exception's message without the server's stack trace an RPC error carries."""
    message = java.getMessage()
    return message.splitlines()[0] if message else java.getClass().getSimpleName()


def exists(path: str) -> bool:
    if not remote(path):
        return os.path.exists(local(path))
    return bool(_call(path, lambda h: h.fs.exists(h.path)))


def isdir(path: str) -> bool:
    if not remote(path):
        return os.path.isdir(local(path))
    try:
        return bool(_call(path, lambda h: h.fs.getFileStatus(h.path).isDirectory()))
    except FileNotFoundError:
        return False


def listdir(path: str) -> list[str]:
    """The names in folder ``path``."""
    if not remote(path):
        return os.listdir(local(path))
    return _call(path, lambda h: [s.getPath().getName() for s in h.fs.listStatus(h.path)])


def subdirs(path: str) -> list[str]:
    """The names of the folders in ``path`` ([] when it is absent)."""
    if not remote(path):
        try:
            with os.scandir(local(path)) as it:
                return [e.name for e in it if e.is_dir()]
        except (FileNotFoundError, NotADirectoryError):
            return []
    try:
        return _call(path, lambda h: [s.getPath().getName() for s in h.fs.listStatus(h.path) if s.isDirectory()])
    except FileNotFoundError:
        return []


def glob(folder: str, pattern: str) -> list[str]:
    """The paths under ``folder`` (taken literally) matching ``pattern`` (``*`` within a
    name, ``/`` between names), sorted."""
    if not remote(folder):
        return sorted(_glob.glob(os.path.join(_glob.escape(local(folder)), pattern)))
    literal = "".join("\\" + c if c in "\\{}[]*?" else c for c in folder)
    found = _call(folder, lambda h: h.fs.globStatus(h.p(f"{literal.rstrip('/')}/{pattern}")))
    return sorted(str(s.getPath().toString()) for s in (found or []))


def read_text(path: str) -> str:
    if not remote(path):
        with open(local(path)) as fh:
            return fh.read()

    def read(h: _Hadoop) -> str:
        stream = h.fs.open(h.path)
        try:
            return h.jvm.org.apache.commons.io.IOUtils.toString(stream, "UTF-8")
        finally:
            stream.close()
    return _call(path, read)


def write_text(path: str, text: str) -> None:
    """Write ``path`` whole or not at all (a temporary file renamed over it)."""
    if not remote(path):
        path = local(path)
        tmp = os.path.join(os.path.dirname(path), f".{os.path.basename(path)}.{uuid.uuid4().hex[:8]}.tmp")
        with open(tmp, "w") as fh:
            fh.write(text)
        os.replace(tmp, path)
        return

    def write(h: _Hadoop) -> None:
        parent = h.path.getParent()
        tmp = h.p(f"{parent.toString()}/.{h.path.getName()}.{uuid.uuid4().hex[:8]}.tmp")
        out = h.fs.create(tmp, True)
        try:
            out.write(bytearray(text.encode()))
        finally:
            out.close()
        _rename(h, tmp, h.path, overwrite=True)
    _call(path, write)


def _rename(h: _Hadoop, src, dst, overwrite: bool) -> None:
    if overwrite:  # FileContext's rename replaces the target atomically (FileSystem's refuses)
        options = h.gateway.new_array(h.jvm.org.apache.hadoop.fs.Options.Rename, 1)
        options[0] = h.jvm.org.apache.hadoop.fs.Options.Rename.OVERWRITE
        h.jvm.org.apache.hadoop.fs.FileContext.getFileContext(dst.toUri(), h.conf).rename(src, dst, options)
    elif not h.fs.rename(src, dst):
        raise OSError(f"cannot rename {src.toString()} to {dst.toString()}")


def touch(path: str) -> None:
    """An empty file (a marker)."""
    if not remote(path):
        open(local(path), "w").close()
        return
    _call(path, lambda h: h.fs.create(h.path, True).close())


def makedirs(path: str) -> None:
    if not remote(path):
        os.makedirs(local(path), exist_ok=True)
        return
    _call(path, lambda h: h.fs.mkdirs(h.path))


def remove(path: str) -> None:
    """Delete the file ``path`` (``FileNotFoundError`` when there is none)."""
    if not remote(path):
        os.remove(local(path))
        return
    if not _call(path, lambda h: h.fs.delete(h.path, False)):
        raise FileNotFoundError(path)


def rmtree(path: str) -> None:
    """Delete the folder ``path`` and everything in it; nothing when it is absent."""
    if not remote(path):
        shutil.rmtree(local(path), ignore_errors=True)
        return
    try:
        _call(path, lambda h: h.fs.delete(h.path, True))
    except OSError:
        pass


def rename(src: str, dst: str) -> None:
    """Move ``src`` to ``dst``, which must not exist (the two on one file system)."""
    if not remote(src):
        os.rename(local(src), local(dst))
        return
    _call(src, lambda h: _rename(h, h.path, h.p(dst), overwrite=False))


def files(path: str) -> Iterator[tuple[str, int]]:
    """(path relative to ``path``, size) of every file under folder ``path``."""
    if not remote(path):
        base = local(path)
        stack = [base] if os.path.isdir(base) else []
        while stack:
            try:
                with os.scandir(stack.pop()) as it:
                    for e in it:
                        if e.is_dir(follow_symlinks=False):
                            stack.append(e.path)
                        elif e.is_file(follow_symlinks=False):
                            yield os.path.relpath(e.path, base), e.stat(follow_symlinks=False).st_size
            except OSError:
                continue
        return

    def walk(h: _Hadoop) -> list[tuple[str, int]]:
        root = h.fs.getFileStatus(h.path).getPath().toUri().getPath().rstrip("/") + "/"
        out, it = [], h.fs.listFiles(h.path, True)
        while it.hasNext():
            s = it.next()
            out.append((s.getPath().toUri().getPath()[len(root):], s.getLen()))
        return out
    try:
        yield from _call(path, walk)
    except FileNotFoundError:
        return


def size(path: str) -> int:
    """Bytes under folder ``path`` (0 when it is absent)."""
    if not remote(path):
        return sum(n for _, n in files(path))
    try:
        return int(_call(path, lambda h: h.fs.getContentSummary(h.path).getLength()))
    except OSError:
        return 0


def copytree(src: str, dst: str, skip: Callable[[str], bool] = lambda name: False) -> None:
    """Copy folder ``src`` to ``dst`` (absent), leaving out files whose name ``skip`` names;
    the two may lie on different file systems."""
    if not remote(src) and not remote(dst):
        shutil.copytree(local(src), local(dst), ignore=lambda _, names: [n for n in names if skip(n)])
        return
    wanted = [rel for rel, _ in files(src) if not skip(os.path.basename(rel))]
    makedirs(dst)
    src_uri, dst_uri = (p if remote(p) else "file://" + os.path.abspath(local(p)) for p in (src, dst))

    def copy(h: _Hadoop) -> None:
        util = h.jvm.org.apache.hadoop.fs.FileUtil
        raw = h.jvm.org.apache.hadoop.fs.FileSystem.getLocal(h.conf).getRawFileSystem()  # (no .crc files)
        source_fs, target_fs = (h.p(u).getFileSystem(h.conf) if remote(u) else raw for u in (src_uri, dst_uri))
        for rel in wanted:
            util.copy(source_fs, h.p(f"{src_uri.rstrip('/')}/{rel}"), target_fs, h.p(f"{dst_uri.rstrip('/')}/{rel}"),
                      False, h.conf)
    _call(src if remote(src) else dst, copy)


def abspath(path: str) -> str:
    return path if remote(path) else os.path.abspath(local(path))


def same(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` name the same folder."""
    if remote(a) or remote(b):
        return a.rstrip("/") == b.rstrip("/")
    return os.path.realpath(local(a)) == os.path.realpath(local(b))


def last_number(folder: str) -> Optional[int]:
    """The largest number among the names in ``folder`` (Spark's offsets and commit logs)."""
    try:
        numbers = [int(n) for n in listdir(folder) if n.isdigit()]
    except (FileNotFoundError, NotADirectoryError):
        return None
    return max(numbers) if numbers else None
