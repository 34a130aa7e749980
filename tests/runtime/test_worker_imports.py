"""Python workers import the installed PySpark, not ``$SPARK_HOME/python/lib/pyspark.zip``
(sqlengine/runtime/spark.py, ``workers_spark_home``): from a zip, every fresh worker
process compiled PySpark's modules again, and a streaming query starts one per Python
data source."""
from __future__ import annotations

import os

import pyspark

from sqlengine.runtime.spark import workers_spark_home


def test_python_workers_import_the_installed_pyspark(spark):
    def where(_):
        import pyspark as worker_pyspark
        yield worker_pyspark.__file__

    files = set(spark.sparkContext.parallelize([0], 1).mapPartitions(where).collect())
    assert files == {pyspark.__file__}, files
    assert not any(".zip" in f for f in files)


def test_the_home_links_everything_of_pyspark_but_its_python_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("SPARK_HOME", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    home = workers_spark_home()
    package = os.path.realpath(os.path.dirname(pyspark.__file__))
    assert home is not None and home.is_relative_to(tmp_path)
    assert os.path.realpath(home / "jars") == os.path.join(package, "jars")
    assert os.path.exists(home / "bin" / "spark-submit")
    assert not (home / "python").exists()
    assert workers_spark_home() == home  # made once


def test_a_users_spark_home_is_kept_unless_it_is_the_pyspark_package(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("SPARK_HOME", "/opt/spark")
    assert workers_spark_home() is None
    monkeypatch.setenv("SPARK_HOME", os.path.dirname(pyspark.__file__))  # what find_spark_home gives
    assert workers_spark_home() is not None
