"""The interface as an OpenAPI 3.1 document, generated from the contract (`channelkit._spec`).

Served at `GET /v1/openapi.json` and checked in as `docs/openapi.json`; regenerate with
`python -m channelkit.service.openapi --write` (a test fails while the file is stale).
Every constraint published here is one the service enforces, and no stricter: a fuzzer
may rely on the schema in both directions.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from channelkit import _spec
from channelkit._version import __version__
from channelkit.errors import ERROR_CODES

DOCUMENT_PATH = Path("docs") / "openapi.json"
_REF = "#/components/"
_ANY_TEXT = r"^[^\u0000-\u001f\u007f-\u009f]*$"
_MULTILINE_TEXT = r"^[^\u0000-\u0008\u000b-\u001f\u007f-\u009f]*$"


def _ref(kind: str, name: str) -> dict[str, str]:
    return {"$ref": f"{_REF}{kind}/{name}"}


def _string(**extra: Any) -> dict[str, Any]:
    return {"type": "string", **extra}


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    if "anyOf" in schema:
        return {**schema, "anyOf": [*schema["anyOf"], {"type": "null"}]}
    if "$ref" in schema:
        return {"anyOf": [schema, {"type": "null"}]}
    return {**schema, "type": [schema["type"], "null"]}


_INSTANT_IN = {
    "anyOf": [
        _string(format="date-time", pattern=_spec.REQUEST_DATE_TIME_PATTERN),
        _string(format="date", pattern=_spec.REQUEST_DATE_PATTERN),
    ],
    "description": "RFC 3339 with an offset of at most 18:00 (`2026-11-21T09:30:00+01:00`), or a "
    "date (`2026-11-21`, meaning 00:00 UTC); within 0001-01-01T00:00:00Z..9999-12-31T23:59:59Z "
    "once in UTC. Fractions of a second are dropped.",
}
_INSTANT_OUT = _string(format="date-time", description="RFC 3339, UTC, `Z` suffix.")
_ID = _string(minLength=1, maxLength=_spec.ID_MAX_CHARS)
_COUNT = {"type": "integer", "minimum": 0}
_RATE_HEADERS = {name: _ref("headers", name) for name in _spec.RATE_LIMIT_HEADERS}
_ETAG = {_spec.ETAG_HEADER: _ref("headers", _spec.ETAG_HEADER)}


def _object(required: list[str], properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "additionalProperties": False,
        "required": required,
        "properties": properties,
    }


def _text(rule_name: str) -> dict[str, Any]:
    rule = _spec.TEXT_RULES[rule_name]
    controls = "except newline and tab" if rule.multiline else "(NUL, C0, DEL, C1)"
    blank = "; may be empty but not blank" if rule.may_be_empty else "; not blank"
    return _string(
        minLength=rule.min_chars,
        maxLength=rule.max_chars,
        pattern=_MULTILINE_TEXT if rule.multiline else _ANY_TEXT,
        description=f"No control characters {controls}{blank} once invisible characters "
        "(zero-width, bidi controls) are removed.",
    )


# --- resources, as responses show them ------------------------------------------------------
def _shown(field: _spec.Field) -> dict[str, Any]:
    schema: dict[str, Any]
    if field.kind == "enum":
        schema = _string(enum=list(field.choices))
    elif field.kind == "tags":
        schema = {"type": "array", "items": _string()}
    elif field.kind == "author":
        schema = _ref("schemas", "Author")
    elif field.kind == "instant":
        schema = dict(_INSTANT_OUT)
    elif field.kind == "count":
        schema = dict(_COUNT)
    elif field.kind == "flag":
        schema = {"type": "boolean"}
    else:
        schema = _string()
    if field.description and "$ref" not in schema:
        schema["description"] = field.description
    return _nullable(schema) if field.nullable else schema


def _resource(fields: tuple[_spec.Field, ...]) -> dict[str, Any]:
    return _object(list(_spec.field_names(fields)), {f.name: _shown(f) for f in fields})


# --- request bodies ---------------------------------------------------------------------------
def _sent(field: _spec.Field) -> dict[str, Any]:
    schema: dict[str, Any]
    if field.kind == "text":
        assert field.text is not None
        schema = _text(field.text)
    elif field.kind == "tags":
        assert field.text is not None
        schema = {"type": "array", "maxItems": _spec.TAGS_MAX_COUNT, "items": _text(field.text)}
    elif field.kind == "slug":
        schema = _string(maxLength=_spec.CHANNEL_NAME_MAX_CHARS, pattern=_spec.SLUG_PATTERN)
    elif field.kind == "enum":
        schema = _string(enum=list(field.choices))
    elif field.kind == "instant":
        schema = dict(_INSTANT_IN)
    elif field.kind == "url":
        schema = _string(maxLength=_spec.URL_MAX_CHARS)
    elif field.kind == "flag":
        schema = {"type": "boolean"}
    else:
        schema = dict(_ID)
    if field.description and "description" not in schema:
        schema["description"] = field.description
    return schema


def _create_body(fields: tuple[_spec.Field, ...]) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    for field in _spec.create_fields(fields):
        schema = _sent(field)
        # an optional field without a default also takes null (meaning: not given)
        absent_is_null = field.create == "optional" and field.default is None
        properties[field.name] = (
            _nullable(schema) if absent_is_null and field.kind != "tags" else schema
        )
    required = [f.name for f in fields if f.create == "required"]
    return _object(required, properties)


def _update_body(fields: tuple[_spec.Field, ...]) -> dict[str, Any]:
    properties = {
        f.name: _nullable(_sent(f)) if f.clearable else _sent(f)
        for f in _spec.update_fields(fields)
    }
    return _object([], properties)


def _page(item: str) -> dict[str, Any]:
    return _object(
        ["data", "next_cursor", "has_more"],
        {
            "data": {"type": "array", "items": _ref("schemas", item)},
            "next_cursor": {"type": ["string", "null"]},
            "has_more": {"type": "boolean"},
        },
    )


def _day_row(keys: tuple[str, ...], counts: tuple[str, ...]) -> dict[str, Any]:
    properties = {name: _string(format="date") if name == "date" else _string() for name in keys}
    properties.update({name: dict(_COUNT) for name in counts})
    return _object([*keys, *counts], properties)


def _schemas() -> dict[str, Any]:
    codes = list(dict.fromkeys(ERROR_CODES.values()))
    post_day_keys = _spec.POST_DAY_FIELDS[: -len(_spec.POST_DAY_COUNTS)]
    channel_day_keys = _spec.CHANNEL_DAY_FIELDS[: -len(_spec.CHANNEL_DAY_COUNTS)]
    return {
        "Error": _object(
            ["error"],
            {
                "error": _object(
                    ["code", "message", "param"],
                    {
                        "code": _string(enum=codes),
                        "message": _string(),
                        "param": {"type": ["string", "null"]},
                    },
                )
            },
        ),
        "Author": _object(
            list(_spec.AUTHOR_FIELDS), {name: _string() for name in _spec.AUTHOR_FIELDS}
        ),
        "Post": _resource(_spec.POST_FIELDS),
        "Channel": _resource(_spec.CHANNEL_FIELDS),
        "PostDay": _day_row(post_day_keys, _spec.POST_DAY_COUNTS),
        "ChannelDay": _day_row(channel_day_keys, _spec.CHANNEL_DAY_COUNTS),
        "PostPage": _page("Post"),
        "ChannelPage": _page("Channel"),
        "PostDayPage": _page("PostDay"),
        "ChannelDayPage": _page("ChannelDay"),
        "PostCreate": _create_body(_spec.POST_FIELDS),
        "PostUpdate": _update_body(_spec.POST_FIELDS),
        "ChannelCreate": _create_body(_spec.CHANNEL_FIELDS),
        "ChannelUpdate": _update_body(_spec.CHANNEL_FIELDS),
    }


# --- responses, headers, parameters -----------------------------------------------------------
def _json(schema: dict[str, Any], description: str, **extra: Any) -> dict[str, Any]:
    return {
        "description": description,
        "headers": dict(_RATE_HEADERS),
        "content": {"application/json": {"schema": schema}},
        **extra,
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

    limit, remaining, reset = _spec.RATE_LIMIT_HEADERS
    return {
        limit: integer("Requests allowed per window for this key's plan."),
        remaining: integer("Requests left in the current window."),
        reset: integer("Unix time (whole seconds) at which the window ends."),
        "Retry-After": integer("Seconds to wait before retrying."),
        _spec.ETAG_HEADER: {
            "required": True,
            "description": "A strong validator of this representation; it changes whenever "
            f"the resource does. Send it back as `{_spec.IF_MATCH_HEADER}` to update or delete "
            "only what you read.",
            "schema": _string(pattern='^"[^"]*"$'),
        },
    }


def _query_schema(kind: _spec.QueryKind) -> dict[str, Any]:
    if kind == "instant":
        return dict(_INSTANT_IN)
    if kind == "priority":
        return _string(enum=list(_spec.PRIORITIES))
    if kind == "visibility":
        return _string(enum=list(_spec.VISIBILITIES))
    if kind == "limit":
        return {"type": "integer", "minimum": 1, "maximum": _spec.PAGE_LIMIT_MAX}
    if kind == "cursor":
        return _string(minLength=1, maxLength=_spec.CURSOR_MAX_CHARS)
    return _string(minLength=1, maxLength=_spec.FILTER_MAX_CHARS)


def _parameters() -> dict[str, Any]:
    parameters: dict[str, Any] = {
        name: {
            "name": name,
            "in": "query",
            "required": False,
            "schema": _query_schema(kind),
            "description": description,
        }
        for name, (kind, description) in _spec.QUERY_PARAMETERS.items()
    }
    parameters["id"] = {"name": "id", "in": "path", "required": True, "schema": _ID}
    parameters[_spec.IDEMPOTENCY_HEADER] = {
        "name": _spec.IDEMPOTENCY_HEADER,
        "in": "header",
        "required": False,
        "schema": _string(minLength=1, maxLength=_spec.IDEMPOTENCY_KEY_MAX_CHARS),
        "description": "Repeat a POST safely: the same key and the same JSON (whatever its "
        "whitespace or key order) within 24 hours return the first response and create nothing.",
    }
    parameters[_spec.IF_MATCH_HEADER] = {
        "name": _spec.IF_MATCH_HEADER,
        "in": "header",
        "required": False,
        "schema": _string(),
        "description": f"The `{_spec.ETAG_HEADER}` you read (or `*`). When the resource has "
        "changed since, the request is refused with 409, `param` = `If-Match`, and nothing "
        "changes.",
    }
    return parameters


# --- operations ---------------------------------------------------------------------------------
def _links(op: _spec.Operation) -> dict[str, Any]:
    """How a created resource leads to the operations on it (for stateful testing)."""
    kind = "Post" if op.item == "posts" else "Channel"
    by_id = {"id": "$response.body#/id"}
    guarded = {**by_id, f"header.{_spec.IF_MATCH_HEADER}": f"$response.header.{_spec.ETAG_HEADER}"}
    links: dict[str, Any] = {
        f"Get{kind}": {"operationId": f"get{kind}", "parameters": by_id},
        f"Update{kind}": {"operationId": f"update{kind}", "parameters": by_id},
        f"Update{kind}IfUnchanged": {"operationId": f"update{kind}", "parameters": guarded},
        f"Delete{kind}": {"operationId": f"delete{kind}", "parameters": guarded},
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


def _operation(op: _spec.Operation) -> dict[str, Any]:
    document: dict[str, Any] = {"operationId": op.id, "summary": op.summary}
    parameters = [_ref("parameters", name) for name in op.query]
    if op.method == "POST":
        parameters.append(_ref("parameters", _spec.IDEMPOTENCY_HEADER))
    if op.method in ("PATCH", "DELETE"):
        parameters.append(_ref("parameters", _spec.IF_MATCH_HEADER))
    if parameters:
        document["parameters"] = parameters
    if op.request is not None:
        document["requestBody"] = {
            "required": True,
            "content": {"application/json": {"schema": _ref("schemas", op.request)}},
        }
    if op.response is None:
        success = {"description": "Done.", "headers": dict(_RATE_HEADERS)}
    else:
        headers = {**_RATE_HEADERS, **(_ETAG if op.item else {})}
        success = {
            **_json(_ref("schemas", op.response), f"{op.response} object."),
            "headers": headers,
        }
        if op.method == "POST":
            success["links"] = _links(op)
    errors = ["400", "401", "403"]
    if "{id}" in op.path:
        errors.append("404")
    if op.conflicts:
        errors.append("409")
    errors += ["429", "500", "503"]
    document["responses"] = {
        str(op.status): success,
        **{status: _ref("responses", status) for status in errors},
    }
    return document


def _paths() -> dict[str, Any]:
    paths: dict[str, Any] = {}
    for op in _spec.OPERATIONS:
        entry = paths.setdefault(op.path, {})
        if "{id}" in op.path:
            entry.setdefault("parameters", [_ref("parameters", "id")])
        entry[op.method.lower()] = _operation(op)
    return paths


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
        "servers": [{"url": f"http://127.0.0.1:8000{_spec.API_VERSION_SEGMENT}"}],
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


def document_text() -> str:
    return json.dumps(openapi_document(), indent=2, ensure_ascii=False) + "\n"


def print_or_write(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m channelkit.service.openapi",
        description="Print the OpenAPI document generated from the contract, or write it.",
    )
    parser.add_argument(
        "--write",
        nargs="?",
        const=str(DOCUMENT_PATH),
        metavar="PATH",
        help=f"write it to PATH (default {DOCUMENT_PATH}, from the repository's root)",
    )
    args = parser.parse_args(argv)
    if args.write is None:
        sys.stdout.write(document_text())
        return 0
    Path(args.write).write_text(document_text(), encoding="utf-8")
    print(f"wrote {args.write}")
    return 0


if __name__ == "__main__":
    raise SystemExit(print_or_write())
