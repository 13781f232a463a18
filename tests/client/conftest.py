"""Client test fixtures: a module-wide service with posts to walk, and client factories."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

import channelkit as ck
from channelkit.service import LocalService

# Short windows keep rate-limit tests fast; 2 s still spans many requests of a walk.
RATE_WINDOW = 2.0
POSTS_PER_CHANNEL = 150
TAGS = ("hr", "it", "ops")


@dataclass
class Populated:
    """A running service with two channels of posts, and an enterprise (unthrottled) key."""

    service: LocalService
    admin_key: str
    channel_ids: list[str]

    def key(self, plan: str = "starter", scopes: tuple[str, ...] | None = None) -> str:
        kwargs: dict[str, Any] = {"user": "admin", "team": "comms", "plan": plan}
        if scopes is not None:
            kwargs["scopes"] = scopes
        return self.service.create_key(**kwargs)

    def all_ids(self, **filters: Any) -> list[str]:
        with ck.Client(self.service.base_url, self.admin_key) as client:
            return [
                post["id"] for page in client.raw_pages("/posts", filters) for post in page.data
            ]


async def _populate(base_url: str, key: str) -> list[str]:
    async with ck.AsyncClient(base_url, key) as client:
        channels = [await client.channels.create(name=f"Walk {n}") for n in range(2)]
        limit = asyncio.Semaphore(16)

        async def create(channel_id: str, n: int) -> None:
            async with limit:
                await client.posts.create(
                    channel_id=channel_id, title=f"post {n}", body="text", tags=[TAGS[n % 3]]
                )

        await asyncio.gather(*(create(c.id, n) for c in channels for n in range(POSTS_PER_CHANNEL)))
        return [c.id for c in channels]


def exhaust(service: LocalService, key: str) -> None:
    """Spend `key`'s window elsewhere (a 429 proves it) with at least 1 s of it left.

    The local service aligns windows to multiples of the window length.
    """
    if time.time() % RATE_WINDOW > RATE_WINDOW - 1.0:
        time.sleep(RATE_WINDOW - time.time() % RATE_WINDOW + 0.01)
    with httpx.Client(base_url=service.base_url, headers={"Authorization": f"Bearer {key}"}) as raw:
        while raw.get("/channels").status_code != 429:
            pass


@pytest.fixture(scope="module")
def populated() -> Iterator[Populated]:
    with LocalService(admin=True, rate_window=RATE_WINDOW) as service:
        key = service.create_key(user="admin", team="comms", plan="enterprise")
        channel_ids = asyncio.run(_populate(service.base_url, key))
        yield Populated(service, key, channel_ids)


@pytest.fixture
def make_client() -> Iterator[Callable[..., ck.Client]]:
    clients: list[ck.Client] = []

    def factory(service: LocalService, key: str, **kwargs: Any) -> ck.Client:
        client = ck.Client(base_url=service.base_url, api_key=key, **kwargs)
        clients.append(client)
        return client

    yield factory
    for client in clients:
        client.close()
