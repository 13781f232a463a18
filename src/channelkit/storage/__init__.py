"""The warehouse's storage: the DuckDB schema, connections, the sync's writes and reads,
and the Parquet and Delta lake copies (the sync's side).

The read API users work with, `Warehouse`, is `channelkit.warehouse.Warehouse` (also
`ck.Warehouse`), above the metrics; this package never imports it.
"""
