"""Loading Spark's ``spark-avro`` module into the running driver (and executors) on demand.

PySpark ships Spark's Avro reader and writer (``AvroDeserializer``/``AvroSerializer`` in
``spark-sql``), but the ``from_avro``/``to_avro`` expressions (``AvroDataToCatalyst``,
``CatalystDataToAvro``) live in the separate ``spark-avro`` module; without it Spark fails
with ``AVRO_NOT_LOADED_SQL_FUNCTIONS_UNUSABLE``. No configuration enables them: the classes
are simply not in PySpark's jars. Maven Central has ``spark-avro_2.13`` only up to 4.2.0 for
PySpark 4.3.0; that jar (92 KB, eleven classes that call the ``spark-sql`` API of 4.3.0
unchanged) works with it: ``tests/connectors/formats/test_avro_format.py`` checks every type.

The jar is needed only when a table uses the ``avro`` format, so it is not on the
session's ``spark.jars`` (a CLI run without avro needs no network, and the session is
started before the SQL is read). On first use it is fetched once into
``~/.cache/sqlengine/spark-avro_2.13-4.2.0/`` (checked against its SHA-256), then added to
the driver's class loader (the ``MutableURLClassLoader`` spark-submit installs as the
context class loader of the Py4J threads) and, with ``SparkContext.addJar``, to executors.
``SQLENGINE_SPARK_AVRO_JAR`` names a local copy instead (machines without access to Maven
Central). A session already holding the classes (``spark.jars.packages`` with
``spark-avro``) is left alone.
"""
from __future__ import annotations

import fcntl
import hashlib
import os
import threading
import urllib.request
from pathlib import Path

from sqlengine.errors import ConnectorError

COORDINATE = "org.apache.spark:spark-avro_2.13:4.2.0"
URL = "https://repo1.maven.org/maven2/org/apache/spark/spark-avro_2.13/4.2.0/spark-avro_2.13-4.2.0.jar"
SHA256 = "4c186cedc03cbe4ee356a94b32232b347ef48611c3209400b3a77e4fe4abff4f"
ENV_JAR = "SQLENGINE_SPARK_AVRO_JAR"
PROBE_CLASS = "org.apache.spark.sql.avro.AvroDataToCatalyst"
_lock = threading.Lock()
_loaded: set[int] = set()  # ids of SparkContexts holding the classes


def jar_path() -> Path:
    """Where the jar is cached (it may not be there yet)."""
    from sqlengine.logs import cache_home
    return cache_home() / "spark-avro_2.13-4.2.0" / "spark-avro_2.13-4.2.0.jar"


def fetch(timeout_s: float = 60.0) -> Path:
    """The jar: ``SQLENGINE_SPARK_AVRO_JAR``, the cached copy, or downloaded once (one process
    at a time) from Maven Central; a ConnectorError says what to do when it cannot be had."""
    local = os.environ.get(ENV_JAR)
    if local:
        if not Path(local).is_file():
            raise ConnectorError(f"{ENV_JAR}='{local}' is not a file (the spark-avro jar for the 'avro' format).")
        return Path(local)
    target = jar_path()
    if target.is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.parent / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not target.is_file():
            _download(target, timeout_s)
    return target


def _download(target: Path, timeout_s: float) -> None:
    tmp = target.with_name(f"{target.name}.{os.getpid()}.tmp")
    try:
        with urllib.request.urlopen(URL, timeout=timeout_s) as response:
            data = response.read()
    except OSError as exc:
        raise ConnectorError(
            f"The 'avro' format needs Spark's spark-avro module ({COORDINATE}), which could not be downloaded "
            f"from {URL}: {exc}. Download it to {target} (or set {ENV_JAR} to its path) and run again.") from exc
    digest = hashlib.sha256(data).hexdigest()
    if digest != SHA256:
        raise ConnectorError(f"The download of {URL} has SHA-256 {digest}, expected {SHA256}; not using it.")
    tmp.write_bytes(data)
    os.replace(tmp, target)  # atomic: readers see the whole jar or none


def ensure_loaded(sc=None) -> None:
    """Make ``from_avro``/``to_avro`` usable in the running SparkContext (see the module doc)."""
    from pyspark import SparkContext
    sc = sc or SparkContext._active_spark_context
    if sc is None:
        raise ConnectorError("The 'avro' format needs a running Spark session.")
    with _lock:
        if id(sc) in _loaded:
            return
        if not _has_classes(sc):
            _add_jar(sc, fetch())
        _loaded.add(id(sc))


def _has_classes(sc) -> bool:
    jvm = sc._jvm
    loader = jvm.Thread.currentThread().getContextClassLoader()
    try:
        jvm.Class.forName(PROBE_CLASS, False, loader)
        return True
    except Exception:  # noqa: BLE001 - Py4JJavaError(ClassNotFoundException)
        return False


def _add_jar(sc, jar: Path) -> None:
    jvm = sc._jvm
    loader = jvm.Thread.currentThread().getContextClassLoader()
    if loader.getClass().getName() != "org.apache.spark.util.MutableURLClassLoader":
        raise ConnectorError(
            f"The 'avro' format could not load {jar} into this Spark driver (its class loader is "
            f"{loader.getClass().getName()}); start Spark with spark.jars={jar}.")
    loader.addURL(jvm.java.io.File(str(jar)).toURI().toURL())
    sc._jsc.sc().addJar(str(jar))  # executors fetch it for their next tasks


if __name__ == "__main__":  # test.sh: fetch the jar before the tests run
    print(fetch())
