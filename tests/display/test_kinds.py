"""Every declared kind, on every surface: its text, the text of a change, its plotly formats
and its alignment, in a notebook table, a report table and a plotly figure.

The kinds come from `display.kinds.KINDS`: a new kind without its expectation below turns
this file red, and each surface is asked through a frame whose column declares the kind,
never through the kind's own functions. The expected texts are written out by hand."""

from __future__ import annotations

import html
import re

import pandas as pd
import pytest

import channelkit as ck
from channelkit._tz import UTC_ZONE
from channelkit.display.columns import KINDS_ATTR
from channelkit.display.frames import frame_html
from channelkit.display.kinds import KINDS, Kind
from channelkit.display.tiles import tiles_html
from channelkit.plots.trend import metric_over_time
from channelkit.reports.charts import frame_table

# kind -> (a value, its text, a change of the same value, the hover of `y`, axis format)
EXPECTED: dict[str, tuple[float, str, str, str, str]] = {
    "rate": (0.5721, "57.2%", "+57.2 points", "%{y:.1%}", ".0%"),
    "ratio": (1.17, "+17.0%", "+117.0%", "%{y:,.2f}×", ",.2f"),
    "change": (-0.2042, "\u221220.4%", "\u221220.4%", "%{y:+.1%}", "+.0%"),
    "count": (12345.4, "12,345", "+12,345.4", "%{y:,d}", "~s"),
    "hour": (9, "09:00", "+9", "%{y:02d}:00", "02d"),
    "days": (2.5, "2.5 days", "+2.5 days", "%{y:,.1f} days", ",.0f"),
    "number": (2.5, "2.5", "+2.5", "%{y:,.1~f}", "~s"),
}
EXPECTED_ZERO = {"rate": "0.0%", "ratio": "\u2212100.0%", "change": "0.0%", "count": "0",
                 "hour": "00:00", "days": "0 days", "number": "0"}  # fmt: skip
# d3-format's specifier, [[fill]align][sign][symbol][0][width][,][.precision][~][type]
# (https://github.com/d3/d3-format#locale_format): what plotly's tickformat and a
# hovertemplate's `%{y:...}` take (https://plotly.com/python/hover-text-and-formatting/).
D3_FORMAT = re.compile(r"(?:.?[<>=^])?[-+( ]?[$#]?0?\d*,?(?:\.\d+)?~?[efgrsp%bodxXcn]?")


def test_every_kind_has_its_expectation() -> None:
    assert set(EXPECTED) == set(EXPECTED_ZERO) == set(KINDS), "a kind without its expectation"
    assert all(name == kind.name for name, kind in KINDS.items())


@pytest.mark.parametrize("kind", KINDS.values(), ids=list(KINDS))
def test_a_kind_reads_as_text_and_in_plotly(kind: Kind) -> None:
    value, text, change, hover, tick = EXPECTED[kind.name]
    assert kind.text(value) == text
    assert kind.change(value) == change
    assert kind.text(None) == kind.text(float("nan")) == kind.text(pd.NA) == "\u2014"
    assert kind.hover("y") == hover
    assert kind.axis() == {"tickformat": tick, "ticksuffix": kind.suffix}
    assert D3_FORMAT.fullmatch(kind.number) and D3_FORMAT.fullmatch(kind.tick)
    assert kind.align in ("left", "right")


def _declared(kind: Kind) -> pd.DataFrame:
    value = EXPECTED[kind.name][0]
    frame = pd.DataFrame({"what": ["a", "b"], "score": [value, None]})
    return ck.display.set_kind(frame, "score", kind.name)


def _cells(page: str) -> list[tuple[str, str]]:
    """(class, text) of each body cell of a notebook table."""
    body = page.split("<tbody>")[1]
    return [(c, html.unescape(t)) for c, t in re.findall(r"<td([^>]*)>([^<]*)</td>", body)]


@pytest.mark.parametrize("kind", KINDS.values(), ids=list(KINDS))
def test_one_declaration_shows_in_a_notebook_a_report_and_a_plot(kind: Kind) -> None:
    frame = _declared(kind)
    value, text, *_ = EXPECTED[kind.name]
    right = ' class="ck-num"' if kind.align == "right" else ""
    assert _cells(frame_html(frame))[1::2] == [(right, text), (right, "\u2014")]

    table = frame_table(frame, tz=UTC_ZONE)
    assert [row[1] for row in table.rows] == [text, "\u2014"]
    assert table.columns[1].numeric is (kind.align == "right")

    trend = frame.assign(period=pd.to_datetime(["2026-11-02", "2026-11-09"], utc=True))
    fig = metric_over_time(trend, "score")
    assert kind.hover("y") in fig.data[0].hovertemplate
    assert fig.layout.yaxis.tickformat == kind.tick
    assert (fig.layout.yaxis.ticksuffix or "") == kind.suffix


def test_a_kpi_row_reads_as_its_kind() -> None:
    for kind in KINDS.values():
        value, text, change, *_ = EXPECTED[kind.name]
        row = {"metric": "m", "label": "M", "kind": kind.name, "value": value, "previous": 0.0}
        frame = pd.DataFrame([{**row, "delta": value}])
        frame.attrs.update(metric="kpis", period="W49")
        cells = [t for _, t in _cells(frame_html(frame))]
        assert cells[1:4] == [text, EXPECTED_ZERO[kind.name], change], kind.name
        tile = re.search(r'class="ck-tile-value">([^<]*)<', tiles_html(frame))
        assert tile is not None and html.unescape(tile[1]) == text, kind.name


def test_a_kind_outside_the_declared_ones_is_refused() -> None:
    frame = pd.DataFrame({"score": [1.0]})
    with pytest.raises(ValueError, match="kind 'temperature' is not one of rate, ratio"):
        ck.display.set_kind(frame, "score", "temperature")
    with pytest.raises(ValueError, match="column 'points' is not in the frame"):
        ck.display.set_kind(frame, "points", "rate")
    assert KINDS_ATTR not in frame.attrs  # nothing half-written


def test_an_interval_is_one_cell_with_its_unit_said_once() -> None:
    ends = pd.DataFrame({"days_to_50": [2.0], "days_to_50_low": [1.0], "days_to_50_high": [3.0]})
    frame = ck.display.set_kind(ends, "days_to_50", "days")
    assert [t for _, t in _cells(frame_html(frame))] == ["2 days (1\u20133 days)"]
