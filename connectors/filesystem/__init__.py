"""The ``filesystem`` connector (json and csv formats); ``connectors.filesystem.factory``
registers its factory when imported.

Kept free of imports: Spark's Python processes unpickle the data source
(``datasource.FilesDataSource``), which imports this package first, and a fresh
process (each streaming query starts one per source) pays for every module it loads.
"""
