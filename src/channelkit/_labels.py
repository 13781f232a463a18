"""Words people read in tables, plots and reports: one leaf, imported by analysis and plots.

Kept free of imports so that `channelkit.plots` can label frames without loading the
analysis layer (and DuckDB).
"""

from __future__ import annotations

WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")

#: Column and KPI metric names → the words in titles, axes and tiles.
KPI_LABELS = {
    "posts_published": "Posts published",
    "readers": "Readers",
    "read_rate": "Read rate",
    "opens": "Opens",
    "engagements": "Engagements",
    "engagement_rate": "Engagement rate",
    "net_subscribers": "Net new subscribers",
}
METRIC_LABELS = {
    **KPI_LABELS,
    "daily_unique_viewers": "Daily unique viewers",
    "reactions": "Reactions",
    "comments": "Comments",
    "shares": "Shares",
    "clicks": "Clicks",
    "audience": "Audience",
    "lift": "Lift (read rate vs channel median)",
    "share": "Share of readers reached",
    "subscribers": "Subscribers",
    "gained": "Gained",
    "lost": "Lost",
    "net": "Net",
}
