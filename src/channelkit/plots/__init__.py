"""plotly figures of the Warehouse metrics: a tidy DataFrame in, a `plotly` Figure out.

    import channelkit as ck

    wh = ck.Warehouse("warehouse.duckdb")
    ck.plots.engagement_over_time(wh.engagement_over_time("week", tz="Europe/Berlin"))

Every function takes the DataFrame of the `Warehouse` method of the same name and titles
the figure with the period and timezone carried in `df.attrs`. Importing this module
registers the `channelkit` template (`plotly.io.templates`) and, inside a Jupyter kernel
where plotly chose its own default, sets `plotly.io.renderers.default` to
`plotly_mimetype+notebook` so figures also survive export to HTML, offline.
"""

from __future__ import annotations

from channelkit.plots.calendar import calendar
from channelkit.plots.engagement import engagement_over_time, kpi_tiles
from channelkit.plots.groups import channel_comparison, priority_impact, tag_performance
from channelkit.plots.heatmap import publishing_heatmap
from channelkit.plots.posts import top_posts, upcoming_scheduled
from channelkit.plots.renderer import configure_renderer
from channelkit.plots.style import TEMPLATE, register_template

register_template()
configure_renderer()

__all__ = [
    "TEMPLATE",
    "calendar",
    "channel_comparison",
    "engagement_over_time",
    "kpi_tiles",
    "priority_impact",
    "publishing_heatmap",
    "tag_performance",
    "top_posts",
    "upcoming_scheduled",
]
