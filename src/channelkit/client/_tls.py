"""The TLS context a client hands httpx: one per process, and none loaded for plain HTTP.

httpx builds an `ssl.SSLContext` for every client, loading the whole CA bundle each time,
whether or not anything goes over TLS ("SSLContext get created unconditionally",
github.com/encode/httpx/issues/2298; OpenSSL 3 made the loading slower,
github.com/python/cpython/issues/95031): 30-40 ms here, the largest fixed cost of an
incremental `channelkit sync` against a local service. A context is "designed to be shared
and used by multiple connections" and thread-safe while it is not reconfigured (the `ssl`
docs, docs.python.org/3/library/ssl.html#ssl.SSLContext; python/cpython PR 120595), so
every client of a process shares one, built on first need as httpx would build it
(`SSL_CERT_FILE`/`SSL_CERT_DIR` included). A client whose service is plain `http://` and
whose proxy (if any) is not `https://` sends nothing over TLS (redirects are not
followed): it gets a context with an empty trust store, which refuses every certificate,
so nothing could ever be trusted blindly through it.

    httpx.Client(base_url=url, verify=tls_context(url))
"""

from __future__ import annotations

import functools
import ssl
import urllib.request

import httpx


def tls_context(url: str) -> ssl.SSLContext:
    if httpx.URL(url).scheme == "http" and not _tls_proxy():
        return _no_trust_store()
    return _default_context()


def _tls_proxy() -> bool:
    """Whether the environment names an https:// proxy for plain HTTP (httpx reads the
    same variables through urllib's `getproxies`)."""
    proxies = urllib.request.getproxies()
    return any(proxies.get(scheme, "").lower().startswith("https://") for scheme in ("http", "all"))


@functools.cache
def _default_context() -> ssl.SSLContext:
    return httpx.create_ssl_context()


@functools.cache
def _no_trust_store() -> ssl.SSLContext:
    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
