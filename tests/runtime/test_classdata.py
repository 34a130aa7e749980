"""The driver JVM's class-data archive (sqlengine/runtime/classdata.py): which archive a
start uses, and that a dump is published only once its JVM exited cleanly (the JVM
crashes on a truncated archive, so a partial one must never be mapped)."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time

import pytest

from sqlengine.runtime import classdata

BIG = 2 << 20  # larger than the smallest archive classdata accepts


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    return tmp_path / "sqlengine" / "jvm"


def _jvm_like(dump_to, code: int) -> subprocess.Popen:
    """A process that, like Spark's gateway, runs until its stdin closes, then writes its
    dump and exits with ``code``."""
    script = (f"import sys; sys.stdin.read(); open({str(dump_to)!r}, 'wb').write(b'x' * {BIG}); "
              f"sys.exit({code})")
    return subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE)


def test_first_start_dumps_and_later_starts_map_the_archive(cache):
    first = classdata.plan({})
    assert first is not None and first.dump_to is not None
    assert first.java_option == f"-XX:ArchiveClassesAtExit={first.dump_to}"
    assert classdata.finish_dump(_jvm_like(first.dump_to, 0), first.dump_to, first.archive)
    assert first.archive.stat().st_size == BIG and not first.dump_to.exists()
    later = classdata.plan({})
    assert later.dump_to is None and later.java_option == f"-XX:SharedArchiveFile={first.archive}"


def test_a_jvm_that_fails_publishes_nothing(cache):
    data = classdata.plan({})
    assert not classdata.finish_dump(_jvm_like(data.dump_to, 1), data.dump_to, data.archive)
    assert not data.archive.exists() and not data.dump_to.exists()
    assert classdata.plan({}).dump_to is not None  # the next start dumps again


def test_dumps_of_dead_processes_are_removed(cache):
    data = classdata.plan({})
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True).stdout.strip()
    orphan = cache / f"{data.archive.stem}.{dead}.tmp"
    orphan.write_bytes(b"partial")
    mine = cache / f"{data.archive.stem}.{os.getpid()}.tmp"
    mine.write_bytes(b"being written")
    classdata.plan({})
    assert not orphan.exists() and mine.exists()


def test_class_path_settings_get_their_own_archive(cache):
    base = classdata.archive_key({})
    assert classdata.archive_key({}) == base
    assert classdata.archive_key({"spark.jars.packages": "org.apache.spark:spark-sql-kafka-0-10_2.13:4.0.0"}) != base
    assert classdata.archive_key({"spark.driver.memory": "4g"}) != base


@pytest.mark.parametrize("flag", ["-Xshare:off", "-XX:SharedArchiveFile=/x.jsa", "-XX:ArchiveClassesAtExit=/y.jsa"])
def test_user_class_data_flags_win(cache, flag):
    assert classdata.plan({"spark.driver.extraJavaOptions": f"-Dx=1 {flag}"}) is None


def test_the_session_jvm_uses_class_data_sharing(spark):
    """The test session's driver JVM was started by get_spark: it maps the archive that
    scripts/setup.sh made (CI), or dumps one at exit when there was none."""
    runtime = spark.sparkContext._jvm.java.lang.management.ManagementFactory.getRuntimeMXBean()
    args = " ".join(str(a) for a in runtime.getInputArguments())
    active = classdata.ACTIVE
    assert active is not None, args
    if active.dump_to is None:
        assert f"-XX:SharedArchiveFile={active.archive}" in args
        assert "sharing" in spark.sparkContext._jvm.java.lang.System.getProperty("java.vm.info")
    else:
        assert f"-XX:ArchiveClassesAtExit={active.dump_to}" in args


def test_one_process_at_a_time_dumps_an_archive(cache):
    """A second process starting while the first one's JVM will dump runs without class-data
    sharing (no second dump); once the first is gone, or has published, the next one dumps
    or maps as usual."""
    first = classdata.plan({})
    assert first is not None and first.dump_to is not None
    other = subprocess.run([sys.executable, "-c", "from sqlengine.runtime import classdata; "
                            "print(classdata.plan({}))"], capture_output=True, text=True,
                           env={**os.environ, "XDG_CACHE_HOME": str(cache.parent.parent)})
    assert other.stdout.strip() == "None", other.stderr
    assert classdata.finish_dump(_jvm_like(first.dump_to, 0), first.dump_to, first.archive)
    assert not list(cache.glob("*.lock"))
    assert classdata.plan({}).dump_to is None  # published: mapped


def test_a_dump_claimed_by_a_dead_process_is_taken_over(cache):
    data = classdata.plan({})
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True).stdout.strip()
    lock = data.archive.with_suffix(".lock")
    lock.write_text(dead)
    again = subprocess.run([sys.executable, "-c", "from sqlengine.runtime import classdata; "
                            "print(classdata.plan({}).dump_to)"], capture_output=True, text=True,
                           env={**os.environ, "XDG_CACHE_HOME": str(cache.parent.parent)})
    assert again.stdout.strip().endswith(".tmp"), again.stderr


def test_only_the_archives_used_last_are_kept(cache):
    """Every PySpark install, JVM or class-path setting makes an archive of its own
    (~120-200 MB): starting with one keeps it and the others used last; of the rest, those
    unused for a day go."""
    data = classdata.plan({})
    assert classdata.finish_dump(_jvm_like(data.dump_to, 0), data.dump_to, data.archive)
    old = []
    for i in range(6):
        other = cache / f"spark-{i:016x}.jsa"
        other.write_bytes(b"x")
        os.utime(other, (1_000_000 + i, 1_000_000 + i))  # used long ago, the last one most recently
        old.append(other)
    recent = cache / "spark-recent.jsa"
    recent.write_bytes(b"x")
    os.utime(recent, (time.time() - 3600,) * 2)  # not among the last used, but within the day
    old.append(recent)
    os.utime(data.archive, (0, 0))  # ours too, before them all: using it makes it the newest
    assert classdata.plan({}).archive == data.archive
    kept = sorted(p.name for p in cache.glob("*.jsa"))
    assert kept == sorted([data.archive.name, recent.name] + [p.name for p in old[-(classdata.KEEP_ARCHIVES - 1):-1]])


LAUNCH = textwrap.dedent("""
    import os, sys
    import pyspark.java_gateway as jg
    from pyspark import SparkContext
    from sqlengine.runtime import classdata, spark as S
    home = S.workers_spark_home()  # as _launch_gateway does before it plans
    if home is not None:
        os.environ["SPARK_HOME"] = str(home)
    made = classdata.plan(S.driver_conf({}))
    made.release()
    made.archive.write_bytes(b"x" * (2 << 20))  # an archive made before, for this start's key
    print(made.archive)
    starts = []

    def launch(conf, popen_kwargs=None):
        options = conf.get("spark.driver.extraJavaOptions")
        starts.append("SharedArchiveFile" in options)
        if sys.argv[1] == "bad-master" or "SharedArchiveFile" in options:
            raise RuntimeError("[JAVA_GATEWAY_EXITED] Java gateway process exited")
        return object()
    jg.launch_gateway = launch
    SparkContext._ensure_initialized = classmethod(lambda cls, gateway=None: None)
    try:
        S._launch_gateway(S.driver_conf({}))
        print("started", starts)
    except Exception:
        print("failed", starts)
""")


@pytest.mark.parametrize("case, archive_kept", [("bad-master", True), ("bad-archive", False)])
def test_a_driver_that_does_not_start_deletes_the_archive_only_if_it_starts_without(cache, case, archive_kept):
    """A JVM that fails to start with the archive is started again without it: only if that
    one starts was the archive the cause (deleted); a bad setting that stops both starts
    (``spark.master=bogus``) leaves it for the next run."""
    env = {**os.environ, "XDG_CACHE_HOME": str(cache.parent.parent)}
    env.pop("PYSPARK_GATEWAY_PORT", None)
    out = subprocess.run([sys.executable, "-c", LAUNCH, case], capture_output=True, text=True, env=env)
    archive, result = out.stdout.strip().splitlines()[-2:]
    assert result == ("failed [True, False]" if archive_kept else "started [True, False]"), out.stderr
    assert os.path.exists(archive) == archive_kept
