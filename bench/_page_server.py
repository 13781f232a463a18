"""A fast, synthetic, read-only page server for the sync benchmarks.

It speaks just enough of the service's interface for a posts + channels sync: `GET
/v1/posts` (with `limit`, `cursor`, `published_after`, `published_before`) and `GET
/v1/channels`, page
envelopes, generous rate-limit headers. Pages are rendered on the fly from a template
(no per-request JSON library work), so the server costs little next to the client that
decodes them: the benchmarks then measure the sync, not the local service's SQLite.

    python bench/_page_server.py --port 8765 --posts 100000 [--changed 100 --new 100]

`--changed N` bumps the views of the N most recent posts; `--new N` appends N posts
published after the others (a second "state" of the same workspace). Post ids have the
service's shape, `post_` and 16 hex digits (src/channelkit/service/workspace.py), in no
order: opaque strings, as docs/api.md says ids are, so no bench gains from ids that
follow the order posts are made.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import hashlib
import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

BASE = datetime(2024, 11, 21, tzinfo=UTC)
STEP_SECONDS = 600  # one post every ten minutes: 100k posts span ~2 years
CHANNELS = 10
BODY = ("Team update: the rollout continues as planned. " * 6).strip()
PRIORITIES = ("normal", "normal", "high", "urgent")


def iso(seconds: int) -> str:
    return (BASE + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")


def post_id(i: int) -> str:
    """The `i`th post's id: the same in both states of a workspace, unrelated to `i`'s order."""
    return "post_" + hashlib.blake2b(i.to_bytes(8, "big"), digest_size=8).hexdigest()


class Workspace:
    def __init__(self, posts: int, changed: int, new: int) -> None:
        self.total = posts + new
        self.changed_from = posts - changed
        self.published = [i * STEP_SECONDS for i in range(self.total)]
        self.ids = [post_id(i) for i in range(self.total)]

    def post(self, i: int) -> str:
        at = iso(self.published[i])
        views = i % 997 + (5 if i >= self.changed_from else 0)
        return (
            f'{{"id":"{self.ids[i]}","channel_id":"chan_{i % CHANNELS}",'
            f'"title":"Post number {i} about the quarterly plan","body":"{BODY} #{i}",'
            f'"priority":"{PRIORITIES[i % 4]}","tags":["tag{i % 7}","team{i % 3}"],'
            f'"author":{{"id":"user_{i % 50}","name":"User {i % 50}",'
            f'"email":"user{i % 50}@example.com"}},"status":"published",'
            f'"published_at":"{at}","scheduled_at":null,"cover_image_url":null,'
            f'"views":{views},"created_at":"{at}","updated_at":"{at}"}}'
        )

    def channel(self, c: int) -> str:
        return json.dumps(
            {
                "id": f"chan_{c}",
                "name": f"Channel {c}",
                "slug": f"channel-{c}",
                "description": "Bench channel",
                "visibility": "organization",
                "subscriber_count": 100 + c,
                "post_count": self.total // CHANNELS,
                "is_default": c == 0,
                "is_archived": False,
                "created_at": iso(0),
                "updated_at": iso(0),
            }
        )

    def page(self, path: str, query: dict[str, list[str]]) -> bytes | None:
        limit = int(query.get("limit", ["20"])[0])
        start = int(query["cursor"][0][1:]) if "cursor" in query else 0
        if path == "/v1/channels":
            items = [self.channel(c) for c in range(start, min(start + limit, CHANNELS))]
            end, total = start + len(items), CHANNELS
        elif path == "/v1/posts":
            # Both filters are strict; the cursor is the next index, so they bound a range.
            total = self.total
            if "published_before" in query:
                before = datetime.fromisoformat(query["published_before"][0])
                total = bisect.bisect_left(self.published, int((before - BASE).total_seconds()))
            if "cursor" not in query and "published_after" in query:
                after = datetime.fromisoformat(query["published_after"][0])
                seconds = int((after - BASE).total_seconds())
                start = bisect.bisect_right(self.published, seconds)
            end = min(start + limit, total)
            items = [self.post(i) for i in range(start, end)]
        else:
            return None
        more = end < total
        cursor = f'"c{end}"' if more else "null"
        body = (
            f'{{"data":[{",".join(items)}],"next_cursor":{cursor},"has_more":{str(more).lower()}}}'
        )
        return body.encode()


async def handle(ws: Workspace, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            target = head.split(b" ", 2)[1].decode()
            url = urlsplit(target)
            body = ws.page(url.path, parse_qs(url.query))
            status = b"200 OK" if body is not None else b"404 Not Found"
            if body is None:
                body = b'{"error":{"code":"not_found","message":"no such endpoint","param":null}}'
            reset = int(time.time()) + 60
            writer.write(
                b"HTTP/1.1 " + status + b"\r\ncontent-type: application/json\r\n"
                b"x-ratelimit-limit: 1000000\r\nx-ratelimit-remaining: 999999\r\n"
                + f"x-ratelimit-reset: {reset}\r\ncontent-length: {len(body)}\r\n\r\n".encode()
                + body
            )
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionResetError):
        pass
    finally:
        writer.close()


async def serve(port: int, ws: Workspace) -> None:
    server = await asyncio.start_server(lambda r, w: handle(ws, r, w), "127.0.0.1", port)
    print("ready", flush=True)
    async with server:
        await server.serve_forever()


@contextmanager
def running(posts: int, *, changed: int = 0, new: int = 0) -> Iterator[str]:
    """Start the server in its own process (so it does not share our GIL); yield base_url."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    command = [sys.executable, str(Path(__file__)), "--port", str(port), "--posts", str(posts)]
    command += ["--changed", str(changed), "--new", str(new)]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        proc.terminate()
        proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--posts", type=int, required=True)
    parser.add_argument("--changed", type=int, default=0)
    parser.add_argument("--new", type=int, default=0)
    args = parser.parse_args()
    asyncio.run(serve(args.port, Workspace(args.posts, args.changed, args.new)))


if __name__ == "__main__":
    main()
