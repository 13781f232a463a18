"""The outlook chart and the decay profiles as people read them: one row per post (never
merged, however alike their titles), a figure sized to its posts or paged, every verdict
colour named in the legend, whole readers; each channel's settled age marked."""

from __future__ import annotations

import pandas as pd
import pytest

import channelkit as ck
from channelkit._constants import PLOT_OUTLOOK_MAX_ROWS, PLOT_OUTLOOK_ROW_PX
from channelkit.display.columns import column_kind, kind_of
from channelkit.display.kinds import COUNT, RATE
from channelkit.plots.outlook import VERDICTS
from fixtures.decay import build_decaying


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> ck.Warehouse:
    path = tmp_path_factory.mktemp("plots-outlook") / "w.duckdb"
    build_decaying(path, seed=2, weekly=True)
    return ck.Warehouse(path)


def _rows(fig: object) -> list[str]:
    return list(fig.layout.yaxis.categoryarray)  # type: ignore[attr-defined]


def test_every_post_has_its_own_row_even_with_the_same_title(warehouse: ck.Warehouse) -> None:
    young = warehouse.outlook()
    twins = young.copy()
    twins["title"] = "Reminder: book your desk by Friday"  # every post alike by title
    twins["age_days"] = 1
    fig = ck.plots.outlook(twins)
    assert _rows(fig) == young["post_id"].tolist()
    assert len(set(fig.layout.yaxis.ticktext)) == 1  # one label, as many rows as posts
    drawn = [str(y) for trace in fig.data if trace.error_x.array is not None for y in trace.y]
    assert sorted(drawn) == sorted(young["post_id"])
    assert fig.layout.height >= PLOT_OUTLOOK_ROW_PX * len(young)


def test_the_verdict_colours_are_named_in_the_legend(warehouse: ck.Warehouse) -> None:
    young = warehouse.outlook()
    fig = ck.plots.outlook(young)
    names = {trace.name for trace in fig.data}
    for verdict in set(young["verdict"]):
        color, words = VERDICTS[verdict]
        trace = next(t for t in fig.data if t.name.startswith(words))
        assert trace.marker.color == color
        assert set(trace.y) == set(young.loc[young["verdict"] == verdict, "post_id"])
    assert "Readers so far" in names
    assert fig.layout.xaxis.tickformat == ",d"  # whole readers on the axis


def test_a_long_outlook_is_paged(warehouse: ck.Warehouse) -> None:
    young = warehouse.outlook()
    many = pd.concat([young] * 30, ignore_index=True)
    many["post_id"] = [f"post_{k}" for k in range(len(many))]
    assert len(many) > PLOT_OUTLOOK_MAX_ROWS
    first, second = ck.plots.outlook(many), ck.plots.outlook(many, page=2)
    assert _rows(first) == many["post_id"].iloc[:PLOT_OUTLOOK_MAX_ROWS].tolist()
    assert _rows(second)[0] == many["post_id"].iloc[PLOT_OUTLOOK_MAX_ROWS]
    assert f"posts 1–{PLOT_OUTLOOK_MAX_ROWS} of {len(many)}" in first.layout.title.text


def test_readers_are_whole_and_shares_read_as_percentages(warehouse: ck.Warehouse) -> None:
    young = warehouse.outlook()
    for column in ("forecast_readers", "forecast_low", "forecast_high", "usual_low",
                   "usual_readers", "usual_high"):  # fmt: skip
        assert str(young[column].dtype) == "Int64"
        assert kind_of(young, column) is COUNT
    profiles = warehouse.decay_profiles()
    for column in ("share_on_day", "share_by_day"):
        assert kind_of(profiles, column) is RATE
    assert column_kind("coverage") is RATE  # the backtest's, by its name after a merge


def test_the_decay_plot_marks_each_channels_settled_age(warehouse: ck.Warehouse) -> None:
    profiles = warehouse.decay_profiles()
    fig = ck.plots.decay_profiles(profiles)
    for name, rows in profiles.groupby("channel"):
        settles = int(rows["settles_by_day"].iloc[0])
        ring = next(t for t in fig.data if t.name == f"{name} settles")
        assert list(ring.x) == [settles]
        line = next(t for t in fig.data if str(t.name).startswith(f"{name}:"))
        assert f"settles by day {settles}" in line.name
        assert "10–90% of posts" in line.name
    assert fig.layout.yaxis.tickformat == ".0%"


def test_the_chart_renders_with_its_legend(warehouse: ck.Warehouse) -> None:
    young = warehouse.outlook()
    html = ck.plots.outlook(young).to_html(include_plotlyjs=False)
    for verdict in set(young["verdict"]):
        assert VERDICTS[verdict][1] in html
