"""Raw page items to Arrow: types, flattening, and messages that name the bad item."""

from __future__ import annotations

import json
from typing import Any

import pyarrow as pa
import pytest

from channelkit.errors import SyncDataError
from channelkit.sync import arrow
from channelkit.sync.arrow import SHAPES, items_to_arrow, pages_to_arrow


def post(**overrides: Any) -> dict[str, Any]:
    item: dict[str, Any] = {
        "id": "post_1",
        "channel_id": "chan_1",
        "title": "Hello",
        "body": "**hi**",
        "priority": "normal",
        "tags": ["a", "b"],
        "author": {"id": "user_1", "name": "Ana", "email": "ana@example.com"},
        "status": "published",
        "published_at": "2026-11-21T09:30:00Z",
        "scheduled_at": None,
        "cover_image_url": None,
        "views": 12,
        "created_at": "2026-11-21T09:30:00.250000Z",
        "updated_at": "2026-11-21T10:30:00+01:00",
    }
    item.update(overrides)
    return item


def test_posts_flatten_author_and_parse_timestamps() -> None:
    table = items_to_arrow(
        SHAPES["posts"], [post(), post(id="post_2", author=None, tags=[])], "GET /posts"
    )
    assert table.column("author_id").to_pylist() == ["user_1", None]
    assert table.column("author_email").to_pylist() == ["ana@example.com", None]
    assert "author" not in table.column_names
    assert table.schema.field("published_at").type == pa.timestamp("us", tz="UTC")
    created, updated = table.column("created_at")[0], table.column("updated_at")[0]
    assert created.value == 1_795_253_400_250_000
    assert updated.value == 1_795_253_400_000_000  # +01:00 normalised to UTC
    assert table.column("tags").to_pylist() == [["a", "b"], []]


def test_unknown_fields_are_kept_and_missing_optional_ones_are_null() -> None:
    item = post(extra_field={"nested": 1}, read_time_seconds=40)
    del item["cover_image_url"]
    other = post(id="post_2", read_time_seconds="long")  # types that do not agree: text
    table = items_to_arrow(SHAPES["posts"], [item], "GET /posts")
    assert table.column("extra_field").to_pylist() == ['{"nested":1}']
    assert table.column("read_time_seconds").to_pylist() == [40]
    assert table.column("cover_image_url").to_pylist() == [None]
    mixed = items_to_arrow(SHAPES["posts"], [item, other], "GET /posts")
    assert mixed.column("read_time_seconds").to_pylist() == ["40", "long"]
    assert mixed.column("extra_field").to_pylist() == ['{"nested":1}', None]


def test_pages_keep_unknown_fields_like_items() -> None:
    items = [post(department="comms", read_time_seconds=40), post(id="post_2")]
    table = pages_to_arrow(SHAPES["posts"], [page(items)], "GET /posts")
    assert table.equals(items_to_arrow(SHAPES["posts"], items, "GET /posts"))
    assert table.column("department").to_pylist() == ["comms", None]


def test_daily_rows_get_dates() -> None:
    row = {"post_id": "post_1", "channel_id": "chan_1", "date": "2026-11-20", "views": 3}
    row |= {"unique_viewers": 2, "reactions": 1, "comments": 0, "shares": 0, "clicks": 1}
    table = items_to_arrow(SHAPES["post_daily"], [row], "GET /analytics/posts")
    assert table.schema.field("date").type == pa.date32()
    assert str(table.column("date")[0]) == "2026-11-20"


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"views": "many"}, "item 1 (post_2): field 'views' is 'many', expected an integer"),
        (
            {"published_at": "2026-11-21T09:30:00"},
            "item 1 (post_2): field 'published_at' is '2026-11-21T09:30:00', "
            "expected an RFC 3339 timestamp",
        ),
        ({"tags": "a,b"}, "field 'tags' is 'a,b', expected a list of strings"),
        ({"title": None}, "item 1 (post_2) has no 'title' (a required field)"),
    ],
)
def test_bad_items_are_named(overrides: dict[str, Any], message: str) -> None:
    with pytest.raises(SyncDataError, match="^GET /posts: ") as info:
        items_to_arrow(SHAPES["posts"], [post(), post(id="post_2", **overrides)], "GET /posts")
    assert message in str(info.value)


def test_bad_date_is_named() -> None:
    row = {"channel_id": "chan_1", "date": "20/11/2026", "subscribers": 1}
    row |= {"subscribers_gained": 1, "subscribers_lost": 0, "posts_published": 0, "views": 0}
    with pytest.raises(SyncDataError, match="field 'date' is '20/11/2026', expected a YYYY"):
        items_to_arrow(SHAPES["channel_daily"], [row], "GET /analytics/channels")


def test_non_object_item_is_named() -> None:
    with pytest.raises(SyncDataError, match="item 1 is not an object"):
        items_to_arrow(SHAPES["posts"], [post(), ["not", "an", "object"]], "GET /posts")  # type: ignore[list-item]


def page(items: list[Any], indent: bool = False) -> bytes:
    body = {"data": items, "next_cursor": None, "has_more": False, "extra": {"x": 1}}
    return json.dumps(body, indent=2 if indent else None).encode()


def test_pages_read_as_columns_equal_items_read_one_by_one() -> None:
    items = [post(id=f"post_{i}", tags=[f"t{i}"]) for i in range(5)]
    items[2]["author"] = None
    bodies = [page(items[:3]), page(items[3:]), page([])]
    expected = items_to_arrow(SHAPES["posts"], items, "GET /posts")
    with pytest.MonkeyPatch.context() as patch:  # compact pages never need the slow way
        patch.setattr(arrow, "items_to_arrow", lambda *args: pytest.fail("decoded one by one"))
        assert pages_to_arrow(SHAPES["posts"], bodies, "GET /posts").equals(expected)
    # A pretty-printed page (one JSON object over many lines) takes the item-by-item way.
    assert pages_to_arrow(SHAPES["posts"], [page(items, indent=True)], "GET /posts").equals(
        expected
    )


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"views": "many"}, "item 1 (post_2): field 'views' is 'many', expected an integer"),
        ({"published_at": "yesterday"}, "field 'published_at' is 'yesterday', expected an RFC"),
        ({"tags": "a,b"}, "field 'tags' is 'a,b', expected a list of strings"),
        ({"title": None}, "item 1 (post_2) has no 'title' (a required field)"),
    ],
)
def test_bad_items_in_pages_are_named_as_well(overrides: dict[str, Any], message: str) -> None:
    with pytest.raises(SyncDataError, match="^GET /posts: ") as info:
        pages_to_arrow(
            SHAPES["posts"], [page([post(), post(id="post_2", **overrides)])], "GET /posts"
        )
    assert message in str(info.value)
