"""QueryParams-string parameters: known names only, each at most once, values checked."""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Sequence

from channelkit._spec import FILTER_MAX_CHARS, PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX
from channelkit.errors import ServiceHTTPError
from channelkit.service.timefmt import SECONDS_PER_DAY, instant_param


class QueryParams:
    """The query string of one request, checked against the names an endpoint accepts.

    q = QueryParams(request.query_params.multi_items(), allowed={"limit", "cursor", "tag"})
    q.limit(), q.text("tag"), q.choice("priority", PRIORITIES)
    """

    def __init__(self, items: Sequence[tuple[str, str]], allowed: Collection[str]) -> None:
        self._values: dict[str, str] = {}
        for name, value in items:
            if name not in allowed:
                raise ServiceHTTPError.bad_request(
                    name, f"unknown query parameter; accepted: {', '.join(sorted(allowed))}"
                )
            if name in self._values:
                raise ServiceHTTPError.bad_request(name, "given more than once")
            if len(value) > FILTER_MAX_CHARS and name != "cursor":
                raise ServiceHTTPError.bad_request(
                    name, f"longer than {FILTER_MAX_CHARS} characters"
                )
            self._values[name] = value

    def text(self, name: str) -> str | None:
        value = self._values.get(name)
        if value is not None and not value:
            raise ServiceHTTPError.bad_request(name, "must not be empty")
        return value

    def choice(self, name: str, allowed: Sequence[str]) -> str | None:
        value = self.text(name)
        if value is not None and value not in allowed:
            raise ServiceHTTPError.bad_request(
                name, f"{value!r} is not one of {', '.join(allowed)}"
            )
        return value

    def instant(self, name: str) -> int | None:
        value = self.text(name)
        return None if value is None else instant_param(value, name)

    def day(self, name: str, *, round_up: bool = False) -> int | None:
        """A date (or the UTC day of a timestamp; `round_up` takes the next day unless the
        timestamp is a midnight) as a day number."""
        instant = self.instant(name)
        if instant is None:
            return None
        days = instant / SECONDS_PER_DAY
        return math.ceil(days) if round_up else math.floor(days)

    def limit(self) -> int:
        value = self._values.get("limit")
        if value is None:
            return PAGE_LIMIT_DEFAULT
        if not re.fullmatch(r"-?[0-9]{1,9}", value):
            raise ServiceHTTPError.bad_request("limit", f"{value!r} is not an integer")
        limit = int(value)
        if not 1 <= limit <= PAGE_LIMIT_MAX:
            raise ServiceHTTPError.bad_request(
                "limit", f"must be between 1 and {PAGE_LIMIT_MAX}, got {limit}"
            )
        return limit

    def filters(self) -> dict[str, str]:
        """The parameters that select items (everything but `limit` and `cursor`)."""
        return {k: v for k, v in self._values.items() if k not in ("limit", "cursor")}
