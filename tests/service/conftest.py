"""Helpers for the service's tests: httpx clients bound to a running LocalService."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import httpx
import pytest

from channelkit.service import LocalService

ClientFactory = Callable[..., httpx.Client]


@pytest.fixture
def client_for() -> Iterator[ClientFactory]:
    """`client_for(service, key=None)`: an httpx client on the service's base URL."""
    clients: list[httpx.Client] = []

    def make(service: LocalService, key: str | None = None) -> httpx.Client:
        headers = {} if key is None else {"Authorization": f"Bearer {key}"}
        client = httpx.Client(base_url=service.base_url, headers=headers, timeout=10)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()


@pytest.fixture
def api(service: LocalService, admin_key: str, client_for: ClientFactory) -> httpx.Client:
    """A client on the fresh `service` with the all-scopes enterprise `admin_key`."""
    return client_for(service, admin_key)


@pytest.fixture
def channel_id(api: httpx.Client) -> str:
    response = api.post("/channels", json={"name": "General"})
    assert response.status_code == 201, response.text
    return str(response.json()["id"])


ErrorOf = Callable[[httpx.Response], tuple[int, str, str | None]]


@pytest.fixture
def error_of() -> ErrorOf:
    """`error_of(response)`: (status, error.code, error.param), checking the body's shape."""
    return _error_of


def _error_of(response: httpx.Response) -> tuple[int, str, str | None]:
    body = response.json()
    assert set(body) == {"error"}, body
    assert set(body["error"]) == {"code", "message", "param"}, body
    assert body["error"]["message"], body
    return response.status_code, body["error"]["code"], body["error"]["param"]
