"""Showing a URL without its secrets. Pure; depends on nothing but the standard library.

A base URL may carry a user and password (`https://user:pass@host/v1`, for a proxy or a
gateway). Like the API key, they never appear in a repr, an exception, a log line, a
summary or a database: everything that shows a URL shows `redact_url(url)`. And the base URL
someone meant (`suggest_base_url`), for the command line and the client alike.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit

from channelkit._spec import API_VERSION_SEGMENT

REDACTED = "<redacted>"
# scheme://userinfo@ anywhere in a text, for messages that may quote a URL.
_USERINFO = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)(?P<userinfo>[^/?#@\s]*)@")


def redact_url(url: str) -> str:
    """`url` with its user and password replaced by `<redacted>` (unchanged when it has none).

    >>> redact_url("https://ann:s3cret@api.example.com/v1")
    'https://<redacted>@api.example.com/v1'
    """
    try:
        parts = urlsplit(url)
    except ValueError:
        return redact_urls_in(url)
    if "@" not in parts.netloc:
        return redact_urls_in(url)
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{REDACTED}@{host}"))


def redact_urls_in(text: str) -> str:
    """`text` with the userinfo of every URL in it replaced by `<redacted>`."""
    return _USERINFO.sub(lambda m: f"{m['scheme']}{REDACTED}@", text)


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
