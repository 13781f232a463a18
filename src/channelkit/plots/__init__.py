"""plotly figures of the Warehouse metrics: a tidy DataFrame in, a `plotly` Figure out.

    import channelkit as ck

    wh = ck.Warehouse("warehouse.duckdb")
    ck.plots.engagement_over_time(wh.engagement_over_time("week", tz="Europe/Berlin"))

Every function takes the DataFrame of the `Warehouse` method of the same name and titles
the figure "what · filters · period" from `df.attrs` (e.g. "Readers and read rate by week
· All Hands · Oct 2026"). `save_image` (or plotly's `fig.write_image`) writes PNG/SVG/PDF
through the optional `[images]` extra, using the system's Chromium. Importing this module
registers the `channelkit` template (`plotly.io.templates`) and, inside a Jupyter kernel
where plotly chose its own default, sets `plotly.io.renderers.default` to
`plotly_mimetype+notebook` (when plotly loads its renderers) so figures also survive
export to HTML, offline.
"""

from __future__ import annotations

from channelkit.errors import ImageExportError
from channelkit.plots.calendar import calendar
from channelkit.plots.engagement import engagement_over_time, kpi_tiles
from channelkit.plots.groups import channel_comparison, priority_impact, tag_performance
from channelkit.plots.heatmap import publishing_heatmap
from channelkit.plots.images import configure_images, save_image
from channelkit.plots.outlook import decay_profiles, outlook
from channelkit.plots.posts import low_reach, top_posts, upcoming_scheduled
from channelkit.plots.reach import reach_curve, subscribers
from channelkit.plots.renderer import configure_renderer
from channelkit.plots.style import TEMPLATE, register_template

register_template()
configure_renderer()
configure_images()

__all__ = [
    "TEMPLATE",
    "calendar",
    "decay_profiles",
    "outlook",
    "ImageExportError",
    "low_reach",
    "reach_curve",
    "save_image",
    "subscribers",
    "channel_comparison",
    "engagement_over_time",
    "kpi_tiles",
    "priority_impact",
    "publishing_heatmap",
    "tag_performance",
    "top_posts",
    "upcoming_scheduled",
]
