"""Flink SQL dialect for sqlglot and the script parser."""
from sqlengine.dialect.flink import Flink
from sqlengine.dialect.script import Statement, generate, parse_one, parse_script

__all__ = ["Flink", "Statement", "generate", "parse_one", "parse_script"]
