"""Every metric declares its columns' kinds, its frame carries them, and the names' fallback
is derived from those declarations.

The metrics come from `display.columns.DECLARED` (filled where each metric is defined): a
metric without a declaration cannot return a frame (`Query.finish` asks for it), and a
declared metric whose frame has a number of no declared kind turns this file red."""

from __future__ import annotations

import html
import re
from collections.abc import Callable

import pandas as pd
import pytest

import channelkit as ck
from channelkit.display.columns import DECLARED, KINDS_ATTR, column_kind, kind_of, kinds_by_name
from channelkit.display.frames import frame_html
from channelkit.display.kinds import COUNT, RATE
from fixtures import equal_rates
from fixtures.decay import build_decaying

ALL = {"period": "all time", "tz": "UTC"}
WEEK = {"start": "2026-10-05", "end": "2026-10-12", "tz": "UTC"}
# The arguments a metric needs beyond its defaults to return its every column.
ARGUMENTS: dict[str, dict[str, object]] = {
    "kpis": WEEK,
    "top_posts": {"by": "read_rate", **ALL},
    "posts": {},
    "channels": {},
    "reach_curve": {},
    "outlook": {},
    "outlook_backtest": {},
    "decay_profiles": {},
    "upcoming_scheduled": {},
    "subscribers": {"period": "all time"},
}


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> ck.Warehouse:
    path = tmp_path_factory.mktemp("columns") / "planted.duckdb"
    return ck.Warehouse(equal_rates.build(path, equal_rates.posts(1, planted=1.23)))


@pytest.fixture(scope="module")
def decaying(tmp_path_factory: pytest.TempPathFactory) -> ck.Warehouse:
    """Posts still gathering readers on the last synced day: the outlook's every column."""
    path = tmp_path_factory.mktemp("columns") / "decaying.duckdb"
    build_decaying(path, seed=2, weekly=True)
    return ck.Warehouse(path)


# The metrics of young posts, drawn from the warehouse that has some.
YOUNG = ("outlook", "outlook_backtest", "decay_profiles")


@pytest.fixture(scope="module")
def frames(planted: ck.Warehouse, decaying: ck.Warehouse) -> dict[str, pd.DataFrame]:
    """Each declared metric's frame (or `channels`' listing), by the metric's name."""
    return {
        name: getattr(decaying if name in YOUNG else planted, name)(**ARGUMENTS.get(name, ALL))
        for name in DECLARED
    }


def _numbers(frame: pd.DataFrame) -> list[str]:
    return [str(c) for c in frame.columns if frame[c].dtype.kind in "iuf"]


def test_every_metric_of_the_warehouse_declares_its_columns(planted: ck.Warehouse) -> None:
    metrics = {
        name
        for name in dir(ck.Warehouse)
        if not name.startswith("_") and f'"{name}"' in _source(getattr(ck.Warehouse, name))
    }
    assert metrics and metrics <= set(DECLARED), metrics - set(DECLARED)


def _source(method: Callable[..., object]) -> str:
    import inspect

    try:
        return inspect.getsource(method)
    except TypeError:
        return ""


@pytest.mark.calendar
def test_every_number_of_every_metric_has_a_declared_kind(
    frames: dict[str, pd.DataFrame],
) -> None:
    for name, frame in frames.items():
        kinds = {*frame.attrs[KINDS_ATTR], *DECLARED[name].by_row}
        assert set(_numbers(frame)) <= kinds, (name, set(_numbers(frame)) - kinds)
        # and nothing is declared that the metric does not make (its intervals' ends aside)
        stems = {str(c).removesuffix("_low").removesuffix("_high") for c in frame.columns}
        made = stems | set(frame.columns)
        assert {*DECLARED[name].kinds, *DECLARED[name].by_row} <= made, name


def test_the_names_fallback_is_the_declarations_where_they_agree() -> None:
    seen: dict[str, set[str]] = {}
    for columns in DECLARED.values():
        for name, kind in columns.kinds.items():
            seen.setdefault(name, set()).add(kind.name)
    assert {name: kind.name for name, kind in kinds_by_name().items()} == {
        name: next(iter(kinds)) for name, kinds in seen.items() if len(kinds) == 1
    }
    assert [name for name, kinds in seen.items() if len(kinds) > 1] == []  # no name, two kinds


# Which of pandas' operations keep attrs (and so the kinds); a merge with a frame of other
# attrs drops them (pandas' __finalize__: https://pandas.pydata.org/docs/reference/api/
# pandas.DataFrame.attrs.html, "attrs is experimental and may change without warning").
KEEPS: dict[str, Callable[[pd.DataFrame], pd.DataFrame]] = {
    "selection": lambda f: f[["tag", "read_rate", "posts"]],
    "slice": lambda f: f.iloc[1:3],
    "sort": lambda f: f.sort_values("posts"),
    "mask": lambda f: f[f["posts"] > 0],
    "head": lambda f: f.head(2),
    "copy": lambda f: f.copy(),
    "set_index": lambda f: f.set_index("tag"),
    "reset_index": lambda f: f.set_index("tag").reset_index(),
    "assign": lambda f: f.assign(note="x"),
    "round": lambda f: f.round(3),
    "concat": lambda f: pd.concat([f, f]),
}


@pytest.mark.parametrize("operation", KEEPS.values(), ids=list(KEEPS))
@pytest.mark.calendar
def test_the_kinds_ride_on_the_frame(
    frames: dict[str, pd.DataFrame], operation: Callable[[pd.DataFrame], pd.DataFrame]
) -> None:
    made = operation(frames["tag_performance"])
    assert kind_of(made, "read_rate") is RATE and kind_of(made, "posts") is COUNT


@pytest.mark.calendar
def test_a_merge_falls_back_on_the_names(frames: dict[str, pd.DataFrame]) -> None:
    tags = frames["tag_performance"]
    merged = tags.merge(pd.DataFrame({"tag": tags["tag"], "owner": "comms"}), on="tag")
    assert KINDS_ATTR not in merged.attrs
    assert kind_of(merged, "read_rate") is RATE and kind_of(merged, "read_rate_low") is RATE
    assert column_kind("read_rate_x") is RATE  # a merge's suffixes keep the kind


def _column(page: str, header: str) -> list[str]:
    headers = [html.unescape(h) for h in re.findall(r"<th>([^<]*)</th>", page)]
    body = page.split("<tbody>")[1]
    rows = [
        re.findall(r"<td[^>]*>([^<]*)</td>", row) for row in re.findall(r"<tr>(.*?)</tr>", body)
    ]
    return [html.unescape(row[headers.index(header)]) for row in rows]


@pytest.mark.calendar
def test_a_users_column_named_like_a_declared_one_is_shown_by_its_dtype(
    frames: dict[str, pd.DataFrame],
) -> None:
    # `share` is reach_curve's rate; here it is the user's own count of shares per tag.
    tags = frames["tag_performance"][["tag", "posts", "read_rate"]].copy()
    tags["share"] = 3.0
    assert "share" in DECLARED["reach_curve"].kinds and kind_of(tags, "share") is None
    assert set(_column(frame_html(tags), "Share of readers reached")) == {"3"}
    # Without declarations (a frame of the user's own) the names' fallback applies...
    plain = pd.DataFrame({"tag": ["a"], "share": [3.0]})
    assert _column(frame_html(plain), "Share of readers reached") == ["300.0%"]
    # ...until the user says what the column holds.
    ck.display.set_kind(plain, "share", "count")
    assert _column(frame_html(plain), "Share of readers reached") == ["3"]
    ck.display.set_kind(plain, "share", None)  # shown by its dtype
    assert kind_of(plain, "share") is None


@pytest.mark.calendar
def test_a_users_kind_wins_over_the_metrics(frames: dict[str, pd.DataFrame]) -> None:
    tags = frames["tag_performance"].copy()
    tags["median_opens"] = 2.5
    ck.display.set_kind(tags, "median_opens", "number")  # a count would read "2"
    assert set(_column(frame_html(tags), "Median opens")) == {"2.5"}
    assert kind_of(frames["tag_performance"], "median_opens") is COUNT  # the copy only


@pytest.mark.calendar
def test_a_renamed_column_is_shown_by_its_dtype(frames: dict[str, pd.DataFrame]) -> None:
    renamed = frames["tag_performance"].rename(columns={"read_rate": "rr"})
    assert kind_of(renamed, "rr") is None  # attrs["kinds"] name the old column
