"""The Python data source behind the filesystem connector (reading and writing lines)."""
from __future__ import annotations

from pyspark.sql.datasource import DataSource

from connectors.filesystem.reader import READ_SCHEMA, FilesBatchReader, FilesStreamReader
from connectors.filesystem.writer import LinesBatchWriter, LinesStreamWriter

SOURCE_NAME = "sqlengine_files"


class FilesDataSource(DataSource):
    """``spark.read[Stream].format("sqlengine_files")`` and ``write[Stream]`` of lines.

    Options: ``path`` (file or folder); reading: ``num_partitions``,
    ``max_lines_per_batch`` (0 = everything in one micro-batch), ``min_split_bytes``,
    ``source_id`` (tags streaming offsets); writing: a single string column, one
    line per row.
    """

    @classmethod
    def name(cls) -> str:
        return SOURCE_NAME

    def schema(self) -> str:
        return READ_SCHEMA

    def reader(self, schema):
        return FilesBatchReader(self.options)

    def streamReader(self, schema):
        return FilesStreamReader(self.options)

    def writer(self, schema, overwrite: bool):
        return LinesBatchWriter(self.options)

    def streamWriter(self, schema, overwrite: bool):
        return LinesStreamWriter(self.options)


def register(spark) -> str:
    """Register the data source with ``spark`` (idempotent); returns its format name."""
    spark.dataSource.register(FilesDataSource)
    return SOURCE_NAME
