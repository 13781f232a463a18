"""Which charts an email carries and their alt texts: pure, on plotly figures."""

from __future__ import annotations

import plotly.graph_objects as go
from markupsafe import Markup

from channelkit.reports.deliver.email_charts import alt_text, email_charts, one_minus
from channelkit.reports.page import Chart, Table


def _chart(figure: go.Figure) -> Chart:
    return Chart(Markup(""), "label", Table((), ()), figure=figure)


def _rates(channels: list[str], rates: list[float]) -> go.Figure:
    figure = go.Figure(go.Bar(x=channels, y=rates, hovertemplate="%{x}<br>Read rate %{y:.1%}"))
    figure.update_layout(title={"text": "Read rate by channel<br><sup>October 2026</sup>"})
    return figure


def test_a_lone_bar_and_a_repeated_chart_are_left_out() -> None:
    lone = _chart(_rates(["All Hands"], [0.74]))
    pair = _chart(_rates(["All Hands", "Engineering"], [0.74, 0.81]))
    again = _chart(_rates(["All Hands", "Engineering"], [0.74, 0.81]))
    assert email_charts([lone, pair, again]) == [pair]


def test_the_alt_text_is_one_sentence_with_the_key_number() -> None:
    text = alt_text(_rates(["All Hands", "Engineering"], [0.74, 0.81]))
    assert text == "Bar chart of read rate by channel; the highest is Engineering at 81.0%."
    top = go.Figure(go.Bar(x=[120, 1356], y=["2. Q2 results", "1. Office move"], orientation="h"))
    top.update_layout(title={"text": "Top posts by readers"}, xaxis={"tickformat": "~s"})
    assert (
        alt_text(top) == "Bar chart of top posts by readers; the highest is Office move at 1,356."
    )
    grid = go.Figure(go.Heatmap(x=[9, 10], y=["Mon", "Tue"], z=[[1, 3], [2, 0]]))
    grid.update_layout(title={"text": "Posts published"})
    assert alt_text(grid) == "Heatmap of posts published; the highest is 3, on Mon 10:00."


def test_one_minus_sign_for_numbers_only() -> None:
    assert one_minus("-3 posts, \u221213 readers, 2026-10-01, Q-3") == (
        "\u22123 posts, \u221213 readers, 2026-10-01, Q-3"
    )
