"""Sending: one email over SMTP (smtplib), one JSON POST per webhook (httpx).

Failures come back as `DeliveryFailed` with a reason that holds no secret: SMTP errors
name the server as `smtp://host:port` and the response code, webhook errors the HTTP status
or the kind of network error, never the URL or the password.
"""

from __future__ import annotations

import smtplib
import ssl
from email.message import EmailMessage
from typing import Any

import httpx

from channelkit import __version__
from channelkit._constants import DELIVER_WEBHOOK_TIMEOUT_S
from channelkit.errors import ChannelkitError
from channelkit.reports.deliver.config import SmtpSettings, Webhook


class DeliveryFailed(ChannelkitError):
    """One target did not receive the report; the message is safe to print."""


def send_email(settings: SmtpSettings, message: EmailMessage) -> None:
    """Send `message` through the SMTP server of `settings`."""
    try:
        server: smtplib.SMTP
        if settings.ssl:
            server = smtplib.SMTP_SSL(
                settings.host,
                settings.port,
                timeout=settings.timeout,
                context=ssl.create_default_context(),
            )
        else:
            server = smtplib.SMTP(settings.host, settings.port, timeout=settings.timeout)
        with server:
            if settings.starttls:
                server.starttls(context=ssl.create_default_context())
            if settings.user:
                server.login(settings.user, settings.password or "")
            refused = server.send_message(message)
    except smtplib.SMTPAuthenticationError as exc:
        raise DeliveryFailed(f"{settings.shown} refused the login ({exc.smtp_code})") from None
    except smtplib.SMTPRecipientsRefused as exc:
        raise DeliveryFailed(
            f"{settings.shown} refused every recipient: {', '.join(exc.recipients)}"
        ) from None
    except smtplib.SMTPResponseException as exc:
        raise DeliveryFailed(
            f"{settings.shown} answered {exc.smtp_code}: {_text(exc.smtp_error)}"
        ) from None
    except (smtplib.SMTPException, OSError) as exc:
        raise DeliveryFailed(
            f"cannot send through {settings.shown}: {_reason(exc, settings.password)}"
        ) from None
    if refused:
        raise DeliveryFailed(f"{settings.shown} refused {', '.join(sorted(refused))}")


def post_webhook(hook: Webhook, payload: dict[str, Any]) -> None:
    """POST `payload` as JSON to the webhook; any status but 2xx is a failure."""
    try:
        response = httpx.post(
            hook.url,
            json=payload,
            timeout=DELIVER_WEBHOOK_TIMEOUT_S,
            headers={"User-Agent": f"channelkit/{__version__}"},
        )
    except httpx.HTTPError as exc:
        raise DeliveryFailed(f"no answer: {type(exc).__name__}") from None
    if not response.is_success:
        raise DeliveryFailed(f"answered HTTP {response.status_code}")


def _text(value: bytes | str) -> str:
    text = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
    return " ".join(text.split())[:200]


def _reason(exc: BaseException, secret: str | None) -> str:
    text = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    return text.replace(secret, "<redacted>") if secret else text
