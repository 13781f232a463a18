"""Sending validated rows to the service, a few at a time, each with its own key.

Creates run on a small thread pool: one shared client paces them by the rate-limit headers,
and the pool hides the round-trip time (sequential creates against a remote service are
bound by latency long before the plan's limit). A refused key (401/403) stops the rest;
an interruption cancels what has not started. Progress is reported from the calling thread.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import TYPE_CHECKING, Any

from channelkit._constants import PUBLISH_SUBMIT_WORKERS
from channelkit.errors import AuthenticationError, ChannelkitError, PermissionDeniedError
from channelkit.publish.rows import PlanRow, RowResult

if TYPE_CHECKING:
    from channelkit.client import Client

ProgressCallback = Callable[[int, int], None]


def send_rows(
    client: Client,
    rows: Sequence[PlanRow],
    *,
    progress: bool | ProgressCallback,
    workers: int = PUBLISH_SUBMIT_WORKERS,
) -> dict[int, RowResult]:
    """Create one post per row; the outcome of every row by its number."""
    sender = _Sender(client)
    report = _Progress(progress, len(rows))
    results: dict[int, RowResult] = {}
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="channelkit-submit")
    try:
        pending: set[Future[RowResult]] = {pool.submit(sender.send, row) for row in rows}
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                result = future.result()
                results[result.number] = result
                if result.status != "not_sent":
                    report(1)
    finally:
        # On an interruption, rows not yet started stay unsent (a re-run sends them).
        pool.shutdown(wait=True, cancel_futures=True)
        report.close()
    return results


class _Sender:
    def __init__(self, client: Client) -> None:
        self.client = client
        self.stop_reason: str | None = None
        self._lock = threading.Lock()

    def send(self, row: PlanRow) -> RowResult:
        request = row.request
        assert request is not None  # only valid rows are sent
        if self.stop_reason is not None:
            return _outcome(row, "not_sent", error=self.stop_reason)
        try:
            post = self.client.posts.create(
                **request.to_create_kwargs(), idempotency_key=request.idempotency_key()
            )
        except (AuthenticationError, PermissionDeniedError) as exc:
            with self._lock:
                self.stop_reason = f"not sent: the API key was refused ({exc.message})"
            return _outcome(row, "failed", error=str(exc))
        except ChannelkitError as exc:
            return _outcome(row, "failed", error=str(exc))
        return _outcome(row, "created", post_id=post.id, post_status=post.status)


def _outcome(
    row: PlanRow,
    status: str,
    *,
    error: str | None = None,
    post_id: str | None = None,
    post_status: str | None = None,
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
    )


class _Progress:
    def __init__(self, progress: bool | ProgressCallback, total: int) -> None:
        self.total = total
        self.done = 0
        self.callback = progress if callable(progress) else None
        self.bar: Any = None
        if progress is True and total:
            from tqdm.auto import tqdm

            self.bar = tqdm(total=total, desc="Scheduling posts", unit="post")

    def __call__(self, step: int) -> None:
        self.done += step
        if self.bar is not None:
            self.bar.update(step)
        if self.callback is not None:
            self.callback(self.done, self.total)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
