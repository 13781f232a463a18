"""The one mark of the days still gathering readers, on hand-built frames: the band covers
exactly the provisional rows, where they are heading follows docs/metrics.md ("Plots")
recomputed by hand, nothing is marked without provisional rows, and another channel's
outlook is refused."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import channelkit as ck
from channelkit.errors import InvalidParameterError
from channelkit.plots.gathering import GATHERING, heading
from channelkit.plots.trend import metric_over_time

TZ = "Europe/Berlin"
FILTERS = {"channel": ["All Hands"]}


def trend(provisional: list[bool], freq: str = "day") -> pd.DataFrame:
    """Three rows of `engagement_over_time`: 2, 1 and 2 posts, readers 900, 300, 120."""
    step = {"day": "D", "week": "W-MON"}[freq]
    periods = pd.date_range("2026-12-04", periods=3, freq=step, tz=TZ)
    frame = pd.DataFrame(
        {
            "period": periods,
            "posts_published": pd.array([2, 1, 2], dtype="Int64"),
            "readers": pd.array([900, 300, 120], dtype="Int64"),
            "read_rate": pd.array([0.5, 0.3, 0.1], dtype="Float64"),
            "audience": pd.array([1800, 1000, 1200], dtype="Int64"),
            "opens": pd.array([1000, 800, 600], dtype="Int64"),
            "engagement_rate": pd.array([0.1, 0.1, 0.1], dtype="Float64"),
            "complete": pd.array([True, True, True], dtype="boolean"),
            "provisional": pd.array(provisional, dtype="boolean"),
        }
    )
    frame.attrs.update(freq=freq, filters=FILTERS, tz=TZ)
    return frame


def outlook(filters: dict[str, list[str]] | None = None) -> pd.DataFrame:
    """The young posts: one of the 5th (its 300 readers), two of the 6th (120 together,
    one without an audience)."""
    frame = pd.DataFrame(
        {
            "published_at": pd.to_datetime(
                ["2026-12-05 09:00", "2026-12-06 08:00", "2026-12-06 20:00"]
            ).tz_localize(TZ),
            "readers": pd.array([300, 100, 20], dtype="Int64"),
            "audience": pd.array([1000, 1200, pd.NA], dtype="Int64"),
            "forecast_readers": [400.0, 250.0, 50.0],
            "forecast_low": [350.0, 180.0, 30.0],
            "forecast_high": [520.0, 330.0, 90.0],
        }
    )
    frame.attrs.update(as_of=pd.Timestamp("2026-12-06").date(), filters=filters or FILTERS)
    return frame


def band(fig: object) -> tuple[pd.Timestamp, pd.Timestamp] | None:
    found = [s for s in fig.layout.shapes if s.name == GATHERING]  # type: ignore[attr-defined]
    return None if not found else (pd.Timestamp(found[0].x0), pd.Timestamp(found[0].x1))


def test_the_band_covers_exactly_the_rows_still_gathering_readers() -> None:
    fig = ck.plots.engagement_over_time(trend([False, True, True]))
    # bars of days are centred on midnight: from half a day before the 5th to after the 6th
    assert band(fig) == (pd.Timestamp("2026-12-04 12:00"), pd.Timestamp("2026-12-06 12:00"))
    assert list(fig.data[0].marker.pattern.shape) == ["", "", ""]  # hatching says partial
    assert list(fig.data[0].marker.opacity) == [1.0, 0.55, 0.55]
    settled, young = fig.data[1].y, fig.data[2].y
    assert np.isnan(settled[1:]).all() and settled[0] == 0.5  # the line stops where they start
    # the dashed part starts from the last settled point, so the line is not broken
    assert list(young) == [0.5, 0.3, 0.1] and fig.data[2].line.dash == "dash"
    assert [a.text for a in fig.layout.annotations] == [GATHERING]
    assert "still gathering readers" in fig.data[0].customdata[1][3]
    # weeks: half a week either side
    weeks = ck.plots.engagement_over_time(trend([False, False, True], "week"))
    last = pd.Timestamp(weeks.data[0].x[2])
    assert band(weeks) == (last - pd.Timedelta(days=3.5), last + pd.Timedelta(days=3.5))


def test_without_rows_still_gathering_nothing_is_marked_nor_heading() -> None:
    settled = trend([False, False, False])
    fig = ck.plots.engagement_over_time(settled, outlook=outlook())
    assert band(fig) is None and not fig.layout.annotations
    assert [t.name for t in fig.data] == ["Readers", "Read rate"]
    assert list(fig.data[0].marker.pattern.shape) == ["", "", ""]
    line = metric_over_time(settled, "readers", outlook())
    assert band(line) is None and not line.layout.showlegend


def test_where_the_rows_are_heading_is_their_posts_forecasts() -> None:
    ahead = heading(trend([False, True, True]), outlook())
    # the 5th: 300 so far, its one post 300 -> 400 (350-520), audience 1,000
    # the 6th: 120 so far, 100 -> 250 (180-330) and 20 -> 50 (30-90); only the first has
    # an audience, so the read rate gains 150 (80-230) of 1,200 over 0.1 x 1,200 = 120
    assert math.isnan(ahead.readers[0])
    assert list(ahead.readers[1:]) == [300 - 300 + 400, 120 - 120 + 250 + 50]
    assert list(ahead.low[1:]) == [350, 120 - 120 + 180 + 30]
    assert list(ahead.high[1:]) == [520, 120 - 120 + 330 + 90]
    assert ahead.read_rate[1:] == pytest.approx([400 / 1000, (120 + 150) / 1200])
    assert ahead.rate_low[1:] == pytest.approx([350 / 1000, (120 + 80) / 1200])
    assert ahead.rate_high[1:] == pytest.approx([520 / 1000, (120 + 230) / 1200])
    fig = ck.plots.engagement_over_time(trend([False, True, True]), outlook=outlook())
    drawn = {t.name: t for t in fig.data}["Readers heading for"]
    assert list(drawn.y[1:]) == [400, 300] and list(drawn.error_y.array[1:]) == [120, 120]
    assert list(drawn.error_y.arrayminus[1:]) == [50, 90]
    assert "heading for" in drawn.hovertemplate and "Still gathering readers" in drawn.hovertemplate


def test_a_row_with_a_post_without_forecast_or_past_the_last_day_has_none() -> None:
    young = outlook()
    young.loc[2, "forecast_readers"] = np.nan
    ahead = heading(trend([False, True, True]), young)
    assert ahead.readers[1] == 400 and math.isnan(ahead.readers[2])
    earlier = outlook()
    earlier.attrs["as_of"] = pd.Timestamp("2026-12-05").date()  # the 6th runs past L
    assert math.isnan(heading(trend([False, True, True]), earlier).readers[2])


def test_another_channels_outlook_is_refused() -> None:
    with pytest.raises(InvalidParameterError, match="same channel"):
        ck.plots.engagement_over_time(
            trend([False, True, True]), outlook=outlook({"channel": ["Engineering"]})
        )


def test_the_explorers_line_marks_readers_and_read_rate_not_opens() -> None:
    frame = trend([False, True, True])
    for metric in ("readers", "read_rate"):
        fig = metric_over_time(frame, metric, outlook())
        assert band(fig) is not None and fig.layout.showlegend
    opens = metric_over_time(frame, "opens", outlook())
    assert band(opens) is None and [t.name for t in opens.data] == ["Opens"]
