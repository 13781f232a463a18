"""Every endpoint as a `RequestSpec` builder, shared by the sync and async resources. Pure.

The resource classes only add the sending (blocking or awaited) and the model they return.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import orjson
from pydantic import BaseModel, ValidationError

from channelkit import _spec
from channelkit.client._base import Done, RequestSpec, check_idempotency_key
from channelkit.client._pagination import RawPage, parse_envelope
from channelkit.client._params import (
    NOT_GIVEN,
    Timestamp,
    format_timestamp,
    json_body,
    path_id,
    query_params,
)
from channelkit.client.models import Page, _Versioned
from channelkit.errors import (
    APIResponseValidationError,
    InvalidParameterError,
    RequestInfo,
)

# the collections' paths, from the contract
POSTS = _spec.POSTS
CHANNELS = _spec.CHANNELS
ANALYTICS_POSTS = _spec.ANALYTICS_POSTS
ANALYTICS_CHANNELS = _spec.ANALYTICS_CHANNELS

ModelT = TypeVar("ModelT", bound=BaseModel)
VersionedT = TypeVar("VersionedT", bound=_Versioned)


def _timestamp(name: str, value: Timestamp | None) -> str | None:
    return None if value is None else format_timestamp(name, value)


def _tags(tags: Sequence[str] | None) -> list[str] | None:
    if tags is None:
        return None
    if isinstance(tags, str):
        raise InvalidParameterError("tags", f"expected a list of strings, got the string {tags!r}")
    return list(tags)


def _extra(extra: Mapping[str, Any] | None, known: Mapping[str, Any]) -> dict[str, Any]:
    fields = dict(known)
    for name, value in (extra or {}).items():
        if name in fields:
            raise InvalidParameterError(name, "given both as an argument and in extra_body")
        fields[name] = value
    return fields


# The fields each collection's create and update take, from the contract.
_FIELDS: dict[str, tuple[_spec.Field, ...]] = {
    POSTS: _spec.POST_FIELDS,
    CHANNELS: _spec.CHANNEL_FIELDS,
}


def _body(
    fields: tuple[_spec.Field, ...], arguments: Mapping[str, Any], *, clearing: bool = False
) -> dict[str, Any]:
    """The request body from a method's arguments, one entry per contract field given.

    A field the method does not take is a KeyError: the resource methods spell out the
    contract's fields (for `help()` and IDEs), and a test checks they match. `NOT_GIVEN`
    leaves a field out; so does `None` on create. On update (`clearing`) `None` is sent as
    null for a clearable field and refused for any other.
    """
    body: dict[str, Any] = {}
    for field in fields:
        value = arguments[field.name]
        if value is NOT_GIVEN or (value is None and not clearing):
            continue
        if value is None and not field.clearable:
            raise InvalidParameterError(
                field.name, "cannot be cleared; leave the argument out to keep its value"
            )
        if field.kind == "tags":
            value = _tags(value)
        elif field.kind == "instant":
            value = _timestamp(field.name, value)
        body[field.name] = value
    return body


def create(
    collection: str,
    arguments: Mapping[str, Any],
    *,
    extra_body: Mapping[str, Any] | None,
    idempotency_key: str | None,
    max_retries: int | None,
) -> RequestSpec:
    """POST `collection` with the contract's create fields taken from `arguments` by name."""
    fields = _body(_spec.create_fields(_FIELDS[collection]), arguments)
    return _post(collection, _extra(extra_body, fields), idempotency_key, max_retries)


def update(
    collection: str,
    id_name: str,
    item_id: str,
    arguments: Mapping[str, Any],
    *,
    extra_body: Mapping[str, Any] | None,
    max_retries: int | None,
    if_match: str | None = None,
) -> RequestSpec:
    """PATCH one item with the contract's update fields taken from `arguments` by name."""
    fields = _body(_spec.update_fields(_FIELDS[collection]), arguments, clearing=True)
    fields = _extra(extra_body, fields)
    return _patch(collection, id_name, item_id, fields, max_retries, if_match)


def post_filters(
    *,
    channel_id: str | None,
    author_id: str | None,
    tag: str | None,
    priority: str | None,
    published_after: Timestamp | None,
    published_before: Timestamp | None,
) -> dict[str, str]:
    return query_params(
        {
            "channel_id": channel_id,
            "author_id": author_id,
            "tag": tag,
            "priority": priority,
            "published_after": _timestamp("published_after", published_after),
            "published_before": _timestamp("published_before", published_before),
        }
    )


def analytics_filters(
    *,
    start: Timestamp | None,
    end: Timestamp | None,
    channel_id: str | None,
    post_id: str | None = None,
) -> dict[str, str]:
    return query_params(
        {
            "channel_id": channel_id,
            "post_id": post_id,
            "start": _timestamp("start", start),
            "end": _timestamp("end", end),
        }
    )


def retrieve(collection: str, id_name: str, value: str, max_retries: int | None) -> RequestSpec:
    return RequestSpec("GET", f"{collection}/{path_id(id_name, value)}", max_retries=max_retries)


def delete(
    collection: str,
    id_name: str,
    value: str,
    max_retries: int | None,
    if_match: str | None = None,
) -> RequestSpec:
    path = f"{collection}/{path_id(id_name, value)}"
    return RequestSpec("DELETE", path, max_retries=max_retries, if_match=_etag(if_match))


def _etag(value: str | None) -> str | None:
    """`if_match` as sent: an ETag as the server gave it (quoted, maybe `W/`)."""
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip() or not value.isprintable():
        raise InvalidParameterError(
            "if_match", f"expected an ETag such as post.etag, got {value!r}"
        )
    return value.strip()


def _post(
    collection: str, fields: dict[str, Any], idempotency_key: str | None, max_retries: int | None
) -> RequestSpec:
    key = None if idempotency_key is None else check_idempotency_key(idempotency_key)
    return RequestSpec(
        "POST", collection, json=json_body(fields), idempotency_key=key, max_retries=max_retries
    )


def _patch(
    collection: str,
    id_name: str,
    value: str,
    fields: dict[str, Any],
    max_retries: int | None,
    if_match: str | None,
) -> RequestSpec:
    body = json_body(fields, keep_none=True)  # a None left in `fields` clears that field
    if not body:
        raise InvalidParameterError(id_name, f"update of {value!r}: no field to change was given")
    path = f"{collection}/{path_id(id_name, value)}"
    return RequestSpec("PATCH", path, json=body, max_retries=max_retries, if_match=_etag(if_match))


def parse_model(model: type[ModelT], value: Any, where: str) -> ModelT:
    """`value` (decoded JSON) as `model`; a body that does not fit is the server's fault."""
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        raise APIResponseValidationError(
            f"{where}: response is not a valid {model.__name__}: {_first_error(exc)}"
        ) from None


def parse_resource(model: type[VersionedT], done: Done, where: str) -> VersionedT:
    """A single post or channel, with the `ETag` its response carried."""
    resource = parse_model(model, done.value, where)
    resource._etag = done.etag
    resource._replayed = done.replayed
    return resource


def list_page(filters: Mapping[str, str], limit: int, cursor: str | None) -> dict[str, str]:
    """The query of one page of a listing."""
    query = {**filters, "limit": str(limit)}
    if cursor is not None:
        query["cursor"] = cursor
    return query


def raw_page_decoder(cursor: str | None, request: RequestInfo) -> Callable[[bytes], RawPage]:
    def decode(content: bytes) -> RawPage:
        # orjson: a quarter faster than json on a page of 100 posts (the sync's hot path);
        # its JSONDecodeError is json's, so a truncated body is still retried.
        page = parse_envelope(orjson.loads(content), cursor=cursor, request=request)
        return dataclasses.replace(page, body=content)

    return decode


def page_decoder(model: type[ModelT], where: str) -> Callable[[bytes], Page[ModelT]]:
    """Validates a page of models straight from the body's bytes (no dicts in between)."""
    page_type: type[Page[ModelT]] = Page[model]  # type: ignore[valid-type]

    def decode(content: bytes) -> Page[ModelT]:
        try:
            return page_type.model_validate_json(content)
        except ValidationError as exc:
            if exc.errors()[0]["type"] == "json_invalid":
                raise ValueError("not JSON") from None  # the client retries those
            raise APIResponseValidationError(
                f"{where}: response is not a valid page of {model.__name__}: {_first_error(exc)}"
            ) from None

    return decode


def _first_error(exc: ValidationError) -> str:
    error = exc.errors()[0]
    location = ".".join(str(part) for part in error["loc"]) or "(root)"
    return f"{location}: {error['msg']} ({exc.error_count()} error(s))"
