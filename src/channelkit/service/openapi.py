"""The interface as an OpenAPI 3.1 document, built from the same limits the service enforces.

Served at `GET /v1/openapi.json` and checked in as `docs/openapi.json`; regenerate with
`python -m channelkit.service.openapi > docs/openapi.json` (a test keeps the two equal).
"""

from __future__ import annotations

import json
from typing import Any

from channelkit import __version__
from channelkit._spec import (
    BODY_MAX_CHARS,
    CHANNEL_NAME_MAX_CHARS,
    CURSOR_MAX_CHARS,
    DESCRIPTION_MAX_CHARS,
    FILTER_MAX_CHARS,
    ID_MAX_CHARS,
    IDEMPOTENCY_KEY_MAX_CHARS,
    PAGE_LIMIT_DEFAULT,
    PAGE_LIMIT_MAX,
    POST_STATUSES,
    PRIORITIES,
    SLUG_PATTERN,
    TAG_MAX_CHARS,
    TAGS_MAX_COUNT,
    TITLE_MAX_CHARS,
    URL_MAX_CHARS,
    VISIBILITIES,
)
from channelkit.service.posts import FILTER_CLAUSES
from channelkit.service.timefmt import REQUEST_TIMESTAMP_PATTERN

_REF = "#/components/"


def _ref(kind: str, name: str) -> dict[str, str]:
    return {"$ref": f"{_REF}{kind}/{name}"}


def _string(**extra: Any) -> dict[str, Any]:
    return {"type": "string", **extra}


_TIMESTAMP_IN = _string(
    pattern=REQUEST_TIMESTAMP_PATTERN,
    description="RFC 3339 with an offset (`2026-11-21T09:30:00+01:00`), or a date "
    "(`2026-11-21`, meaning 00:00 UTC).",
)
_TIMESTAMP_OUT = _string(format="date-time", description="RFC 3339, UTC, `Z` suffix.")
_NULLABLE_TIMESTAMP_OUT = {"type": ["string", "null"], "format": "date-time"}
_ID = _string(minLength=1, maxLength=ID_MAX_CHARS)
_RATE_HEADERS = {
    "X-RateLimit-Limit": _ref("headers", "X-RateLimit-Limit"),
    "X-RateLimit-Remaining": _ref("headers", "X-RateLimit-Remaining"),
    "X-RateLimit-Reset": _ref("headers", "X-RateLimit-Reset"),
}


def _json(schema: dict[str, Any], description: str, **extra: Any) -> dict[str, Any]:
    return {
        "description": description,
        "headers": dict(_RATE_HEADERS),
        "content": {"application/json": {"schema": schema}},
        **extra,
    }


def _errors(*statuses: str) -> dict[str, Any]:
    return {status: _ref("responses", status) for status in (*statuses, "401", "429", "500", "503")}


def _page(item: str) -> dict[str, Any]:
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["data", "next_cursor", "has_more"],
        "properties": {
            "data": {"type": "array", "items": _ref("schemas", item)},
            "next_cursor": {"type": ["string", "null"]},
            "has_more": {"type": "boolean"},
        },
    }


def _object(required: list[str], properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "additionalProperties": False,
        "required": required,
        "properties": properties,
    }


def _count() -> dict[str, Any]:
    return {"type": "integer", "minimum": 0}


_POST_FIELDS: dict[str, Any] = {
    "channel_id": _ID,
    "title": _string(minLength=1, maxLength=TITLE_MAX_CHARS, description="Not blank."),
    "body": _string(minLength=1, maxLength=BODY_MAX_CHARS, description="Markdown; not blank."),
    "priority": {"type": "string", "enum": list(PRIORITIES)},
    "tags": {
        "type": "array",
        "maxItems": TAGS_MAX_COUNT,
        "items": _string(minLength=1, maxLength=TAG_MAX_CHARS),
        "description": "Duplicates are dropped; tags must not be blank.",
    },
    "cover_image_url": {
        "type": ["string", "null"],
        "maxLength": URL_MAX_CHARS,
        "description": "An absolute http(s) URL.",
    },
}
_CHANNEL_FIELDS: dict[str, Any] = {
    "name": _string(minLength=1, maxLength=CHANNEL_NAME_MAX_CHARS, description="Not blank."),
    "slug": _string(maxLength=CHANNEL_NAME_MAX_CHARS, pattern=SLUG_PATTERN),
    "description": _string(maxLength=DESCRIPTION_MAX_CHARS),
    "visibility": {"type": "string", "enum": list(VISIBILITIES)},
    "is_default": {"type": "boolean"},
}


def _schemas() -> dict[str, Any]:
    return {
        "Error": _object(
            ["error"],
            {
                "error": _object(
                    ["code", "message", "param"],
                    {
                        "code": {
                            "type": "string",
                            "enum": [
                                "invalid_request",
                                "unauthorized",
                                "forbidden",
                                "not_found",
                                "conflict",
                                "rate_limited",
                                "server_error",
                            ],  # fmt: skip
                        },
                        "message": {"type": "string"},
                        "param": {"type": ["string", "null"]},
                    },
                )
            },
        ),
        "Author": _object(
            ["id", "name", "email"],
            {"id": _string(), "name": _string(), "email": _string()},
        ),
        "Post": _object(
            [
                "id",
                "channel_id",
                "title",
                "body",
                "priority",
                "tags",
                "author",
                "status",
                "published_at",
                "scheduled_at",
                "cover_image_url",
                "views",
                "created_at",
                "updated_at",
            ],  # fmt: skip
            {
                "id": _string(),
                "channel_id": _string(),
                "title": _string(),
                "body": _string(),
                "priority": {"type": "string", "enum": list(PRIORITIES)},
                "tags": {"type": "array", "items": _string()},
                "author": _ref("schemas", "Author"),
                "status": {"type": "string", "enum": list(POST_STATUSES)},
                "published_at": _NULLABLE_TIMESTAMP_OUT,
                "scheduled_at": _NULLABLE_TIMESTAMP_OUT,
                "cover_image_url": {"type": ["string", "null"]},
                "views": _count(),
                "created_at": _TIMESTAMP_OUT,
                "updated_at": _TIMESTAMP_OUT,
            },
        ),
        "Channel": _object(
            [
                "id",
                "name",
                "slug",
                "description",
                "visibility",
                "subscriber_count",
                "post_count",
                "is_default",
                "is_archived",
                "created_at",
                "updated_at",
            ],  # fmt: skip
            {
                "id": _string(),
                "name": _string(),
                "slug": _string(),
                "description": _string(),
                "visibility": {"type": "string", "enum": list(VISIBILITIES)},
                "subscriber_count": _count(),
                "post_count": _count(),
                "is_default": {"type": "boolean"},
                "is_archived": {"type": "boolean"},
                "created_at": _TIMESTAMP_OUT,
                "updated_at": _TIMESTAMP_OUT,
            },
        ),
        "PostDay": _object(
            [
                "post_id",
                "channel_id",
                "date",
                "views",
                "unique_viewers",
                "reactions",
                "comments",
                "shares",
                "clicks",
            ],  # fmt: skip
            {
                "post_id": _string(),
                "channel_id": _string(),
                "date": _string(format="date"),
                **{
                    name: _count()
                    for name in (
                        "views",
                        "unique_viewers",
                        "reactions",
                        "comments",
                        "shares",
                        "clicks",
                    )
                },  # fmt: skip
            },
        ),
        "ChannelDay": _object(
            [
                "channel_id",
                "date",
                "subscribers",
                "subscribers_gained",
                "subscribers_lost",
                "posts_published",
                "views",
            ],  # fmt: skip
            {
                "channel_id": _string(),
                "date": _string(format="date"),
                **{
                    name: _count()
                    for name in (
                        "subscribers",
                        "subscribers_gained",
                        "subscribers_lost",
                        "posts_published",
                        "views",
                    )
                },  # fmt: skip
            },
        ),
        "PostPage": _page("Post"),
        "ChannelPage": _page("Channel"),
        "PostDayPage": _page("PostDay"),
        "ChannelDayPage": _page("ChannelDay"),
        "PostCreate": _object(
            ["channel_id", "title", "body"],
            {**_POST_FIELDS, "scheduled_at": {**_TIMESTAMP_IN, "type": ["string", "null"]}},
        ),
        "PostUpdate": _object(
            [],
            {
                **_POST_FIELDS,
                "scheduled_at": _TIMESTAMP_IN,
                "status": {"type": "string", "enum": list(POST_STATUSES)},
            },
        ),
        "ChannelCreate": _object(
            ["name"],
            {
                **_CHANNEL_FIELDS,
                "slug": {
                    **_CHANNEL_FIELDS["slug"],
                    "type": ["string", "null"],
                    "description": "Derived from the name when omitted or null.",
                },
            },
        ),
        "ChannelUpdate": _object([], {**_CHANNEL_FIELDS, "is_archived": {"type": "boolean"}}),
    }


def _responses() -> dict[str, Any]:
    error = _ref("schemas", "Error")
    retry = {"Retry-After": _ref("headers", "Retry-After")}
    return {
        "400": _json(error, "Invalid request; `param` names the offending parameter."),
        "401": _json(error, "Missing, malformed, unknown or revoked API key."),
        "403": _json(error, "The key lacks the scope this operation needs."),
        "404": _json(error, "No such resource, or one the key cannot see."),
        "409": _json(error, "Conflict with the current state (see `param`)."),
        "429": {
            **_json(error, "Rate limited; retry after `Retry-After` seconds."),
            "headers": {**_RATE_HEADERS, **retry},
        },
        "500": _json(error, "Server error; retry later."),
        "503": {
            **_json(error, "Service unavailable; retry after `Retry-After` seconds."),
            "headers": {**_RATE_HEADERS, **retry},
        },
    }


def _headers() -> dict[str, Any]:
    def integer(description: str) -> dict[str, Any]:
        return {"required": True, "description": description, "schema": {"type": "integer"}}

    return {
        "X-RateLimit-Limit": integer("Requests allowed per window for this key's plan."),
        "X-RateLimit-Remaining": integer("Requests left in the current window."),
        "X-RateLimit-Reset": integer("Unix time (whole seconds) at which the window ends."),
        "Retry-After": integer("Seconds to wait before retrying."),
    }


def _parameters() -> dict[str, Any]:
    def query(name: str, schema: dict[str, Any], description: str) -> dict[str, Any]:
        return {"name": name, "in": "query", "required": False, "schema": schema,
                "description": description}  # fmt: skip

    filter_string = _string(minLength=1, maxLength=FILTER_MAX_CHARS)
    return {
        "limit": query(
            "limit",
            {"type": "integer", "minimum": 1, "maximum": PAGE_LIMIT_MAX},
            f"Items per page (default {PAGE_LIMIT_DEFAULT}).",
        ),
        "cursor": query(
            "cursor",
            _string(minLength=1, maxLength=CURSOR_MAX_CHARS),
            "The `next_cursor` of the previous page, unchanged, with the same filters.",
        ),
        "channel_id": query("channel_id", filter_string, "Only this channel."),
        "author_id": query("author_id", filter_string, "Only posts by this user."),
        "post_id": query("post_id", filter_string, "Only this post."),
        "tag": query("tag", filter_string, "Only posts carrying this tag."),
        "priority": query(
            "priority", {"type": "string", "enum": list(PRIORITIES)}, "Only this priority."
        ),
        "visibility": query(
            "visibility", {"type": "string", "enum": list(VISIBILITIES)}, "Only this visibility."
        ),
        "published_after": query(
            "published_after", _TIMESTAMP_IN, "Only posts published strictly after this."
        ),
        "published_before": query(
            "published_before", _TIMESTAMP_IN, "Only posts published strictly before this."
        ),
        "start": query("start", _TIMESTAMP_IN, "First day listed (inclusive, UTC)."),
        "end": query("end", _TIMESTAMP_IN, "Day after the last one listed (exclusive)."),
        "id": {"name": "id", "in": "path", "required": True, "schema": _ID},
        "Idempotency-Key": {
            "name": "Idempotency-Key",
            "in": "header",
            "required": False,
            "schema": _string(minLength=1, maxLength=IDEMPOTENCY_KEY_MAX_CHARS),
            "description": "Repeat a POST safely: the same key and body within 24 hours "
            "return the first response and create nothing.",
        },
    }


def _params(*names: str) -> list[dict[str, str]]:
    return [_ref("parameters", name) for name in names]


def _body(schema: str) -> dict[str, Any]:
    return {"required": True, "content": {"application/json": {"schema": _ref("schemas", schema)}}}


def _links(kind: str) -> dict[str, Any]:
    by_id = {"id": "$response.body#/id"}
    links: dict[str, Any] = {
        f"Get{kind}": {"operationId": f"get{kind}", "parameters": by_id},
        f"Update{kind}": {"operationId": f"update{kind}", "parameters": by_id},
        f"Delete{kind}": {"operationId": f"delete{kind}", "parameters": by_id},
    }
    if kind == "Channel":
        links["CreatePostInChannel"] = {
            "operationId": "createPost",
            "requestBody": {"channel_id": "$response.body#/id"},
        }
    else:
        links["GetPostAnalytics"] = {
            "operationId": "listPostAnalytics",
            "parameters": {"post_id": "$response.body#/id"},
        }
    return links


def _paths() -> dict[str, Any]:
    def ok(schema: str, description: str, status: str = "200", **extra: Any) -> dict[str, Any]:
        return {status: _json(_ref("schemas", schema), description, **extra)}

    deleted = {"204": {"description": "Deleted.", "headers": dict(_RATE_HEADERS)}}
    return {
        "/posts": {
            "get": {
                "operationId": "listPosts",
                "summary": "List posts, newest first.",
                "parameters": _params(
                    *FILTER_CLAUSES,
                    "limit",
                    "cursor",
                ),  # fmt: skip
                "responses": {**ok("PostPage", "A page of posts."), **_errors("400", "403")},
            },
            "post": {
                "operationId": "createPost",
                "summary": "Create a post (published now, or scheduled).",
                "parameters": _params("Idempotency-Key"),
                "requestBody": _body("PostCreate"),
                "responses": {
                    **ok("Post", "The new post.", "201", links=_links("Post")),
                    **_errors("400", "403", "409"),
                },
            },
        },
        "/posts/{id}": {
            "parameters": _params("id"),
            "get": {
                "operationId": "getPost",
                "responses": {**ok("Post", "The post."), **_errors("400", "403", "404")},
            },
            "patch": {
                "operationId": "updatePost",
                "summary": "Change fields and/or status (see the transitions in docs/api.md).",
                "requestBody": _body("PostUpdate"),
                "responses": {
                    **ok("Post", "The updated post."),
                    **_errors("400", "403", "404", "409"),
                },
            },
            "delete": {
                "operationId": "deletePost",
                "responses": {**deleted, **_errors("400", "403", "404")},
            },
        },
        "/channels": {
            "get": {
                "operationId": "listChannels",
                "summary": "List the channels the key can see, in creation order.",
                "parameters": _params("visibility", "limit", "cursor"),
                "responses": {**ok("ChannelPage", "A page of channels."), **_errors("400", "403")},
            },
            "post": {
                "operationId": "createChannel",
                "parameters": _params("Idempotency-Key"),
                "requestBody": _body("ChannelCreate"),
                "responses": {
                    **ok("Channel", "The new channel.", "201", links=_links("Channel")),
                    **_errors("400", "403", "409"),
                },
            },
        },
        "/channels/{id}": {
            "parameters": _params("id"),
            "get": {
                "operationId": "getChannel",
                "responses": {**ok("Channel", "The channel."), **_errors("400", "403", "404")},
            },
            "patch": {
                "operationId": "updateChannel",
                "requestBody": _body("ChannelUpdate"),
                "responses": {
                    **ok("Channel", "The updated channel."),
                    **_errors("400", "403", "404", "409"),
                },
            },
            "delete": {
                "operationId": "deleteChannel",
                "summary": "Delete an empty channel (one with posts: 409; archive it instead).",
                "responses": {**deleted, **_errors("400", "403", "404", "409")},
            },
        },
        "/analytics/posts": {
            "get": {
                "operationId": "listPostAnalytics",
                "summary": "Daily engagement rows per post, finished UTC days only.",
                "parameters": _params("post_id", "channel_id", "start", "end", "limit", "cursor"),
                "responses": {**ok("PostDayPage", "A page of rows."), **_errors("400", "403")},
            },
        },
        "/analytics/channels": {
            "get": {
                "operationId": "listChannelAnalytics",
                "summary": "Daily rows per channel, finished UTC days only.",
                "parameters": _params("channel_id", "start", "end", "limit", "cursor"),
                "responses": {**ok("ChannelDayPage", "A page of rows."), **_errors("400", "403")},
            },
        },
    }


def openapi_document() -> dict[str, Any]:
    """The whole interface, as served at /v1/openapi.json."""
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Publishing and Channel Service",
            "version": __version__,
            "description": "Posts, channels and engagement analytics. Served locally by "
            "`channelkit serve`; the decisions filling the published spec's gaps are in "
            "docs/api.md.",
        },
        "servers": [{"url": "http://127.0.0.1:8000/v1"}],
        "security": [{"bearerAuth": []}],
        "paths": _paths(),
        "components": {
            "securitySchemes": {"bearerAuth": {"type": "http", "scheme": "bearer"}},
            "schemas": _schemas(),
            "responses": _responses(),
            "headers": _headers(),
            "parameters": _parameters(),
        },
    }


def render() -> str:
    return json.dumps(openapi_document(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    print(render(), end="")
