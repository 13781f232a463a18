"""Whether a period is news (`when = "news"` in the delivery file), and why, in one line.

A period is news when a headline number of the report's summary (read rate, readers:
DELIVER_NEWS_METRICS) is outside its usual range (`wh.kpis`: the mean -/+ 2 sd of the
previous periods, docs/metrics.md), when a post reached less than a quarter
(DELIVER_NEWS_LOW_REACH_SHARE) of its channel's usual read rate at its age (`wh.low_reach`
with that share), or when a young post of the period is heading for less than a quarter
(OUTLOOK_NEWS_SHARE) of its channel's usual settled readers, its whole 80% interval under
it (`wh.outlook`'s `news`). A number without a usual range (too little history) is never news by
itself: an ordinary week's wobble is what the range is there to tell apart. The questions
are the report's own, for the same days and channels, so a report sent as news shows the
reason in its summary.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from channelkit._constants import DELIVER_NEWS_LOW_REACH_SHARE, DELIVER_NEWS_METRICS
from channelkit.display import numbers
from channelkit.display.columns import kpi_kind
from channelkit.display.notes import usual_range
from channelkit.display.outlook import heading_far_below
from channelkit.reports.sections import TILES, report_filters, young_posts

if TYPE_CHECKING:
    import pandas as pd

    from channelkit.reports.parameters import ReportPeriod
    from channelkit.warehouse import Warehouse


@dataclass(frozen=True)
class News:
    """What makes a period worth sending, in words; `found` False when nothing does.

    News(("read rate 41.0% is below its usual range (52.0%–58.0%)",)).text
    """

    reasons: tuple[str, ...] = ()

    @property
    def found(self) -> bool:
        return bool(self.reasons)

    @property
    def text(self) -> str:
        if not self.reasons:
            return (
                "read rate and readers are within their usual range and no post is far "
                "below its channel at the same age"
            )
        return "; ".join(self.reasons)


def period_news(wh: Warehouse, period: ReportPeriod, channels: Sequence[str], compare: str) -> News:
    """The news of `period` on these channels, asked as the report asks."""
    filters = report_filters(period, channels)
    kpis = wh.kpis(**filters, compare=compare)
    low = wh.low_reach(**filters, share=DELIVER_NEWS_LOW_REACH_SHARE)
    news = news_of(kpis, low)
    heading = heading_far_below(young_posts(wh, period, channels))
    return news if heading is None else News((*news.reasons, heading))


def news_of(kpis: pd.DataFrame, low_reach: pd.DataFrame) -> News:
    """The reasons found in a `wh.kpis` frame and a `wh.low_reach` frame (of the posts
    that are news: pass the share)."""
    rows: dict[str, Mapping[Any, Any]] = {
        str(row["metric"]): row for row in kpis.to_dict("records")
    }
    reasons = [
        reason
        for metric, label in TILES
        if metric in DELIVER_NEWS_METRICS
        and metric in rows
        and (reason := _outside(label, metric, rows[metric]))
    ]
    if not low_reach.empty:
        worst = low_reach.iloc[0]
        many = len(low_reach)
        posts = "1 post is far below its" if many == 1 else f"{many} posts are far below their"
        reasons.append(
            f"{posts} channel at the same age (the furthest, {str(worst['title'])!r}, "
            f"reached {numbers.percent(worst['relative_read_rate'])} of its channel's usual "
            "read rate)"
        )
    return News(tuple(reasons))


def _outside(label: str, metric: str, row: Mapping[Any, Any]) -> str:
    """ "read rate 41.0% is below its usual range (52.0%–58.0%)", or "" when it is within."""
    low: Any = row.get("usual_low")
    high: Any = row.get("usual_high")
    value: Any = row.get("value")
    if any(numbers.missing(v) for v in (low, high, value)) or low <= value <= high:
        return ""
    kind = kpi_kind({"metric": metric, **row})
    side = "below" if value < low else "above"
    return (
        f"{label.lower()} {kind.text(value)} is {side} its usual range ({usual_range(row, kind)})"
    )
