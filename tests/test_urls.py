"""A password in a URL never shows: `redact_url` and `redact_urls_in`."""

from __future__ import annotations

import pytest

from channelkit._urls import redact_url, redact_urls_in


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("https://ann:s3cret@api.example.com/v1", "https://<redacted>@api.example.com/v1"),
        ("https://token@api.example.com:8443/v1", "https://<redacted>@api.example.com:8443/v1"),
        ("https://api.example.com/v1?x=a@b", "https://api.example.com/v1?x=a@b"),
        ("http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1"),
        (
            "see http://a:b@h/v1 and https://c@d/",
            "see http://<redacted>@h/v1 and https://<redacted>@d/",
        ),
    ],
)
def test_redact_url(url: str, shown: str) -> None:
    assert redact_url(url) == shown


def test_urls_inside_a_message_are_redacted() -> None:
    text = "cannot reach https://ann:pw@api.example.com/v1/posts (refused)"
    assert (
        redact_urls_in(text) == "cannot reach https://<redacted>@api.example.com/v1/posts (refused)"
    )
