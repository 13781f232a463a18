"""Showing a URL without its secrets. Pure; depends on nothing but the standard library.

A base URL may carry a user and password (`https://user:pass@host/v1`, for a proxy or a
gateway). Like the API key, they never appear in a repr, an exception, a log line, a
summary or a database: everything that shows a URL shows `redact_url(url)`.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit

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
