"""A content calendar that round-trips through a spreadsheet: the rules, without I/O.

`channelkit calendar export` writes one row per draft or scheduled post (`calendar_record`)
with its `id`, the `updated_at` it was exported at and a fingerprint of the row
(`exported`). When the edited file comes back, `decide_update` compares each row with the
post as the service has it now:

- a row that is as exported (same fingerprint, no `action`) is `unchanged`, whatever
  happened to the post on the service meanwhile;
- a row edited in the sheet becomes `update` (or `reschedule` when its time moves),
  `cancel` or `publish-now`, with only the fields that differ;
- unless the post changed on the service since the export (`updated_at` differs): then it
  is a `conflict` and nothing is overwritten.

Pure: no I/O; `channelkit.publish.calendar.round_trip` reads and writes.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from channelkit._tz import UTC_ZONE
from channelkit.errors import FieldError, TimeError
from channelkit.publish.hold.mark import HoldMark, marked, unmarked
from channelkit.publish.post.fields import arranged, by_name
from channelkit.publish.post.origin import is_origin, without_origin
from channelkit.publish.post.row_types import NamedRow, PlanRow, cell_text
from channelkit.publish.post.times import offset_if_repeated, parse_when
from channelkit.publish.post.validation import (
    ChannelIndex,
    ChannelInfo,
    PostRequest,
    validate_post,
    with_unread,
)
from channelkit.publish.post.word_diff import word_diff

if TYPE_CHECKING:
    from channelkit.client.models import Post

# The post fields of a calendar, in its order (every contract field: `post_fields.arranged`)
_FIELDS = arranged(("channel", "title", "body", "tags", "priority", "scheduled_at"))
# Columns of an exported calendar, in order; the time column's header names its zone.
CALENDAR_HEADERS = (
    "id", "updated_at", *_FIELDS, "status", "approval", "approved_by", "action", "exported",
)  # fmt: skip
ACTIONS = ("cancel", "publish-now")
# What a row will do, in the order summaries list them.
KINDS = (
    "create",
    "update",
    "reschedule",
    "cancel",
    "publish-now",
    "unchanged",
    "conflict",
    "error",
)
WRITES = ("create", "update", "reschedule", "cancel", "publish-now")
_COMPARED = tuple(by_name(name) for name in _FIELDS)
# The fingerprint of calendars exported before other fields existed: those join it only
# when set, so a file exported earlier still reads as unedited.
_FINGERPRINTED = ("channel_id", "title", "body", "tags", "priority", "scheduled_at")
# validate_post checks the lead time against `now`; for existing posts it is checked here,
# and only when the time moves (an untouched row may hold a time that passed meanwhile).
_NO_LEAD_CHECK = datetime(1, 1, 2, tzinfo=UTC)


@dataclass(frozen=True)
class Change:
    """One field that a row changes: its value on the service and in the sheet, and for
    texts the changed words (`diff`, see `channelkit.publish.post.word_diff`)."""

    field: str
    old: str
    new: str
    diff: str | None = None

    def __str__(self) -> str:
        if self.diff is not None:
            return f"{self.field}: {self.diff}"
        return f"{self.field}: {self.old} → {self.new}"


@dataclass(frozen=True)
class CalendarRow(NamedRow):
    """What one row of a calendar file will do (`kind`), and why.

        for row in calendar.rows:
            print(row.label(), row.kind, "; ".join(map(str, row.changes)), row.message)

    `patch` holds the fields to send (only those that change); `plan_row` is the checked
    new post of a row without an id.
    """

    number: int
    kind: str
    post_id: str | None = None
    changes: tuple[Change, ...] = ()
    message: str = ""
    exported_at: datetime | None = None
    request: PostRequest | None = None
    patch: Mapping[str, Any] = dataclasses.field(default_factory=dict, compare=False)
    cells: Mapping[str, object] = dataclasses.field(default_factory=dict, compare=False)
    plan_row: PlanRow | None = None

    def describe(self) -> str:
        """`update: title: 'Old' → 'New'` / `conflict: ...`: one line for people."""
        parts = [self.kind]
        if self.changes:
            parts.append("; ".join(str(change) for change in self.changes))
        if self.message:
            parts.append(self.message)
        return ": ".join(parts)


def fingerprint(values: Mapping[str, Any]) -> str:
    """A short hash of what a calendar row says (its post fields by contract name, as
    `post_values` gives them), to tell an edited row from an exported one."""
    payload: list[Any] = [_comparable(name, values.get(name)) for name in _FINGERPRINTED]
    payload += [
        [field.api, _comparable(field.api, values.get(field.api))]
        for field in _COMPARED
        if field.api not in _FINGERPRINTED and values.get(field.api) not in (None, "", [], ())
    ]
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _comparable(name: str, value: Any) -> Any:
    if name == "scheduled_at":
        return _utc_text(value) if value else ""
    if isinstance(value, (list, tuple)):
        return sorted(value)
    if isinstance(value, str):
        return value.replace("\r\n", "\n")
    return value


def post_values(post: Post) -> dict[str, Any]:
    """The post's calendar fields by contract name (extra fields of newer services too)."""
    values = {field.api: getattr(post, field.api, None) for field in _COMPARED}
    return {**values, "body": post.body or "", "tags": without_origin(unmarked(post.tags))}


def _marks(tags: Sequence[str]) -> list[str]:
    """The tags channelkit keeps on a post (origin, hold mark), which a calendar neither
    shows nor lets anyone type: an edit of the tags keeps them."""
    return [tag for tag in tags if is_origin(tag) or marked([tag])]


def request_values(request: PostRequest) -> dict[str, Any]:
    values = {field.api: request.value(field.api) for field in _COMPARED}
    return {**values, "tags": list(request.tags)}


def post_fingerprint(post: Post) -> str:
    return fingerprint(post_values(post))


def request_fingerprint(request: PostRequest) -> str:
    return fingerprint(request_values(request))


def time_header(tz: ZoneInfo) -> str:
    """`scheduled_at (Europe/Berlin)`: the zone the wall times are in."""
    return f"scheduled_at ({tz.key})"


def calendar_record(
    post: Post, channel: ChannelInfo | None, tz: ZoneInfo, approval: tuple[str, str] = ("", "")
) -> dict[str, object]:
    """One exported row: the post's fields, its time as wall time in `tz`, and its approval
    state and approvers (`approval.approving.approval_state`), shown, never read back."""
    values = post_values(post)
    record: dict[str, object] = {
        "id": post.id,
        "updated_at": _utc_text(post.updated_at) if post.updated_at else None,
    }
    for field in _COMPARED:
        value = values[field.api]
        if field.kind == "id":
            record[field.name] = (channel.slug or channel.name) if channel else value
        elif field.kind == "instant":
            record[time_header(tz)] = wall_text(value, tz) if value else None
        elif field.kind == "tags":
            record[field.name] = ", ".join(value)
        else:
            record[field.name] = value
    record.update(status=post.status, approval=approval[0] or None,
                  approved_by=approval[1] or None, action=None,
                  exported=post_fingerprint(post))  # fmt: skip
    return record


def wall_text(moment: datetime, tz: ZoneInfo) -> str:
    """`2026-12-01 09:00` in `tz`; with the offset when that wall time is ambiguous."""
    local = moment.astimezone(tz)
    text = f"{local:%Y-%m-%d %H:%M}" + (f":{local:%S}" if local.second else "")
    return text + offset_if_repeated(local)


def normalise_action(value: object) -> str | FieldError:
    """`""`, `cancel` or `publish-now` (spaces, underscores and case forgiven)."""
    text = (cell_text(value) or "").lower().replace("_", "-").replace(" ", "-")
    if text in ("", *ACTIONS):
        return text
    return FieldError("action", f"{cell_text(value)!r} is not an action; use cancel or publish-now")


def decide_update(
    number: int,
    cells: Mapping[str, object],
    meta: Mapping[str, object],
    post: Post | None,
    *,
    channels: ChannelIndex,
    tz: ZoneInfo | None,
    now: datetime,
    lead_time: timedelta,
    confirm_urgent: bool,
    confirm_publish_now: bool,
    unread: Sequence[FieldError] = (),
    take_out_of_hold: bool = False,
) -> CalendarRow:
    """What the row of post `meta["id"]` will do, given the post as the service has it now
    (`unread`: what the file could not read for certain in the row, an ambiguous date).
    A held post (`channelkit hold`) is given a time or published only with
    `take_out_of_hold`: the row says so, and the hold mark goes in the same request."""
    post_id = str(cell_text(meta.get("id")))
    known: dict[str, Any] = {"number": number, "post_id": post_id, "cells": cells}
    read = _read_row(cells, meta, channels=channels, tz=tz, unread=unread)
    if isinstance(read, str):
        return CalendarRow(kind="error", message=read, **known)
    action, desired, exported_at = read
    known.update(request=desired, exported_at=exported_at)
    if post is None:
        message = "the post no longer exists on the service (deleted, or not visible to this key)"
        return CalendarRow(kind="conflict", message=message, **known)

    edited = bool(action) or cell_text(meta.get("exported")) != request_fingerprint(desired)
    if not edited:
        note = "" if post.updated_at == exported_at else "changed only on the service; kept"
        return CalendarRow(kind="unchanged", message=note, **known)

    return _edit(
        known,
        desired,
        post,
        cells,
        action,
        exported_at,
        now=now,
        lead_time=lead_time,
        confirm_urgent=confirm_urgent,
        confirm_publish_now=confirm_publish_now,
        take_out_of_hold=take_out_of_hold,
    )


def _edit(
    known: Mapping[str, Any],
    desired: PostRequest,
    post: Post,
    cells: Mapping[str, object],
    action: str,
    exported_at: datetime | None,
    *,
    now: datetime,
    lead_time: timedelta,
    confirm_urgent: bool,
    confirm_publish_now: bool,
    take_out_of_hold: bool,
) -> CalendarRow:
    """What an edited row does to `post`; `known` holds what every outcome of the row
    carries (its number, id, cells, request and export time)."""
    target = {"cancel": "draft", "publish-now": "published"}.get(action)
    if target is None and desired.scheduled_at is None and post.status == "scheduled":
        message = "scheduled_at is blank; give a time, or set action to cancel (back to draft)"
        return CalendarRow(kind="error", message=message, **known)
    changes, patch = _differences(desired, post, cells, moving=target is None)
    if target == post.status:
        target = None
    if not changes and target is None:
        return CalendarRow(kind="unchanged", **known)
    conflict = _conflict(post, exported_at)
    if conflict:
        return CalendarRow(kind="conflict", changes=changes, message=conflict, **known)
    refusal = _refusal(
        desired, post, patch, target, now, lead_time, confirm_urgent, confirm_publish_now
    )
    if refusal:
        return CalendarRow(kind="error", changes=changes, message=refusal, **known)
    note = ""
    if marked(post.tags) and ("scheduled_at" in patch or target == "published"):
        held = _held_by(post)
        if not take_out_of_hold:
            message = (
                f"{held}: giving it a time takes it out of the hold; say so with "
                "--take-out-of-hold (take_out_of_hold=True), or put it back with "
                "`channelkit release`"
            )
            return CalendarRow(kind="error", changes=changes, message=message, **known)
        patch["tags"] = unmarked(patch.get("tags", post.tags))  # no mark leaves draft
        note = f"taken out of the hold: {held}"
    if target is not None:
        patch["status"] = target
    kind = action if target is not None else ("reschedule" if "scheduled_at" in patch else "update")
    return CalendarRow(kind=kind, changes=changes, patch=patch, message=note, **known)


def _held_by(post: Post) -> str:
    """`held by ann (channelkit hold; its time 2026-12-09 12:00 UTC)`: whose hold it is."""
    mark = HoldMark.current(post) or next(iter(HoldMark.of(post.tags)), None)
    if mark is None:  # a tag starting like a mark that none of its formats reads
        return "it carries a hold mark (channelkit hold)"
    return (
        f"held by {mark.by or 'someone'} (channelkit hold; its time "
        f"{mark.scheduled_at.astimezone(UTC):%Y-%m-%d %H:%M} UTC)"
    )


def _read_row(
    cells: Mapping[str, object],
    meta: Mapping[str, object],
    *,
    channels: ChannelIndex,
    tz: ZoneInfo | None,
    unread: Sequence[FieldError],
) -> tuple[str, PostRequest, datetime | None] | str:
    """The row's action, the post it describes and when it was exported; or what is
    wrong with it, every problem in one message."""
    problems: list[FieldError] = []
    action = normalise_action(meta.get("action"))
    if isinstance(action, FieldError):
        problems.append(action)
        action = ""
    exported_at = _exported_at(meta.get("updated_at"), problems)
    desired = validate_post(
        cells,
        channels=channels,
        tz=tz,
        now=_NO_LEAD_CHECK,
        lead_time=timedelta(0),
        confirm_urgent=True,  # only a change to urgent needs confirming: checked apart
    )
    if unread:
        desired = with_unread(desired, unread)
    if isinstance(desired, list):
        problems.extend(desired)
    if problems:
        return _joined(problems)
    assert isinstance(desired, PostRequest)
    return action, desired, exported_at


def _conflict(post: Post, exported_at: datetime | None) -> str | None:
    """Why an edit cannot be applied to the post as it is now: it left draft and
    scheduled, or someone changed it on the service after the export."""
    if post.status not in ("draft", "scheduled"):
        return f"the post is {post.status} now; it can no longer be changed from the calendar"
    if post.updated_at != exported_at:
        held = f" ({_held_by(post)})" if marked(post.tags) else ""
        return (
            f"changed on the service at {_utc_text(post.updated_at)}{held} after your export "
            f"({_utc_text(exported_at)}); nothing overwritten: export again and redo the edit"
        )
    return None


def _differences(
    desired: PostRequest, post: Post, cells: Mapping[str, object], *, moving: bool
) -> tuple[tuple[Change, ...], dict[str, Any]]:
    now_values = post_values(post)
    wanted = request_values(desired)
    changes: list[Change] = []
    patch: dict[str, Any] = {}
    for field in _COMPARED:
        name = field.api
        old, new = _comparable(name, now_values[name]), _comparable(name, wanted[name])
        if field.kind == "instant":
            if not moving or wanted[name] is None:
                continue  # a cancel or publish-now drops the time; a blank time is checked apart
        elif field.name not in cells and not field.required:
            continue  # a file without the column (exported before it existed) keeps the value
        if old == new or new is None:
            # A blank cell keeps the value: the client cannot send null to clear a field yet
            # (its keywords read None as "leave it", and extra_body drops None).
            continue
        old, new = now_values[name], wanted[name]
        if field.kind == "text":
            old = (old or "").replace("\r\n", "\n")
            new = (new or "").replace("\r\n", "\n")
        diff = word_diff(old, new) if field.kind == "text" else None
        changes.append(Change(name, _shown(old, desired.tz), _shown(new, desired.tz), diff))
        patch[name] = [*new, *_marks(post.tags)] if field.kind == "tags" else new
    return tuple(changes), patch


def _refusal(
    desired: PostRequest,
    post: Post,
    patch: Mapping[str, Any],
    target: str | None,
    now: datetime,
    lead_time: timedelta,
    confirm_urgent: bool,
    confirm_publish_now: bool,
) -> str:
    if target == "published" and not confirm_publish_now:
        return "publish-now publishes at once to every reader of the channel: confirm with --yes"
    if "priority" in patch and desired.priority == "urgent" and not confirm_urgent:
        return "urgent bypasses readers' notification preferences; confirm it with --confirm-urgent"
    moment = patch.get("scheduled_at")
    if isinstance(moment, datetime) and moment < now + lead_time:
        minutes = int(lead_time.total_seconds() // 60)
        return f"scheduled_at {_shown(moment, desired.tz)} is less than {minutes} minutes ahead"
    return ""


def _exported_at(value: object, problems: list[FieldError]) -> datetime | None:
    if cell_text(value) is None:
        problems.append(
            FieldError("updated_at", "is blank; a row with an id needs the exported updated_at")
        )
        return None
    try:
        return parse_when(value, tz=UTC_ZONE)
    except TimeError as exc:
        problems.append(FieldError("updated_at", str(exc)))
        return None


def _shown(value: object, tz: ZoneInfo | None) -> str:
    if value is None:
        return "(blank)"
    if isinstance(value, datetime):
        zone = tz or UTC_ZONE
        return f"{wall_text(value, zone)} {zone.key}"
    if isinstance(value, list):
        return repr(", ".join(value))
    text = str(value)
    return repr(text if len(text) <= 40 else text[:39] + "…")


def _joined(errors: Sequence[FieldError]) -> str:
    return "; ".join(str(error) for error in errors)


def _utc_text(moment: datetime | None) -> str:
    return "" if moment is None else moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
