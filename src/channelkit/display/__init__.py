"""How channelkit's objects show themselves in a notebook: HTML cards and formatted tables.

Pure rendering (values in, HTML or text out) plus the one IPython hook that shows metric
frames formatted while they stay plain `pandas.DataFrame`s for code:

    import channelkit as ck

    wh = ck.Warehouse("warehouse.duckdb")
    wh                     # a card: file, days covered, last sync, posts, channels
    wh.kpis()              # value, previous and change as people read them, period as caption

A leaf of the house: it imports only the bottom, `_labels` and pandas, so the read API and
publishing can both use it.
"""

from __future__ import annotations

from channelkit.display.formatter import register

__all__ = ["register"]
