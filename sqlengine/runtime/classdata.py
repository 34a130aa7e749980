"""Class-data sharing for the driver JVM: Spark's class loading, paid once per machine.

A local Spark driver loads some 15,000 classes from ~250 jars before it runs a first
query. Measured on the 2-core development machine (`benchmarks/README.md`, "Start-up"):
creating the SparkSession took 6.3 s and its first query 2.5 s; mapping an archive of
the classes an earlier run loaded (the JDK's application class-data sharing,
``-XX:SharedArchiveFile``) brought that to 3.7 s and 1.3 s. Flink's SQL Client pays
no such cost twice either: its JVM keeps running between statements.

The archive belongs to one JVM build and one driver class path, so its file name is a
digest of both (``archive_key``). The first driver started without an archive dumps
the classes it loaded when it exits (``-XX:ArchiveClassesAtExit`` into a file of its
own); at the end of the Python process we close the JVM's stdin (Spark's gateway
exits on it), wait for the JVM, and only if it exited cleanly move the file into
place. A partial archive is never used: the JVM crashes on a truncated one.
``python -m sqlengine.runtime.classdata`` (run by ``scripts/setup.sh``) makes the
archive ahead of time with a short streaming job, so a first run starts fast too.

One process at a time dumps an archive (``_claim``: a lock file naming its process): the
JVM writes it in its VM thread as it exits, ~20 s of CPU for the ~120-190 MB file on the
development machine, so processes started while a first one runs (a test suite's CLI
runs side by side, several jobs started at once) run without class-data sharing instead
of each paying for a dump only the last of them keeps. Archives not among the four used
last and unused for a day are deleted (``_prune``): every new PySpark install (a fresh
checkout's venv), JVM or class-path setting makes another of ~120-200 MB.

Off when the driver's Java options choose class-data sharing themselves (e.g.
``-D spark.driver.extraJavaOptions=-Xshare:off``); only a JVM this process starts
uses it.
"""
from __future__ import annotations

import atexit
import glob
import hashlib
import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

# Driver settings that change the JVM's class path or heap layout: each gets its own archive.
_KEYED_CONF = ("spark.driver.extraClassPath", "spark.driver.memory", "spark.jars",
               "spark.jars.packages", "spark.driver.extraJavaOptions")
_USER_CDS_FLAGS = ("-Xshare", "SharedArchiveFile", "ArchiveClassesAtExit")
_MIN_BYTES = 1 << 20  # a real archive is ~150 MB; anything this small is broken
DUMP_WAIT_SECONDS = 120
ACTIVE: Optional["ClassData"] = None  # what this process's driver JVM does


def cache_dir() -> Path:
    from sqlengine.logs import cache_home
    return cache_home() / "jvm"


def _libjvm() -> Optional[Path]:
    """The ``libjvm.so`` of the ``java`` that ``spark-submit`` runs (``JAVA_HOME`` first)."""
    home = os.environ.get("JAVA_HOME")
    java = os.path.join(home, "bin", "java") if home else shutil.which("java")
    if not java or not os.path.exists(java):
        return None
    root = Path(os.path.realpath(java)).parent.parent
    for candidate in (root / "lib" / "server" / "libjvm.so", root / "jre" / "lib" / "server" / "libjvm.so",
                      root / "lib" / "server" / "libjvm.dylib"):
        if candidate.exists():
            return candidate
    return None


def archive_key(conf: dict[str, str]) -> Optional[str]:
    """A digest of the JVM build, PySpark's jars and the class-path settings; None when
    the JVM cannot be found (Spark then reports that itself)."""
    import pyspark
    jvm = _libjvm()
    if jvm is None:
        return None
    st = jvm.stat()
    home = os.path.realpath(os.path.dirname(pyspark.__file__))
    jars = os.path.join(home, "jars")
    # The JVM maps an archive only over the very jar files it was made from (their times
    # and sizes): a PySpark installed again at the same path needs an archive of its own.
    installed = str(int(os.stat(jars).st_mtime)) if os.path.isdir(jars) else ""
    parts = [str(jvm), str(st.st_size), str(int(st.st_mtime)), home, pyspark.__version__, installed,
             os.environ.get("SPARK_HOME", "")]  # the jars' paths (spark.workers_spark_home)
    parts += [f"{k}={conf.get(k, '')}" for k in _KEYED_CONF]
    return hashlib.sha1("\n".join(parts).encode()).hexdigest()[:16]


@dataclass
class ClassData:
    """The driver JVM's class-data option: map ``archive``, or dump to ``dump_to``."""

    archive: Path
    dump_to: Optional[Path] = None

    @property
    def java_option(self) -> str:
        if self.dump_to is not None:
            return f"-XX:ArchiveClassesAtExit={self.dump_to}"
        return f"-XX:SharedArchiveFile={self.archive}"

    def started(self, proc: Optional[subprocess.Popen]) -> None:
        """The JVM is up; a dumping one is waited for when this process exits."""
        global ACTIVE
        ACTIVE = self
        if self.dump_to is not None:
            _log("no class-data archive %s: this JVM makes one as it exits", self.archive)
        if self.dump_to is not None and proc is not None:
            atexit.register(finish_dump, proc, self.dump_to, self.archive)

    def release(self) -> None:
        """Not used for a JVM after all: another process may make the archive."""
        _release(self.archive)

    def discard(self) -> None:
        """The JVM did not start with this archive: never use it again."""
        for path in (self.archive, self.dump_to):
            if path is not None:
                path.unlink(missing_ok=True)
        _release(self.archive)


def plan(conf: dict[str, str]) -> Optional[ClassData]:
    """How the driver JVM about to start uses class-data sharing (None: not at all)."""
    user = conf.get("spark.driver.extraJavaOptions", "")
    if any(flag in user for flag in _USER_CDS_FLAGS):
        return None
    key = archive_key(conf)
    if key is None:
        return None
    folder = cache_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    archive = folder / f"spark-{key}.jsa"
    _remove_orphans(folder, key)
    if archive.exists() and archive.stat().st_size >= _MIN_BYTES:
        _used(archive)
        _prune(folder)
        return ClassData(archive)
    if not _claim(_lock(archive)):
        _log("class-data archive %s is being made by another process: this JVM starts without one", archive)
        return None
    return ClassData(archive, folder / f"spark-{key}.{os.getpid()}.tmp")


def _log(message: str, *args) -> None:
    from sqlengine.logs import file_logger
    file_logger().warning(message, *args)  # the level the log file keeps: a start without an archive is seconds slower


KEEP_ARCHIVES = 4
KEEP_UNUSED_SECONDS = 24 * 3600


def _used(archive: Path) -> None:
    """Mark the archive as just used (its time), for ``_prune``."""
    try:
        os.utime(archive)
    except OSError:
        pass


def _prune(folder: Path, keep: int = KEEP_ARCHIVES) -> None:
    """Delete the archives not among the ``keep`` used last and unused for a day: each is
    ~120-200 MB, and every new PySpark install, JVM or class-path setting makes another (a
    JVM mapping a deleted one keeps its pages; one about to start without it starts without
    class-data sharing)."""
    archives = sorted(folder.glob("spark-*.jsa"), key=_age)
    for stale in archives[keep:]:
        if _age(stale) > KEEP_UNUSED_SECONDS:
            stale.unlink(missing_ok=True)


def _lock(archive: Path) -> Path:
    return archive.with_suffix(".lock")


def _claim(lock: Path) -> bool:
    """Whether this process may dump the archive: it made ``lock`` (holding its pid), or
    took it over from a process no longer alive."""
    for _ in range(2):
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            try:
                holder = lock.read_text().strip()
            except OSError:
                continue  # released meanwhile
            stale = holder.isdigit() and (int(holder) == os.getpid() or not _alive(int(holder)))
            if stale or (not holder and _age(lock) > 60):  # left by a process that died
                lock.unlink(missing_ok=True)
                continue
            return False  # alive, or still writing its pid
        with os.fdopen(fd, "w") as f:
            f.write(str(os.getpid()))
        return True
    return False


def _age(path: Path) -> float:
    """Seconds since the file was last written (an archive: last used, ``_used``)."""
    try:
        return time.time() - path.stat().st_mtime
    except OSError:
        return 0.0


def _release(archive: Path) -> None:
    lock = _lock(archive)
    try:
        if lock.read_text().strip() == str(os.getpid()):
            lock.unlink()
    except OSError:
        pass


def _remove_orphans(folder: Path, key: str) -> None:
    """Dumps left by processes that died before their JVM finished (never complete)."""
    for name in glob.glob(str(folder / f"spark-{key}.*.tmp")):
        pid = name.rsplit(".", 2)[-2]
        if pid.isdigit() and not _alive(int(pid)):
            Path(name).unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def finish_dump(proc: subprocess.Popen, dump_to: Path, archive: Path,
                timeout: float = DUMP_WAIT_SECONDS) -> bool:
    """Let the JVM exit (EOF on its stdin), wait for its dump, and publish it only if
    the JVM exited cleanly. Returns whether the archive is now in place."""
    try:
        try:
            if proc.stdin is not None:
                proc.stdin.close()
            code = proc.wait(timeout)
        except (OSError, subprocess.TimeoutExpired):
            return False
        if code == 0 and dump_to.exists() and dump_to.stat().st_size >= _MIN_BYTES:
            os.replace(dump_to, archive)
            _used(archive)
            _prune(archive.parent)
            return True
        dump_to.unlink(missing_ok=True)
        return False
    finally:
        _release(archive)
