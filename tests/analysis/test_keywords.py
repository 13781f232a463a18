"""Every metric method takes the same filter keywords, declared once (`Filters`)."""

from __future__ import annotations

import inspect

import pytest

import channelkit as ck
from channelkit.analysis.filters import FILTER_KEYS, Filters
from fixtures.warehouse import build_small_warehouse

pytestmark = pytest.mark.calendar

METHODS = (
    "posts",
    "engagement_over_time",
    "kpis",
    "top_posts",
    "channel_comparison",
    "tag_performance",
    "priority_impact",
    "low_reach",
    "reach_curve",
    "publishing_heatmap",
    "best_times",
)


@pytest.fixture(scope="module")
def wh(tmp_path_factory: pytest.TempPathFactory) -> ck.Warehouse:
    return ck.Warehouse(build_small_warehouse(tmp_path_factory.mktemp("kw") / "s.duckdb"))


@pytest.mark.parametrize("name", METHODS)
def test_the_filters_are_one_typed_dict_in_every_signature(name: str) -> None:
    parameters = inspect.signature(getattr(ck.Warehouse, name)).parameters
    keywords = parameters["filters"]
    assert keywords.kind is inspect.Parameter.VAR_KEYWORD
    assert keywords.annotation == "Unpack[Filters]"
    assert set(Filters.__optional_keys__) == FILTER_KEYS == {
        "period", "start", "end", "tz", "channel", "tag", "priority", "author"
    }  # fmt: skip


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
    covered = wh.top_posts(period="2026-04")
    assert any("not fully covered" in w for w in covered.attrs["warnings"])
    assert not any("not fully covered" in w for w in wh.posts(period="2026-04").attrs["warnings"])
    assert "posts_without_audience" not in wh.kpis(period="2026-W13").attrs


def test_subscriber_numbers_are_named_for_their_source(wh: ck.Warehouse) -> None:
    listed = wh.channels().attrs["sources"]["subscriber_count"]
    daily = wh.channel_comparison(period="2026-W13").attrs["sources"]["subscribers"]
    assert listed.startswith("channel listing") and daily.startswith("channel analytics")
    assert wh.subscribers(period="2026-03").attrs["sources"]["subscribers"] == daily
