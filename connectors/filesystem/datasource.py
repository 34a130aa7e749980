"""The Python data source behind the filesystem connector's reading (writing: connectors/write.py)."""
from __future__ import annotations

from pyspark.sql.datasource import DataSource

SOURCE_NAME = "sqlengine_files"


class FilesDataSource(DataSource):
    """``spark.read[Stream].format("sqlengine_files")``.

    Options: ``path`` (file or folder), ``num_partitions``, ``max_lines_per_batch``
    (0 = everything in one micro-batch), ``min_split_bytes``, ``source_id`` (tags
    streaming offsets).
    """

    @classmethod
    def name(cls) -> str:
        return SOURCE_NAME

    # The reader module is imported when Spark asks for a reader.
    def schema(self) -> str:
        from connectors.filesystem.reader import READ_SCHEMA
        return READ_SCHEMA

    def reader(self, schema):
        from connectors.filesystem.reader import FilesBatchReader
        return FilesBatchReader(self.options)

    def streamReader(self, schema):
        from connectors.filesystem.reader import FilesStreamReader
        return FilesStreamReader(self.options)


def register(spark) -> str:
    """Register the data source with ``spark`` unless it has it; returns its format name.

    Registrations are per SparkSession, and Spark runs each micro-batch of a streaming
    query in a clone of the session taken when the query started: register with the
    session that reads, right before using the name.
    """
    manager = spark._jsparkSession.sessionState().dataSourceManager()
    if not manager.dataSourceExists(SOURCE_NAME):
        spark.dataSource.register(FilesDataSource)
    return SOURCE_NAME
