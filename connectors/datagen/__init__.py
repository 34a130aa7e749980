"""Flink's ``datagen`` source connector (random and sequence fields), native Spark."""
from connectors.base import register
from connectors.datagen.source import DataGenFactory, DataGenScanResult, plan_scan

FACTORY = register(DataGenFactory())

__all__ = ["DataGenFactory", "DataGenScanResult", "FACTORY", "plan_scan"]
