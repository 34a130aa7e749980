"""The Python data source behind the filesystem connector (reading and writing lines)."""
from __future__ import annotations

from pyspark.sql.datasource import DataSource

SOURCE_NAME = "sqlengine_files"


class FilesDataSource(DataSource):
    """``spark.read[Stream].format("sqlengine_files")`` and ``write`` of lines.

    Options: ``path`` (file or folder); reading: ``num_partitions``,
    ``max_lines_per_batch`` (0 = everything in one micro-batch), ``min_split_bytes``,
    ``source_id`` (tags streaming offsets); writing: a single string column, one
    line per row.
    """

    @classmethod
    def name(cls) -> str:
        return SOURCE_NAME

    # Reader and writer modules are imported when Spark asks for one: the process that
    # only reads (a streaming query's source process) never loads the writer's.
    def schema(self) -> str:
        from connectors.filesystem.reader import READ_SCHEMA
        return READ_SCHEMA

    def reader(self, schema):
        from connectors.filesystem.reader import FilesBatchReader
        return FilesBatchReader(self.options)

    def streamReader(self, schema):
        from connectors.filesystem.reader import FilesStreamReader
        return FilesStreamReader(self.options)

    def writer(self, schema, overwrite: bool):
        from connectors.filesystem.writer import LinesBatchWriter
        return LinesBatchWriter(self.options)


def register(spark) -> str:
    """Register the data source with ``spark`` unless it has it; returns its format name.

    Registrations are per SparkSession, and Spark runs each micro-batch of a streaming
    query in a clone of the session taken when the query started: a DataFrame handed
    to ``foreachBatch`` belongs to that clone. So register with the session of the
    DataFrame being read or written (``format_for``), right before using the name.
    """
    manager = spark._jsparkSession.sessionState().dataSourceManager()
    if not manager.dataSourceExists(SOURCE_NAME):
        spark.dataSource.register(FilesDataSource)
    return SOURCE_NAME


def format_for(df) -> str:
    """The format name, registered with the session ``df`` belongs to."""
    return register(df.sparkSession)
