"""The unified-memory share sqlengine gives Spark (runtime/spark.py): 0.5 of the heap
above 300 MB rather than Spark's 0.6, so that an epoch's cache at its limit leaves the rest
of a local driver's heap room (Nexmark's q20 at 10M events ran out of 1 GB at 0.6;
benchmarks/README.md); the heap itself is 2g unless set. A user's own setting wins. And the
JIT thresholds of the driver JVM, and the uncompressed columnar cache."""
from __future__ import annotations

from sqlengine.runtime.spark import driver_conf


def test_the_running_spark_has_the_smaller_unified_memory(spark):
    assert spark.sparkContext.getConf().get("spark.memory.fraction") == "0.5"
    # the memory manager of the running JVM took it: storage + execution = 0.5 x (heap - 300 MB)
    heap = spark.sparkContext._jvm.java.lang.Runtime.getRuntime().maxMemory()
    unified = spark.sparkContext._jsc.sc().getExecutorMemoryStatus().values().head()._1()  # max for blocks
    assert 0.45 * (heap - 300 * 1024 * 1024) < unified <= 0.5 * (heap - 300 * 1024 * 1024) + 1


def test_a_users_setting_wins():
    assert driver_conf({})["spark.memory.fraction"] == "0.5"
    assert driver_conf({"spark.memory.fraction": "0.6"})["spark.memory.fraction"] == "0.6"
    # a heap below 2g gets the smaller share (an epoch's caches leave it less room), unless set
    assert driver_conf({"spark.driver.memory": "1g"})["spark.memory.fraction"] == "0.3"
    assert driver_conf({"spark.driver.memory": "4g"})["spark.memory.fraction"] == "0.5"
    assert driver_conf({"spark.driver.memory": "1g", "spark.memory.fraction": "0.6"})["spark.memory.fraction"] == "0.6"


def test_the_driver_jvm_leaves_c2_the_code_that_runs_per_row(spark):
    """runtime/spark.py: C2 only for methods ten times hotter than HotSpot's default (the
    planning code every epoch runs stays with C1); the running JVM took the flags."""
    jvm = spark.sparkContext._jvm
    bean = jvm.java.lang.management.ManagementFactory.getPlatformMXBean(
        jvm.java.lang.Class.forName("com.sun.management.HotSpotDiagnosticMXBean"))
    assert bean.getVMOption("Tier4InvocationThreshold").getValue() == "50000"
    assert bean.getVMOption("Tier4CompileThreshold").getValue() == "150000"
    assert bean.getVMOption("Tier4BackEdgeThreshold").getValue() == "400000"


def test_the_driver_jvm_of_a_small_heap_collects_with_the_serial_collector(spark):
    """runtime/spark.py: a driver heap of at most 2 GiB (our default 2g here) is
    collected by HotSpot's serial collector, not G1: the running JVM's collectors say so."""
    jvm = spark.sparkContext._jvm
    names = {b.getName() for b in jvm.java.lang.management.ManagementFactory.getGarbageCollectorMXBeans()}
    assert names == {"Copy", "MarkSweepCompact"}


def test_a_larger_heap_or_a_collector_of_the_users_keeps_it_out():
    def options(conf):
        return driver_conf(conf)["spark.driver.extraJavaOptions"].split()
    assert "-XX:+UseSerialGC" in options({})
    assert "-XX:+UseSerialGC" in options({"spark.driver.memory": "2048m"})
    assert "-XX:+UseSerialGC" not in options({"spark.driver.memory": "2049"})  # MiB without a unit
    assert "-XX:+UseSerialGC" not in options({"spark.driver.memory": "4g"})
    # two collectors would stop the JVM from starting: the user's is the one
    user = options({"spark.driver.extraJavaOptions": "-Xss4m -XX:+UseG1GC"})
    assert "-XX:+UseSerialGC" not in user and user[-1] == "-XX:+UseG1GC"
    # the executors of a cluster keep HotSpot's choice
    assert "UseSerialGC" not in driver_conf({})["spark.executor.extraJavaOptions"]


def test_the_driver_heap_is_2g_unless_set(spark):
    """runtime/spark.py: Spark's 1g was the edge for Nexmark's wide joins at 10M events (q9,
    q20); the running driver's heap is 2 GiB, and a user's setting wins."""
    assert driver_conf({})["spark.driver.memory"] == "2g"
    assert driver_conf({"spark.driver.memory": "4g"})["spark.driver.memory"] == "4g"
    heap = spark.sparkContext._jvm.java.lang.Runtime.getRuntime().maxMemory()
    assert 1.8 * 2 ** 30 < heap <= 2 ** 31, heap


def test_an_epochs_cache_is_not_compressed(spark):
    """runtime/spark.py: the columnar cache of an epoch's persisted frames is not
    compressed (choosing each column's encoding cost Nexmark's q9 at 10M events 16%): a
    million BIGINTs in runs of a thousand (run-length encoding's case) take several times
    the memory a compressed cache gives them (the block manager's size of the frame's
    cached blocks); a user's setting wins."""
    from pyspark import StorageLevel

    def cached_bytes() -> int:
        df = spark.range(1_000_000).selectExpr("id DIV 1000 AS v").persist(StorageLevel.MEMORY_ONLY)
        try:
            assert df.count() == 1_000_000
            infos = spark.sparkContext._jsc.sc().getRDDStorageInfo()  # (with other tests' caches)
            return sum(infos[i].memSize() for i in range(len(infos)) if "div 1000) AS v" in infos[i].name())
        finally:
            df.unpersist(blocking=True)
    ours = cached_bytes()
    spark.conf.set("spark.sql.inMemoryColumnarStorage.compressed", "true")
    try:
        compressed = cached_bytes()
    finally:
        spark.conf.set("spark.sql.inMemoryColumnarStorage.compressed", "false")
    assert ours > 4 * compressed, (ours, compressed)
    assert driver_conf({"spark.sql.inMemoryColumnarStorage.compressed": "true"})[
        "spark.sql.inMemoryColumnarStorage.compressed"] == "true"


def test_python_workers_allocate_in_two_malloc_arenas(spark):
    """runtime/spark.py: the Python workers run with ``MALLOC_ARENA_MAX=2`` (glibc keeps
    freed memory per arena; a Kafka worker's librdkafka threads each took one), unless the
    user sets it."""
    import os

    def env(batches):
        import pyarrow as pa
        for _ in batches:
            yield pa.RecordBatch.from_pydict({"v": [os.environ.get("MALLOC_ARENA_MAX", "")]})
    got = {r.v for r in spark.range(2, numPartitions=2).mapInArrow(env, "v string").collect()}
    assert got == {"2"}
    assert driver_conf({})["spark.executorEnv.MALLOC_ARENA_MAX"] == "2"
    assert driver_conf({"spark.executorEnv.MALLOC_ARENA_MAX": "8"})["spark.executorEnv.MALLOC_ARENA_MAX"] == "8"


def test_python_workers_take_arrows_buffers_from_malloc(spark):
    """runtime/spark.py: Arrow in the Python workers allocates from the system allocator
    (``ARROW_DEFAULT_MEMORY_POOL=system``), not pyarrow's default (mimalloc) pool, which held on to the
    pages of freed batches; a user's setting wins."""
    def pool(batches):
        import pyarrow as pa
        for _ in batches:
            yield pa.RecordBatch.from_pydict({"v": [pa.default_memory_pool().backend_name]})
    got = {r.v for r in spark.range(2, numPartitions=2).mapInArrow(pool, "v string").collect()}
    assert got == {"system"}
    assert driver_conf({})["spark.executorEnv.ARROW_DEFAULT_MEMORY_POOL"] == "system"
    mine = driver_conf({"spark.executorEnv.ARROW_DEFAULT_MEMORY_POOL": "mimalloc"})
    assert mine["spark.executorEnv.ARROW_DEFAULT_MEMORY_POOL"] == "mimalloc"
