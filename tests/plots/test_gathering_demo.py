"""The demo's by-day charts mark the days still gathering readers: the weekly report's
trend, the same chart drawn for the email (its PNG, by Chromium through kaleido) and the
Explorer's "Readers by day". The days marked are recomputed here from the raw daily rows
and the rule of docs/metrics.md ("Settled or provisional"), and where they are heading
from `wh.outlook()`'s posts by the rule of docs/metrics.md ("Plots").

The demo follows its day, so the sync, the report and the Explorer run on a pinned day
(a Monday: the week's last days are its youngest)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import time_machine

import channelkit as ck
from channelkit._constants import (
    KPI_SETTLED_SHARE,
    PLOT_GATHERING_FILL,
    REACH_CURVE_DAYS,
    REACH_TIME_WINDOW_DAYS,
)
from channelkit.plots.gathering import GATHERING
from channelkit.reports.browser import find_browser
from channelkit.reports.deliver.email_charts import email_charts, for_email
from channelkit.reports.generate import build_report
from channelkit.service import LocalService
from channelkit.sync import run_sync
from fixtures.png import png_pixels

NOW = datetime.fromisoformat("2026-12-07T06:00+01:00")  # Monday of week 50
TZ = "Europe/Berlin"
BAND = tuple(int(PLOT_GATHERING_FILL[i : i + 2], 16) for i in (1, 3, 5))
NEEDS_BROWSER = pytest.mark.skipif(
    find_browser() is None,
    reason="no Chromium: install Debian's chromium (apt-get install chromium, as .ci/run does)",
)


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The demo synced on the pinned day; the tests run inside the same pinned clock."""
    db = tmp_path_factory.mktemp("gathering") / "demo.duckdb"
    with (
        time_machine.travel(NOW, tick=True),
        LocalService(seed="demo", rate_window=1.0) as service,
    ):
        with ck.Client(base_url=service.base_url, api_key=service.demo_keys["analyst"]) as c:
            run_sync(c, db, progress=False)
        yield db


def settled_days(db: Path, last: date) -> int:
    """docs/metrics.md: the first day k of the reach curve of the posts published 14 to 42
    days before L with share >= 95% (14 when there is none), from the raw rows."""
    wh = ck.Warehouse(db)
    posts = wh.sql(
        "SELECT id, published_at, coalesce(views, 0) AS readers FROM posts "
        "WHERE deleted_at IS NULL AND published_at IS NOT NULL"
    )
    daily = wh.sql("SELECT post_id, date, unique_viewers FROM post_daily")
    posts["pub"] = pd.to_datetime(posts["published_at"], utc=True).dt.date
    newest = last - timedelta(days=REACH_CURVE_DAYS)
    oldest = newest - timedelta(days=REACH_TIME_WINDOW_DAYS)
    cohort = posts[(posts["pub"] >= oldest) & (posts["pub"] <= newest)]
    daily["date"] = pd.to_datetime(daily["date"]).dt.date
    rows = daily.merge(cohort, left_on="post_id", right_on="id")
    rows["age"] = [(d - p).days for d, p in zip(rows["date"], rows["pub"], strict=True)]
    rows = rows[(rows["age"] >= 0) & (rows["age"] <= REACH_CURVE_DAYS)]
    by_age = rows.pivot_table(
        index="post_id", columns="age", values="unique_viewers", aggfunc="sum", fill_value=0
    ).reindex(index=cohort["id"], columns=range(REACH_CURVE_DAYS + 1), fill_value=0)
    readers = cohort.set_index("id")["readers"].to_numpy()[:, None]
    reached = np.minimum(by_age.fillna(0).to_numpy().cumsum(axis=1), readers).sum(axis=0)
    total = readers.sum()
    for k in range(REACH_CURVE_DAYS + 1):
        if total and reached[k] >= KPI_SETTLED_SHARE * total:
            return k
    return REACH_CURVE_DAYS


def gathering_days(db: Path, days: list[date]) -> list[date]:
    """The local days (in TZ) still gathering readers: the UTC day of their last instant is
    fewer than S days before L, the last complete synced day (the day before the sync's)."""
    last = NOW.astimezone(UTC).date() - timedelta(days=1)
    settle = settled_days(db, last)
    out = []
    for day in days:
        end = pd.Timestamp(day + timedelta(days=1)).tz_localize(TZ) - pd.Timedelta(1, "us")
        if (last - end.tz_convert("UTC").date()).days < settle:
            out.append(day)
    return out


def band(fig: object) -> tuple[pd.Timestamp, pd.Timestamp] | None:
    shapes = [s for s in fig.layout.shapes if s.name == GATHERING]  # type: ignore[attr-defined]
    assert len(shapes) <= 1
    return None if not shapes else (pd.Timestamp(shapes[0].x0), pd.Timestamp(shapes[0].x1))


def expected_band(days: list[date]) -> tuple[pd.Timestamp, pd.Timestamp]:
    """Bars of days are centred on their midnights: the band runs half a day either side."""
    half = pd.Timedelta(hours=12)
    return pd.Timestamp(days[0]) - half, pd.Timestamp(days[-1]) + half


def heading_of(trend: pd.DataFrame, young: pd.DataFrame, day: date) -> tuple[float, float]:
    """docs/metrics.md "Plots": the day's readers so far with each young post's readers
    replaced by its forecast, and that ÷ the day's audience."""
    row = trend[trend["period"].dt.date == day].iloc[0]
    posts = young[pd.to_datetime(young["published_at"]).dt.tz_convert(TZ).dt.date == day]
    gained = float((posts["forecast_readers"] - posts["readers"]).sum())
    rated = float(row["read_rate"]) * float(row["audience"])
    return float(row["readers"]) + gained, (rated + gained) / float(row["audience"])


@pytest.fixture(scope="module")
def weekly(demo: Path) -> Iterator[Any]:
    with time_machine.travel(NOW, tick=True):
        yield build_report(demo, period="week", tz=TZ, channels=["all-hands"])


def test_the_weekly_reports_trend_marks_exactly_the_days_still_gathering_readers(
    demo: Path, weekly: object
) -> None:
    report = weekly
    trend = report.frames["engagement_over_time"]  # type: ignore[attr-defined]
    days = [p.date() for p in trend["period"]]
    young_days = gathering_days(demo, days)
    assert young_days == days[-len(young_days) :] and 1 <= len(young_days) < len(days)
    assert list(trend["provisional"]) == [day in young_days for day in days]
    figure = report.page.sections[0].charts[0].figure  # type: ignore[attr-defined]
    assert band(figure) == expected_band(young_days)
    # every by-day chart of the report is marked (the others have no days to mark)
    charts = report.page.charts  # type: ignore[attr-defined]
    by_day = [c.figure for c in charts if " by day" in str(c.figure.layout.title.text)]
    assert by_day and all(band(f) == expected_band(young_days) for f in by_day)
    bars = figure.data[0]
    assert [o < 1 for o in bars.marker.opacity] == list(trend["provisional"])  # paler
    assert GATHERING in [a.text for a in figure.layout.annotations]
    # where they are heading: the forecast of every young post of the day, not a drop
    with time_machine.travel(NOW, tick=True):
        young = ck.Warehouse(demo).outlook(channel="all-hands", tz=TZ)
    ahead = {t.name: t for t in figure.data}
    readers, rate = ahead["Readers heading for"], ahead["Read rate heading for"]
    for i, day in enumerate(days):
        has_posts = day in young_days and trend["posts_published"].iloc[i] > 0
        if not has_posts:
            assert np.isnan(readers.y[i])
            continue
        want_readers, want_rate = heading_of(trend, young, day)
        assert readers.y[i] == pytest.approx(want_readers)
        assert rate.y[i] == pytest.approx(want_rate)
        assert readers.y[i] >= trend["readers"].iloc[i]
    # the data table says it too
    table = report.page.sections[0].charts[0].data  # type: ignore[attr-defined]
    assert "Provisional" in [c.label for c in table.columns]


def band_columns(png: bytes) -> tuple[list[int], int]:
    """The pixel columns where the band's colour shows (in at least 5 rows of the image's
    upper half, the plot's: the legend's swatch below has the colour too), and the width."""
    rows = png_pixels(png)
    counts = np.zeros(len(rows[0]), dtype=int)
    for row in rows[: len(rows) // 2]:
        counts += np.array([pixel == BAND for pixel in row])
    return [int(x) for x in np.flatnonzero(counts >= 5)], len(rows[0])


@pytest.mark.slow
@pytest.mark.browser
@NEEDS_BROWSER
def test_the_emails_png_shows_the_band_over_the_last_days_only(weekly: object) -> None:
    from channelkit.reports.images import chart_images

    charts = email_charts(weekly.page.charts)  # type: ignore[attr-defined]
    first = charts[0].figure
    assert first.layout.title.text.startswith("Readers and read rate by day")
    unmarked = for_email(first)
    unmarked.layout.shapes = []
    marked_png, unmarked_png = chart_images([for_email(first), unmarked])
    columns, width = band_columns(marked_png)
    assert band_columns(unmarked_png)[0] == []  # the colour is the band's alone
    assert columns, "no band in the email's PNG"
    trend = weekly.frames["engagement_over_time"]  # type: ignore[attr-defined]
    young = int(trend["provisional"].sum())
    # the band is one stretch at the right of the plot, about as wide as its days' share
    assert columns[-1] - columns[0] + 1 - len(columns) <= 0.02 * width  # bars cut it, barely
    share = (columns[-1] - columns[0]) / width
    assert young / len(trend) * 0.6 <= share <= young / len(trend) * 1.05
    assert columns[-1] >= 0.8 * width and columns[0] >= 0.25 * width


def test_the_explorers_readers_by_day_marks_them_and_an_old_period_nothing(demo: Path) -> None:
    with time_machine.travel(NOW, tick=True):
        wh = ck.Warehouse(demo)
        explorer = ck.widgets.Explorer(wh, period="last 7 days", tz=TZ)
        trend = explorer.trend
        assert trend is not None and explorer.figure is not None
        days = [p.date() for p in trend["period"]]
        young_days = gathering_days(demo, days)
        assert young_days and band(explorer.figure) == expected_band(young_days)
        names = [t.name for t in explorer.figure.data]
        assert "Readers heading for" in names
        # the same days for read rate; opens do not grow with the posts' age: no mark
        explorer.set(metric="read_rate")
        assert band(explorer.figure) == expected_band(young_days)
        explorer.set(metric="opens")
        assert band(explorer.figure) is None
        # October 2026 settled long ago: nothing is marked, nothing is heading anywhere
        explorer.set(metric="readers", period="October 2026")
        assert explorer.trend is not None and not explorer.trend["provisional"].any()
        assert band(explorer.figure) is None
        assert [t.name for t in explorer.figure.data] == ["Readers"]
        old = wh.engagement_over_time(period="October 2026", tz=TZ)
        fig = ck.plots.engagement_over_time(old, outlook=wh.outlook(tz=TZ))
        assert band(fig) is None and "Readers heading for" not in [t.name for t in fig.data]
