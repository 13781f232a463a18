"""Exactly-once creates and complete walks through a service that fails ~10% of requests."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable

import channelkit as ck
from channelkit.service import LocalService

# ~11% of requests fail: errors, hang-ups, cut bodies, creates whose answer is lost.
FAULTS = "500=0.03,503=0.01,slow=0.01,drop=0.02,truncate=0.02,lost_create=0.03"


def faulty_service(service_factory: Callable[..., LocalService], seed: int) -> LocalService:
    return service_factory(admin=True, faults=FAULTS, fault_seed=seed, rate_window=2.0)


def test_n_creates_make_exactly_n_posts(
    service_factory: Callable[..., LocalService], make_client: Callable[..., ck.Client]
) -> None:
    service = faulty_service(service_factory, seed=11)
    key = service.create_key(user="admin", team="comms", plan="enterprise")
    client = make_client(service, key, max_retries=10)
    channel = client.channels.create(name="Faulty")
    n = 80
    created = [
        client.posts.create(channel_id=channel.id, title=f"post {i}", body="b").id for i in range(n)
    ]
    assert len(set(created)) == n
    listed = Counter(p.id for p in client.posts.list(channel_id=channel.id, limit=9))
    assert listed == Counter(created)
    assert client.stats.retries >= 5  # the faults did happen, and were absorbed
    assert client.stats.responses_429 == 0


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
