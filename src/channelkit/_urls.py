"""The base URL someone meant: pure, for the command line and the client alike."""

from __future__ import annotations

import re

from channelkit._spec import API_VERSION_SEGMENT


def suggest_base_url(url: str) -> str | None:
    """The base URL someone probably meant, or None when `url` is fine as it is.

    >>> suggest_base_url("http://127.0.0.1:8000")
    'http://127.0.0.1:8000/v1'
    >>> suggest_base_url("https://api.example.com/v2")
    'https://api.example.com/v1'
    >>> suggest_base_url("http://127.0.0.1:8000/v1/posts")
    'http://127.0.0.1:8000/v1'
    """
    stripped = url.strip().rstrip("/")
    match = re.match(r"^(?P<root>[a-zA-Z][\w+.-]*://[^/]+)(?P<path>/.*)?$", stripped)
    if match is None:
        return None
    root, path = match["root"], match["path"] or ""
    if path.endswith(API_VERSION_SEGMENT):
        return None
    version = re.search(r"/v\d+(?=/|$)", path)
    if version is not None:
        return root + path[: version.start()] + API_VERSION_SEGMENT
    return root + path + API_VERSION_SEGMENT
