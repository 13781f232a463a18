"""Fields the contract does not name are kept: against a real server that adds some (the
local service behind a small proxy that puts extra fields into every item it returns),
they reach the warehouse, the DataFrames and the lake, and the run record names them;
a field that disappears leaves missing values, one that changes type is reported."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

import channelkit as ck
from channelkit.client import Client
from channelkit.service import LocalService
from channelkit.storage.connection import open_warehouse
from channelkit.storage.lake import open_lake

pytest.importorskip("deltalake", reason="the lake needs channelkit[lake]")

DAY = 86_400.0
Extra = dict[str, Callable[[dict[str, Any]], Any]]
_HOP = {"content-length", "content-encoding", "transfer-encoding", "connection"}


class AddingProxy:
    """Forwards to `upstream` and adds `extra[path]`'s fields to every item it returns."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.extra: dict[str, Extra] = {}
        self.http = httpx.AsyncClient(base_url=upstream)

    async def forward(self, request: Request) -> Response:
        path = request.url.path.removeprefix("/v1")
        answer = await self.http.request(
            request.method,
            request.url.path,
            params=request.query_params,
            headers={k: v for k, v in request.headers.items() if k.lower() != "host"},
        )
        body = answer.content
        listing = "/posts" if path.startswith("/posts/") else path
        extra = self.extra.get(listing)
        if extra and answer.status_code == 200:
            payload = orjson.loads(body)
            items = payload["data"] if "data" in payload else [payload]
            for item in items:
                item.update({name: make(item) for name, make in extra.items()})
            body = orjson.dumps(payload)
        headers = {k: v for k, v in answer.headers.items() if k.lower() not in _HOP}
        return Response(body, answer.status_code, headers=headers)


@pytest.fixture
def proxied(tmp_path: Path) -> Iterator[tuple[AddingProxy, str, LocalService]]:
    with LocalService(admin=True, rate_window=1.0) as svc:
        proxy = AddingProxy(svc.base_url.removesuffix("/v1"))
        app = Starlette(routes=[Route("/{path:path}", proxy.forward, methods=["GET"])])
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.bind(("127.0.0.1", 0))
        server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        while not server.started:
            threading.Event().wait(0.01)
        try:
            yield proxy, f"http://127.0.0.1:{sock.getsockname()[1]}/v1", svc
        finally:
            server.should_exit = True
            thread.join(timeout=5)


def test_fields_the_contract_does_not_name_are_kept_named_and_reported(
    proxied: tuple[AddingProxy, str, LocalService], tmp_path: Path
) -> None:
    proxy, url, svc = proxied
    db, lake = tmp_path / "wh.duckdb", tmp_path / "lake"
    key = svc.create_key(user="admin", team="comms", plan="enterprise")
    with Client(base_url=svc.base_url, api_key=key) as writer:
        channel = writer.channels.create(name="News").id
        for day in range(3):
            writer.posts.create(channel_id=channel, title="Post" + "!" * day, body="b")
            svc.advance_clock(DAY)
    proxy.extra = {
        "/posts": {
            "read_time_seconds": lambda item: 10 * len(item["title"]),
            "department": lambda item: "comms",
            "reviewers": lambda item: [{"name": "Ana"}],
        },
        "/channels": {"owner_team": lambda item: "platform"},
        "/analytics/posts": {"impressions": lambda item: item["views"] * 3},
        "/analytics/channels": {"impressions": lambda item: 7},
    }
    with Client(base_url=url, api_key=key) as client:
        wh = ck.sync(client, db, lake=lake, progress=False)

        posts = wh.posts()
        assert sorted(posts["read_time_seconds"]) == [40, 50, 60]
        assert set(posts["department"]) == {"comms"}
        assert set(posts["reviewers"]) == {'[{"name":"Ana"}]'}
        assert list(wh.channels()["owner_team"]) == ["platform"]
        con = open_warehouse(db, read_only=True)
        try:
            daily = con.execute(
                "SELECT bool_and(impressions = views * 3), count(*) FROM post_daily"
            ).fetchall()
            channel_daily = con.execute("SELECT DISTINCT impressions FROM channel_daily")
            assert channel_daily.fetchall() == [(7,)]
        finally:
            con.close()
        assert daily[0] == (True, daily[0][1]) and daily[0][1] > 0
        copy = open_lake(lake)
        try:
            lake_posts = copy.execute("SELECT read_time_seconds, department FROM posts")
            assert sorted(lake_posts.fetchall()) == [(40, "comms"), (50, "comms"), (60, "comms")]
            assert copy.execute("SELECT DISTINCT impressions FROM channel_daily").fetchall() == [
                (7,)
            ]
        finally:
            copy.close()
        record = wh.runs().iloc[-1]
        assert record["unknown_fields"] == {
            "channels": {"owner_team": "VARCHAR"},
            "posts": {
                "department": "VARCHAR",
                "read_time_seconds": "BIGINT",
                "reviewers": "VARCHAR",
            },
            "post_daily": {"impressions": "BIGINT"},
            "channel_daily": {"impressions": "BIGINT"},
        }
        assert record["notes"] == []

        # The department disappears; the reading time turns to text.
        proxy.extra["/posts"] = {"read_time_seconds": lambda item: "about a minute"}
        again = ck.sync(client, db, lake=lake, full=True, progress=False)
        assert again.sync_report.completed
        posts = again.posts()
        assert posts["department"].isna().all()
        assert posts["read_time_seconds"].isna().all()
        notes = again.runs().iloc[-1]["notes"]
        assert notes == [
            "posts.read_time_seconds arrived as VARCHAR, kept as BIGINT: values that do not "
            "fit are left empty"
        ]
