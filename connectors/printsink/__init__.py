"""Flink's ``print`` sink connector (identifier ``'print'``)."""
from connectors.base import register
from connectors.printsink.rowstring import row_text, value_text
from connectors.printsink.sink import PrintFactory, PrintSink

FACTORY = register(PrintFactory())

__all__ = ["FACTORY", "PrintFactory", "PrintSink", "row_text", "value_text"]
