"""What an Explorer shows, as plain values: the choices, the view, and its line of code. Pure.

The period choices are the calendar words people use, and each is also the `period=` text
of its line of code: `parse_period` reads "last month" as people say it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from datetime import date

from channelkit._labels import KPI_LABELS
from channelkit.errors import InvalidParameterError

#: (what people say, the `period=` text of the code): the same words
PERIOD_CHOICES: tuple[tuple[str, str], ...] = tuple(
    (phrase.capitalize(), phrase)
    for phrase in (
        "last 7 days",
        "last 28 days",
        "last 90 days",
        "last week",
        "this week",
        "last month",
        "this month",
        "last quarter",
        "this quarter",
    )
)
COMPARE_CHOICES: tuple[tuple[str, str], ...] = (
    ("Previous period", "previous"),
    ("Same period a year earlier", "year"),
)
#: The KPIs that also have a trend (net subscribers come from channel analytics).
METRICS = tuple(m for m in KPI_LABELS if m != "net_subscribers")
ALL_CHANNELS = "All channels"
RECENT_MONTHS = 6  # calendar months offered by name, most recent first
_DAILY_UP_TO_DAYS = 62  # longer periods are drawn by week


def month_choices(last_day: date | None, first_day: date | None) -> list[tuple[str, str]]:
    """The last RECENT_MONTHS calendar months the warehouse holds days of: ("October 2026",
    "October 2026")."""
    if last_day is None or first_day is None:
        return []
    found: list[tuple[str, str]] = []
    year, month = last_day.year, last_day.month
    while len(found) < RECENT_MONTHS and (year, month) >= (first_day.year, first_day.month):
        name = f"{date(year, month, 1):%B %Y}"
        found.append((name, name))
        year, month = (year, month - 1) if month > 1 else (year - 1, 12)
    return found


@dataclass(frozen=True)
class View:
    """One state of the Explorer: the arguments of the `wh.kpis(...)` call it shows."""

    period: str = "last 28 days"
    compare: str = "previous"
    channel: tuple[str, ...] = ()
    metric: str = "readers"
    tz: str | None = None

    def changed(
        self,
        *,
        period: str | None = None,
        compare: str | None = None,
        channel: str | list[str] | tuple[str, ...] | None = None,
        metric: str | None = None,
        all_channels: bool = False,
    ) -> View:
        """This view with the given choices changed (what `Explorer.set` applies)."""
        view = self
        if period is not None:
            if not isinstance(period, str) or not period.strip():
                raise InvalidParameterError("period", f"{period!r} is not a period")
            view = replace(view, period=period.strip())
        if compare is not None:
            if compare not in dict(map(reversed, COMPARE_CHOICES)):  # type: ignore[arg-type]
                codes = ", ".join(code for _, code in COMPARE_CHOICES)
                raise InvalidParameterError("compare", f"{compare!r} is not one of {codes}")
            view = replace(view, compare=compare)
        if all_channels or channel == ALL_CHANNELS:
            view = replace(view, channel=())
        elif channel is not None:
            names = (channel,) if isinstance(channel, str) else tuple(channel)
            view = replace(view, channel=names)
        if metric is not None:
            if metric not in METRICS:
                raise InvalidParameterError(
                    "metric", f"{metric!r} is not one of {', '.join(METRICS)}"
                )
            view = replace(view, metric=metric)
        return view

    def kpis_arguments(self) -> dict[str, object]:
        """The keyword arguments of `wh.kpis` for this view, defaults left out."""
        arguments: dict[str, object] = {"period": self.period}
        if self.compare != "previous":
            arguments["compare"] = self.compare
        if self.channel:
            arguments["channel"] = self.channel[0] if len(self.channel) == 1 else list(self.channel)
        if self.tz is not None:
            arguments["tz"] = self.tz
        return arguments

    def trend_arguments(self) -> dict[str, object]:
        """The same period and filters for `wh.engagement_over_time`."""
        return {k: v for k, v in self.kpis_arguments().items() if k != "compare"}

    def outlook_arguments(self) -> dict[str, object]:
        """The channels (and zone) for `wh.outlook`: the young posts of now, no period."""
        return {k: v for k, v in self.kpis_arguments().items() if k in ("channel", "tz")}

    def code(self, name: str = "wh") -> str:
        """The one line of Python that returns this view's table."""
        words = ", ".join(
            f"{key}={json.dumps(value, ensure_ascii=False)}"
            for key, value in self.kpis_arguments().items()
        )
        return f"{name}.kpis({words})"


def trend_freq(start: date | None, end: date | None) -> str:
    """Days for a short period, weeks for a longer one."""
    if start is None or end is None:
        return "week"
    return "day" if (end - start).days <= _DAILY_UP_TO_DAYS else "week"
