"""Sending validated rows to the service, a few at a time, each with its own key.

Every row is in the sent-posts ledger as `pending` (with its idempotency key, derived from
the row and the service's address) before any request leaves, and is recorded `created`
with its post id as answers come in: a kill at any moment cannot lead to a second create.

Creates run on a small thread pool: one shared client paces them by the rate-limit headers,
and the pool hides the round-trip time (sequential creates against a remote service are
bound by latency long before the plan's limit). A refused key (401/403) stops the rest;
an interruption cancels what has not started. Progress is reported from the calling thread.
"""

from __future__ import annotations

import sys
import threading
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from channelkit._constants import (
    LEDGER_COMMIT_EVERY,
    PUBLISH_REPLAY_MARGIN_SECONDS,
    PUBLISH_SUBMIT_WORKERS,
)
from channelkit._terminal import progress_visible
from channelkit.errors import (
    AuthenticationError,
    ChannelkitError,
    NotFoundError,
    PermissionDeniedError,
)
from channelkit.publish.post.ledger import Ledger, service_address
from channelkit.publish.post.row_types import PlanRow, RowResult
from channelkit.publish.post.sent_before import SentBefore
from channelkit.publish.post.validation import PostRequest

if TYPE_CHECKING:
    from channelkit.client import Client
    from channelkit.client.models import Post

_REPLAY_MARGIN = timedelta(seconds=PUBLISH_REPLAY_MARGIN_SECONDS)
_EARLIEST = datetime.min.replace(tzinfo=UTC)

ProgressCallback = Callable[[int, int], None]


def send_rows(
    client: Client,
    rows: Sequence[PlanRow],
    *,
    progress: bool | ProgressCallback | None,
    ledger: Ledger,
    source: str,
    workers: int = PUBLISH_SUBMIT_WORKERS,
) -> dict[int, RowResult]:
    """Create one post per row; the outcome of every row by its number.

    `source` names the rows' file in the ledger (`posts.xlsx` → `posts.xlsx row 3`).
    """
    service = service_address(client.base_url)
    ledger.pending(service, [(_request(row), f"{source} row {row.number}") for row in rows])
    sender = _Sender(client, service)
    report = _Progress(progress, len(rows))
    results: dict[int, RowResult] = {}
    unrecorded: list[tuple[str, str]] = []
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="channelkit-submit")
    try:
        pending: set[Future[RowResult]] = {pool.submit(sender.send, row) for row in rows}
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                result = future.result()
                results[result.number] = result
                if result.post_id is not None and result.request is not None:
                    unrecorded.append((result.request.fingerprint(), result.post_id))
                if len(unrecorded) >= LEDGER_COMMIT_EVERY:
                    ledger.created(service, unrecorded)
                    unrecorded = []
                if result.status != "not_sent":
                    report(1)
    finally:
        # On an interruption, rows not yet started stay unsent (a re-run sends them).
        pool.shutdown(wait=True, cancel_futures=True)
        ledger.created(service, unrecorded)
        report.close(results)
    return results


def _request(row: PlanRow) -> PostRequest:
    assert row.request is not None  # only valid rows are sent
    return row.request


class _Sender:
    def __init__(self, client: Client, service: str) -> None:
        self.client = client
        self.service = service
        self.stop_reason: str | None = None
        self._lock = threading.Lock()

    def send(self, row: PlanRow) -> RowResult:
        request = _request(row)
        if self.stop_reason is not None:
            return _outcome(row, "not_sent", error=self.stop_reason)
        try:
            post, replayed = create_once(self.client, request, self.service)
        except (AuthenticationError, PermissionDeniedError) as exc:
            with self._lock:
                self.stop_reason = f"not sent: the API key was refused ({exc.message})"
            return _outcome(row, "failed", error=str(exc))
        except ChannelkitError as exc:
            return _outcome(row, "failed", error=str(exc))
        if replayed is not None:
            return _outcome(
                row,
                "already_created",
                post_id=post.id,
                post_status=post.status,
                post=post,
                note=replayed.describe(),
            )
        return _outcome(row, "created", post_id=post.id, post_status=post.status, post=post)


def create_once(
    client: Client, request: PostRequest, service: str
) -> tuple[Post, SentBefore | None]:
    """Create `request`'s post with its idempotency key; the post as it is now, and, when
    the service replayed an earlier create (by this run's predecessor or another key of
    the workspace), what became of that post since."""
    before = client.server_time()
    post = client.posts.create(
        **request.to_create_kwargs(), idempotency_key=request.idempotency_key(service)
    )
    # A service that does not mark replays: one made before the request left was one.
    made_before = post.created_at is not None and post.created_at < before - _REPLAY_MARGIN
    if not (post.replayed or made_before):
        return post, None
    try:
        now = read_post(client, post.id) or post  # the replay shows the post as it was created
    except PermissionDeniedError:
        now = post  # a key that may not read posts: the post as it was created will do
    return now, SentBefore.of(post.id, request.sent_fields(), now)


def send_one(
    client: Client, request: PostRequest, *, source: str
) -> tuple[Post | None, SentBefore | None]:
    """One post from a cell or a form, sent once whatever happened since: (the post created
    now, None), or (the post as it is now, what it was sent as before) without a create.
    Sent before is what this machine's ledger says, else what the service says: a post
    carrying the request's origin tag (`channelkit.publish.post.origin`), from any machine."""
    service = service_address(client.base_url)
    fingerprint = request.fingerprint()
    with Ledger.open() as ledger:
        entry = ledger.lookup(service, [fingerprint]).get(fingerprint)
        if entry is not None and entry.state == "created" and entry.post_id:
            post = read_post(client, entry.post_id)
            return post, SentBefore.of(entry.post_id, entry.sent, post)
        sent = _sent_elsewhere(client, request)
        if sent is not None:
            return sent, SentBefore.of(sent.id, request.sent_fields(), sent)
        ledger.pending(service, [(request, source)])
        post, replayed = create_once(client, request, service)
        ledger.created(service, [(fingerprint, post.id)])
    return post, replayed


def _sent_elsewhere(client: Client, request: PostRequest) -> Post | None:
    """The oldest post carrying `request`'s origin tag (one listing by tag), if any."""
    try:
        found = list(client.posts.list(tag=request.origin_tag))
    except PermissionDeniedError:
        return None  # a key that may not read posts: the ledger and idempotency key remain
    return min(found, key=lambda post: (post.created_at or _EARLIEST, post.id), default=None)


def read_post(client: Client, post_id: str) -> Post | None:
    """The post as it is now; None when it was deleted or this key cannot see it."""
    try:
        return client.posts.retrieve(post_id)
    except NotFoundError:
        return None


def _outcome(
    row: PlanRow,
    status: str,
    *,
    error: str | None = None,
    post_id: str | None = None,
    post_status: str | None = None,
    post: Post | None = None,
    note: str | None = None,
) -> RowResult:
    return RowResult(
        row.number,
        status,
        request=row.request,
        post_id=post_id,
        post_status=post_status,
        error=error,
        title=row.title,
        channel=row.channel,
        note=note,
        post=post,
    )


class _Progress:
    def __init__(self, progress: bool | ProgressCallback | None, total: int) -> None:
        self.total = total
        self.done = 0
        self.callback = progress if callable(progress) else None
        self.bar: Any = None
        if progress is None:  # auto: a bar where someone sees it, quiet in scripts
            progress = progress_visible()
        if progress is True and total:
            from tqdm.auto import tqdm

            self.bar = tqdm(total=total, desc="Scheduling posts", unit="post")

    def __call__(self, step: int) -> None:
        self.done += step
        if self.bar is not None:
            self.bar.update(step)
        if self.callback is not None:
            self.callback(self.done, self.total)

    def close(self, results: Mapping[int, RowResult]) -> None:
        if self.bar is not None:
            self.bar.close()
            counts = Counter(result.status for result in results.values())
            told = ", ".join(f"{n} {status.replace('_', ' ')}" for status, n in counts.items())
            print(f"{self.total} posts to send: {told or 'none sent'}", file=sys.stderr)


def write_scope_problem(client: Client) -> str | None:
    """Why `client`'s key may not create posts, or None when it may (or nothing says).

    No endpoint tells a key's scopes (the spec and decisions.md define none), so an empty
    create is the probe: it is invalid, so it can never create a post, and a service answers
    403 to a key without posts:write (the local service checks the scope first, as
    decisions.md orders it) and 400 to any other.
    """
    try:
        client.request("POST", "/posts", json={})
    except PermissionDeniedError:
        return (
            "this API key lacks the posts:write scope, so it may not create or change posts: "
            "use a key with posts:write (in the demo: writer or admin)"
        )
    except ChannelkitError:
        return None  # 400 for the empty body: the key may write
    return None
