"""Opaque, tamper-evident keyset cursors.

A cursor carries the position after the last item served plus a digest of the query it was
issued for, signed with the workspace's secret: a cursor that was edited, truncated, or
replayed against another listing is refused with 400 rather than silently misread.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
from collections.abc import Mapping

from channelkit._constants import SERVICE_CURSOR_MAC_BYTES
from channelkit._spec import CURSOR_MAX_CHARS
from channelkit.errors import ServiceHTTPError

Position = list[int]


class CursorCodec:
    """Signs and checks cursors for one workspace secret.

    codec = CursorCodec(b"secret")
    token = codec.encode("posts", {"tag": "ops"}, [1234])
    codec.decode(token, "posts", {"tag": "ops"})  # -> [1234]
    """

    def __init__(self, secret: bytes) -> None:
        self._secret = secret

    def encode(self, listing: str, query: Mapping[str, object], position: Position) -> str:
        payload = json.dumps([listing, _query_digest(query), position], separators=(",", ":"))
        raw = payload.encode()
        return _b64(raw) + "." + _b64(self._mac(raw))

    def decode(self, token: str, listing: str, query: Mapping[str, object]) -> Position:
        if len(token) > CURSOR_MAX_CHARS or token.count(".") != 1:
            raise ServiceHTTPError.bad_request(
                "cursor", "malformed cursor; pass next_cursor back unchanged"
            )
        body, mac = token.split(".")
        try:
            raw = _unb64(body)
            given = _unb64(mac)
        except (binascii.Error, ValueError):
            raise ServiceHTTPError.bad_request(
                "cursor", "malformed cursor; pass next_cursor back unchanged"
            ) from None
        if not hmac.compare_digest(given, self._mac(raw)):
            raise ServiceHTTPError.bad_request(
                "cursor", "cursor was altered or comes from another service"
            )
        issued_listing, digest, position = json.loads(raw)
        if issued_listing != listing or digest != _query_digest(query):
            raise ServiceHTTPError.bad_request(
                "cursor",
                "cursor was issued for a different listing or different filters; "
                "repeat the filters of the first page",
            )
        return [int(part) for part in position]

    def _mac(self, raw: bytes) -> bytes:
        return hmac.new(self._secret, raw, hashlib.sha256).digest()[:SERVICE_CURSOR_MAC_BYTES]


def _query_digest(query: Mapping[str, object]) -> str:
    canonical = json.dumps(sorted(query.items()), separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    if not text:
        raise ValueError("empty")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
