"""Every number says what it is, in the HTML a notebook shows (IPython's display formatter,
the way Jupyter renders a cell's result), for the frames the toolkit returns and for a
user's column selection, slice, sort and merge of each: rates as percentages, counts whole,
ratios as percentages against their baseline, a value and its interval in one cell, and
captions that name what a ranking rests on.

The expected texts are formatted here with plain f-strings from the frames' numbers, not
with `display.numbers`."""

from __future__ import annotations

import html
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from IPython.core.interactiveshell import InteractiveShell

import channelkit as ck
from channelkit._constants import DISPLAY_MAX_ROWS
from channelkit._labels import KPI_LABELS
from channelkit.analysis.timing import ONLY_WORSE, SOME_BETTER
from channelkit.display.frames import frame_html
from fixtures import equal_rates

ALL = {"period": "all time", "tz": "UTC"}
WEEK = {"start": "2026-10-05", "end": "2026-10-12", "tz": "UTC"}
RATE_LABELS = {"Read rate", "Engagement rate"}
FAIR = "ranked by read rate adjusted for audience size; 95% intervals"


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> ck.Warehouse:
    """800 posts in 16 channels, 09:00 UTC read 23% more (fixtures/equal_rates.py)."""
    path = tmp_path_factory.mktemp("kinds") / "planted.duckdb"
    return ck.Warehouse(equal_rates.build(path, equal_rates.posts(1, planted=1.23)))


@dataclass
class Shown:
    caption: str
    headers: list[str]
    rows: list[list[str]]
    page: str

    def column(self, header: str) -> list[str]:
        at = self.headers.index(header)
        return [row[at] for row in self.rows]


def shown(shell: InteractiveShell, frame: pd.DataFrame) -> Shown:
    """The frame as Jupyter shows it: IPython's HTML formatter, parsed back to text."""
    data, _ = shell.display_formatter.format(frame)
    page = data["text/html"]
    assert 'class="ck-frame"' in page, "shown as a plain pandas table"
    caption = re.search(r"<caption>(.*?)</caption>", page, re.S)
    body = page.split("<tbody>")[1]
    rows = [
        [html.unescape(cell) for cell in re.findall(r"<td[^>]*>([^<]*)</td>", row)]
        for row in re.findall(r"<tr>(.*?)</tr>", body, re.S)  # not the cut's marker row
    ]
    return Shown(
        html.unescape(re.sub(r"<[^>]+>", " ", caption[1])) if caption else "",
        [html.unescape(h) for h in re.findall(r"<th>([^<]*)</th>", page)],
        rows,
        page,
    )


def _missing(value: Any) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))


def _minus(text: str) -> str:
    return text.replace("-", "\u2212")


def pct(value: Any) -> str:
    return "\u2014" if _missing(value) else _minus(f"{float(value) * 100:.1f}%")


def whole(value: Any) -> str:
    return "\u2014" if _missing(value) else _minus(f"{round(float(value)):,}")


def against(value: Any) -> str:
    if _missing(value):
        return "\u2014"
    text = f"{(float(value) - 1) * 100:+.1f}%"
    return "0.0%" if text in ("+0.0%", "-0.0%") else _minus(text)  # nothing has no sign


def rate_interval(value: Any, low: Any, high: Any) -> str:
    if _missing(value) or _missing(low):
        return pct(value)
    return f"{pct(value)} ({float(low) * 100:.1f}\u2013{pct(high)})"


def ratio_interval(value: Any, low: Any, high: Any) -> str:
    if _missing(value) or _missing(low):
        return against(value)
    return f"{against(value)} ({against(low)} to {against(high)})"


def check_column(
    page: Shown, header: str, frame: pd.DataFrame, expect: Callable[..., str], *columns: str
) -> None:
    """The cells under `header` are `expect` of the frame's `columns`, row by row."""
    wanted = [expect(*values) for values in zip(*(frame[c] for c in columns), strict=True)]
    cells = page.column(header)
    # A long frame is cut at DISPLAY_MAX_ROWS rows (best_times' 168): its first rows.
    assert len(cells) == min(len(frame), DISPLAY_MAX_ROWS)
    assert cells == wanted[: len(cells)], header


def ends(stem: str) -> tuple[str, str, str]:
    """A value's column and its interval's: read_rate, read_rate_low, read_rate_high."""
    return stem, f"{stem}_low", f"{stem}_high"


def no_interval_ends(page: Shown) -> None:
    assert not [h for h in page.headers if h.endswith((" low", " high"))], page.headers


def views(frame: pd.DataFrame, columns: list[str], by: str) -> list[pd.DataFrame]:
    """What a user makes of a frame: the frame, a column selection, a slice, a sort."""
    return [
        frame,
        frame[columns],
        frame.iloc[1:4],
        frame[columns].sort_values(by, ascending=False),
    ]


def test_kpis_and_any_selection_show_each_row_as_its_kind(
    planted: ck.Warehouse, shell: InteractiveShell
) -> None:
    kpis = planted.kpis(**WEEK)
    assert kpis["usual_low"].notna().all()  # the ranges are there to be shown
    made = [
        kpis,
        kpis[["label", "value", "previous", "delta_pct"]],  # the README tour's selection
        kpis[["label", "value", "usual_low", "usual_high"]],
        kpis.iloc[2:6],
        kpis.sort_values("value", ascending=False),
        kpis.set_index("label")[["value", "previous"]],
        kpis[["metric", "value"]],
    ]
    for frame in made:
        page = shown(shell, frame)
        plain = frame.reset_index() if "label" in frame.index.names else frame
        named = plain["label"] if "label" in plain else plain["metric"].map(KPI_LABELS)
        values = page.column("Value")
        for label, value, cell in zip(named, plain["value"], values, strict=True):
            assert cell == (pct(value) if label in RATE_LABELS else whole(value)), label
        if "previous" in plain:
            for label, value, cell in zip(
                named, plain["previous"], page.column("Previous"), strict=True
            ):
                assert cell == (pct(value) if label in RATE_LABELS else whole(value)), label
        if "usual_low" in plain:
            for label, low, high, cell in zip(
                named,
                plain["usual_low"],
                plain["usual_high"],
                page.column("Usual range"),
                strict=True,
            ):
                if label in RATE_LABELS:
                    assert cell == f"{pct(low)}\u2013{pct(high)}", label
                else:  # whole numbers, never "1–1" for a rate
                    joint = " to " if low < 0 else "\u2013"
                    assert cell == f"{whole(low)}{joint}{whole(high)}", label
        assert kpis.attrs["period"] in page.caption


def test_values_of_unknown_kind_say_so(planted: ck.Warehouse, shell: InteractiveShell) -> None:
    # Without label or metric nothing tells a rate row from a count row: the page says so
    # rather than guessing.
    page = shown(shell, planted.kpis(**WEEK)[["value", "previous"]])
    assert "select `label` too" in page.page


def test_channel_comparison_rates_intervals_counts_and_basis(
    planted: ck.Warehouse, shell: InteractiveShell
) -> None:
    channels = planted.channel_comparison(**ALL)
    columns = ["channel", "readers", "audience", "read_rate", "read_rate_low", "read_rate_high"]
    mine = pd.DataFrame({"channel_id": channels["channel_id"], "owner": "comms"})
    merged = channels.merge(mine, on="channel_id")  # pandas drops attrs in a merge
    assert not merged.attrs
    for frame in [*views(channels, columns, "audience"), merged]:
        page = shown(shell, frame)
        check_column(page, "Read rate (95% interval)", frame, rate_interval, *ends("read_rate"))
        check_column(page, "Audience", frame, whole, "audience")
        check_column(page, "Readers", frame, whole, "readers")
        no_interval_ends(page)
        if frame is not merged:  # the caption rides on attrs; the kinds on the names
            assert FAIR in page.caption
    sorted_page = shown(shell, channels.sort_values("audience"))
    assert "rows now in another order than the rank" in sorted_page.caption


def test_top_posts_by_read_rate(planted: ck.Warehouse, shell: InteractiveShell) -> None:
    top = planted.top_posts("read_rate", **ALL)
    columns = ["title", "read_rate", "read_rate_low", "read_rate_high", "adjusted_read_rate"]
    for frame in views(top, [*columns, "readers"], "readers"):
        page = shown(shell, frame)
        check_column(page, "Read rate (95% interval)", frame, rate_interval, *ends("read_rate"))
        check_column(page, "Adjusted read rate", frame, pct, "adjusted_read_rate")
        check_column(page, "Readers", frame, whole, "readers")
        no_interval_ends(page)
        assert FAIR in page.caption and "too few to rank" in page.caption


def test_tag_performance_ratios_against_expected(
    planted: ck.Warehouse, shell: InteractiveShell
) -> None:
    tags = planted.tag_performance(**ALL)
    columns = ["tag", "posts", "lift", "vs_expected", "vs_expected_low", "vs_expected_high"]
    for frame in views(tags, columns, "lift"):
        page = shown(shell, frame)
        check_column(
            page, "Readers vs expected (95% interval)", frame, ratio_interval, *ends("vs_expected")
        )
        check_column(page, "Lift (read rate vs channel median)", frame, against, "lift")
        check_column(page, "Posts", frame, whole, "posts")
        if "read_rate" in frame:
            check_column(page, "Read rate (95% interval)", frame, rate_interval, *ends("read_rate"))
        no_interval_ends(page)
        assert "readers vs expected" in page.caption and "95% intervals" in page.caption


def test_best_times_says_its_verdict_and_shows_the_planted_hour_first(
    planted: ck.Warehouse, shell: InteractiveShell
) -> None:
    best = planted.best_times(**ALL)
    assert best.attrs["verdict"] == SOME_BETTER
    columns = ["weekday_name", "hour", "posts", "vs_rest", "vs_rest_low", "vs_rest_high"]
    for frame in views(best, [*columns, "distinct"], "posts"):
        page = shown(shell, frame)
        assert f"{SOME_BETTER}; ranked by readers" in page.caption
        check_column(
            page,
            "Readers vs the rest (interval for all slots at once)",
            frame,
            ratio_interval,
            *ends("vs_rest"),
        )
        check_column(page, "Hour", frame, lambda h: f"{int(h):02d}:00", "hour")
        check_column(page, "Posts", frame, whole, "posts")
        no_interval_ends(page)
    page = shown(shell, best)
    assert page.column("Hour")[0] == "09:00" and page.column("Reliably")[0] == "reliably better"


def test_worse_hours_are_shown_below_the_row_cut(tmp_path: Path, shell: InteractiveShell) -> None:
    worse = equal_rates.posts(1, planted=0.77)  # 09:00 read 23% less
    best = ck.Warehouse(equal_rates.build(tmp_path / "worse.duckdb", worse)).best_times(**ALL)
    assert best.attrs["verdict"] == ONLY_WORSE
    distinct = best[best["distinct"].to_numpy(bool)]
    assert len(distinct) and (distinct["vs_rest_high"] < 1).all()
    assert distinct.index.min() > 5  # ranked low: below a cut at 5 rows
    page = frame_html(best, max_rows=5)
    assert ONLY_WORSE in page
    assert f"only the {len(distinct)} marked below are shown" in page
    assert page.count(">reliably worse<") == len(distinct)
    assert f"showing {5 + len(distinct)} of 168 rows" in page
