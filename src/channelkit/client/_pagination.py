"""Page envelopes and the cursor walk. Pure: the clients do the fetching.

A walk follows `next_cursor` until the server says the list is over (`has_more` false or
`next_cursor` null; the spec gives both signals, and either ends the walk: a cursor on a page
that says it is the last is not followed). The cursor is opaque: the only check made on it
is that it never comes back, which would otherwise loop for ever. An empty page that says
more is coming is followed, but not without end: after `CLIENT_MAX_EMPTY_PAGES` of them in a
row the walk stops, since a server handing out fresh cursors to nothing would never finish.
"""

from __future__ import annotations

from collections.abc import Sized
from dataclasses import dataclass, field
from typing import Any, Protocol

from channelkit._constants import CLIENT_MAX_EMPTY_PAGES
from channelkit.errors import APIResponseValidationError, PaginationError, RequestInfo


@dataclass(frozen=True)
class RawPage:
    """One page as decoded from JSON, with no per-item models (for bulk consumers).

    for page in client.raw_pages("/posts", {"channel_id": "chan_1"}):
        rows.extend(page.data)
    """

    data: list[dict[str, Any]]
    next_cursor: str | None
    has_more: bool
    cursor: str | None  # the cursor that fetched this page (None for the first)
    # The response body as received, for consumers with a decoder of their own (the
    # sync reads it into Arrow columns); not part of the page's value.
    body: bytes | None = field(default=None, repr=False, compare=False)


def parse_envelope(body: Any, *, cursor: str | None, request: RequestInfo) -> RawPage:
    """Check a list response against the page envelope of the spec."""

    def invalid(why: str) -> APIResponseValidationError:
        return APIResponseValidationError(
            f"list response is not a page envelope: {why} [{request}]", request=request
        )

    if not isinstance(body, dict):
        raise invalid(f"expected a JSON object, got {type(body).__name__}")
    data = body.get("data")
    if not isinstance(data, list) or not all(isinstance(item, dict) for item in data):
        raise invalid("`data` is not a list of objects")
    # Both end-of-list signals are required: guessing one could end a walk silently early.
    next_cursor = body.get("next_cursor", ...)
    if next_cursor is not None and not isinstance(next_cursor, str):
        raise invalid("`next_cursor` is missing or neither a string nor null")
    has_more = body.get("has_more")
    if not isinstance(has_more, bool):
        raise invalid("`has_more` is missing or not a boolean")
    return RawPage(data=data, next_cursor=next_cursor, has_more=has_more, cursor=cursor)


class PageLike(Protocol):
    @property
    def data(self) -> Sized: ...

    @property
    def next_cursor(self) -> str | None: ...

    @property
    def has_more(self) -> bool: ...


class CursorWalk:
    """Which cursor to ask for next, refusing to go round in circles.

    walk = CursorWalk(None, "/posts")
    while not walk.done:
        walk.advance(fetch_page(walk.cursor))  # PaginationError if a cursor comes back
    """

    def __init__(self, start: str | None, path: str) -> None:
        self.cursor = start
        self.done = False
        self.pages = 0
        self._empty_in_a_row = 0
        self._path = path
        self._seen: set[str] = set() if start is None else {start}

    def advance(self, page: PageLike) -> None:
        """Record `page`; sets `cursor` to the next one or `done` at the end."""
        self.pages += 1
        if not page.has_more or not page.next_cursor:
            self.done = True
            return
        if page.next_cursor in self._seen:
            raise PaginationError(
                f"{self._path}: the server returned cursor {page.next_cursor[:40]!r} a second "
                f"time after {self.pages} pages; stopping instead of looping"
            )
        self._empty_in_a_row = 0 if len(page.data) else self._empty_in_a_row + 1
        if self._empty_in_a_row >= CLIENT_MAX_EMPTY_PAGES:
            raise PaginationError(
                f"{self._path}: the server returned {self._empty_in_a_row} empty pages in a row, "
                "each saying more was coming; stopping instead of walking on for ever"
            )
        self._seen.add(page.next_cursor)
        self.cursor = page.next_cursor
