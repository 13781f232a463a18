"""Sending: one email over SMTP (smtplib), one JSON POST per webhook (httpx).

Failures come back as `DeliveryError` with a reason that holds no secret: SMTP errors
name the server as `smtp://host:port` and the response code, webhook errors the HTTP status
or the kind of network error, never the URL or the password.

Socket timeouts bound each read, not the delivery: a receiver trickling one byte per read
could hold `deliver` for ever. So each target also has a whole deadline: the webhook's
request is cancelled, the SMTP socket shut down, when it passes.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import smtplib
import socket
import ssl
import threading
import time
from collections.abc import Coroutine
from email.message import EmailMessage
from typing import Any, TypeVar

import httpx

from channelkit._constants import DELIVER_TARGET_DEADLINE_S, DELIVER_WEBHOOK_TIMEOUT_S
from channelkit._version import __version__
from channelkit.errors import DeliveryError
from channelkit.reports.deliver.config import SmtpSettings, Webhook

T = TypeVar("T")


def send_email(
    settings: SmtpSettings, message: EmailMessage, deadline: float = DELIVER_TARGET_DEADLINE_S
) -> None:
    """Send `message` through the SMTP server of `settings`, all of it within `deadline` s."""
    timeout = min(settings.timeout, deadline)
    server: smtplib.SMTP = (
        smtplib.SMTP_SSL(timeout=timeout, context=ssl.create_default_context())
        if settings.ssl
        else smtplib.SMTP(timeout=timeout)
    )
    expired = threading.Event()

    def expire() -> None:
        expired.set()
        sock = server.sock
        if sock is not None:  # wakes the read blocked in the sending thread
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    timer = threading.Timer(deadline, expire)
    timer.daemon = True
    started = time.monotonic()
    timer.start()
    try:
        _send(settings, server, message)
    except DeliveryError:
        if expired.is_set() or time.monotonic() - started >= deadline:
            raise DeliveryError(
                f"{settings.shown} did not take the email within {deadline:g} s"
            ) from None
        raise
    finally:
        timer.cancel()
        server.close()


def _send(settings: SmtpSettings, server: smtplib.SMTP, message: EmailMessage) -> None:
    try:
        server.connect(settings.host, settings.port)
        with server:
            if settings.starttls:
                server.starttls(context=ssl.create_default_context())
            if settings.user:
                server.login(settings.user, settings.password or "")
            refused = server.send_message(message)
    except smtplib.SMTPAuthenticationError as exc:
        raise DeliveryError(f"{settings.shown} refused the login ({exc.smtp_code})") from None
    except smtplib.SMTPRecipientsRefused as exc:
        raise DeliveryError(
            f"{settings.shown} refused every recipient: {', '.join(exc.recipients)}"
        ) from None
    except smtplib.SMTPResponseException as exc:
        raise DeliveryError(
            f"{settings.shown} answered {exc.smtp_code}: {_text(exc.smtp_error)}"
        ) from None
    except (smtplib.SMTPException, OSError) as exc:
        raise DeliveryError(
            f"cannot send through {settings.shown}: {_reason(exc, settings.password)}"
        ) from None
    if refused:
        raise DeliveryError(f"{settings.shown} refused {', '.join(sorted(refused))}")


def post_webhook(
    hook: Webhook, payload: dict[str, Any], deadline: float = DELIVER_TARGET_DEADLINE_S
) -> None:
    """POST `payload` as JSON to the webhook, answered within `deadline` s; any status
    but 2xx is a failure."""

    async def post() -> httpx.Response:
        async with (
            asyncio.timeout(deadline),
            httpx.AsyncClient(timeout=min(DELIVER_WEBHOOK_TIMEOUT_S, deadline)) as client,
        ):
            return await client.post(
                hook.url, json=payload, headers={"User-Agent": f"channelkit/{__version__}"}
            )

    try:
        response = _run(post())
    except TimeoutError:
        raise DeliveryError(f"no complete answer within {deadline:g} s") from None
    except httpx.HTTPError as exc:
        raise DeliveryError(f"no answer: {type(exc).__name__}") from None
    if not response.is_success:
        raise DeliveryError(f"answered HTTP {response.status_code}")


def _run(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run `coroutine` on an event loop of its own, also from inside Jupyter's running one."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def _text(value: bytes | str) -> str:
    text = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
    return " ".join(text.split())[:200]


def _reason(exc: BaseException, secret: str | None) -> str:
    text = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    return text.replace(secret, "<redacted>") if secret else text
