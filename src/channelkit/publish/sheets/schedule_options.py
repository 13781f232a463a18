"""`channelkit schedule`'s own flags as one frozen value, shared by the posts-file runner
(`publish/cli.py`) and the calendar-file runner (`publish/calendar/cli.py`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import TypeVar
from zoneinfo import ZoneInfo

import click

from channelkit.errors import InvalidParameterError
from channelkit.publish.layouts.options import parse_choices
from channelkit.publish.layouts.read import Choices
from channelkit.publish.post.times import parse_gap

_T = TypeVar("_T")


@dataclass(frozen=True)
class ScheduleOptions:
    """`channelkit schedule`'s own flags, as given; `check()` refuses what cannot go together.

    >>> options = ScheduleOptions(Path("posts.xlsx"), submit=True, min_gap="2h")
    >>> options.check(); options.gap()
    datetime.timedelta(seconds=7200)
    """

    path: Path
    tz: ZoneInfo | None = None  # resolved by --tz's type
    sheet: str | None = None
    submit: bool = False
    allow_partial: bool = False
    confirm_urgent: bool = False
    results: Path | None = None
    failed_rows: Path | None = None
    resolve_duplicates: bool = False
    allow_duplicates: bool = False
    verbose: bool = False
    confirm_publish_now: bool = False
    take_out_of_hold: bool = False
    slots: str | None = None
    db: Path | None = None
    min_gap: str | None = None
    strict: bool = False
    channel: str | None = None
    map_names: tuple[str, ...] = ()
    map_file: Path | None = None
    date_order: str | None = None
    layout_file: Path | None = None

    def check(self) -> None:
        if self.allow_partial and not self.submit:
            raise click.UsageError("--allow-partial only applies with --submit; add --submit")
        for option, target in (("--results", self.results), ("--failed-rows", self.failed_rows)):
            if target is not None and target.suffix.lower() not in {".xlsx", ".csv"}:
                raise click.BadParameter(
                    f"{str(target)!r} must end in .xlsx or .csv, e.g. "
                    f"{target.with_suffix('.xlsx')}",
                    param_hint=option,
                )
            if target is not None and not target.parent.is_dir():
                raise click.BadParameter(
                    f"the folder {str(target.parent)!r} does not exist; create it first",
                    param_hint=option,
                )
        if self.resolve_duplicates and not self.submit:
            raise click.UsageError("--resolve-duplicates only applies with --submit; add --submit")
        if self.allow_duplicates and not self.submit:
            raise click.UsageError("--allow-duplicates only applies with --submit; add --submit")
        if self.strict and not self.min_gap:
            raise click.UsageError("--strict only applies with --min-gap; add --min-gap 2h, say")
        if self.db is not None and (self.slots or "").strip().lower() != "best":
            raise click.UsageError("--db only applies with --slots best")

    def choices(self) -> Choices:
        """How to place the posts of another tool's file (--channel, --map, --date-order)."""
        return parsed_option(
            lambda: parse_choices(
                channel=self.channel,
                maps=self.map_names,
                map_file=self.map_file,
                date_order=self.date_order,
                layout_file=self.layout_file,
            ),
            "--layout-file" if self.layout_file else "--map",
        )

    def gap(self) -> timedelta | None:
        """--min-gap as a duration, None without it."""
        text = self.min_gap
        return parsed_option(lambda: parse_gap(text), "--min-gap") if text else None


def parsed_option(parse: Callable[[], _T], name: str) -> _T:
    """A flag's value parsed after click (it needs other flags), refused as click would."""
    try:
        return parse()
    except InvalidParameterError as exc:
        raise click.BadParameter(exc.message, param_hint=name) from None
