"""The httpx client of the Publishing and Channel Service: `Client` and `AsyncClient`.

import channelkit as ck

with ck.Client() as client:                    # CHANNELKIT_BASE_URL, CHANNELKIT_API_KEY
    for post in client.posts.list(tag="hr"):   # every page, paced by the rate limit
        print(post.title)
"""

from __future__ import annotations

from channelkit._urls import redact_url
from channelkit.client._async_client import AsyncClient, AsyncPaginator
from channelkit.client._base import ClientStats, RateLimit, WaitEvent
from channelkit.client._client import Client, Paginator
from channelkit.client._pacing import WaitReason
from channelkit.client._pagination import RawPage
from channelkit.client._params import NOT_GIVEN, NotGiven
from channelkit.client.models import (
    Author,
    Channel,
    ChannelAnalyticsRow,
    Page,
    Post,
    PostAnalyticsRow,
)

__all__ = [
    "AsyncClient",
    "AsyncPaginator",
    "Author",
    "Channel",
    "ChannelAnalyticsRow",
    "Client",
    "ClientStats",
    "NOT_GIVEN",
    "NotGiven",
    "Page",
    "Paginator",
    "Post",
    "PostAnalyticsRow",
    "RateLimit",
    "RawPage",
    "WaitEvent",
    "WaitReason",
    "redact_url",
]
