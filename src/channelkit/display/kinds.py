"""What a number is, declared once: how it reads as text, in a plotly figure, and where it
sits in a table's cell.

A kind is what a column holds: a rate, a count, a ratio to a baseline, a relative change,
an hour of the day, a number of days. Each one knows its text, its plotly number format
(hover and axis) and its alignment, and every surface (notebook tables, tiles, notes,
reports, plots) asks the kind instead of deciding "rate or count" on its own:

    from channelkit.display.kinds import KINDS, RATE

    RATE.text(0.572)          # "57.2%"
    RATE.change(-0.107)       # "−10.7 points"
    RATE.hover("y")           # "%{y:.1%}"  (a number in a plotly hovertemplate)
    RATE.axis()               # {"tickformat": ".0%", "ticksuffix": ""}
    KINDS["days"].text(2.5)   # "2.5 days"

A new kind is one `Kind(...)` in `KINDS`; the tests iterate over `KINDS`, so it is
covered or the suite turns red. Which columns hold which kind is declared by each metric
where it is defined (`display.columns.declare`). Pure.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal

from channelkit.display import numbers

Align = Literal["left", "right"]


@dataclass(frozen=True)
class Kind:
    """One kind of number: its text, the text of a change in it, its plotly formats.

    Kind("share", numbers.percent, partial(numbers.signed, rate=True), ".1%", ".0%")
    """

    name: str
    text: Callable[[Any], str]  # one value as people read it
    change: Callable[[Any], str]  # a difference of two values ("+1,204", "−10.7 points")
    number: str  # the d3 format of one value in a plotly hovertemplate
    tick: str  # the d3 format of a plotly axis' ticks
    suffix: str = ""  # what plotly shows after the number (":00", " days")
    align: Align = "right"  # numbers line up on the right, as they do in print

    def hover(self, ref: str) -> str:
        """The plotly hovertemplate part of the value `ref` ("y", "customdata[0]")."""
        return f"%{{{ref}:{self.number}}}{self.suffix}"

    def axis(self) -> dict[str, str]:
        """A plotly axis of this kind: `fig.update_yaxes(**RATE.axis())`."""
        return {"tickformat": self.tick, "ticksuffix": self.suffix}

    def interval(self, value: Any, low: Any, high: Any) -> str:
        """A value and its interval in one cell: "66.3% (65.9–66.7%)"."""
        return numbers.interval(value, low, high, self.text)


# The d3 formats: https://d3js.org/d3-format ("d" rounds to an integer, "~s" is SI with
# trailing zeros trimmed, "%" multiplies by 100), the language of plotly's `tickformat`
# and of `%{y:...}` in a hovertemplate (https://plotly.com/python/hover-text-and-formatting/).
RATE = Kind("rate", numbers.percent, partial(numbers.signed, rate=True), ".1%", ".0%")
# x times a baseline (1.17), read against it (+17.0%); figures draw the times and a line at 1.
RATIO = Kind("ratio", numbers.relative, numbers.signed_percent, ",.2f", ",.2f", suffix="×")
# a relative change (−0.204 of the value before: −20.4%)
CHANGE = Kind("change", numbers.signed_percent, numbers.signed_percent, "+.1%", "+.0%")
COUNT = Kind("count", numbers.whole, numbers.signed, ",d", "~s")
HOUR = Kind("hour", numbers.hour, numbers.signed, "02d", "02d", suffix=":00")
DAYS = Kind("days", numbers.days, numbers.signed_days, ",.1f", ",.0f", suffix=" days")
# A number no metric declared: shown as it is, a fraction to one decimal.
NUMBER = Kind("number", numbers.count, numbers.signed, ",.1~f", "~s")

KINDS: Mapping[str, Kind] = {
    kind.name: kind for kind in (RATE, RATIO, CHANGE, COUNT, HOUR, DAYS, NUMBER)
}


def as_kind(kind: Kind | str) -> Kind:
    """A kind, or one named in `KINDS`; a clear error naming the choices otherwise."""
    if isinstance(kind, Kind):
        return kind
    if isinstance(kind, str) and kind in KINDS:
        return KINDS[kind]
    raise ValueError(f"kind {kind!r} is not one of {', '.join(KINDS)}")
