"""The summary a report opens with: a few plain sentences, each with its number.

Pure functions of the KPI rows (`Warehouse.kpis`) and the best and weakest post; a
sentence carries flags when its number needs care (the period is not complete yet, the
comparison rests on a small base, or the comparison period has no synced data). Where
the rows carry a usual range (`usual_low`/`usual_high`), a number is said to be within,
above or below it rather than just up or down.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from channelkit.analysis.metrics import KPI_METRICS
from channelkit.display import numbers
from channelkit.display.kinds import Kind
from channelkit.display.notes import (
    PROVISIONAL,
    SMALL_BASE,
    is_provisional,
    usual_range,
    usual_side,
)
from channelkit.reports.page import Sentence

INCOMPLETE = "period not complete"

Row = Mapping[str, Any]
_KINDS = dict(KPI_METRICS)  # each sentence's number, as its metric declares it


@dataclass(frozen=True)
class PostRate:
    """A post and its read rate, for "best read" and "weakest".

    PostRate("Town hall on Thursday", 0.78, readers=780, audience=1000)
    """

    title: str
    read_rate: float
    channel_median: float | None = None
    readers: int | None = None  # the numbers behind the rate, said beside it
    audience: int | None = None


def summary_sentences(
    kpis: Mapping[str, Row],
    *,
    period_name: str,
    previous_name: str,
    complete: bool = True,
    best: PostRate | None = None,
    weakest: PostRate | None = None,
    comparison: str | None = None,
    missing: str | None = None,
) -> tuple[Sentence, ...]:
    """Up to five sentences: read rate, readers, posts, best and weakest post, subscribers.

    `kpis` maps a metric name (`read_rate`, `readers`, ...) to its row (`value`,
    `previous`, `delta`, `delta_pct`, `small_base`); a metric that is missing is left
    out. `period_name` and `previous_name` name the period and its comparison
    ("October 2026", "September 2026"). `comparison` ("compared at the same age", from
    `attrs`) is said after a change; `missing` ("no synced data for October 2025")
    becomes the flag of every compared number.
    """
    said = "" if comparison is None or missing else f", {comparison.split(' (')[0]}"

    def sentence(text: str, row: Row) -> Sentence:
        return Sentence(text, _flags(row, complete=complete, missing=missing))

    sentences: list[Sentence] = []
    if "read_rate" in kpis:
        row = kpis["read_rate"]
        sentences.append(sentence(_read_rate(row, previous_name, said), row))
    if "readers" in kpis:
        row = kpis["readers"]
        sentences.append(sentence(_readers(row, period_name, previous_name, said), row))
    if "posts_published" in kpis:
        row = kpis["posts_published"]
        sentences.append(sentence(_posts_published(row, previous_name), row))
    if best is not None:
        text = _best_and_weakest(best, weakest)
        sentences.append(Sentence(text, () if complete else (INCOMPLETE,)))
    if "net_subscribers" in kpis:
        row = kpis["net_subscribers"]
        sentences.append(sentence(_net_subscribers(row, previous_name), row))
    return tuple(sentences)


def _flags(row: Row, *, complete: bool, missing: str | None) -> tuple[str, ...]:
    """What a compared number needs care for: an incomplete period, a comparison period
    without data, a small base."""
    flags: list[str] = []
    if not complete:
        flags.append(INCOMPLETE)
    if missing is not None:
        flags.append(missing)
    if is_provisional(row):
        flags.append(PROVISIONAL)
    if _true(row.get("small_base")):
        flags.append(SMALL_BASE)
    return tuple(flags)


def _read_rate(row: Row, previous_name: str, said: str) -> str:
    change = _rate_change(row["delta"], row["previous"], previous_name)
    kind = _KINDS["read_rate"]
    return (
        f"Read rate was {kind.text(row['value'])}{_usual(row, kind, change, previous_name, said)}."
    )


def _readers(row: Row, period_name: str, previous_name: str, said: str) -> str:
    change = _count_change(row, previous_name)
    readers = "reader" if _count(row["value"]) == 1 else "readers"
    kind = _KINDS["readers"]
    return (
        f"Posts published in {period_name} reached {kind.text(row['value'])} {readers}"
        f"{_usual(row, kind, change, previous_name, said)}."
    )


def _posts_published(row: Row, previous_name: str) -> str:
    verb = "post was" if _count(row["value"]) == 1 else "posts were"
    change = _count_change(row, previous_name)
    return f"{numbers.whole(row['value'])} {verb} published{change}."


def _best_and_weakest(best: PostRate, weakest: PostRate | None) -> str:
    # The best post is the first of the fair ranking (ranked by read rate adjusted for
    # audience size); each rate says the readers behind it.
    text = (
        "Best read (by read rate adjusted for audience size): "
        f"\u201c{best.title}\u201d at {numbers.percent(best.read_rate)}{_behind(best)}"
    )
    if weakest is not None and weakest.title != best.title:
        text += (
            f"; weakest: \u201c{weakest.title}\u201d at "
            f"{numbers.percent(weakest.read_rate)}{_behind(weakest)}"
        )
        if weakest.channel_median is not None:
            text += f" (its channel's median: {numbers.percent(weakest.channel_median)})"
    return text + "."


def _behind(post: PostRate) -> str:
    """ " (780 readers of 1,000)", or nothing without the numbers."""
    if post.readers is None or post.audience is None:
        return ""
    return f" ({numbers.whole(post.readers)} readers of {numbers.whole(post.audience)})"


def _net_subscribers(row: Row, previous_name: str) -> str:
    net = _count(row["value"])
    if net is None:
        text = "Subscriber numbers are missing for this period"
    elif net == 0:
        text = "Subscribers did not change overall"
    else:
        text = f"Subscribers {'grew' if net > 0 else 'fell'} by {numbers.whole(abs(net))} net"
    if not numbers.missing(row["previous"]):
        text += f" ({previous_name}: {_signed(row['previous'])})"
    return text + "."


def _usual(row: Row, kind: Kind, change: str, previous_name: str, said: str) -> str:
    """ ", within its usual range (Week 46: 58.8%, compared at the same age)", ", below its
    usual range (55.0%–60.2%); down 6.0 points from ..." or, without one, the change."""
    side = usual_side(row)
    if side is None:
        return change + said
    if side == "within":
        if numbers.missing(row["previous"]):
            return ", within its usual range"
        return f", within its usual range ({previous_name}: {kind.text(row['previous'])}{said})"
    usual = usual_range(row, kind)
    return f", {side} its usual range ({usual}){change.replace(', ', '; ', 1)}{said}"


def _rate_change(delta: Any, previous: Any, previous_name: str) -> str:
    if numbers.missing(delta) or numbers.missing(previous):
        return f" (no comparison with {previous_name})"
    points = float(delta) * 100
    if round(points, 1) == 0:
        return f", unchanged from {previous_name}"
    word = "up" if points > 0 else "down"
    return f", {word} {abs(points):.1f} points from {numbers.percent(previous)} in {previous_name}"


def _count_change(row: Row, previous_name: str) -> str:
    previous, delta = row["previous"], row["delta"]
    if numbers.missing(previous) or numbers.missing(delta):
        return f" (no comparison with {previous_name})"
    if float(delta) == 0:
        return f", as many as in {previous_name}"
    word = "up" if float(delta) > 0 else "down"
    if float(previous) > 0 and not numbers.missing(row.get("delta_pct")):
        return (
            f", {word} {abs(float(row['delta_pct'])) * 100:.1f}% from "
            f"{numbers.whole(previous)} in {previous_name}"
        )
    return f", {word} from {numbers.whole(previous)} in {previous_name}"


def _signed(value: Any) -> str:
    number = round(float(value))
    return f"{number:+,}".replace("-", "\u2212")


def _count(value: Any) -> int | None:
    return None if numbers.missing(value) else round(float(value))


def _true(value: Any) -> bool:
    return not numbers.missing(value) and bool(value)
