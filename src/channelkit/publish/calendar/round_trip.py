"""The calendar round trip with the service: export, compare an edited file, apply it.

    ck.calendar_export("cal.xlsx", start="2026-12-01", end="2027-01-01", tz="Europe/Berlin")
    # ... edit titles, times, tags; add rows without id; set action to cancel ...
    calendar = load_calendar("cal.xlsx", tz="Europe/Berlin").check_against(client)
    calendar.preview()                  # per row: create / update / reschedule / cancel / ...
    result = calendar.submit(client)    # creates once, PATCHes only what changed
    result.to_file("cal.xlsx")          # the fresh calendar: edit it and submit again

Before each update the post is read again and the update is refused as a conflict when the
post changed on the service since the export (its `updated_at` differs), so nobody's edit
is overwritten; the PATCH carries the version just read (`If-Match` with the post's ETag,
when the server sends ETags), so a change landing in between is refused too.
Rules: `channelkit.publish.calendar.records`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from channelkit._constants import SPREADSHEET_ERROR_COLUMN, SPREADSHEET_RESULT_COLUMN
from channelkit._tz import UTC_ZONE, resolve_zone
from channelkit.errors import (
    ChannelkitError,
    ConflictError,
    InvalidParameterError,
    NotFoundError,
    PlanNotValidError,
)
from channelkit.publish.approval.approving import approval_state, gate, untimed
from channelkit.publish.approval.policy import Policy
from channelkit.publish.calendar.records import (
    CALENDAR_HEADERS,
    KINDS,
    WRITES,
    CalendarRow,
    calendar_record,
    decide_update,
    time_header,
)
from channelkit.publish.hold.mark import HoldMark, marked, user_name
from channelkit.publish.hold.record import HoldBook, HoldRecord
from channelkit.publish.post.ledger import Ledger, service_address
from channelkit.publish.post.row_types import PlanRow, cell_text
from channelkit.publish.post.sending import ProgressCallback, send_rows
from channelkit.publish.post.validation import DEFAULT_LEAD_TIME, ChannelIndex, ChannelInfo
from channelkit.publish.post.window import channel_posts, chosen_channels, window_bounds
from channelkit.publish.sheets.plan import Plan
from channelkit.publish.sheets.sheet import Sheet

if TYPE_CHECKING:
    import pandas as pd

    from channelkit.client import Client
    from channelkit.client.models import Post

# What each planned kind becomes once applied.
_DONE = {
    "create": "created",
    "update": "updated",
    "reschedule": "rescheduled",
    "cancel": "cancelled",
    "publish-now": "published",
}
OUTCOMES = (*_DONE.values(), "unchanged", "conflict", "invalid", "failed")


def calendar_frame(
    client: Client,
    *,
    start: object,
    end: object,
    tz: str | ZoneInfo,
    channel: str | Sequence[str] | None = None,
) -> pd.DataFrame:
    """The drafts and scheduled posts of `[start, end)` as calendar rows (see module doc).

    `start`/`end` are dates or times (naive ones in `tz`); `channel` one or more channel
    ids, slugs or names (default: every channel the key can see). Drafts have no time, so
    every draft of the chosen channels is listed, after the scheduled posts.
    """
    import pandas as pd

    zone = resolve_zone(tz)  # a ZoneInfo (from calendar_export, a command) is used as it is
    begin, finish = window_bounds(start, end, zone)
    assert begin is not None and finish is not None  # window_bound refuses a missing one
    index = ChannelIndex.from_client(client)
    chosen = chosen_channels(index, channel)
    posts: list[Post] = []
    for info in chosen:
        for post in client.posts.list(channel_id=info.id):
            if post.status == "draft" or (
                post.status == "scheduled"
                and post.scheduled_at is not None
                and begin <= post.scheduled_at < finish
            ):
                posts.append(post)
    far = datetime.max.replace(tzinfo=UTC)
    posts.sort(key=lambda post: (post.scheduled_at or far, post.channel_id, post.id))
    policy = Policy.load()
    records = [
        calendar_record(post, index.get(post.channel_id), zone, approval_state(post, policy, index))
        for post in posts
    ]
    columns = _headers(zone)
    return pd.DataFrame.from_records(records, columns=columns).astype(object)


def calendar_export(
    path: str | Path,
    *,
    start: object,
    end: object,
    tz: str | ZoneInfo | None = None,
    channel: str | Sequence[str] | None = None,
    client: Client | None = None,
) -> Path:
    """Write the calendar of `[start, end)` to `path` (.xlsx or .csv); returns the path.

        ck.calendar_export("cal.xlsx", start="2026-12-01", end="2027-01-01",
                           tz="Europe/Berlin", channel="all-hands")

    `client=None` makes a `Client()` from the environment; `tz` defaults to
    CHANNELKIT_TZ, else UTC. Edit the file, then `channelkit schedule cal.xlsx`.
    """
    kind = _kind(path)
    zone = resolve_zone(tz)
    if client is None:
        from channelkit.client import Client

        with Client() as own:
            frame = calendar_frame(own, start=start, end=end, tz=zone, channel=channel)
    else:
        frame = calendar_frame(client, start=start, end=end, tz=zone, channel=channel)
    return write_calendar(frame, path, kind=kind)


def write_calendar(frame: pd.DataFrame, path: str | Path, *, kind: str) -> Path:
    """Write a calendar frame with the safe writer: no cell ever runs as a formula, and the
    file reads back as it was written (CSV cells escaped with `'` are unescaped on reading)."""
    from channelkit.export import to_csv, to_excel

    if kind == "csv":
        return to_csv(frame, path, with_header_block=False)
    return to_excel({"calendar": frame}, path)


class CalendarPlan:
    """An edited calendar file compared with the service: what each row will do.

        calendar = load_calendar("cal.xlsx", tz="Europe/Berlin").check_against(client)
        print(calendar.counts())     # {"create": 2, "update": 1, "reschedule": 1, ...}
        calendar.preview()           # per row: kind, changes (old → new), message
        result = calendar.submit(client)

    Rows without an `id` are new posts, checked like any posts spreadsheet (`Plan`).
    """

    def __init__(
        self,
        sheet: Sheet,
        *,
        tz: str | ZoneInfo | None = None,
        confirm_urgent: bool = False,
        confirm_publish_now: bool = False,
        lead_time: timedelta = DEFAULT_LEAD_TIME,
        take_out_of_hold: bool = False,
    ) -> None:
        self.sheet = sheet
        # the zone named in the time column's header wins; a ZoneInfo is used as it is
        self.tz = sheet.zone or (None if tz is None else resolve_zone(tz))
        self.confirm_urgent = confirm_urgent
        self.confirm_publish_now = confirm_publish_now
        self.take_out_of_hold = take_out_of_hold
        self.lead_time = lead_time
        self.rows: tuple[CalendarRow, ...] = ()
        self.posts: dict[str, Post] = {}  # the posts of rows with an id, as last read
        self.warnings: list[str] = []
        self.new_posts = Plan(
            dataclasses.replace(sheet, rows=tuple(r for r in sheet.rows if not _post_id(sheet, r))),
            tz=self.tz,
            confirm_urgent=confirm_urgent,
            lead_time=lead_time,
        )

    def __repr__(self) -> str:
        counts = ", ".join(f"{count} {kind}" for kind, count in self.counts().items())
        return f"<CalendarPlan {self.sheet.source!r}: {counts or 'not checked yet'}>"

    @property
    def is_valid(self) -> bool:
        """True when no row has an error (conflicts are reported, not errors)."""
        return all(row.kind != "error" for row in self.rows)

    def counts(self) -> dict[str, int]:
        """Rows per kind, in `KINDS` order (kinds that occur)."""
        found = {kind: sum(1 for row in self.rows if row.kind == kind) for kind in KINDS}
        return {kind: count for kind, count in found.items() if count}

    def check_against(self, client: Client) -> CalendarPlan:
        """Read every post the file names and the channels' schedules; decide every row."""
        self.new_posts.check_against(client)
        self.warnings = list(self.new_posts.warnings)
        channels = self.new_posts.channels
        assert channels is not None  # check_against resolved them
        self.posts = self._read_posts(client, channels)
        self.rows = self._decide(channels, self.posts)
        return self

    def _read_posts(self, client: Client, channels: ChannelIndex) -> dict[str, Post]:
        # One listing per channel (pages of 100) instead of one read per row; a post
        # that is not where its row says (moved, or the channel typed anew) is read alone.
        wanted: set[str] = set()
        channel_ids: set[str] = set()
        for sheet_row in self.sheet.rows:
            post_id = _post_id(self.sheet, sheet_row)
            if post_id is None:
                continue
            wanted.add(post_id)
            found = channels.resolve(str(self.sheet.row_fields(sheet_row).get("channel") or ""))
            if isinstance(found, ChannelInfo):
                channel_ids.add(found.id)
        listed = dict(self.new_posts.listed)
        listed.update(channel_posts(client, channel_ids - listed.keys()))
        posts = {post.id: post for group in listed.values() for post in group if post.id in wanted}
        for post_id in sorted(wanted - posts.keys()):
            found_post = _read(client, post_id)
            if found_post is not None:
                posts[post_id] = found_post
        return posts

    def preview(self) -> pd.DataFrame:
        """One line per row: what it will do, which fields change (old → new), and why."""
        import pandas as pd

        records = [
            {
                "row": row.number,
                "action": row.kind,
                "post_id": row.post_id,
                "channel": row.channel,
                "title": row.title,
                "changes": "; ".join(str(change) for change in row.changes) or None,
                "message": row.message or None,
            }
            for row in self.rows
        ]
        columns = ["row", "action", "post_id", "channel", "title", "changes", "message"]
        return pd.DataFrame.from_records(records, columns=columns)

    def submit(
        self,
        client: Client,
        *,
        allow_partial: bool = False,
        progress: bool | ProgressCallback = False,
    ) -> CalendarResult:
        """Apply the file: creates (exactly once), then PATCHes of the changed fields only.

        Rows are decided again first. Each update re-reads its post and is refused as a
        conflict when the post changed since the export. Rows with errors stop everything
        unless `allow_partial`.
        """
        self.check_against(client)
        bad = [row for row in self.rows if row.kind == "error"]
        if bad and not allow_partial:
            raise PlanNotValidError(
                f"{len(bad)} of {len(self.rows)} rows have errors (first: {bad[0].label()}: "
                f"{bad[0].message}); nothing was sent. Fix them, or send only the valid rows "
                "with allow_partial=True (--allow-partial)"
            )
        creates = [row.plan_row for row in self.rows if row.kind == "create" and row.plan_row]
        policy = Policy.load()
        unapproved = untimed(client, policy, [row.request for row in creates if row.request])
        if unapproved is not None:
            raise PlanNotValidError(f"{unapproved}; nothing was sent")
        with Ledger.open() as ledger:
            sent = send_rows(
                client, creates, progress=progress, ledger=ledger, source=self.sheet.source
            )
        outcomes: list[CalendarOutcome] = []
        for row in self.rows:
            if row.kind == "create":
                result = sent[row.number]
                post = _read(client, result.post_id) if result.post_id else None
                post = None if post is None else gate(client, policy, [post])[post.id]
                outcome = {"created": "created", "already_created": "unchanged"}.get(
                    result.status, "failed"
                )
                outcomes.append(
                    CalendarOutcome(row, outcome, post, result.error or result.note or "")
                )
            elif row.kind in WRITES:
                applied = self._apply(client, row)
                if applied.post is not None:  # an edit voids an approval: it waits again
                    waits = gate(client, policy, [applied.post])[applied.post.id]
                    applied = dataclasses.replace(applied, post=waits)
                outcomes.append(applied)
            else:
                post = self.posts.get(row.post_id or "") or self._existing(client, row)
                outcome = {"error": "invalid"}.get(row.kind, row.kind)
                outcomes.append(CalendarOutcome(row, outcome, post, row.message))
        return CalendarResult(self, tuple(outcomes))

    def _apply(self, client: Client, row: CalendarRow) -> CalendarOutcome:
        assert row.post_id is not None
        try:
            fresh = client.posts.retrieve(row.post_id)
        except ChannelkitError as exc:
            return CalendarOutcome(row, "failed", None, str(exc))
        if fresh.updated_at != row.exported_at:
            message = (
                "changed on the service after your export; nothing overwritten: export again "
                "and redo the edit"
            )
            return CalendarOutcome(
                dataclasses.replace(row, kind="conflict"), "conflict", fresh, message
            )
        try:
            # With the version just read, a change landing between read and write is
            # refused by the service too (servers without ETags: None sends no If-Match).
            post = client.posts.update(row.post_id, **row.patch, if_match=fresh.etag)
        except ConflictError as exc:
            if exc.param != "If-Match":
                return CalendarOutcome(row, "failed", fresh, str(exc))
            conflict = dataclasses.replace(row, kind="conflict")
            message = "changed on the service while this file was applied; nothing overwritten"
            return CalendarOutcome(conflict, "conflict", _read(client, row.post_id), message)
        except ChannelkitError as exc:
            return CalendarOutcome(row, "failed", fresh, str(exc))
        if marked(fresh.tags) and not marked(post.tags):
            _out_of_hold(client, fresh, f"from the calendar {self.sheet.source}")
        return CalendarOutcome(row, _DONE[row.kind], post, row.message)

    def _existing(self, client: Client, row: CalendarRow) -> Post | None:
        if row.plan_row is None or row.plan_row.existing_post_id is None:
            return None
        return _read(client, row.plan_row.existing_post_id)

    def _decide(self, channels: ChannelIndex, posts: Mapping[str, Post]) -> tuple[CalendarRow, ...]:
        now = datetime.now(UTC)
        new_rows = {row.number: row for row in self.new_posts.rows}
        decided: list[CalendarRow] = []
        for sheet_row in self.sheet.rows:
            cells = self.sheet.row_fields(sheet_row)
            meta = self.sheet.row_calendar(sheet_row)
            post_id = _post_id(self.sheet, sheet_row)
            if post_id is None:
                decided.append(_new_row(new_rows[sheet_row.number], meta))
                continue
            decided.append(
                decide_update(
                    sheet_row.number,
                    cells,
                    meta,
                    posts.get(post_id),
                    channels=channels,
                    tz=self.tz,
                    now=now,
                    lead_time=self.lead_time,
                    confirm_urgent=self.confirm_urgent,
                    confirm_publish_now=self.confirm_publish_now,
                    unread=self.sheet.problems.get(sheet_row.number, ()),
                    take_out_of_hold=self.take_out_of_hold,
                )
            )
        return tuple(decided)


@dataclasses.dataclass(frozen=True)
class CalendarOutcome:
    """What submitting did to one row: `outcome` is created / updated / rescheduled /
    cancelled / published / unchanged / conflict / invalid / failed; `post` the post as
    the service has it now (None when unknown)."""

    row: CalendarRow
    outcome: str
    post: Post | None
    message: str = ""


class CalendarResult:
    """The outcome of `CalendarPlan.submit`, and the fresh calendar to edit next.

    result = calendar.submit(client)
    result.counts()            # {"created": 2, "updated": 1, ...}
    result.to_file("cal.xlsx")   # new ids and updated_at: edit and submit again
    """

    def __init__(self, plan: CalendarPlan, rows: Sequence[CalendarOutcome]) -> None:
        self.plan = plan
        self.rows = tuple(rows)

    def __repr__(self) -> str:
        counts = ", ".join(f"{count} {outcome}" for outcome, count in self.counts().items())
        return f"<CalendarResult {self.plan.sheet.source!r}: {counts}>"

    def counts(self) -> dict[str, int]:
        """Rows per outcome, in a fixed order (outcomes that occur)."""
        found = {name: sum(1 for row in self.rows if row.outcome == name) for name in OUTCOMES}
        return {name: count for name, count in found.items() if count}

    @property
    def ok(self) -> bool:
        """True when every row was applied or had nothing to do."""
        return all(row.outcome in (*_DONE.values(), "unchanged") for row in self.rows)

    def frame(self) -> pd.DataFrame:
        """The calendar as it is now (a row's own cells where it was not applied), plus
        `result` and `error` columns that are ignored when the file is read again."""
        import pandas as pd

        zone = self.plan.tz or UTC_ZONE
        channels = self.plan.new_posts.channels
        records: list[dict[str, object]] = []
        for row in self.rows:
            applied = row.outcome in (*_DONE.values(), "unchanged") and row.post is not None
            if applied and row.post is not None:
                info = channels.get(row.post.channel_id) if channels else None
                record = calendar_record(row.post, info, zone)
            else:
                record = _as_written(self.plan.sheet, row.row.number, zone)
            record[SPREADSHEET_RESULT_COLUMN] = row.outcome
            record[SPREADSHEET_ERROR_COLUMN] = row.message or None
            records.append(record)
        columns = [*_headers(zone), SPREADSHEET_RESULT_COLUMN, SPREADSHEET_ERROR_COLUMN]
        return pd.DataFrame.from_records(records, columns=columns).astype(object)

    def to_file(self, path: str | Path) -> Path:
        """Write `frame()` to `path` (.xlsx or .csv): the calendar to edit next."""
        return write_calendar(self.frame(), path, kind=_kind(path))


def load_calendar(
    source: str | Path | bytes,
    *,
    tz: str | ZoneInfo | None = None,
    sheet: str | None = None,
    filename: str | None = None,
    confirm_urgent: bool = False,
    confirm_publish_now: bool = False,
    take_out_of_hold: bool = False,
) -> CalendarPlan:
    """Read an edited calendar file (see `calendar_export`); check it with `check_against`.
    A held post (`channelkit hold`) is given a time only with `take_out_of_hold`."""
    from channelkit.publish.sheets.spreadsheet import read_sheet

    return CalendarPlan(
        read_sheet(source, filename=filename, sheet=sheet),
        tz=resolve_zone(tz, default=None),
        confirm_urgent=confirm_urgent,
        confirm_publish_now=confirm_publish_now,
        take_out_of_hold=take_out_of_hold,
    )


def _out_of_hold(client: Client, held: Post, where: str) -> None:
    """Write down in this machine's hold record that `held` was taken out of its hold
    (`where`, by whom): `channelkit release` here then knows it is not held any more."""
    mark = HoldMark.current(held) or next(iter(HoldMark.of(held.tags)), None)
    if mark is None:
        return  # a tag shaped like a mark that no format reads: no hold to write down
    service = service_address(client.base_url)
    with HoldBook.open() as book:
        since = mark.since or held.updated_at or mark.scheduled_at
        record = book.record(service, held.id) or HoldRecord.of(held, mark, held.etag, since)
        book.releasing(service, record, None)
        note = f"taken out of the hold {where} by {user_name()}"
        book.settle(service, held.id, "released", note=note)


def _new_row(plan_row: PlanRow, meta: Mapping[str, object]) -> CalendarRow:
    known: dict[str, Any] = {
        "number": plan_row.number,
        "cells": plan_row.cells,
        "request": plan_row.request,
        "plan_row": plan_row,
    }
    if cell_text(meta.get("action")):
        message = "action applies to rows with an id (posts already on the service)"
        return CalendarRow(kind="error", message=message, **known)
    if plan_row.status == "error":
        message = f"{plan_row.message} [{plan_row.values()}]"
        return CalendarRow(kind="error", message=message, **known)
    if plan_row.sent_before is not None:
        before = plan_row.sent_before
        return CalendarRow(
            kind="unchanged", post_id=before.post_id, message=before.describe(), **known
        )
    if plan_row.status == "exists":
        message = f"already scheduled as {plan_row.existing_post_id}"
        return CalendarRow(
            kind="unchanged", post_id=plan_row.existing_post_id, message=message, **known
        )
    return CalendarRow(kind="create", **known)


def _as_written(sheet: Sheet, number: int, zone: ZoneInfo) -> dict[str, object]:
    sheet_row = next(row for row in sheet.rows if row.number == number)
    values = {**sheet.row_fields(sheet_row), **sheet.row_calendar(sheet_row)}
    record: dict[str, object] = {name: values.get(name) for name in CALENDAR_HEADERS}
    moment = values.get("scheduled_at")
    record.pop("scheduled_at")
    record[time_header(zone)] = moment
    return record


def _headers(zone: ZoneInfo) -> list[str]:
    return [time_header(zone) if name == "scheduled_at" else name for name in CALENDAR_HEADERS]


def _post_id(sheet: Sheet, row: Any) -> str | None:
    return cell_text(sheet.row_calendar(row).get("id"))


def _read(client: Client, post_id: str) -> Post | None:
    try:
        return client.posts.retrieve(post_id)
    except NotFoundError:
        return None


def _kind(path: str | Path) -> str:
    suffix = Path(path).suffix.lower()
    if suffix not in (".xlsx", ".csv"):
        raise InvalidParameterError(
            "path", f"{Path(path).name}: write the calendar as .xlsx or .csv"
        )
    return suffix[1:]


def describe_counts(counts: Mapping[str, int], labels: Iterable[str] = KINDS) -> str:
    """`2 create, 1 update, ...` in a fixed order, for summaries."""
    return ", ".join(f"{counts[kind]} {kind}" for kind in labels if counts.get(kind))
