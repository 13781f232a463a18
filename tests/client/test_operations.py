"""Request building for each endpoint: what goes on the wire, and what is refused."""

from __future__ import annotations

import inspect
from datetime import UTC, datetime
from typing import Any

import pytest

from channelkit import _spec
from channelkit.client import NOT_GIVEN, AsyncClient, Client
from channelkit.client import _operations as ops
from channelkit.client._async_client import AsyncChannels, AsyncPosts
from channelkit.client._client import Channels, Posts
from channelkit.client.models import Post
from channelkit.errors import APIResponseValidationError, InvalidParameterError


def _none(fields: tuple[_spec.Field, ...], **given: Any) -> dict[str, Any]:
    """Arguments as a resource method passes them: every field, NOT_GIVEN where not given."""
    return {field.name: NOT_GIVEN for field in fields} | given


def test_update_sends_null_for_a_clearable_field_and_refuses_it_for_others() -> None:
    arguments = _none(_spec.POST_FIELDS, cover_image_url=None)
    spec = ops.update(ops.POSTS, "post_id", "p", arguments, extra_body=None, max_retries=None)
    assert spec.json == {"cover_image_url": None}
    for name in ("title", "scheduled_at", "tags"):
        with pytest.raises(InvalidParameterError, match=f"{name}: cannot be cleared"):
            ops.update(
                ops.POSTS, "post_id", "p", _none(_spec.POST_FIELDS, **{name: None}),
                extra_body=None, max_retries=None,
            )  # fmt: skip


def test_create_leaves_out_none_and_not_given_alike() -> None:
    arguments = _none(_spec.POST_FIELDS, channel_id="c", title="t", body="b", tags=None)
    spec = ops.create(ops.POSTS, arguments, extra_body=None, idempotency_key=None, max_retries=None)
    assert spec.json == {"channel_id": "c", "title": "t", "body": "b"}


def test_update_sends_only_the_given_fields() -> None:
    arguments = _none(_spec.POST_FIELDS, title="New", tags=[], status="archived")
    spec = ops.update(ops.POSTS, "post_id", "post_1", arguments, extra_body=None, max_retries=None)
    assert (spec.method, spec.path) == ("PATCH", "/posts/post_1")
    assert spec.json == {"title": "New", "tags": [], "status": "archived"}


def test_update_without_fields_is_refused() -> None:
    with pytest.raises(InvalidParameterError, match="update of 'chan_1': no field to change"):
        ops.update(
            ops.CHANNELS,
            "channel_id",
            "chan_1",
            _none(_spec.CHANNEL_FIELDS),
            extra_body=None,
            max_retries=None,
        )


def test_extra_body_adds_fields_but_cannot_shadow_arguments() -> None:
    arguments = _none(_spec.POST_FIELDS, channel_id="c", title="t", body="b")
    options: dict[str, Any] = {"idempotency_key": None, "max_retries": None}
    spec = ops.create(ops.POSTS, arguments, extra_body={"pinned": True}, **options)
    assert spec.json == {"channel_id": "c", "title": "t", "body": "b", "pinned": True}
    with pytest.raises(InvalidParameterError, match="title: given both as an argument"):
        ops.create(ops.POSTS, arguments, extra_body={"title": "x"}, **options)
    with pytest.raises(InvalidParameterError, match="tags: expected a list of strings"):
        ops.create(ops.POSTS, arguments | {"tags": "hr"}, extra_body=None, **options)


def test_instants_are_sent_as_rfc_3339() -> None:
    arguments = _none(_spec.POST_FIELDS, scheduled_at=datetime(2026, 11, 21, 9, 30, tzinfo=UTC))
    spec = ops.update(ops.POSTS, "post_id", "p", arguments, extra_body=None, max_retries=None)
    assert spec.json == {"scheduled_at": "2026-11-21T09:30:00Z"}


_OPTIONS = {"extra_body", "idempotency_key", "max_retries", "if_match"}


@pytest.mark.parametrize("client", [Client, AsyncClient])
@pytest.mark.parametrize(
    ("resource", "method", "fields"),
    [
        ("posts", "create", _spec.create_fields(_spec.POST_FIELDS)),
        ("posts", "update", _spec.update_fields(_spec.POST_FIELDS)),
        ("channels", "create", _spec.create_fields(_spec.CHANNEL_FIELDS)),
        ("channels", "update", _spec.update_fields(_spec.CHANNEL_FIELDS)),
    ],
)
def test_create_and_update_take_exactly_the_contracts_fields(
    client: type[Client | AsyncClient], resource: str, method: str, fields: tuple[_spec.Field, ...]
) -> None:
    # The methods spell their fields out for help() and IDEs; the body is built from the
    # contract by name, so a field the contract adds must be a keyword here too.
    resources = {"posts": (Posts, AsyncPosts), "channels": (Channels, AsyncChannels)}
    cls = resources[resource][client is AsyncClient]
    parameters = inspect.signature(getattr(cls, method)).parameters.values()
    keywords = {p.name for p in parameters if p.kind is p.KEYWORD_ONLY} - _OPTIONS
    assert keywords == {field.name for field in fields}


def test_server_bodies_that_do_not_fit_the_model_are_named() -> None:
    with pytest.raises(APIResponseValidationError, match=r"GET /posts/1: .* Post: status"):
        ops.parse_model(Post, {"id": "1", "channel_id": "c", "title": "t"}, "GET /posts/1")


def test_unknown_fields_are_kept_and_datetimes_must_be_aware() -> None:
    data = {"id": "1", "channel_id": "c", "title": "t", "status": "draft", "mood": "happy"}
    assert ops.parse_model(Post, data, "x").model_extra == {"mood": "happy"}
    with pytest.raises(APIResponseValidationError, match="published_at"):
        ops.parse_model(Post, {**data, "published_at": "2026-11-21T09:30:00"}, "x")
