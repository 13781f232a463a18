"""`LocalService`: the service running in a background thread, for tests and notebooks."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import threading
from datetime import UTC, datetime
from types import TracebackType

import uvicorn

from channelkit._constants import (
    SERVICE_HOST,
    SERVICE_KEY_PLAN_DEFAULT,
    SERVICE_KEY_TEAM_DEFAULT,
    SERVICE_KEY_USER_DEFAULT,
    SERVICE_START_TIMEOUT_SECONDS,
)
from channelkit._spec import RATE_WINDOW_SECONDS, SCOPES
from channelkit.errors import ServiceError
from channelkit.service import workspace
from channelkit.service.app import Settings, create_app
from channelkit.service.db import Database
from channelkit.service.faults import QuietHangUps, parse_faults
from channelkit.service.protocol import GuardedHttpProtocol
from channelkit.service.seeds import SEEDS


class _Server(uvicorn.Server):
    """uvicorn's server, woken at once by `stop` instead of at its next 0.1 s poll."""

    _wake: asyncio.Event | None = None
    _loop: asyncio.AbstractEventLoop | None = None

    async def main_loop(self) -> None:
        self._wake, self._loop = asyncio.Event(), asyncio.get_running_loop()
        counter = 0
        while not await self.on_tick(counter):
            counter = (counter + 1) % 864_000
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), 0.1)

    def stop(self) -> None:
        self.should_exit = True
        if self._loop is not None and self._wake is not None:
            with contextlib.suppress(RuntimeError):  # the loop has already closed
                self._loop.call_soon_threadsafe(self._wake.set)


class LocalService:
    """The Publishing and Channel Service, served by uvicorn from a background thread.

        with LocalService(seed="demo") as svc:
            key = svc.demo_keys["analyst"]
            httpx.get(f"{svc.base_url}/posts", headers={"Authorization": f"Bearer {key}"})

    `port=0` picks a free port. `faults` takes the `--faults` syntax of `channelkit serve`
    (see docs/api.md), e.g. `"503=0.1,drop=0.05"`, made reproducible by `fault_seed`.
    The service clock can be moved forward with `advance_clock` (over HTTP too, at
    `POST /v1/admin/clock`, when `admin=True`).
    """

    def __init__(
        self,
        db: str = ":memory:",
        seed: str | None = None,
        rate_window: float = RATE_WINDOW_SECONDS,
        faults: str | None = None,
        fault_seed: int = 0,
        admin: bool = False,
        host: str = SERVICE_HOST,
        port: int = 0,
    ) -> None:
        if rate_window <= 0:
            raise ValueError(f"rate_window must be positive, got {rate_window}")
        if seed is not None and seed not in SEEDS:
            raise ValueError(f"unknown seed {seed!r}; the seeds are {', '.join(SEEDS)}")
        self.db_path = db
        self.seed = seed
        self.settings = Settings(
            rate_window=rate_window,
            admin=admin,
            faults=parse_faults(faults or ""),
            fault_seed=fault_seed,
        )
        self.host = host
        self.port = port
        self.demo_keys: dict[str, str] = {}
        self._db: Database | None = None
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    def __repr__(self) -> str:
        state = "running" if self._server is not None else "stopped"
        return f"<LocalService {self.host}:{self.port} db={self.db_path!r} {state}>"

    @property
    def base_url(self) -> str:
        if self._server is None:
            raise ServiceError("the service is not running; call start() first")
        return f"http://{self.host}:{self.port}/v1"

    def start(self) -> LocalService:
        if self._server is not None:
            return self
        db = Database.open(self.db_path)
        if self.seed is not None:
            try:
                with db.transaction() as con:
                    self.demo_keys = SEEDS[self.seed](con, db.now())
            except ValueError as exc:
                db.close()
                raise ServiceError(f"{self.db_path}: {exc}") from None
        try:
            # proto must be IPPROTO_TCP: asyncio sets TCP_NODELAY on accepted connections
            # only then, and without it keep-alive requests stall ~40 ms on delayed ACKs
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((self.host, self.port))
        except OSError as exc:
            db.close()
            raise ServiceError(f"cannot listen on {self.host}:{self.port}: {exc}") from None
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(
            create_app(db, self.settings),
            log_level="warning",
            access_log=False,
            lifespan="off",
            date_header=False,  # the service sends its own, from its (movable) clock
            http=GuardedHttpProtocol,
        )
        if self.settings.faults:
            logging.getLogger("uvicorn.error").addFilter(QuietHangUps())
        server = _Server(config)
        thread = threading.Thread(
            target=server.run, kwargs={"sockets": [sock]}, name="channelkit-service", daemon=True
        )
        thread.start()
        deadline = threading.Event()
        for _ in range(int(SERVICE_START_TIMEOUT_SECONDS / 0.01)):
            if server.started or not thread.is_alive():
                break
            deadline.wait(0.01)
        if not server.started:
            server.should_exit = True
            thread.join(timeout=5)
            sock.close()
            db.close()
            raise ServiceError(f"the service did not start on {self.host}:{self.port}")
        self._db, self._server, self._thread = db, server, thread
        return self

    def stop(self) -> None:
        if self._server is None:
            return
        self._server.stop()
        if self._thread is not None:
            self._thread.join(timeout=10)
        if self._db is not None:
            self._db.close()
        self._db, self._server, self._thread = None, None, None

    def wait(self) -> None:
        """Block until the service stops (Ctrl-C in the calling thread interrupts)."""
        while self._thread is not None and self._thread.is_alive():
            self._thread.join(timeout=0.5)

    def __enter__(self) -> LocalService:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def create_key(
        self,
        user: str = SERVICE_KEY_USER_DEFAULT,
        team: str | None = SERVICE_KEY_TEAM_DEFAULT,
        scopes: tuple[str, ...] | list[str] = SCOPES,
        plan: str = SERVICE_KEY_PLAN_DEFAULT,
    ) -> str:
        """A new API key for `user` (created, with `team`, if new). Shown only here."""
        db = self._running()
        with db.transaction() as con:
            return workspace.create_key(
                con, user=user, team=team, scopes=tuple(scopes), plan=plan, now=db.now()
            )

    def revoke_key(self, key: str) -> None:
        db = self._running()
        with db.transaction() as con:
            workspace.revoke_key(con, key, db.now())

    def advance_clock(self, seconds: float) -> None:
        """Move the service's clock forward (it never goes back)."""
        if seconds < 0:
            raise ValueError(f"the clock only moves forward; got {seconds} seconds")
        self._running().advance_clock(seconds)

    def now(self) -> datetime:
        return datetime.fromtimestamp(self._running().now(), UTC)

    def _running(self) -> Database:
        if self._db is None:
            raise ServiceError("the service is not running; call start() first")
        return self._db
