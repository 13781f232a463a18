"""How a warehouse and its metric frames show in a notebook: the card, the formatted tables,
and the IPython formatter that leaves every other DataFrame alone."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from IPython.core.interactiveshell import InteractiveShell

from channelkit.display import numbers, register
from channelkit.display.frames import frame_html, is_metric_frame
from channelkit.warehouse import Warehouse
from fixtures.warehouse import FIRST_DAY, LAST_DAY, LAST_SYNC_FINISHED, XSS_TITLE

WEEK = {"start": "2026-03-23", "end": "2026-03-30"}


@pytest.fixture
def shell() -> Iterator[InteractiveShell]:
    shell = InteractiveShell.instance()
    try:
        yield shell
    finally:
        InteractiveShell.clear_instance()


def _cells(html: str, css: str) -> list[str]:
    return re.findall(rf'<td class="{css}">([^<]*)</td>', html)


def test_the_card_says_days_posts_channels_and_last_sync(small_warehouse: Path) -> None:
    wh = Warehouse(small_warehouse)
    card = wh._repr_html_()
    posts, channels = len(wh.posts()), len(wh.channels())
    days = (LAST_DAY - FIRST_DAY).days + 1
    assert _cells(card, "ck-posts") == [f"{posts:,}"]
    assert _cells(card, "ck-channels") == [f"{channels:,}"]
    assert _cells(card, "ck-days") == [f"{days} days, {FIRST_DAY} to {LAST_DAY}"]
    assert _cells(card, "ck-last-sync")[0].startswith(f"{LAST_SYNC_FINISHED:%Y-%m-%d %H:%M} UTC (")
    assert "stale" in card  # the fixture's last sync is months old
    assert str(small_warehouse) in card
    text = repr(wh)
    assert text.startswith(f"Warehouse({str(small_warehouse)!r}): {posts} posts in {channels}")
    assert f"{days} days" in text and "\n" not in text


def test_a_locked_or_missing_file_still_has_a_short_repr(small_warehouse: Path) -> None:
    wh = Warehouse(small_warehouse)
    small_warehouse.unlink()
    assert repr(wh) == f"Warehouse({str(small_warehouse)!r})"
    assert "cannot be read right now" in wh._repr_html_()


def test_the_kpi_display_shows_value_previous_and_change_as_people_read_them(
    small_warehouse: Path,
) -> None:
    frame = Warehouse(small_warehouse).kpis(**WEEK)
    shown = frame_html(frame)
    assert list(frame.columns)[:5] == ["metric", "label", "kind", "value", "previous"]  # plain
    headers = re.findall(r"<th>([^<]*)</th>", shown)
    assert headers[:5] == ["Metric", "Value", "Previous", "Change", "Change %"]
    rows = re.findall(r"<tr>(.*?)</tr>", shown.split("<tbody>")[1])
    for (_, record), row in zip(frame.iterrows(), rows, strict=True):
        cells = re.findall(r"<td[^>]*>([^<]*)</td>", row)
        as_read = numbers.percent if record["kind"] == "rate" else numbers.count
        assert cells[:3] == [record["label"], as_read(record["value"]), as_read(record["previous"])]
    read_rate = frame.set_index("metric").loc["read_rate"]
    assert f"{read_rate['value'] * 100:.1f}%" in shown
    caption = re.search(r"<caption>(.*?)</caption>", shown)
    assert caption is not None
    assert frame.attrs["period"] in caption[1] and frame.attrs["previous_period"] in caption[1]


def test_usual_range_and_filters_reach_the_display(small_warehouse: Path) -> None:
    frame = Warehouse(small_warehouse).kpis(channel="Engineering", **WEEK)
    frame = frame.assign(usual_low=frame["value"] * 0.5, usual_high=frame["value"] * 2)
    shown = frame_html(frame)
    assert "Usual range" in shown
    assert "channel: " in shown and "Engineering" in shown.split("</caption>")[0]


def test_user_text_is_escaped_and_rates_are_percentages(small_warehouse: Path) -> None:
    wh = Warehouse(small_warehouse)
    top = wh.top_posts(period="2026-03")
    assert XSS_TITLE in set(top["title"])
    shown = frame_html(top)
    assert "<script>" not in shown and "&lt;script&gt;" in shown
    trend = wh.engagement_over_time("week", period="2026-03")
    shown = frame_html(trend)
    busiest = trend.loc[trend["readers"].idxmax()]
    assert f"{busiest['read_rate'] * 100:.1f}%" in shown
    assert f"{int(busiest['readers']):,}" in shown
    assert trend["read_rate"].isna().any() and "nan" not in shown.lower()  # an em dash


def test_the_formatter_formats_only_channelkit_frames(
    small_warehouse: Path, shell: InteractiveShell
) -> None:
    assert register() and register()  # once, however often a Warehouse is made
    kpis = Warehouse(small_warehouse).kpis(**WEEK)
    plain = pd.DataFrame({"value": [0.5], "previous": [0.25]})
    data, _ = shell.display_formatter.format(kpis)
    assert is_metric_frame(kpis) and 'class="ck-frame"' in data["text/html"]
    data, _ = shell.display_formatter.format(plain)
    assert not is_metric_frame(plain)
    assert data["text/html"] == plain._repr_html_()  # pandas' own table, not ours, not none
    assert type(kpis) is pd.DataFrame  # the frame stays a DataFrame for code


def test_outside_ipython_nothing_is_registered() -> None:
    assert InteractiveShell.initialized() is False
    assert register() is False
