"""The TLS context a client hands httpx: shared over https, with no trust store over http."""

from __future__ import annotations

import ssl

import pytest

import channelkit as ck
from channelkit.client._tls import tls_context


def trusted_authorities(context: ssl.SSLContext) -> int:
    return context.cert_store_stats()["x509_ca"]


def test_https_clients_share_one_context_with_the_authorities_loaded() -> None:
    first = ck.Client(base_url="https://example.invalid/v1", api_key="k")
    second = ck.Client(base_url="https://other.invalid/v1", api_key="k")
    try:
        assert first._core.verify is second._core.verify
        assert first._core.verify.verify_mode == ssl.CERT_REQUIRED
        assert first._core.verify.check_hostname
        assert trusted_authorities(first._core.verify) > 0
    finally:
        first.close()
        second.close()


def test_plain_http_loads_no_authority_and_trusts_no_certificate() -> None:
    context = tls_context("http://127.0.0.1:8000/v1")
    assert trusted_authorities(context) == 0
    # Verification stays on: a TLS handshake through it fails, never passes unchecked.
    assert context.verify_mode == ssl.CERT_REQUIRED
    assert context.check_hostname


@pytest.mark.parametrize("variable", ["HTTP_PROXY", "ALL_PROXY", "http_proxy"])
def test_plain_http_through_a_tls_proxy_gets_the_authorities(
    monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    monkeypatch.setenv(variable, "https://proxy.invalid:3128")
    assert trusted_authorities(tls_context("http://127.0.0.1:8000/v1")) > 0


def test_plain_http_through_a_plain_proxy_loads_none(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTP_PROXY", "http://proxy.invalid:3128")
    assert trusted_authorities(tls_context("http://127.0.0.1:8000/v1")) == 0
