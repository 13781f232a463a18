"""The Explorer without a browser: each view's table is what its `.code` returns."""

from __future__ import annotations

import base64
import json
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np
import openpyxl
import pandas as pd
import pytest

from channelkit.errors import InvalidParameterError
from channelkit.warehouse import Warehouse
from channelkit.widgets import Explorer
from channelkit.widgets.explorer_view import PERIOD_CHOICES, View, month_choices, trend_freq
from fixtures.decay import build_decaying

WEEK = "2026-W13"  # 23-29 March 2026, inside the small warehouse's days


def _same(explorer: Explorer, wh: Warehouse) -> pd.DataFrame:
    """The frame `.code` returns, checked equal to the one shown."""
    frame = eval(explorer.code, {"wh": wh})
    assert explorer.frame is not None
    pd.testing.assert_frame_equal(explorer.frame, frame)
    return frame


def test_clicks_and_set_change_the_view_and_its_code(small_warehouse: Path) -> None:
    wh = Warehouse(small_warehouse)
    explorer = Explorer(wh, period=WEEK)
    assert explorer.code == f'wh.kpis(period="{WEEK}")'
    _same(explorer, wh)

    explorer.channel.value = "Engineering"  # what a click does
    assert explorer.code == f'wh.kpis(period="{WEEK}", channel="Engineering")'
    frame = _same(explorer, wh)
    assert frame.attrs["filters"] == {"channel": ["Engineering"]}
    everyone = wh.kpis(period=WEEK)
    assert not frame["value"].equals(everyone["value"])  # the filter changed the numbers

    explorer.period.value = "March 2026"  # the month as people say it, also in the code
    explorer.compare.value = "year"
    assert explorer.code == 'wh.kpis(period="March 2026", compare="year", channel="Engineering")'
    _same(explorer, wh)

    explorer.set(channel="All channels", period=WEEK, compare="previous", metric="read_rate")
    assert explorer.code == f'wh.kpis(period="{WEEK}")'
    assert (explorer.channel.value, explorer.period.value) == ("All channels", WEEK)
    assert explorer.metric.value == "read_rate"
    _same(explorer, wh)


def test_tiles_trend_and_table_follow_the_view(small_warehouse: Path) -> None:
    wh = Warehouse(small_warehouse)
    explorer = Explorer(wh, period=WEEK, channel="Engineering", metric="read_rate")
    assert explorer.frame is not None and explorer.trend is not None
    readers = explorer.frame.set_index("metric").loc["readers", "value"]
    assert f'<div class="ck-tile-value">{int(readers):,}</div>' in explorer.tiles.value
    assert 'ck-tile ck-chosen" data-ck-metric="read_rate"' in explorer.tiles.value
    assert "Engineering" in explorer.table.value.split("</caption>")[0]
    trend = wh.engagement_over_time("day", period=WEEK, channel="Engineering")
    pd.testing.assert_frame_equal(explorer.trend, trend)
    assert explorer.figure is not None
    drawn = pd.Series(explorer.figure.data[0].y, dtype="float64")
    pd.testing.assert_series_equal(drawn, trend["read_rate"].astype("float64"), check_names=False)
    explorer.set(metric="opens")
    assert list(explorer.figure.data[0].y) == list(trend["opens"].astype("float64"))
    assert "Opens by day" in explorer.figure.layout.title.text
    assert explorer.code in explorer.code_html.value.replace("&quot;", '"')
    assert "navigator.clipboard.writeText" in explorer.code_html.value
    # the chart's output: the figure as JupyterLab's plotly renderer reads it, and no
    # plotly.js (4.6 MB) in it: the first display's cost
    from channelkit.widgets.explorer import figure_bundle

    bundle = figure_bundle(explorer.figure)
    spec: Any = bundle["application/vnd.plotly.v1+json"]
    y = spec["data"][0]["y"]  # a typed array, as plotly.js reads it
    shown = np.frombuffer(base64.b64decode(y["bdata"]), dtype=y["dtype"])
    assert list(shown) == list(trend["opens"].astype("float64"))
    assert spec["layout"]["title"]["text"] == explorer.figure.layout.title.text
    assert len(json.dumps(bundle)) < 100_000


def test_tiles_without_any_change_say_why(small_warehouse: Path) -> None:
    wh = Warehouse(small_warehouse)  # its days are in March 2026
    explorer = Explorer(wh, period=WEEK, compare="year")
    assert explorer.frame is not None and explorer.frame["delta_pct"].isna().all()
    assert explorer.tiles.value.endswith(
        '<div class="ck-tiles-note ck-tiles-why">Every change is \u2014: no synced data a year '
        "before 2026-03-23 (Week 13, 2025).</div>"
    ), explorer.tiles.value[-300:]
    explorer.set(period="March 2026", compare="previous")
    assert "no synced data the period before 2026-03-01 (February 2026)." in explorer.tiles.value
    explorer.set(period=WEEK)  # the week before has data: changes shown, nothing to explain
    assert explorer.frame is not None and not explorer.frame["delta_pct"].isna().all()
    assert "ck-tiles-why" not in explorer.tiles.value


def test_a_refused_choice_says_why_and_leaves_nothing_stale(small_warehouse: Path) -> None:
    explorer = Explorer(Warehouse(small_warehouse), period=WEEK)
    with pytest.raises(InvalidParameterError, match="no synced data in January 2020"):
        explorer.set(period="2020-01")
    assert explorer.frame is None and explorer.table.value == ""
    assert "no synced data in January 2020" in explorer.status.value
    with pytest.raises(InvalidParameterError, match="metric"):
        explorer.set(metric="likes")


def test_export_writes_the_view_with_to_excel(small_warehouse: Path, tmp_path: Path) -> None:
    explorer = Explorer(Warehouse(small_warehouse), period=WEEK, export_path=tmp_path / "view.xlsx")
    explorer.export_button.click()
    assert "exported to" in explorer.status.value
    sheet = openpyxl.load_workbook(tmp_path / "view.xlsx")["KPIs"]
    values = [row for row in sheet.values if row and row[0] == "readers"]
    assert explorer.frame is not None
    readers = explorer.frame.set_index("metric").loc["readers"]
    assert values and values[0][3] == readers["value"]


def test_the_choices_and_the_code_are_plain_values() -> None:
    assert ("Last month", "last month") in PERIOD_CHOICES
    assert month_choices(date(2026, 4, 5), date(2026, 3, 16)) == [
        ("April 2026", "April 2026"),
        ("March 2026", "March 2026"),
    ]
    view = View().changed(period="2026-10", channel=["All Hands", "Engineering"])
    assert view.code() == 'wh.kpis(period="2026-10", channel=["All Hands", "Engineering"])'
    assert View(tz="Europe/Berlin").code("w") == 'w.kpis(period="last 28 days", tz="Europe/Berlin")'
    assert trend_freq(date(2026, 1, 1), date(2026, 2, 1)) == "day"
    assert trend_freq(date(2026, 1, 1), date(2026, 7, 1)) == "week"
    with pytest.raises(InvalidParameterError, match="compare"):
        View().changed(compare="last year")


def test_a_click_on_the_metric_asks_the_warehouse_nothing_new(
    small_warehouse: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wh = Warehouse(small_warehouse)
    explorer = Explorer(wh, period=WEEK)
    asked: list[str] = []
    for name in ("kpis", "engagement_over_time"):
        real = getattr(wh, name)
        monkeypatch.setattr(
            wh, name, lambda *a, _real=real, _name=name, **k: asked.append(_name) or _real(*a, **k)
        )
    explorer.set(metric="opens")
    assert asked == []
    explorer.set(compare="year")
    assert asked == ["kpis"]  # the trend does not depend on the comparison
    _same(explorer, wh)


def test_the_channels_young_posts_are_drawn_with_their_forecast_band(tmp_path: Path) -> None:
    planted = build_decaying(tmp_path / "w.duckdb", seed=1).planted
    wh = Warehouse(tmp_path / "w.duckdb")
    explorer = Explorer(wh, channel="Fast")
    assert explorer.outlook is not None and explorer.outlook_figure is not None
    pd.testing.assert_frame_equal(explorer.outlook, wh.outlook(channel="Fast"))
    # The forecasts, one trace per verdict, each post on its own row (its id), the 80%
    # interval as error bars.
    young = explorer.outlook.set_index("post_id")
    drawn: dict[str, tuple[float, float]] = {}
    for trace in explorer.outlook_figure.data:
        if trace.error_x is not None and trace.error_x.array is not None:
            for post, x, up in zip(trace.y, trace.x, trace.error_x.array, strict=True):
                drawn[str(post)] = (x, up)
    made = young[young["forecast_readers"].notna()]
    assert set(drawn) == set(young.index)
    for post, row in made.iterrows():
        assert drawn[str(post)] == pytest.approx(
            (row["forecast_readers"], row["forecast_high"] - row["forecast_readers"])
        )
    assert planted.flops["chan_fast"] in made.index
    explorer.set(channel="Slow")
    assert explorer.outlook is not None
    assert set(explorer.outlook["channel_id"]) == {"chan_slow"}
