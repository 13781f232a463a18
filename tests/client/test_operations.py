"""Request building for each endpoint: what goes on the wire, and what is refused."""

from __future__ import annotations

import pytest

from channelkit.client import _operations as ops
from channelkit.client.models import Post
from channelkit.errors import APIResponseValidationError, InvalidParameterError


def test_update_sends_only_the_given_fields() -> None:
    spec = ops.update_post(
        "post_1",
        channel_id=None,
        title="New",
        body=None,
        priority=None,
        tags=[],
        scheduled_at=None,
        cover_image_url=None,
        status="archived",
        extra_body=None,
        max_retries=None,
    )
    assert (spec.method, spec.path) == ("PATCH", "/posts/post_1")
    assert spec.json == {"title": "New", "tags": [], "status": "archived"}


def test_update_without_fields_is_refused() -> None:
    with pytest.raises(InvalidParameterError, match="update of 'chan_1': no field to change"):
        ops.update_channel(
            "chan_1",
            name=None,
            slug=None,
            description=None,
            visibility=None,
            is_default=None,
            is_archived=None,
            extra_body=None,
            max_retries=None,
        )


def test_extra_body_adds_fields_but_cannot_shadow_arguments() -> None:
    kwargs = {
        "channel_id": "c",
        "title": "t",
        "body": "b",
        "priority": None,
        "tags": None,
        "scheduled_at": None,
        "cover_image_url": None,
        "idempotency_key": None,
        "max_retries": None,
    }
    spec = ops.create_post(extra_body={"pinned": True}, **kwargs)  # type: ignore[arg-type]
    assert spec.json == {"channel_id": "c", "title": "t", "body": "b", "pinned": True}
    with pytest.raises(InvalidParameterError, match="title: given both as an argument"):
        ops.create_post(extra_body={"title": "x"}, **kwargs)  # type: ignore[arg-type]
    kwargs["tags"] = "hr"
    with pytest.raises(InvalidParameterError, match="tags: expected a list of strings"):
        ops.create_post(extra_body=None, **kwargs)  # type: ignore[arg-type]


def test_server_bodies_that_do_not_fit_the_model_are_named() -> None:
    with pytest.raises(APIResponseValidationError, match=r"GET /posts/1: .* Post: status"):
        ops.parse_model(Post, {"id": "1", "channel_id": "c", "title": "t"}, "GET /posts/1")


def test_unknown_fields_are_kept_and_datetimes_must_be_aware() -> None:
    data = {"id": "1", "channel_id": "c", "title": "t", "status": "draft", "mood": "happy"}
    assert ops.parse_model(Post, data, "x").model_extra == {"mood": "happy"}
    with pytest.raises(APIResponseValidationError, match="published_at"):
        ops.parse_model(Post, {**data, "published_at": "2026-11-21T09:30:00"}, "x")
