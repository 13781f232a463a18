"""Exactly-once creates and complete walks through a service that fails ~10% of requests."""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import channelkit as ck
from channelkit.client import WaitEvent
from channelkit.service import LocalService
from client.conftest import MakeApi

# ~11% of requests fail: errors, hang-ups, cut bodies, creates whose answer is lost.
FAULTS = "500=0.03,503=0.01,slow=0.01,drop=0.02,truncate=0.02,lost_create=0.03"


def faulty_service(service_factory: Callable[..., LocalService], seed: int) -> LocalService:
    return service_factory(admin=True, faults=FAULTS, fault_seed=seed, rate_window=2.0)


def test_n_creates_make_exactly_n_posts(
    service_factory: Callable[..., LocalService], make_api: MakeApi
) -> None:
    service = faulty_service(service_factory, seed=11)
    key = service.create_key(user="admin", team="comms", plan="enterprise")
    api = make_api(service, key, max_retries=10)
    channel = api(lambda c: c.channels.create(name="Faulty"))
    n = 80
    created = [
        api(lambda c, i=i: c.posts.create(channel_id=channel.id, title=f"post {i}", body="b")).id
        for i in range(n)
    ]
    assert len(set(created)) == n
    listed = Counter(p.id for p in api.all(lambda c: c.posts.list(channel_id=channel.id, limit=9)))
    assert listed == Counter(created)
    assert api.client.stats.retries >= 5  # the faults did happen, and were absorbed
    assert api.client.stats.responses_429 == 0


def test_a_service_restart_is_waited_out(tmp_path: Path, make_api: MakeApi) -> None:
    """Refused connections are retried within connection_retry_budget, the wait reported."""
    db = str(tmp_path / "service.db")
    first = LocalService(db=db).start()
    key, port = first.create_key(user="admin", plan="enterprise"), first.port
    events: list[WaitEvent] = []
    api = make_api(first, key, on_wait=events.append, connection_retry_budget=30)
    first.stop()  # down: connections are refused until the restart below
    restarted: list[LocalService] = []
    timer = threading.Timer(2.0, lambda: restarted.append(LocalService(db=db, port=port).start()))
    timer.start()
    try:
        channel = api(lambda c: c.channels.create(name="After the restart"))
        assert api(lambda c: c.channels.retrieve(channel.id)).name == "After the restart"
    finally:
        timer.join()
        for service in restarted:
            service.stop()
    waits = [e for e in events if e.reason == "connection"]
    assert waits and sum(e.seconds for e in waits) >= 1.0


def test_concurrent_async_creates_make_exactly_n_posts(
    service_factory: Callable[..., LocalService],
) -> None:
    service = faulty_service(service_factory, seed=12)
    key = service.create_key(user="admin", team="comms", plan="enterprise")
    n = 60

    async def main() -> tuple[list[str], list[str], ck.client.ClientStats]:
        async with ck.AsyncClient(service.base_url, key, max_retries=10) as client:
            channel = await client.channels.create(name="Faulty async")
            posts = await asyncio.gather(
                *(
                    client.posts.create(channel_id=channel.id, title=f"{i}", body="b")
                    for i in range(n)
                )
            )
            listed = [p.id async for p in client.posts.list(channel_id=channel.id, limit=9)]
            return [p.id for p in posts], listed, client.stats

    created, listed, stats = asyncio.run(main())
    assert len(set(created)) == n
    assert Counter(listed) == Counter(created)
    assert stats.retries >= 3 and stats.responses_429 == 0
