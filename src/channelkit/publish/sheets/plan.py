"""A publishing plan: every row of a spreadsheet validated before anything is sent.

    plan = load_spreadsheet("posts.xlsx", tz="Europe/Berlin")
    plan.preview()                       # one row per spreadsheet row: ok / error / exists
    result = plan.submit(client)         # checks channels and duplicates in the service first
    result.to_excel("results.xlsx")

Re-run safety comes from four things: the sent-posts ledger of this machine
(`channelkit.publish.post.ledger`) remembers every row it turned into a post, whatever happened
to the post since (such rows are `sent` and never sent again); every post carries the
origin tag of its row (`channelkit.publish.post.origin`), so a row sent from another machine is
`sent` too, found among its channel's posts however retitled, rewritten, moved or
published; each row's idempotency key is a hash of the row's content and the service's
address (the service replays the first answer, whoever asks, for 24 hours); and
rows identical to posts already scheduled in the service are marked `exists` and skipped.
Rows that only look like a post on the service (same channel, same title or body within
days) carry a `likely_duplicate`: `submit` refuses those where both match, unless
`allow_duplicates`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from channelkit._constants import PUBLISH_LIKELY_DUPLICATE_DAYS, TEMPLATE_EXAMPLE_MARKER
from channelkit._tz import resolve_zone
from channelkit.display.frames import titled_html
from channelkit.errors import (
    ChannelkitError,
    FieldError,
    PermissionDeniedError,
    PlanNotValidError,
    SpreadsheetError,
)
from channelkit.publish.approval.approving import gate, untimed
from channelkit.publish.approval.policy import Policy
from channelkit.publish.layouts.read import Choices
from channelkit.publish.post.duplicates import (
    DuplicateGroup,
    duplicate_groups,
    find_duplicates,
    likely_duplicates,
    resolve_duplicates,
    rows_by_slot,
    scheduled_by_slot,
)
from channelkit.publish.post.fields import PUBLISH_FIELDS
from channelkit.publish.post.ledger import Ledger, LedgerEntry, service_address
from channelkit.publish.post.origin import origins, without_origin
from channelkit.publish.post.row_types import PlanRow, RowResult
from channelkit.publish.post.sending import ProgressCallback, read_post, send_rows
from channelkit.publish.post.sent_before import SentBefore
from channelkit.publish.post.validation import (
    DEFAULT_LEAD_TIME,
    ChannelIndex,
    PostRequest,
    service_now,
    validate_post,
    with_unread,
)
from channelkit.publish.sheets.results import SubmitResult, plan_frame
from channelkit.publish.sheets.sheet import Sheet
from channelkit.publish.sheets.spreadsheet import read_sheet

if TYPE_CHECKING:
    import pandas as pd

    from channelkit.client import Client
    from channelkit.client.models import Post

_Slot = tuple[str, datetime, str]  # channel id, UTC time, folded title: one post's place


class Plan:
    """The validated rows of one spreadsheet, ready to preview and submit.

        plan = ck.publish.load_spreadsheet("posts.csv", tz="Europe/Berlin")
        if not plan.is_valid:
            print(plan.preview().query("status == 'error'"))
        result = plan.submit(client)

    Without a client only what the file itself says is checked; `check_against(client)`
    (which `submit` always runs) adds channel lookup and duplicates in the service.
    """

    def __init__(
        self,
        sheet: Sheet,
        *,
        tz: str | ZoneInfo | None = None,
        confirm_urgent: bool = False,
        lead_time: timedelta = DEFAULT_LEAD_TIME,
        channels: ChannelIndex | None = None,
    ) -> None:
        self.sheet = sheet
        self.tz = None if tz is None else resolve_zone(tz)  # a ZoneInfo is used as it is
        self.confirm_urgent = confirm_urgent
        self.lead_time = lead_time
        self.channels = channels
        self.warnings: list[str] = []  # what could not be checked, and why
        # The posts of the plan's channels on the service, as `check_against` listed them.
        self.listed: dict[str, list[Post]] = {}
        self._rows = self._validate(channels, {})

    def __repr__(self) -> str:
        counts = self.counts()
        checked = "checked against the service" if self.checked else "channels not checked"
        # likely duplicates only when there are some: the line stays the one readers know
        duplicates = f"{counts['duplicate']} likely duplicates, " if counts["duplicate"] else ""
        return (
            f"<Plan {self.sheet.source!r}: {len(self._rows)} rows, {counts['ok']} ok, "
            f"{duplicates}{counts['error']} with errors, {counts['sent']} sent before, "
            f"{counts['exists']} already scheduled; {checked}>"
        )

    def _repr_html_(self) -> str:
        """In a notebook: the summary line over the rows of `preview()`."""
        return titled_html(self.preview(), repr(self).strip("<>"))

    def counts(self) -> dict[str, int]:
        """Rows per status: ok, error, sent (sent before), exists (already scheduled), and
        duplicate: rows otherwise ok that `submit` refuses as likely duplicates (unless
        `allow_duplicates`), so that "ok" counts what a submit sends."""
        counts = {**dict.fromkeys(PLAN_STATUSES, 0), "duplicate": 0}
        for row in self._rows:
            counts["duplicate" if _strong(row) else row.status] += 1
        return counts

    @property
    def rows(self) -> tuple[PlanRow, ...]:
        return self._rows

    @property
    def checked(self) -> bool:
        """Whether channels were resolved against a service (else only the file was read)."""
        return self.channels is not None

    @property
    def is_valid(self) -> bool:
        """True when no row has an error."""
        return all(row.status != "error" for row in self._rows)

    @property
    def errors(self) -> list[tuple[int, FieldError]]:
        """(row number, error) for every problem, in row order."""
        return [(row.number, error) for row in self._rows for error in row.errors]

    def preview(self) -> pd.DataFrame:
        """One line per spreadsheet row: status, messages, resolved channel and times."""
        return plan_frame(self._rows)

    def upcoming(self) -> pd.DataFrame:
        """The rows to send as `Warehouse.upcoming_scheduled` shows posts (for
        `ck.plots.calendar`): `scheduled_at` as wall time in the row's zone, title,
        channel, priority."""
        import pandas as pd

        records = [
            {
                "scheduled_at": _wall(row.request),
                "title": row.request.title,
                "channel_name": row.channel,
                "priority": row.request.priority,
                "row": row.number,
            }
            for row in self._rows
            if row.status == "ok" and row.request is not None and row.request.scheduled_at
        ]
        columns = ["scheduled_at", "title", "channel_name", "priority", "row"]
        return pd.DataFrame.from_records(records, columns=columns)

    def check_against(self, client: Client) -> Plan:
        """Resolve channels with `client` and find rows already scheduled in the service.

        The plan changes only when the listings succeeded. A key that may not read posts
        skips the duplicate check (see `warnings`); idempotency keys still apply.
        """
        channels = ChannelIndex.from_client(client)
        first_pass = self._validate(channels, {})
        channel_ids = {row.request.channel_id for row in first_pass if row.request is not None}
        warnings: list[str] = []
        try:
            scheduled = {
                channel_id: list(client.posts.list(channel_id=channel_id))
                for channel_id in sorted(channel_ids)
            }
        except PermissionDeniedError:
            scheduled = {}
            warnings.append(
                "posts already scheduled in the service were not checked for duplicates: "
                "this API key may not read posts (posts:read)"
            )
        rows = self._validate(channels, existing_slots(scheduled), service_now(client))
        self.listed = scheduled
        rows = self._recall(client, rows)
        nearby = likely_duplicates(rows, scheduled, days=PUBLISH_LIKELY_DUPLICATE_DAYS)
        self._rows = tuple(
            replace(row, likely_duplicate=nearby[row.number]) if row.number in nearby else row
            for row in rows
        )
        copies = duplicate_groups(scheduled_by_slot(scheduled), rows_by_slot(self._rows))
        warnings += [f"{group.describe()}; --resolve-duplicates keeps one" for group in copies]
        self.warnings = warnings
        self.channels = channels
        return self

    def submit(
        self,
        client: Client,
        *,
        allow_partial: bool = False,
        progress: bool | ProgressCallback | None = None,
        resolve_duplicates: bool = False,
        allow_duplicates: bool = False,
    ) -> SubmitResult:
        """Create the plan's posts; only a fully valid plan unless `allow_partial`.

        Rows are re-checked against the service first. Each row is created at most once,
        whatever happened before: see the module docstring. A row whose title and body both
        match a post near its time in its channel is not sent unless `allow_duplicates`.
        Copies that someone else scheduled meanwhile are reported in `duplicates` (see
        `channelkit.publish.post.duplicates`); `resolve_duplicates=True` moves all but the oldest
        copy of each back to draft.
        """
        self.check_against(client)
        if not self.is_valid and not allow_partial:
            bad = sum(1 for row in self._rows if row.errors)
            raise PlanNotValidError(
                f"{bad} of {len(self._rows)} rows have errors (first: row "
                f"{self.errors[0][0]}, {self.errors[0][1]}); nothing was sent. Fix them, or "
                "send only the valid rows with allow_partial=True (--allow-partial)"
            )
        refused = set() if allow_duplicates else {row.number for row in self._rows if _strong(row)}
        to_send = [row for row in self._rows if row.status == "ok" and row.number not in refused]
        policy = Policy.load()
        unapproved = untimed(client, policy, [_sent(row) for row in to_send])
        if unapproved is not None:
            raise PlanNotValidError(f"{unapproved}; nothing was sent")
        service = service_address(client.base_url)
        with Ledger.open() as ledger:
            # A row found on the service (scheduled as it is, or carrying its origin tag:
            # another machine sent it, or a run was killed before it recorded the answer)
            # is this row's post from now on.
            found = {
                row.number: (row, post_id)
                for row in self._rows
                if row.request and (post_id := _found_post(row)) is not None
            }
            ledger.pending(service, [(_sent(row), self._source(row)) for row, _ in found.values()])
            ledger.created(
                service, [(_sent(row).fingerprint(), post_id) for row, post_id in found.values()]
            )
            results = send_rows(
                client, to_send, progress=progress, ledger=ledger, source=self.sheet.source
            )
        gated = gate(client, policy, [r.post for r in results.values() if r.post is not None])
        for number, result in results.items():
            if result.post is not None and gated[result.post.id] is not result.post:
                now = gated[result.post.id]  # waiting for approval
                results[number] = replace(result, post=now, post_status=now.status)
        outcome = tuple(_result_for(row, results) for row in self._rows)
        copies = self._copies(client, resolve_duplicates)
        return SubmitResult(self.sheet, outcome, duplicates=copies)

    def _source(self, row: PlanRow) -> str:
        return f"{self.sheet.source} row {row.number}"

    def _recall(self, client: Client, rows: tuple[PlanRow, ...]) -> tuple[PlanRow, ...]:
        """Mark the rows sent before as `sent`, with the post as it is now: the rows this
        machine's ledger knows (their posts from the channels' listings, else read alone),
        then those whose origin tag a post of the listings carries (sent from any machine,
        whatever was edited since: `channelkit.publish.post.origin`)."""
        candidates = {_sent(row).fingerprint(): row for row in rows if _sendable(row)}
        if not candidates:
            return rows
        with Ledger.open() as ledger:
            entries = ledger.lookup(service_address(client.base_url), candidates)
        listed = {post.id: post for posts in self.listed.values() for post in posts}
        recalled = {
            candidates[fingerprint].number: _sent_before(client, entry, listed)
            for fingerprint, entry in entries.items()
            if entry.state == "created" and entry.post_id
        }
        by_origin: dict[str, Post] = {}
        for post in sorted(listed.values(), key=_age):  # copies of one row: the oldest
            for tag in origins(post.tags):
                by_origin.setdefault(tag, post)
        for row in candidates.values():
            mine = by_origin.get(_sent(row).origin_tag)
            if row.number not in recalled and mine is not None:
                recalled[row.number] = SentBefore.of(mine.id, _sent(row).sent_fields(), mine)
        if not recalled:
            return rows
        return tuple(
            replace(row, sent_before=recalled[row.number]) if row.number in recalled else row
            for row in rows
        )

    def _copies(self, client: Client, resolve: bool) -> list[DuplicateGroup]:
        """Copies of the plan's posts scheduled by someone else while it was sent."""
        try:
            copies = find_duplicates(client, rows_by_slot(self._rows))
        except PermissionDeniedError:
            return []  # no posts:read: the warning from check_against already says so
        return resolve_duplicates(client, copies) if resolve else copies

    def _validate(
        self,
        channels: ChannelIndex | None,
        existing: Mapping[_Slot, Post],
        now: datetime | None = None,
    ) -> tuple[PlanRow, ...]:
        now = now or service_now()
        rows: list[PlanRow] = []
        seen: dict[_Slot, int] = {}
        for sheet_row in self.sheet.rows:
            cells = self.sheet.row_fields(sheet_row)
            result = validate_post(
                cells,
                channels=channels,
                tz=self.sheet.zone or self.tz,  # the zone named in the header wins
                now=now,
                lead_time=self.lead_time,
                confirm_urgent=self.confirm_urgent,
                require_time=True,
            )
            if _is_example(self.sheet.row_fields(sheet_row)):
                result = [*(result if isinstance(result, list) else []), _EXAMPLE_ERROR]
            unread = self.sheet.problems.get(sheet_row.number)
            if unread:  # what the file says that could not be read for certain (a date)
                result = with_unread(result, unread)
            if isinstance(result, list):
                rows.append(PlanRow(sheet_row.number, None, tuple(result), cells=cells))
                continue
            rows.append(_place(sheet_row.number, result, seen, existing, cells))
        return tuple(rows)


PLAN_STATUSES = ("ok", "error", "sent", "exists")


def _sendable(row: PlanRow) -> bool:
    return row.request is not None and not row.errors


def _sent(row: PlanRow) -> PostRequest:
    assert row.request is not None
    return row.request


def _found_post(row: PlanRow) -> str | None:
    """The post the service shows a row became (scheduled as it is, or by its origin)."""
    if row.status == "exists":
        return row.existing_post_id
    return row.sent_before.post_id if row.status == "sent" and row.sent_before else None


def _strong(row: PlanRow) -> bool:
    return row.status == "ok" and row.likely_duplicate is not None and row.likely_duplicate.strong


def _sent_before(client: Client, entry: LedgerEntry, listed: Mapping[str, Post]) -> SentBefore:
    post_id = str(entry.post_id)
    post = listed.get(post_id)
    if post is None:
        try:
            post = read_post(client, post_id)
        except ChannelkitError:
            post = None  # no posts:read, say: the row is still not sent again
    return SentBefore.of(post_id, entry.sent, post)


def _age(post: Post) -> tuple[datetime, str]:
    return (post.created_at or datetime.min.replace(tzinfo=UTC), post.id)


def _wall(request: PostRequest) -> datetime | None:
    local = request.local_time()
    return local.replace(tzinfo=None) if local is not None else None


_EXAMPLE_ERROR = FieldError(
    "title",
    f"this is an example row of the template ({TEMPLATE_EXAMPLE_MARKER}); replace it with your "
    "own post or delete the row",
)


def _is_example(fields: Mapping[str, object]) -> bool:
    title = fields.get("title")
    return isinstance(title, str) and title.strip().startswith(TEMPLATE_EXAMPLE_MARKER)


def existing_slots(posts_by_channel: Mapping[str, Iterable[Post]]) -> dict[_Slot, Post]:
    """Scheduled posts by their place (channel, time, title): what a row may duplicate."""
    slots: dict[_Slot, Post] = {}
    for channel_id, posts in posts_by_channel.items():
        for post in posts:
            if post.status == "scheduled" and post.scheduled_at is not None:
                slots[(channel_id, post.scheduled_at.astimezone(UTC), post.title.casefold())] = post
    return slots


def _place(
    number: int,
    request: PostRequest,
    seen: dict[_Slot, int],
    existing: Mapping[_Slot, Post],
    cells: Mapping[str, object],
) -> PlanRow:
    assert request.scheduled_at is not None  # plans require a time
    slot = (request.channel_id, request.scheduled_at, request.title.casefold())
    if slot in seen:
        message = f"same channel, title and time as row {seen[slot]}; remove one of them"
        return PlanRow(number, request, (FieldError("title", message),), cells=cells)
    seen[slot] = number
    post = existing.get(slot)
    if post is None or request.origin_tag in post.tags:  # this row's post, edited: `sent`
        return PlanRow(number, request, cells=cells)
    if _same_content(post, request):
        return PlanRow(number, request, existing_post_id=post.id, cells=cells)
    message = (
        f"a post with this title is already scheduled in this channel at this time "
        f"({post.id}) with other content; change the title or time, or edit that post"
    )
    return PlanRow(number, request, (FieldError("title", message),), cells=cells)


def _same_content(post: Post, request: PostRequest) -> bool:
    """Whether `post` holds what `request` sends, in every field but channel and time."""
    for field in PUBLISH_FIELDS:
        if field.kind in ("id", "instant"):
            continue  # the slot: the same channel and time by construction
        old, new = getattr(post, field.api, None), request.value(field.api)
        if field.kind == "tags":
            old, new = sorted(without_origin(old or ())), sorted(new or ())
        elif field.kind in ("text", "url"):
            old = old or ("" if field.required else None)  # the service's null or empty
        if old != new:
            return False
    return True


def _result_for(row: PlanRow, results: Mapping[int, RowResult]) -> RowResult:
    if row.number in results:
        return results[row.number]
    if row.sent_before is not None:
        before = row.sent_before
        return RowResult(
            row.number,
            "already_created",
            request=row.request,
            post_id=before.post_id,
            post_status=before.post.status if before.post else None,
            title=row.title,
            channel=row.channel,
            note=before.describe(),
            post=before.post,
        )
    if _strong(row) and row.likely_duplicate is not None:
        return RowResult(
            row.number,
            "not_sent",
            request=row.request,
            error=f"not sent: {row.likely_duplicate.describe()}; --allow-duplicates sends it",
            title=row.title,
            channel=row.channel,
        )
    if row.status == "exists":
        return RowResult(
            row.number,
            "exists",
            request=row.request,
            post_id=row.existing_post_id,
            post_status="scheduled",
            title=row.title,
            channel=row.channel,
        )
    message = f"{row.message} ({row.values()})" if row.errors else row.message
    return RowResult(
        row.number,
        "invalid",
        request=row.request,
        error=message,
        title=row.title,
        channel=row.channel,
    )


def load_spreadsheet(
    source: str | Path | bytes,
    *,
    tz: str | ZoneInfo | None = None,
    sheet: str | None = None,
    filename: str | None = None,
    confirm_urgent: bool = False,
    channels: ChannelIndex | None = None,
    choices: Choices | None = None,
) -> Plan:
    """Read and validate a posts spreadsheet (.xlsx or .csv): a path, or bytes + `filename`.

    `tz` reads naive times of rows without a timezone column value (default: the
    CHANNELKIT_TZ environment variable). Raises `SpreadsheetError` for a file that cannot
    be used at all, and for a content calendar (`load_calendar` reads those); row problems
    are in the returned plan. Another tool's bulk file (Hootsuite, Buffer, ...: see
    `publish.layouts`) is read as channelkit's columns; `choices` give its channel and
    day/month order (`Choices(channel="news", date_order="dmy")`), and `plan.sheet.reading`
    says how it was read.
    """
    zone = resolve_zone(tz, default=None)
    read = read_sheet(source, filename=filename, sheet=sheet, choices=choices)
    if read.is_calendar:
        # Its rows are posts that exist: as a posts file, edited rows would be posted again.
        raise SpreadsheetError(
            f"{read.source} is a content calendar (it has an id, updated_at or action column): "
            "apply it with `channelkit schedule` or ck.publish.load_calendar, or delete those "
            "columns to post its rows as new posts"
        )
    return Plan(
        read,
        tz=zone,
        confirm_urgent=confirm_urgent,
        channels=channels,
    )
