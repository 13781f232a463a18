"""The API key never shows: not in reprs, exceptions, tracebacks or log lines."""

from __future__ import annotations

import logging
import traceback
from collections.abc import Iterator

import httpx
import pytest

import channelkit as ck
from channelkit.service import LocalService
from client.conftest import MakeApi


@pytest.fixture
def debug_logging(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("CHANNELKIT_LOG", "debug")
    logger = logging.getLogger("channelkit")
    handlers, level = list(logger.handlers), logger.level
    yield
    logger.handlers[:] = handlers
    logger.setLevel(level)


def test_key_absent_from_repr_errors_tracebacks_and_logs(
    service: LocalService,
    admin_key: str,
    make_api: MakeApi,
    debug_logging: None,
    caplog: pytest.LogCaptureFixture,
    capfd: pytest.CaptureFixture[str],
) -> None:
    caplog.set_level(logging.DEBUG)  # httpx and httpcore too
    api = make_api(service, admin_key)
    client = api.client
    channel = api(lambda c: c.channels.create(name="Secrets"))
    api(lambda c: c.posts.create(channel_id=channel.id, title="t", body="b"))
    texts = [repr(client), repr(vars(client)), repr(vars(client._core))]
    other = make_api(service, admin_key + "x")
    for bad_call in (
        lambda: api(lambda c: c.posts.retrieve("post_missing")),
        lambda: api(lambda c: c.posts.create(channel_id="chan_missing", title="t", body="b")),
        lambda: other.first_page(lambda c: c.channels.list()),
    ):
        with pytest.raises(ck.APIError) as info:
            bad_call()
        texts.append("".join(traceback.format_exception(info.value)))
        texts.append(repr(info.value.request))
    assert "-> 404" in caplog.text and "rate limit" in caplog.text
    err = capfd.readouterr().err
    assert "channelkit.client DEBUG POST" in err  # CHANNELKIT_LOG=debug reaches stderr
    texts += [caplog.text, err]
    assert all(admin_key not in text for text in texts)


def test_key_absent_from_connection_errors(debug_logging: None) -> None:
    key = "ck_connection_secret_123"

    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError(f"refused {request!r} {request.headers!r}", request=request)

    client = ck.Client("http://127.0.0.1:9/v1", key, transport=httpx.MockTransport(handler))
    with pytest.raises(ck.APIConnectionError) as info:
        client.posts.retrieve("post_1", max_retries=0)
    text = "".join(traceback.format_exception(info.value))
    assert "refused" in text and key not in text
    assert info.value.__cause__ is None and info.value.__suppress_context__


def test_bad_key_is_refused_without_echoing_it() -> None:
    with pytest.raises(ck.ChannelkitError) as info:
        ck.Client("http://127.0.0.1:9/v1", "ck_secret\nInjected: yes")
    assert "secret" not in str(info.value)


def test_password_in_the_base_url_never_shows(
    service: LocalService, admin_key: str, debug_logging: None, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    secret_url = service.base_url.replace("http://", "http://ann:pa55w0rd@")
    client = ck.Client(secret_url, admin_key)
    assert client.base_url == service.base_url.replace("http://", "http://<redacted>@")
    client.channels.list().first_page()  # the URL still works
    texts = [repr(client), str(client.base_url), caplog.text]
    with pytest.raises(ck.NotFoundError) as info:
        client.posts.retrieve("post_missing")
    texts += ["".join(traceback.format_exception(info.value)), repr(info.value.request)]
    refused = ck.Client("http://ann:pa55w0rd@127.0.0.1:9/v1", admin_key, max_retries=0)
    with pytest.raises(ck.APIConnectionError) as down:
        refused.posts.retrieve("post_1")
    texts.append("".join(traceback.format_exception(down.value)))
    with pytest.raises(ck.InvalidParameterError) as bad:
        ck.Client("http://ann:pa55w0rd@127.0.0.1:9/api", admin_key)
    texts.append(str(bad.value))
    assert "<redacted>@" in texts[0] and "<redacted>@" in texts[-1]
    assert all("pa55w0rd" not in text and "ann:" not in text for text in texts)
    client.close()
    refused.close()
