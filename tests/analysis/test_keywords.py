"""Every metric method takes the same filter keywords, declared once (`Filters`)."""

from __future__ import annotations

import inspect

import pytest

import channelkit as ck
from channelkit.analysis.filters import (
    CHANNEL_KEYS,
    FILTER_KEYS,
    POST_ONLY_KEYS,
    UPCOMING_KEYS,
    Filters,
)
from fixtures.warehouse import build_small_warehouse


def _keyworded() -> dict[str, str]:
    """Every public `Warehouse` method that takes filter keywords, with their annotation."""
    return {
        name: str(parameter.annotation)
        for name, function in inspect.getmembers(ck.Warehouse, inspect.isfunction)
        if not name.startswith("_")
        for parameter in inspect.signature(function).parameters.values()
        if parameter.kind is inspect.Parameter.VAR_KEYWORD
    }


# The methods the shared keywords are checked for: every one that takes keywords, found
# from the class, so a new metric is checked without being listed here.
METHODS = tuple(_keyworded())
# A method whose rows have no post to filter takes a narrower set, declared as its own
# TypedDict: the channel filters (subscribers), the scheduled posts' window, the post filters
# without a period (the outlook's, which reads the posts of now)
NARROWER = {
    "Unpack[ChannelFilters]": CHANNEL_KEYS,
    "Unpack[UpcomingFilters]": UPCOMING_KEYS,
    "Unpack[PostOnlyFilters]": POST_ONLY_KEYS,
}


@pytest.fixture(scope="module")
def wh(tmp_path_factory: pytest.TempPathFactory) -> ck.Warehouse:
    return ck.Warehouse(build_small_warehouse(tmp_path_factory.mktemp("kw") / "s.duckdb"))


def test_the_methods_are_found_from_the_class() -> None:
    assert {"posts", "kpis", "best_times", "still_collecting_readers"} <= set(METHODS)
    assert len(METHODS) > len(NARROWER) + 10


@pytest.mark.parametrize("name", METHODS)
def test_the_filters_are_one_typed_dict_in_every_signature(name: str) -> None:
    parameters = inspect.signature(getattr(ck.Warehouse, name)).parameters
    keywords = parameters["filters"]
    assert keywords.kind is inspect.Parameter.VAR_KEYWORD
    assert keywords.annotation == "Unpack[Filters]" or keywords.annotation in NARROWER
    assert set(Filters.__optional_keys__) == FILTER_KEYS == {
        "period", "start", "end", "tz", "channel", "tag", "priority", "author"
    }  # fmt: skip
    for narrower in NARROWER.values():
        assert narrower < FILTER_KEYS


@pytest.mark.parametrize("name", METHODS)
def test_an_unknown_keyword_is_a_type_error_naming_it(wh: ck.Warehouse, name: str) -> None:
    with pytest.raises(TypeError, match=rf"{name}\(\) got an unexpected keyword argument 'chanel'"):
        getattr(wh, name)(chanel="Engineering")


def test_subscribers_take_no_post_filters(wh: ck.Warehouse) -> None:
    with pytest.raises(TypeError, match="'tag'"):
        wh.subscribers(tag="eng")  # type: ignore[call-arg]
    assert len(wh.subscribers(channel="Engineering", period="2026-03")) > 0


def test_a_new_metric_s_daily_needs_come_from_its_flag(wh: ck.Warehouse) -> None:
    # An uncovered period warns on every metric that reads daily rows, never on posts().
    # (A named April would be "April 2026 to date": the days through the last synced one.)
    april = {"start": "2026-04-01", "end": "2026-05-01"}
    covered = wh.top_posts(**april)
    assert any("not fully covered" in w for w in covered.attrs["warnings"])
    assert not any("not fully covered" in w for w in wh.posts(**april).attrs["warnings"])
    assert "posts_without_audience" not in wh.kpis(period="2026-W13").attrs


def test_subscriber_numbers_are_named_for_their_source(wh: ck.Warehouse) -> None:
    listed = wh.channels().attrs["sources"]["subscriber_count"]
    daily = wh.channel_comparison(period="2026-W13").attrs["sources"]["subscribers"]
    assert listed.startswith("channel listing") and daily.startswith("channel analytics")
    assert wh.subscribers(period="2026-03").attrs["sources"]["subscribers"] == daily
