"""Where the posts of a file land in time: blank times filled, crowded channels found.

    sheet, filled, missing = fill_times(sheet, slots="mon-fri 09:00", tz=tz, client=client)
    pairs = crowded_plan(plan, timedelta(hours=2))       # posts closer than 2 hours

Both count posts already scheduled on the service, not only the rows of the file.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from channelkit._tz import UTC_ZONE
from channelkit.errors import InvalidParameterError
from channelkit.publish.post.row_types import row_label
from channelkit.publish.post.validation import (
    DEFAULT_LEAD_TIME,
    ChannelIndex,
    ChannelInfo,
)
from channelkit.publish.post.window import channel_posts
from channelkit.publish.sheets.plan import Plan
from channelkit.publish.sheets.sheet import Sheet
from channelkit.publish.sheets.slots import (
    Filled,
    PlacedPost,
    Slot,
    describe_gap,
    fill_blank_times,
    fillable_channel,
    parse_slots,
    too_close,
)

if TYPE_CHECKING:
    from channelkit.client import Client
    from channelkit.client.models import Post

# Slots start a minute past the lead time, so that a filled row is still valid when sent.
_MARGIN = timedelta(minutes=1)


def fill_times(
    sheet: Sheet,
    *,
    slots: str,
    tz: ZoneInfo | None,
    client: Client | None,
    db: str | Path | None = None,
    min_gap: timedelta = timedelta(0),
    lead_time: timedelta = DEFAULT_LEAD_TIME,
    now: datetime | None = None,
) -> tuple[Sheet, list[Filled], list[int], list[str]]:
    """Fill blank times of new rows from `slots` ("mon-fri 09:00,13:30" or "best").

    Returns the filled sheet, what was filled, rows left blank (no free slot) and notes
    (where best hours came from). "best" needs `db`, a synced warehouse.
    """
    index = ChannelIndex.from_client(client) if client is not None else None

    def key(ref: str) -> str:
        resolved = index.resolve(ref) if index is not None else None
        return resolved.id if isinstance(resolved, ChannelInfo) else ref.strip()

    zone = sheet.zone or tz or UTC_ZONE
    notes: list[str] = []
    if slots.strip().lower() == "best":
        if db is None:
            raise InvalidParameterError("db", "--slots best needs --db, a synced warehouse file")
        from channelkit.publish.sheets.best_times import BestTimes

        best = BestTimes(db, tz=zone)

        def slots_for(channel: str) -> tuple[Slot, ...]:
            found = best.slots(channel)
            note = f"best hours for {_name(index, channel)}: {best.source(channel)}"
            if note not in notes:
                notes.append(note)
            return found
    else:
        rule = parse_slots(slots)

        def slots_for(channel: str) -> tuple[Slot, ...]:
            return rule

    taken = _times_in_file(sheet, tz, index)
    if client is not None:
        blank_channels = {key(ref) for ref in _blank_row_channels(sheet)}
        for channel_id, posts in scheduled_posts(client, blank_channels).items():
            taken.setdefault(channel_id, []).extend(
                post.scheduled_at for post in posts if post.scheduled_at is not None
            )
    moment = (now or datetime.now(UTC)) + lead_time + _MARGIN
    filled_sheet, filled, missing = fill_blank_times(
        sheet,
        slots_for=slots_for,
        channel_key=key,
        default_zone=tz,
        after=moment,
        taken=taken,
        min_gap=min_gap,
    )
    return filled_sheet, filled, missing, notes


def scheduled_posts(client: Client, channel_ids: Iterable[str]) -> dict[str, list[Post]]:
    """The scheduled posts of each channel (channels the key cannot list are skipped)."""
    return {
        channel_id: [post for post in posts if post.status == "scheduled"]
        for channel_id, posts in channel_posts(client, channel_ids).items()
    }


def crowded_plan(plan: Plan, gap: timedelta) -> list[str]:
    """Messages for posts of `plan` closer than `gap` in one channel (service posts count)."""
    placed: list[PlacedPost] = []
    mine: set[str] = set()
    for row in plan.rows:
        request = row.request
        if request is None or request.scheduled_at is None or row.status == "error":
            continue
        if row.existing_post_id:
            mine.add(row.existing_post_id)
        placed.append(PlacedPost(request.channel_id, request.scheduled_at, row.label(), row.number))
    placed.extend(service_placed(plan.listed, mine))
    return crowding_messages(too_close(placed, gap), gap)


def service_placed(listed: Mapping[str, Iterable[Post]], mine: set[str]) -> list[PlacedPost]:
    return [
        PlacedPost(
            channel_id, post.scheduled_at, f'post {post.id} ("{post.title}", on the service)'
        )
        for channel_id, posts in listed.items()
        for post in posts
        if post.status == "scheduled" and post.scheduled_at is not None and post.id not in mine
    ]


def crowding_messages(pairs: list[tuple[PlacedPost, PlacedPost]], gap: timedelta) -> list[str]:
    return [
        f"{first.label} and {second.label} are {describe_gap(second.moment - first.moment)} "
        f"apart in one channel; --min-gap is {describe_gap(gap)}"
        for first, second in pairs
    ]


def _times_in_file(
    sheet: Sheet, tz: ZoneInfo | None, index: ChannelIndex | None
) -> dict[str, list[datetime]]:
    plan = Plan(sheet, tz=tz, channels=index)
    taken: dict[str, list[datetime]] = {}
    for row in plan.rows:
        if row.request is not None and row.request.scheduled_at is not None:
            taken.setdefault(row.request.channel_id, []).append(row.request.scheduled_at)
    return taken


def _blank_row_channels(sheet: Sheet) -> list[str]:
    found = (
        fillable_channel(dict(zip(sheet.fields, sheet_row.cells, strict=True)))
        for sheet_row in sheet.rows
    )
    return [channel for channel in found if channel is not None]


def _name(index: ChannelIndex | None, channel: str) -> str:
    info = index.get(channel) if index is not None else None
    return info.name if info is not None else channel


def filled_lines(filled: Iterable[Filled]) -> list[str]:
    """`row 5 (all-hands): scheduled_at filled with 2026-12-01 09:00 Europe/Berlin`."""
    return [
        f"{row_label(item.row, None, item.channel)}: scheduled_at filled with "
        f"{item.moment.astimezone(item.zone):%a %Y-%m-%d %H:%M} {item.zone.key}"
        for item in filled
    ]
