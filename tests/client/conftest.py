"""Client test fixtures: a module-wide service with posts to walk, and client factories."""

from __future__ import annotations

import asyncio
import inspect
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


class Api:
    """One client, `Client` or `AsyncClient`, driven from a synchronous test.

        api(lambda c: c.posts.create(...))      # the result, awaited when async
        api.all(lambda c: c.posts.list(...))    # every item of a listing
        api.client                              # the client itself, to inspect

    The same test body so runs every operation through both clients.
    """

    def __init__(self, kind: str, base_url: str, key: str, **kwargs: Any) -> None:
        self.kind = kind
        self._runner = asyncio.Runner() if kind == "async" else None
        factory = ck.AsyncClient if kind == "async" else ck.Client
        self.client: Any = factory(base_url, key, **kwargs)

    def __repr__(self) -> str:
        return f"<Api {self.kind}>"

    def __call__(self, call: Callable[[Any], Any]) -> Any:
        result = call(self.client)
        if self._runner is None:
            return result
        assert inspect.iscoroutine(result), f"{call} is not awaitable on the async client"
        return self._runner.run(result)

    def all(self, listing: Callable[[Any], Any]) -> list[Any]:
        items = listing(self.client)
        if self._runner is None:
            return list(items)

        async def collect() -> list[Any]:
            return [item async for item in items]

        return self._runner.run(collect())

    def first_page(self, listing: Callable[[Any], Any]) -> Any:
        return self(lambda client: listing(client).first_page())

    def close(self) -> None:
        if self._runner is None:
            self.client.close()
            return
        self._runner.run(self.client.close())
        self._runner.close()


MakeApi = Callable[..., Api]


@pytest.fixture(params=["sync", "async"])
def make_api(request: pytest.FixtureRequest) -> Iterator[MakeApi]:
    """`make_api(service, key, **client_kwargs)`: an `Api` of the test's kind (both run)."""
    apis: list[Api] = []

    def factory(service: LocalService, key: str, **kwargs: Any) -> Api:
        api = Api(request.param, service.base_url, key, **kwargs)
        apis.append(api)
        return api

    yield factory
    for api in apis:
        api.close()


@pytest.fixture
def api(service: LocalService, admin_key: str, make_api: MakeApi) -> Api:
    """An admin client on a fresh service, once as `Client` and once as `AsyncClient`."""
    return make_api(service, admin_key)
