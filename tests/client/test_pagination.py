"""Page envelopes and cursor walks, without a server."""

from __future__ import annotations

import pytest

from channelkit._constants import CLIENT_MAX_EMPTY_PAGES
from channelkit.client._pagination import CursorWalk, RawPage, parse_envelope
from channelkit.errors import APIResponseValidationError, PaginationError, RequestInfo

REQ = RequestInfo("GET", "http://x/v1/posts")


def page(next_cursor: str | None, has_more: bool) -> RawPage:
    return RawPage(data=[], next_cursor=next_cursor, has_more=has_more, cursor=None)


def test_envelope_is_parsed_as_is() -> None:
    body = {"data": [{"id": "post_1"}], "next_cursor": "abc", "has_more": True, "extra": 1}
    parsed = parse_envelope(body, cursor="prev", request=REQ)
    assert parsed == RawPage([{"id": "post_1"}], "abc", True, "prev")


@pytest.mark.parametrize(
    ("body", "why"),
    [
        ([], "expected a JSON object"),
        ({"next_cursor": None, "has_more": False}, "`data` is not a list"),
        ({"data": [1, 2]}, "`data` is not a list of objects"),
        ({"data": [], "next_cursor": 5, "has_more": True}, "`next_cursor` is missing or"),
        ({"data": [], "has_more": False}, "`next_cursor` is missing"),
        ({"data": [], "next_cursor": None, "has_more": "yes"}, "`has_more` is missing or"),
        ({"data": [], "next_cursor": "c"}, "`has_more` is missing"),
    ],
)
def test_malformed_envelopes_are_reported(body: object, why: str) -> None:
    with pytest.raises(APIResponseValidationError, match=why) as info:
        parse_envelope(body, cursor=None, request=REQ)
    assert "GET http://x/v1/posts" in str(info.value)


def test_walk_follows_cursors_until_the_end() -> None:
    walk = CursorWalk(None, "/posts")
    walk.advance(page("c1", True))
    assert walk.cursor == "c1" and not walk.done
    walk.advance(page("c2", True))
    walk.advance(page(None, False))
    assert walk.done and walk.pages == 3


def test_either_end_signal_stops_the_walk() -> None:
    for last in (page(None, True), page("c9", False)):
        walk = CursorWalk(None, "/posts")
        walk.advance(last)
        assert walk.done


def test_a_repeated_cursor_stops_with_an_error() -> None:
    walk = CursorWalk("c0", "/posts")
    walk.advance(page("c1", True))
    with pytest.raises(PaginationError, match=r"/posts: the server returned cursor 'c0'.*2 pages"):
        walk.advance(page("c0", True))


def test_empty_pages_promising_more_are_followed_but_not_for_ever() -> None:
    walk = CursorWalk(None, "/posts")
    for n in range(CLIENT_MAX_EMPTY_PAGES - 1):
        walk.advance(page(f"e{n}", True))
    walk.advance(RawPage([{"id": "post_1"}], "full", True, None))  # a row: the count restarts
    for n in range(CLIENT_MAX_EMPTY_PAGES - 1):
        walk.advance(page(f"f{n}", True))
    assert not walk.done
    with pytest.raises(
        PaginationError, match=rf"returned {CLIENT_MAX_EMPTY_PAGES} empty pages in a"
    ):
        walk.advance(page("last straw", True))
