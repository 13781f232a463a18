"""How channelkit's objects show themselves in a notebook: HTML cards and formatted tables.

Pure rendering (values in, HTML or text out) plus the one IPython hook that shows metric
frames formatted while they stay plain `pandas.DataFrame`s for code:

    import channelkit as ck

    wh = ck.Warehouse("warehouse.duckdb")
    wh                     # a card: file, days covered, last sync, posts, channels
    wh.kpis()              # value, previous and change as people read them, period as caption
    ck.display.set_kind(df, "score", "rate")   # a column of your own, shown as a rate

A leaf of the house: it imports only the bottom, `_labels` and pandas, so the read API and
publishing can both use it.
"""

from __future__ import annotations

from channelkit.display.columns import kind_of, set_kind
from channelkit.display.formatter import register
from channelkit.display.kinds import KINDS, Kind

__all__ = ["KINDS", "Kind", "kind_of", "register", "set_kind"]
