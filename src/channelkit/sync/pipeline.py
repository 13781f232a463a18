"""The sync's pipeline: walking threads fetch, one writing thread writes (dlt's extract).

Each walk runs in its own thread, sharing the client and therefore its rate budget. The
threads only fetch: they put the page bodies of each batch on a small bounded queue
(back-pressure: a walk waits while the writer is behind, so memory stays bounded). The
calling thread takes the messages off the queue and hands them to its `handle`; it is
the only one writing to DuckDB. A failing walk stops the others at their next page.

    pipeline = Pipeline()
    pipeline.run_phase(["posts", "channels"], plan_walk, later, handle)
"""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, TypeVar

import orjson
import pyarrow as pa

from channelkit._constants import SYNC_BATCH_SECONDS, SYNC_QUEUE_BATCHES, SYNC_STOP_GRACE_SECONDS
from channelkit._resources import BY_TABLE
from channelkit.errors import BadRequestError, PermissionDeniedError
from channelkit.storage.writer import Checkpoint, DeletionScope
from channelkit.sync.arrow import TableShape
from channelkit.sync.walk import Walk

_T = TypeVar("_T")


# --- messages from the walking threads to the writing one --------------------------------


@dataclass
class Rows:
    """Rows ready to write, with the checkpoint (and deletions) committed with them."""

    resource: str
    rows: pa.Table | None
    checkpoint: Checkpoint | None
    deletions: DeletionScope | None = None


@dataclass
class Pages:
    """Page bodies of one walk; the writing thread turns them into `Rows`.

    Until the walk ends its checkpoints keep `keep`'s mark and state; `end` gives the
    checkpoint saved after its last batch (`cursor` None).
    """

    walk: Walk
    shape: TableShape
    where: str
    bodies: list[bytes]
    cursor: str | None  # of the next page; None: the walk's last batch
    keep: Checkpoint
    end: Callable[[Walk], Checkpoint]
    pages: int = 0  # fetched for this batch (an empty last page has no body, but counts)


@dataclass
class Gone:
    resource: str
    ids: list[str]


@dataclass
class Skipped:
    resource: str
    reason: str


@dataclass
class Failed:
    resource: str
    error: BaseException


@dataclass
class Finished:
    resource: str


Message = Rows | Pages | Gone | Skipped | Failed | Finished
_DATA = (Rows, Pages, Gone)


class _Stopped(Exception):
    """The run is stopping (another walk failed): this walk ends quietly."""


class Pipeline:
    """The queue between the walking threads and the writing one, and the stop signal."""

    def __init__(self) -> None:
        self.stop = threading.Event()
        self._queue: queue.Queue[Message] = queue.Queue(maxsize=SYNC_QUEUE_BATCHES)

    def run_phase(
        self,
        resources: Iterable[str],
        plan: Callable[[str], Callable[[], None]],
        later: list[Callable[[], None]],
        handle: Callable[[Message], None],
    ) -> None:
        """Walk each resource in its own thread, started as soon as `plan` returns its
        walker (its first requests overlap the planning of the next), while this thread
        runs `later` and then `handle`s every message in order."""
        threads: list[threading.Thread] = []
        active = 0
        try:
            for resource in resources:
                walker = plan(resource)
                thread = threading.Thread(
                    target=self._guard, args=(resource, walker), name=f"sync-{resource}"
                )
                thread.daemon = True
                thread.start()
                threads.append(thread)
                active += 1
            while later:
                later.pop(0)()
            while active:
                try:
                    message = self._queue.get(timeout=0.2)
                except queue.Empty:
                    if not any(thread.is_alive() for thread in threads):
                        break  # a walk that ended without saying so (see _guard)
                    continue
                if isinstance(message, Finished):
                    active -= 1
                elif not self.stop.is_set() or not isinstance(message, _DATA):
                    handle(message)
        finally:
            later.clear()
            if active:  # left early (interrupted): let the walks end at their next page
                self.stop.set()
                deadline = time.monotonic() + SYNC_STOP_GRACE_SECONDS
                while time.monotonic() < deadline and any(t.is_alive() for t in threads):
                    with contextlib.suppress(queue.Empty):
                        self._queue.get(timeout=0.05)  # unblock walks waiting to hand over

    def put(self, message: Message) -> None:
        """Hand `message` to the writing thread, waiting while the queue is full."""
        while True:
            if self.stop.is_set() and isinstance(message, _DATA):
                raise _Stopped
            try:
                self._queue.put(message, timeout=0.1)
                return
            except queue.Full:
                continue

    def check_stop(self) -> None:
        if self.stop.is_set():
            raise _Stopped

    def result(self, planned: Future[_T]) -> _T:
        """What the writing thread planned for a walk (unless the run stops first)."""
        while True:
            try:
                return planned.result(timeout=0.1)
            except TimeoutError:
                self.check_stop()

    def _guard(self, resource: str, walker: Callable[[], None]) -> None:
        try:
            walker()
        except PermissionDeniedError:
            scope = BY_TABLE[base(resource)].scope
            self.put(Skipped(resource, f"the API key lacks the {scope} scope (403 forbidden)"))
        except _Stopped:
            pass
        except BaseException as exc:  # reported to the writing thread, which decides
            self.put(Failed(resource, exc))
        finally:
            # The writing thread may have stopped listening (interrupted): don't hang then.
            while not self.stop.is_set() or not self._queue.full():
                try:
                    self._queue.put(Finished(resource), timeout=0.1)
                    break
                except queue.Full:
                    continue


@dataclass(frozen=True)
class Fetcher:
    """Walks one listing page by page and hands its batches to the pipeline.

    `pages(path, walk)` fetches from `walk.cursor` on; `on_page` counts each page.
    """

    pipeline: Pipeline
    pages: Callable[[str, Walk], Iterator[Any]]
    shapes: dict[str, TableShape]
    batch_rows: int

    def walk(
        self,
        walk: Walk,
        *,
        keep: Checkpoint,
        end: Callable[[Walk], Checkpoint],
        on_page: Callable[[], None] | None = None,
    ) -> None:
        path = BY_TABLE[base(walk.resource)].path
        try:
            self._batches(walk, path, keep, end, on_page)
        except BadRequestError as exc:
            if exc.param != "cursor" or walk.cursor is None:
                raise
            # The saved cursor is no longer accepted (expired on a real server?): the walk
            # starts over; rows already written are simply confirmed again.
            walk.cursor = None
            self._batches(walk, path, keep, end, on_page)

    def _batches(
        self,
        walk: Walk,
        path: str,
        keep: Checkpoint,
        end: Callable[[Walk], Checkpoint],
        on_page: Callable[[], None] | None,
    ) -> None:
        bodies: list[bytes] = []
        count = fetched = 0
        flushed = time.monotonic()
        for page in self.pages(path, walk):
            self.pipeline.check_stop()
            fetched += 1
            if on_page is not None:
                on_page()
            # The page's bytes go to the writing thread, which turns them into columns
            # (pyarrow's JSON reader, outside the GIL): this thread only fetches.
            bodies.append(page.body if page.body is not None else orjson.dumps(page.data))
            count += len(page.data)
            last = not page.has_more or not page.next_cursor
            if not last:
                walk.cursor = page.next_cursor
                if count < self.batch_rows and time.monotonic() - flushed < SYNC_BATCH_SECONDS:
                    continue
            shape = self.shapes[base(walk.resource)]
            cursor = None if last else page.next_cursor
            batch = bodies if count else []
            self.pipeline.put(
                Pages(walk, shape, f"GET {path}", batch, cursor, keep, end, pages=fetched)
            )
            bodies, count, fetched = [], 0, 0
            flushed = time.monotonic()
            if last:
                return


def base(resource: str) -> str:
    """The resource whose table a walk writes (`posts:history` writes `posts`)."""
    return resource.split(":", 1)[0]
