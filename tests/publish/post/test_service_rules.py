"""The local checks are the service's own: a post that passes them is never refused for
its content, whatever hostile text or URL it carries, nor for its time when the service's
clock runs ahead of ours."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from zoneinfo import ZoneInfo

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from channelkit._spec import TEXT_RULES, _is_control, text_problem
from channelkit.client import Client
from channelkit.errors import BadRequestError
from channelkit.publish import ChannelIndex, PostRequest, validate_post
from channelkit.publish.post.validation import service_now
from channelkit.service import LocalService

TITLES = [
    "Town hall",
    "\x00",
    "Hello\x00world",
    "\u200b\u200b",
    "\u202e",
    "\u202eevil.exe",
    "\x1b[31mred",
    "next\x85line",
    "tab\there",
    "line\nbreak",
    "  padded  ",
    "\u2066\u2069 \u200d",
    '=HYPERLINK("http://x")',
    "x" * 200,
    "x" * 201,
]
BODIES = ["ok", "tab\tand\nnewline", "\x07bell", "\u200b", "**bold**\r\n"]
TAGS = [
    ["hr"],
    ["\x00"],
    ["\u200b"],
    ["a\tb"],
    ["x" * 50],
    ["x" * 51],
    [f"t{n}" for n in range(21)],
]
URLS = [
    "https://example.com/cover.png",
    "http://:80/x",
    "http:///x",
    "http://a\tb.com/x",
    "https://example.com/" + "a" * 2030,
    "https://example.com/" + "a" * 2028,
    "ftp://example.com/x.png",
    "https://example.com:99999/x",
    "https://[::1/x",
    "https://exa mple.com/x",
    "/images/a.png",
    "https://user@example.com/x",
]
CASES = (
    [{"title": title} for title in TITLES]
    + [{"body": body} for body in BODIES]
    + [{"tags": tags} for tags in TAGS]
    + [{"cover_image_url": url} for url in URLS]
)


@pytest.fixture(scope="module")
def setup() -> Iterator[tuple[Client, ChannelIndex]]:
    with LocalService(admin=True) as service:
        key = service.create_key(user="admin", team="comms", plan="enterprise")
        with Client(service.base_url, key) as client:
            client.channels.create(name="Rules")
            yield client, ChannelIndex.from_client(client)


@pytest.mark.parametrize("fields", CASES, ids=lambda f: repr(f)[:60])
@pytest.mark.calendar
def test_local_verdict_is_the_services(
    setup: tuple[Client, ChannelIndex], fields: dict[str, object]
) -> None:
    client, index = setup
    post = {"channel": "rules", "title": "T", "body": "B", **fields}
    when = datetime.now(UTC) + timedelta(days=3)
    checked = validate_post(
        {**post, "scheduled_at": when}, channels=index, tz=ZoneInfo("UTC"), now=service_now(client)
    )
    if isinstance(checked, PostRequest):
        created = client.posts.create(
            **checked.to_create_kwargs(), idempotency_key=checked.idempotency_key()
        )
        assert created.status == "scheduled"  # passed here: the service takes it as is
        return
    field = checked[0].field
    raw = {
        "channel_id": index.resolve("rules").id,  # type: ignore[union-attr]
        "title": post["title"],
        "body": post["body"],
        "scheduled_at": when,
        **({"tags": post["tags"]} if "tags" in post else {}),
        **({"cover_image_url": post["cover_image_url"]} if "cover_image_url" in post else {}),
    }
    with pytest.raises(BadRequestError) as refused:  # refused here: refused there too
        client.posts.create(**raw)  # type: ignore[arg-type]
    assert refused.value.param == field


def _skewed(service: LocalService, ahead: timedelta) -> httpx.MockTransport:
    """The real service, its `Date` header on its own (advanced) clock.

    The local service moves its clock with `advance_clock` but uvicorn writes `Date` from
    this machine's; a service whose clock is really ahead says so in `Date`, which only
    this rewrite can produce here.
    """
    real = httpx.Client()

    def forward(request: httpx.Request) -> httpx.Response:
        answer = real.send(
            real.build_request(
                request.method, request.url, headers=request.headers, content=request.content
            )
        )
        headers = dict(answer.headers)
        headers["date"] = format_datetime(datetime.now(UTC) + ahead, usegmt=True)
        headers.pop("content-encoding", None)
        return httpx.Response(answer.status_code, headers=headers, content=answer.content)

    return httpx.MockTransport(forward)


@pytest.mark.calendar
def test_lead_time_is_checked_against_the_services_clock() -> None:
    ahead = timedelta(hours=2)
    with LocalService(admin=True) as service:
        key = service.create_key(user="admin", team="comms", plan="enterprise")
        service.advance_clock(ahead.total_seconds())
        with Client(service.base_url, key, transport=_skewed(service, ahead)) as client:
            client.channels.create(name="Rules")
            index = ChannelIndex.from_client(client)
            in_one_hour = datetime.now(UTC) + timedelta(hours=1)  # past, for the service
            fields = {"channel": "rules", "title": "T", "body": "B", "scheduled_at": in_one_hour}
            local_only = validate_post(
                fields, channels=index, tz=ZoneInfo("UTC"), now=datetime.now(UTC)
            )
            assert isinstance(local_only, PostRequest)  # the old check would let it through
            with pytest.raises(BadRequestError) as refused:
                client.posts.create(**local_only.to_create_kwargs())
            assert refused.value.param == "scheduled_at"
            checked = validate_post(
                fields, channels=index, tz=ZoneInfo("UTC"), now=service_now(client)
            )
            assert isinstance(checked, list) and checked[0].field == "scheduled_at"
            assert "is in the past" in checked[0].message
            later = {**fields, "scheduled_at": in_one_hour + timedelta(hours=2)}
            ok = validate_post(later, channels=index, tz=ZoneInfo("UTC"), now=service_now(client))
            assert isinstance(ok, PostRequest)
            assert client.posts.create(**ok.to_create_kwargs()).status == "scheduled"


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=st.characters(max_codepoint=0x2100), max_size=30))
def test_control_scan_matches_the_character_rule(text: str) -> None:
    """`text_problem` scans with a regex; it must find what `_is_control` defines."""
    for rule, lines_ok in (("title", False), ("body", True)):
        first = next(
            (i for i, c in enumerate(text) if _is_control(c) and not (lines_ok and c in "\n\t")),
            None,
        )
        problem = text_problem(rule, text) if text else None
        if first is not None and len(text) <= TEXT_RULES[rule].max_chars:
            assert problem is not None and f"at character {first + 1}" in problem
        elif problem is not None:
            assert "control characters" not in problem


_HOSTILE_CHARS = st.sampled_from(
    ["a", " ", "\t", "\n", "\x00", "\x1b", "\x7f", "\x85", "\u200b", "\u202e", "\u2066", "é", "="]
)


@settings(max_examples=120, deadline=None)
@given(
    title=st.text(_HOSTILE_CHARS, min_size=1, max_size=6),
    tag=st.text(_HOSTILE_CHARS, min_size=1, max_size=4),
    url_tail=st.text(_HOSTILE_CHARS, max_size=4),
)
@pytest.mark.calendar
def test_any_mix_of_hostile_characters_gets_the_same_verdict_here_and_there(
    setup: tuple[Client, ChannelIndex], title: str, tag: str, url_tail: str
) -> None:
    client, index = setup
    url = f"https://example.com/{url_tail}"
    when = datetime.now(UTC) + timedelta(days=3)
    fields = {"channel": "rules", "title": title, "body": "B", "tags": [tag]}
    checked = validate_post(
        {**fields, "cover_image_url": url, "scheduled_at": when},
        channels=index,
        tz=ZoneInfo("UTC"),
        now=service_now(client),
    )
    if isinstance(checked, PostRequest):
        # Sent as the plan sends it (trimmed): the service never refuses it for content.
        client.posts.create(**checked.to_create_kwargs())
        return
    sent = {
        "channel_id": index.resolve("rules").id,  # type: ignore[union-attr]
        "title": title.strip(),
        "body": "B",
        "tags": [tag.strip()] if tag.strip() else [],
        "cover_image_url": url.strip(),
        "scheduled_at": when,
    }
    refused_fields = {error.field for error in checked}
    try:
        client.posts.create(**sent)  # type: ignore[arg-type]
    except BadRequestError as exc:
        assert exc.param in refused_fields | {"title"}
    else:
        # Accepted there: then the local refusal was about something the plan adds
        # (blank after trimming), never a rule the service does not have.
        assert refused_fields <= {"title", "tags", "cover_image_url"}
        assert all(not value.strip() for value in (title, tag)) or url != url.strip()
