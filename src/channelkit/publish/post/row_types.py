"""The row types every publishing step shares: a checked row, and what happened to it.

This is the leaf of `channelkit.publish`: validation produces `PlanRow`s, sending turns
them into `RowResult`s, results present them, the plan orchestrates. Nothing here imports
another publishing module but validation's `FieldError`/`PostRequest`, so the layers run
in one direction (rows → sending → results → plan). Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from channelkit.errors import FieldError
from channelkit.publish.post.sent_before import SentBefore
from channelkit.publish.post.validation import PostRequest

if TYPE_CHECKING:
    from channelkit.client.models import Post

DONE_STATUSES = ("created", "already_created", "exists")


class NamedRow:
    """How a row of a file is named to people: its number, title and channel.

    Shared by the rows of a plan and of a calendar, which carry these three attributes.
    """

    number: int
    request: PostRequest | None
    cells: Mapping[str, object]

    @property
    def title(self) -> str | None:
        """The row's title as written (None when blank)."""
        return self.request.title if self.request else cell_text(self.cells.get("title"))

    @property
    def channel(self) -> str | None:
        """The row's channel: its name once resolved, else as written."""
        if self.request is not None:
            return self.request.channel_name or self.request.channel_id
        return cell_text(self.cells.get("channel"))

    def label(self) -> str:
        """`row 14 ("Town hall", all-hands)`: how messages name a row."""
        return row_label(self.number, self.title, self.channel)


@dataclass(frozen=True)
class PlanRow(NamedRow):
    """One spreadsheet row after validation.

    `status` is `ok` (will be sent), `error` (see `errors`), `sent` (this machine sent the
    row before: `sent_before` names the post it became and what changed since) or `exists`
    (the same post is already scheduled in the service as `existing_post_id`). Rows `sent`
    or `exists` are not sent again. `likely_duplicate` names a post on the service with the
    same title or body nearby (`strong` when both match: `--submit` then refuses the row).
    `cells` are the row's own values by field, so that a failing row can be recognised
    (`title`, `channel`) and the offending value shown (`values()`).

        row = plan.rows[0]
        print(row.number, row.status, row.title, row.channel, row.values(), row.message)
    """

    number: int
    request: PostRequest | None
    errors: tuple[FieldError, ...] = ()
    existing_post_id: str | None = None
    cells: Mapping[str, object] = field(default_factory=dict, compare=False)
    sent_before: SentBefore | None = None
    likely_duplicate: LikelyDuplicate | None = None

    @property
    def status(self) -> str:
        if self.errors:
            return "error"
        if self.sent_before is not None:
            return "sent"
        return "exists" if self.existing_post_id else "ok"

    @property
    def message(self) -> str:
        """The row's problems in one line (empty when there are none)."""
        return "; ".join(str(error) for error in self.errors)

    def values(self) -> str:
        """The cells behind the row's errors, `field = 'value'`, in the errors' order."""
        shown = dict.fromkeys(self.value_of(error) for error in self.errors)
        return ", ".join(shown)

    def value_of(self, error: FieldError) -> str:
        """The cell(s) `error` is about: `scheduled_at = '31/12 9h'`."""
        names = [error.field]
        if error.field == "scheduled_at" and "scheduled_at" not in self.cells and self.cells:
            names = ["date", "time"]  # the two-column form of the time
        return ", ".join(f"{name} = {_shown(self.cells.get(name))}" for name in names)


@dataclass(frozen=True)
class LikelyDuplicate:
    """A post on the service that a row may repeat: same channel, and the same title or
    the same body within days. `strong` (`--submit` refuses the row) when the body matches
    and is long enough to be no coincidence, when title and body both match, or when either
    matches a post scheduled or published within minutes of the row's time."""

    post_id: str
    title: str
    when: str  # `2026-12-01 09:00 UTC`
    same: tuple[str, ...]  # ("title", "body") or one of them
    strong: bool = False

    def describe(self) -> str:
        """`likely already on the service as post_9 ("Town hall", 2026-12-02 09:00 UTC):
        same title and body`."""
        same = " and ".join(self.same)
        return (
            f'likely already on the service as {self.post_id} ("{_clip(self.title)}", '
            f"{self.when}): same {same}"
        )


@dataclass(frozen=True)
class RowResult:
    """One row's outcome.

    `status`: `created` (sent now), `already_created` (created before: by an earlier run of
    this machine, as the ledger says, or replayed by its idempotency key; `note` says which
    post and what changed since), `exists` (the same post is already scheduled, not sent
    again), `failed` (the service refused it or could not be reached), `invalid` (not sent:
    validation errors) or `not_sent` (the submission stopped first, or the row was refused
    as a likely duplicate). `post` is the post as the service has it now, when known.

        result = plan.submit(client)
        failed = [row for row in result.rows if row.status == "failed"]
    """

    number: int
    status: str
    request: PostRequest | None = None
    post_id: str | None = None
    post_status: str | None = None
    error: str | None = None
    title: str | None = None
    channel: str | None = None
    note: str | None = None
    post: Post | None = None


def cell_text(value: object) -> str | None:
    """A cell as one line of text for messages; None when blank."""
    if value is None:
        return None
    text = " ".join(str(value).split())
    return text or None


def row_label(number: int, title: str | None, channel: str | None) -> str:
    """`row 14 ("Town hall", all-hands)`; only what the row has."""
    facts = [f'"{_clip(title)}"' if title else "", _clip(channel) if channel else ""]
    known = ", ".join(fact for fact in facts if fact)
    return f"row {number} ({known})" if known else f"row {number}"


def _shown(value: object) -> str:
    text = cell_text(value)
    return "(blank)" if text is None else repr(_clip(text))


def _clip(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
