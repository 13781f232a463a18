"""The outlook in words, for the report, its email and the news-only rule: which young
posts are heading below their channel's usual range (`Warehouse.outlook`).

    heading_below(wh.outlook())
    # "2 posts heading below their channel's usual range: 'Q4 results are in' (All Hands,
    #  heading for 420 readers, usual 584–1,165), ..."
"""

from __future__ import annotations

import pandas as pd

from channelkit._constants import OUTLOOK_NEWS_SHARE, OUTLOOK_SHOWN
from channelkit.display import numbers

BEHIND = "behind"


def heading_below(frame: pd.DataFrame, shown: int = OUTLOOK_SHOWN) -> str | None:
    """ "N posts heading below their channel's usual range: ..." naming the `shown` furthest
    below (forecast ÷ the range's low end), or None when no post is behind."""
    behind = _furthest(frame[frame["verdict"] == BEHIND])
    if behind.empty:
        return None
    many = len(behind)
    posts = "1 post heading below its" if many == 1 else f"{many} posts heading below their"
    named = "; ".join(_post(row) for _, row in behind.head(shown).iterrows())
    more = f"; and {many - shown} more" if many > shown else ""
    return f"{posts} channel's usual range: {named}{more}"


def heading_far_below(frame: pd.DataFrame) -> str | None:
    """The news-only reason: posts whose whole forecast interval is under a quarter
    (OUTLOOK_NEWS_SHARE) of their channel's usual settled readers; None without any."""
    news = _furthest(frame[frame["news"].fillna(False).astype(bool)])
    if news.empty:
        return None
    many = len(news)
    posts = "1 post is heading" if many == 1 else f"{many} posts are heading"
    first = news.iloc[0]
    return (
        f"{posts} for under {OUTLOOK_NEWS_SHARE:.0%} of their channel's usual readers (the "
        f"furthest, {str(first['title'])!r}, for {numbers.whole(first['forecast_readers'])} "
        f"against a usual {numbers.whole(first['usual_readers'])}; provisional)"
    )


def _furthest(frame: pd.DataFrame) -> pd.DataFrame:
    """Furthest below first: by forecast ÷ the usual range's low end."""
    share = frame["forecast_readers"].astype("float64") / frame["usual_low"].astype("float64")
    return frame.assign(_share=share).sort_values(["_share", "post_id"]).drop(columns="_share")


def _post(row: pd.Series) -> str:
    return (
        f"{str(row['title'])!r} ({row['channel']}, heading for "
        f"{numbers.whole(row['forecast_readers'])} readers, usual "
        f"{numbers.whole(row['usual_low'])}\u2013{numbers.whole(row['usual_high'])})"
    )
