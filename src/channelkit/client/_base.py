"""What the sync and async clients share: configuration, the rate budget, statistics,
logging, and the per-call retry state machine. Only the sending and sleeping differ
between `Client` and `AsyncClient`; everything deciding *what* to do lives here.
"""

from __future__ import annotations

import json
import logging
import os
import random
import threading
import time
import uuid
from collections.abc import Callable, Generator, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

import httpx

from channelkit._constants import (
    CLIENT_BACKOFF_BASE_SECONDS,
    CLIENT_BACKOFF_CAP_SECONDS,
    CLIENT_CONNECT_TIMEOUT_SECONDS,
    CLIENT_CONNECTION_RETRY_BUDGET_SECONDS,
    CLIENT_DATE_HEADER_LAG_SECONDS,
    CLIENT_ERROR_SNIPPET_CHARS,
    CLIENT_IDEMPOTENCY_KEY_PREFIX,
    CLIENT_MAX_CONNECTIONS,
    CLIENT_MAX_RATE_LIMIT_WAIT_SECONDS,
    CLIENT_MAX_RETRIES,
    CLIENT_PACING_POLL_SECONDS,
    CLIENT_PACING_RESET_MARGIN_SECONDS,
    CLIENT_RETRY_AFTER_DEFAULT_SECONDS,
    CLIENT_RETRY_AFTER_MIN_SECONDS,
    CLIENT_TIMEOUT_SECONDS,
    CLIENT_USER_AGENT,
    CLIENT_WAIT_LOG_SECONDS,
    ENV_API_KEY,
    ENV_BASE_URL,
    ENV_CONNECT_RETRY,
    ENV_LOG,
    ENV_MAX_RATE_LIMIT_WAIT,
    LOGGER_NAME,
)
from channelkit._spec import (
    API_VERSION_SEGMENT,
    IDEMPOTENCY_KEY_MAX_CHARS,
    IDEMPOTENT_REPLAYED_HEADER,
    RATE_WINDOW_SECONDS,
)
from channelkit._urls import redact_url, redact_urls_in
from channelkit._version import __version__
from channelkit.client._headers import parse_http_date, parse_rate_limit, parse_retry_after
from channelkit.client._pacing import Grant, Pacer, ServerClock, WaitReason
from channelkit.client._retry import (
    Failure,
    backoff_delay,
    hopeless_connect,
    replayable,
    should_retry_failure,
    should_retry_status,
)
from channelkit.client._tls import tls_context
from channelkit.errors import (
    APIConnectionError,
    APIError,
    APITimeoutError,
    ConflictError,
    InvalidParameterError,
    RequestInfo,
    error_from_response,
)

log = logging.getLogger(f"{LOGGER_NAME}.client")


@dataclass(frozen=True)
class WaitEvent:
    """The client is about to sleep `seconds` before a request to `path` (for progress bars).

    client.on_wait = lambda e: bar.set_postfix_str(f"{e.reason}: {e.seconds:.1f} s")
    """

    seconds: float
    reason: WaitReason
    path: str


@dataclass(frozen=True)
class ClientStats:
    """Counters since the client was made; `client.stats` returns a snapshot.

        before = client.stats
        list(client.posts.list())
        requests = client.stats.requests - before.requests

    `wait_seconds` is the real time during which a request waited (pacing, Retry-After,
    backoff), sleeps of several threads at once counted once; `rate_limit_waits` counts the
    pacing and Retry-After sleeps.
    """

    requests: int = 0
    retries: int = 0
    responses_429: int = 0
    rate_limit_waits: int = 0
    wait_seconds: float = 0.0


@dataclass(frozen=True)
class RateLimit:
    """The rate-limit headers of the latest response: `reset` is when the window ends.

    rate = client.rate_limit  # None before the first response
    print(f"{rate.remaining}/{rate.limit} left until {rate.reset:%H:%M:%S}")
    """

    limit: int | None
    remaining: int
    reset: datetime | None


def decode_json(content: bytes) -> Any:
    return json.loads(content)


@dataclass(frozen=True)
class RequestSpec:
    """One logical API call, before retries."""

    method: str
    path: str
    params: Mapping[str, str] | None = None
    json: Mapping[str, Any] | None = None
    idempotency_key: str | None = None
    max_retries: int | None = None
    if_match: str | None = None  # PATCH/DELETE only when the resource still has this ETag
    # Turns a 2xx body into the call's value; a ValueError means "not JSON" (retried).
    decode: Callable[[bytes], Any] = decode_json


@dataclass(frozen=True)
class Done:
    """The call's decoded value, and the resource's `ETag` when the response had one;
    `replayed` when the service answered a create from another request with the same
    idempotency key (never one of this call's own attempts: then it may be ours)."""

    value: Any
    etag: str | None = None
    replayed: bool = False


@dataclass(frozen=True)
class Retry:
    delay: float
    reason: WaitReason


@dataclass(frozen=True)
class Verify:
    """Read `path` back: if it shows `expected`, a lost earlier attempt did the update."""

    spec: RequestSpec
    expected: Mapping[str, Any]
    error: APIError

    def outcome(self, current: Any) -> Any:
        if isinstance(current, dict) and all(
            current.get(name) == value for name, value in self.expected.items()
        ):
            return current
        raise self.error


Step = Done | Retry | Verify


class _BearerAuth(httpx.Auth):
    """Adds the key per request, so it sits in no default-headers dict; repr hides it."""

    def __init__(self, api_key: str) -> None:
        self._header = f"Bearer {api_key}"

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        request.headers["Authorization"] = self._header
        yield request

    def __repr__(self) -> str:
        return "_BearerAuth(api_key=<redacted>)"


def _configure_logging() -> None:
    """`CHANNELKIT_LOG=debug|info|warning` sends channelkit's log lines to stderr."""
    level_name = os.environ.get(ENV_LOG, "").strip().upper()
    if not level_name:
        return
    level = logging.getLevelName(level_name)
    if not isinstance(level, int):
        logging.getLogger(LOGGER_NAME).warning(
            "%s=%r is not a log level (debug, info, warning, error); ignored",
            ENV_LOG,
            level_name.lower(),
        )
        return
    root = logging.getLogger(LOGGER_NAME)
    root.setLevel(level)
    if not any(getattr(h, "_channelkit", False) for h in root.handlers):
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
        handler._channelkit = True  # type: ignore[attr-defined]
        root.addHandler(handler)


def _resolve_base_url(base_url: str | None) -> str:
    url = base_url if base_url is not None else os.environ.get(ENV_BASE_URL)
    if not url:
        raise InvalidParameterError(
            "base_url",
            f"none given: pass base_url=... or set {ENV_BASE_URL} "
            f"(e.g. http://127.0.0.1:8000{API_VERSION_SEGMENT})",
        )
    url = url.strip().rstrip("/")
    shown = redact_url(url)  # a password in the URL stays out of every message
    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL as exc:
        detail = redact_urls_in(str(exc))
        raise InvalidParameterError("base_url", f"{shown!r} is not a valid URL: {detail}") from None
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise InvalidParameterError("base_url", f"{shown!r} is not an http(s) URL")
    if not parsed.path.endswith(API_VERSION_SEGMENT):
        raise InvalidParameterError(
            "base_url",
            f"{shown!r} must end in the API version segment {API_VERSION_SEGMENT} "
            f"(e.g. {shown}{API_VERSION_SEGMENT})",
        )
    return url


def _resolve_api_key(api_key: str | None) -> str:
    key = api_key if api_key is not None else os.environ.get(ENV_API_KEY)
    if not key:
        raise InvalidParameterError("api_key", f"none given: pass api_key=... or set {ENV_API_KEY}")
    if not isinstance(key, str) or any(c.isspace() or not c.isprintable() for c in key):
        # The key itself stays out of the message.
        raise InvalidParameterError("api_key", "contains whitespace or control characters")
    return key


def check_idempotency_key(key: str) -> str:
    if not isinstance(key, str) or not 1 <= len(key) <= IDEMPOTENCY_KEY_MAX_CHARS:
        raise InvalidParameterError(
            "idempotency_key", f"must be a string of 1 to {IDEMPOTENCY_KEY_MAX_CHARS} characters"
        )
    if not key.isascii() or not key.isprintable():
        raise InvalidParameterError("idempotency_key", "must be printable ASCII")
    return key


class ClientCore:
    """Configuration and shared state of one client; safe to use from many threads."""

    def __init__(
        self,
        base_url: str | None,
        api_key: str | None,
        *,
        timeout: float | httpx.Timeout | None,
        max_retries: int | None,
        max_rate_limit_wait: float | None,
        connection_retry_budget: float | None,
        on_wait: Callable[[WaitEvent], None] | None,
    ) -> None:
        _configure_logging()
        url = _resolve_base_url(base_url)
        self.base_url = redact_url(url)  # what anything shows or stores
        # A user:password in the URL is never sent (the Bearer key is the authentication),
        # so httpx gets the URL without it and cannot log it either.
        self.url = str(httpx.URL(url).copy_with(userinfo=b""))
        self.verify = tls_context(self.url)
        self.auth: httpx.Auth = _BearerAuth(_resolve_api_key(api_key))
        if timeout is None:
            timeout = httpx.Timeout(CLIENT_TIMEOUT_SECONDS, connect=CLIENT_CONNECT_TIMEOUT_SECONDS)
        self.timeout = timeout if isinstance(timeout, httpx.Timeout) else httpx.Timeout(timeout)
        self.limits = httpx.Limits(
            max_connections=CLIENT_MAX_CONNECTIONS, max_keepalive_connections=CLIENT_MAX_CONNECTIONS
        )
        self.headers = {"User-Agent": f"{CLIENT_USER_AGENT}/{__version__}"}
        self.max_retries = CLIENT_MAX_RETRIES if max_retries is None else max_retries
        if self.max_retries < 0:
            raise InvalidParameterError("max_retries", f"must be >= 0, got {self.max_retries}")
        self.max_rate_limit_wait = _resolve_seconds(
            max_rate_limit_wait,
            ENV_MAX_RATE_LIMIT_WAIT,
            CLIENT_MAX_RATE_LIMIT_WAIT_SECONDS,
            "max_rate_limit_wait",
        )
        if self.max_rate_limit_wait < 0:
            raise InvalidParameterError(
                "max_rate_limit_wait", f"must be >= 0 seconds, got {self.max_rate_limit_wait}"
            )
        self.connection_retry_budget = _resolve_seconds(
            connection_retry_budget,
            ENV_CONNECT_RETRY,
            CLIENT_CONNECTION_RETRY_BUDGET_SECONDS,
            "connection_retry_budget",
        )
        if self.connection_retry_budget < 0:
            raise InvalidParameterError(
                "connection_retry_budget",
                f"must be >= 0 seconds, got {self.connection_retry_budget}",
            )
        self.on_wait = on_wait
        self._lock = threading.Lock()
        self._pacer = Pacer(
            reset_margin=CLIENT_PACING_RESET_MARGIN_SECONDS,
            poll=CLIENT_PACING_POLL_SECONDS,
            max_window=RATE_WINDOW_SECONDS,
        )
        self._clock = ServerClock(date_lag=CLIENT_DATE_HEADER_LAG_SECONDS)
        self._stats = ClientStats()
        self._rate_limit: RateLimit | None = None
        self._random = random.Random()
        self._waiters = 0  # sleeps in progress, in all threads or tasks
        self._wait_began = 0.0  # when the current stretch of waiting began (monotonic)

    @property
    def stats(self) -> ClientStats:
        with self._lock:
            if self._waiters == 0:
                return self._stats
            ongoing = time.monotonic() - self._wait_began
            return replace(self._stats, wait_seconds=self._stats.wait_seconds + ongoing)

    @contextmanager
    def waiting(self) -> Iterator[None]:
        """A sleep: `wait_seconds` counts the time during which at least one request
        waits, so two threads waiting out the same minute count one minute."""
        with self._lock:
            if self._waiters == 0:
                self._wait_began = time.monotonic()
            self._waiters += 1
        try:
            yield
        finally:
            with self._lock:
                self._waiters -= 1
                if self._waiters == 0:
                    waited = time.monotonic() - self._wait_began
                    self._stats = replace(
                        self._stats, wait_seconds=self._stats.wait_seconds + waited
                    )

    @property
    def rate_limit(self) -> RateLimit | None:
        return self._rate_limit

    def count(self, **increments: float) -> None:
        with self._lock:
            current = self._stats
            self._stats = replace(
                current, **{k: getattr(current, k) + v for k, v in increments.items()}
            )

    def reserve(self) -> Grant:
        with self._lock:
            return self._pacer.reserve(time.monotonic())

    def note_wait(self, seconds: float, reason: WaitReason, path: str) -> None:
        """Account for a sleep about to happen and tell the user about it."""
        paced = reason in ("pacing", "retry_after")
        self.count(rate_limit_waits=1 if paced else 0)
        if seconds >= CLIENT_WAIT_LOG_SECONDS:
            log.info("waiting %.1f s (%s) before %s", seconds, reason.replace("_", "-"), path)
        if self.on_wait is not None:
            self.on_wait(WaitEvent(seconds=seconds, reason=reason, path=path))

    def jitter(self) -> float:
        with self._lock:
            return self._random.random()

    def start(self, spec: RequestSpec) -> Call:
        return Call(self, spec)

    def observe(self, response: httpx.Response, *, sent_wall: float) -> tuple[float, float | None]:
        """Feed a response's headers to the clock and the pacer; (server_now, to_reset)."""
        now_wall, now_mono = time.time(), time.monotonic()
        headers = response.headers
        rate = parse_rate_limit(headers)
        date = parse_http_date(headers.get("date"))
        with self._lock:
            if date is not None:
                self._clock.observe(date, sent_wall, now_wall)
            server_now = now_wall + self._clock.offset()
            to_reset = None
            if rate is not None and rate.reset is not None:
                to_reset = rate.reset - server_now
            self._pacer.observe(rate, seconds_to_reset=to_reset, now=now_mono)
            self._stats = replace(self._stats, requests=self._stats.requests + 1)
            if rate is not None:
                reset = None
                if to_reset is not None:
                    reset = datetime.fromtimestamp(now_wall + to_reset, UTC).replace(microsecond=0)
                self._rate_limit = RateLimit(rate.limit, rate.remaining, reset)
        return server_now, to_reset

    def server_time(self) -> datetime:
        with self._lock:
            offset = self._clock.offset()
        return datetime.fromtimestamp(time.time() + offset, UTC)

    def release(self) -> None:
        with self._lock:
            self._pacer.release()
            self._stats = replace(self._stats, requests=self._stats.requests + 1)

    def block(self, seconds: float) -> None:
        with self._lock:
            self._pacer.block(time.monotonic() + seconds)

    def redacted_repr(self, cls: str) -> str:
        return f"{cls}(base_url={self.base_url!r}, api_key=<redacted>)"  # userinfo redacted too


class Call:
    """One logical call through its attempts: decides after each one to return or retry."""

    def __init__(self, core: ClientCore, spec: RequestSpec) -> None:
        self.core = core
        self.spec = spec
        self.method = spec.method.upper()
        self.key = spec.idempotency_key
        if self.key is None and self.method == "POST":
            self.key = CLIENT_IDEMPOTENCY_KEY_PREFIX + uuid.uuid4().hex  # reused by retries
        self.replayable = replayable(self.method, has_idempotency_key=self.key is not None)
        self.max_retries = core.max_retries if spec.max_retries is None else spec.max_retries
        self.retries = 0
        self.rate_limit_waited = 0.0
        self.ambiguous = False  # an earlier attempt may have taken effect
        self.sent_wall = 0.0
        self.sent_mono = 0.0
        self.unreachable_since: float | None = None  # first connection failure (monotonic)
        self.info = RequestInfo(self.method, spec.path)
        self.url = httpx.URL(spec.path)  # the full URL once built

    def build(self, http: httpx.Client | httpx.AsyncClient) -> httpx.Request:
        headers = {}
        if self.key is not None:
            headers["Idempotency-Key"] = self.key
        if self.spec.if_match is not None:
            headers["If-Match"] = self.spec.if_match
        request = http.build_request(
            self.method,
            self.spec.path,
            params=dict(self.spec.params) if self.spec.params else None,
            json=dict(self.spec.json) if self.spec.json is not None else None,
            headers=headers or None,
        )
        self.info = RequestInfo(self.method, redact_url(str(request.url)))
        self.url = request.url
        return request

    def mark_sent(self) -> None:
        self.sent_wall, self.sent_mono = time.time(), time.monotonic()

    def on_response(self, response: httpx.Response) -> Step:
        server_now, to_reset = self.core.observe(response, sent_wall=self.sent_wall)
        status = response.status_code
        self._log_response(status, to_reset)
        if 200 <= status < 300:
            if status == 204 or (not response.content and self.spec.decode is decode_json):
                return Done(None)  # listings decode their own way: an empty page is an error
            try:
                replayed = (
                    not self.ambiguous
                    and self.retries == 0
                    and (response.headers.get(IDEMPOTENT_REPLAYED_HEADER) == "true")
                )
                value = self.spec.decode(response.content)
                return Done(value, response.headers.get("etag"), replayed)
            except ValueError:
                return self._failed(Failure.UNDECODABLE, _not_json(response))
        if status == 404 and self.method == "DELETE" and self.ambiguous:
            return Done(None)  # an earlier attempt whose answer was lost did the delete
        retry_after = parse_retry_after(response.headers.get("retry-after"), server_now=server_now)
        if status == 429:
            return self._rate_limited(response, retry_after)
        error = self._error(response, retry_after)
        if status == 409 and error.param == "If-Match":
            error = self._stale(error)
        if (
            status == 409
            and self.method == "PATCH"
            and self.ambiguous
            and error.param in ("status", "If-Match")
        ):
            # Refused because an earlier attempt whose answer was lost already did it (the
            # transition happened, or our own write changed the ETag): check that.
            check = RequestSpec("GET", self.spec.path, max_retries=self.spec.max_retries)
            return Verify(check, self.spec.json or {}, error)
        if (
            should_retry_status(
                status,
                replayable=self.replayable,
                error_param=error.param,
                is_replay=self.retries > 0,
            )
            and self.retries < self.max_retries
        ):
            delay = self._backoff()
            if retry_after is not None:
                delay = max(delay, min(retry_after, self.core.max_rate_limit_wait))
            self._note_retry(f"{status} {error.code or ''}".strip(), delay)
            return Retry(delay, "backoff")
        raise error

    def on_error(self, exc: httpx.HTTPError) -> Step:
        self.core.release()
        if isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout | httpx.PoolTimeout):
            failure = Failure.NOT_SENT
        elif isinstance(exc, httpx.TimeoutException):
            failure = Failure.TIMEOUT
        else:
            failure = Failure.BROKEN
        text = redact_urls_in(str(exc))
        detail = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
        hopeless = hopeless_connect(
            exc, scheme=self.url.scheme, host=self.url.host, port=self.url.port
        )
        if hopeless is not None:
            raise APIConnectionError(
                f"connection failed: {hopeless} [{self.info}]", request=self.info
            ) from None
        if isinstance(exc, httpx.ConnectError | httpx.RemoteProtocolError | httpx.ReadError):
            # Refused or reset: the service may be restarting, so keep trying for a while.
            retry = self._reconnect(failure, detail)
            if retry is not None:
                return retry
        return self._failed(failure, detail)

    def _reconnect(self, failure: Failure, detail: str) -> Retry | None:
        """A retry within the connection budget, or None when it is spent (or unsafe)."""
        if failure is not Failure.NOT_SENT:
            self.ambiguous = True
        budget = self.core.connection_retry_budget
        if budget == 0 or self.max_retries == 0:
            return None  # max_retries=0 turns every retry off; budget 0 counts retries
        if not should_retry_failure(failure, replayable=self.replayable):
            return None
        now = time.monotonic()
        if self.unreachable_since is None:
            self.unreachable_since = now
        left = budget - (now - self.unreachable_since)
        if left <= 0:
            return None
        delay = min(left, self._backoff())
        self._note_retry(detail, delay, f"for up to {left:.0f} s more")
        return Retry(delay, "connection")

    def _failed(self, failure: Failure, detail: str) -> Step:
        if failure is not Failure.NOT_SENT:
            self.ambiguous = True
        if (
            should_retry_failure(failure, replayable=self.replayable)
            and self.retries < self.max_retries
            and self.unreachable_since is None
        ):
            delay = self._backoff()
            self._note_retry(detail, delay)
            return Retry(delay, "backoff")
        tries = f"after {self.retries + 1} attempt{'s' if self.retries else ''}"
        if self.unreachable_since is not None:
            waited = time.monotonic() - self.unreachable_since
            tries += f" over {waited:.0f} s; connection_retry_budget is "
            tries += f"{self.core.connection_retry_budget:g} s"
        message = f"{detail} [{self.info}] ({tries})"
        # `from None`: the httpx exception holds the request, Authorization header included.
        if failure is Failure.TIMEOUT:
            raise APITimeoutError(f"timed out: {message}", request=self.info) from None
        if failure is Failure.UNDECODABLE:
            raise APIError(f"invalid response body: {message}", request=self.info) from None
        raise APIConnectionError(f"connection failed: {message}", request=self.info) from None

    def _rate_limited(self, response: httpx.Response, retry_after: float | None) -> Step:
        self.core.count(responses_429=1)
        wait = CLIENT_RETRY_AFTER_DEFAULT_SECONDS if retry_after is None else retry_after
        wait = max(CLIENT_RETRY_AFTER_MIN_SECONDS, wait)
        if self.rate_limit_waited + wait > self.core.max_rate_limit_wait:
            error = self._error(response, wait)
            error.message = (
                f"{error.message} (waited {self.rate_limit_waited:.1f} s already; the cap "
                f"max_rate_limit_wait is {self.core.max_rate_limit_wait:g} s)"
            )
            error.args = (error.message,)
            raise error
        self.rate_limit_waited += wait
        self.core.block(wait)
        self.core.count(retries=1)
        log.info("429 on %s: retrying after %.1f s", self.info, wait)
        return Retry(0.0, "retry_after")  # the pacer holds every request until then

    def _stale(self, error: APIError) -> APIError:
        """A clear `ConflictError` for an `If-Match` that no longer matches."""
        what = self.spec.path.strip("/").split("/")[0].rstrip("s") or "resource"
        message = (
            f"409 conflict: the {what} changed since you read it (If-Match "
            f"{self.spec.if_match} is no longer its ETag), so nothing was changed; retrieve "
            f"it again and reapply your change [{self.info}]"
        )
        return ConflictError(
            message, status=409, code=error.code, param="If-Match", request=self.info
        )

    def _error(self, response: httpx.Response, retry_after: float | None) -> APIError:
        return error_from_response(
            response.status_code,
            response.content,
            self.info,
            retry_after=retry_after,
        )

    def _backoff(self) -> float:
        return backoff_delay(
            self.retries,
            base=CLIENT_BACKOFF_BASE_SECONDS,
            cap=CLIENT_BACKOFF_CAP_SECONDS,
            jitter=self.core.jitter(),
        )

    def _note_retry(self, why: str, delay: float, budget: str | None = None) -> None:
        self.retries += 1
        self.core.count(retries=1)
        log.info(
            "retrying %s after %s (retry %d %s) in %.2f s",
            self.info,
            why,
            self.retries,
            budget or f"of {self.max_retries}",
            delay,
        )

    def _log_response(self, status: int, to_reset: float | None) -> None:
        if not log.isEnabledFor(logging.DEBUG):
            return
        elapsed = (time.monotonic() - self.sent_mono) * 1000.0
        rate = self.core.rate_limit
        state = "no rate-limit headers"
        if rate is not None:
            state = f"rate limit {rate.remaining}/{rate.limit}"
            if to_reset is not None:
                state += f", reset in {to_reset:.1f} s"
        log.debug("%s -> %d in %.1f ms; %s", self.info, status, elapsed, state)


def _not_json(response: httpx.Response) -> str:
    """What came instead of JSON, e.g. a proxy's maintenance page answered with 200."""
    kind = response.headers.get("content-type") or "no content type"
    snippet = response.content[:CLIENT_ERROR_SNIPPET_CHARS].decode("utf-8", "replace").strip()
    more = "..." if len(response.content) > CLIENT_ERROR_SNIPPET_CHARS else ""
    return f"{response.status_code} response is not JSON ({kind}): {snippet!r}{more}"


def _resolve_seconds(given: float | None, env: str, default: float, param: str) -> float:
    """The argument, else the environment variable `env`, else the default: a cron job can
    wait out a longer deploy (CHANNELKIT_CONNECT_RETRY_SECONDS) or give up on a service that
    keeps answering 429 sooner (CHANNELKIT_MAX_RATE_LIMIT_WAIT_SECONDS) without code."""
    if given is not None:
        return given
    text = os.environ.get(env, "").strip()
    if not text:
        return default
    try:
        return float(text)
    except ValueError:
        raise InvalidParameterError(param, f"{env}={text!r} is not a number of seconds") from None
