"""Addresses as they may be shown or stored: never with a password in them."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit


def redact_url(url: str) -> str:
    """`url` with its userinfo replaced (`https://u:p@host/v1` -> `https://***@host/v1`).

    For base URLs written to `sync_runs`, summaries and messages, and lake locations.
    """
    try:
        parts = urlsplit(url)
        if "@" not in parts.netloc:
            return url
        host = parts.netloc.rsplit("@", 1)[1]
    except ValueError:  # not a URL we can take apart: show nothing of it that could leak
        return "***" if "@" in url else url
    return urlunsplit(parts._replace(netloc=f"***@{host}"))
