"""Request bodies, validated strictly: unknown fields, wrong types and bad lengths are 400.

`parse_body` turns pydantic's errors into the spec's error, with `param` naming the
top-level field at fault and the message giving the full path inside it.
"""

from __future__ import annotations

import re
from typing import Annotated, TypeVar
from urllib.parse import urlsplit

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError

from channelkit._spec import (
    BODY_MAX_CHARS,
    CHANNEL_NAME_MAX_CHARS,
    DESCRIPTION_MAX_CHARS,
    ID_MAX_CHARS,
    SLUG_PATTERN,
    TAG_MAX_CHARS,
    TAGS_MAX_COUNT,
    TITLE_MAX_CHARS,
    URL_MAX_CHARS,
    PostStatus,
    Priority,
    Visibility,
)
from channelkit.service.errors import ApiError, bad_request


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be blank")
    return value


def _http_url(value: str) -> str:
    parts = urlsplit(value)
    if (
        parts.scheme not in ("http", "https")
        or not parts.netloc
        or re.search(r"\s", value)
        or parts.hostname is None
    ):
        raise ValueError("must be an absolute http(s) URL")
    return value


def _unique(tags: list[str]) -> list[str]:
    return list(dict.fromkeys(tags))


Title = Annotated[str, Field(min_length=1, max_length=TITLE_MAX_CHARS), AfterValidator(_not_blank)]
Body = Annotated[str, Field(min_length=1, max_length=BODY_MAX_CHARS), AfterValidator(_not_blank)]
Tag = Annotated[str, Field(min_length=1, max_length=TAG_MAX_CHARS), AfterValidator(_not_blank)]
Tags = Annotated[list[Tag], Field(max_length=TAGS_MAX_COUNT), AfterValidator(_unique)]
Url = Annotated[str, Field(max_length=URL_MAX_CHARS), AfterValidator(_http_url)]
Timestamp = Annotated[str, Field(min_length=1, max_length=ID_MAX_CHARS)]
ChannelRef = Annotated[str, Field(min_length=1, max_length=ID_MAX_CHARS)]
Name = Annotated[
    str, Field(min_length=1, max_length=CHANNEL_NAME_MAX_CHARS), AfterValidator(_not_blank)
]
Slug = Annotated[str, Field(max_length=CHANNEL_NAME_MAX_CHARS, pattern=SLUG_PATTERN)]
Description = Annotated[str, Field(max_length=DESCRIPTION_MAX_CHARS)]


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class PostCreate(_Body):
    channel_id: ChannelRef
    title: Title
    body: Body
    priority: Priority = "normal"
    tags: Tags = []
    scheduled_at: Timestamp | None = None
    cover_image_url: Url | None = None


class PostUpdate(_Body):
    """Every field optional; `model_fields_set` tells which were sent."""

    channel_id: ChannelRef = ""
    title: Title = ""
    body: Body = ""
    priority: Priority = "normal"
    tags: Tags = []
    scheduled_at: Timestamp = ""
    cover_image_url: Url | None = None
    status: PostStatus = "draft"


class ChannelCreate(_Body):
    name: Name
    slug: Slug | None = None
    description: Description = ""
    visibility: Visibility = "organization"
    is_default: bool = False


class ChannelUpdate(_Body):
    """Every field optional; `model_fields_set` tells which were sent."""

    name: Name = ""
    slug: Slug = ""
    description: Description = ""
    visibility: Visibility = "organization"
    is_default: bool = False
    is_archived: bool = False


class ClockAdvance(_Body):
    seconds: Annotated[float, Field(ge=0, le=10 * 365 * 86_400)]


M = TypeVar("M", bound=BaseModel)

_MESSAGES = {
    "missing": "is required",
    "extra_forbidden": "is not a known field",
    "string_type": "must be a string",
    "bool_type": "must be true or false",
    "list_type": "must be an array",
    "float_type": "must be a number",
}


def parse_body(model: type[M], raw: bytes) -> M:
    """Validate the JSON request body `raw` as `model`, or raise the matching 400."""
    if not raw.strip():
        raise ApiError(400, "request body is empty; send a JSON object", param=None)
    try:
        return model.model_validate_json(raw)
    except ValidationError as exc:
        raise _to_api_error(exc) from None


def _to_api_error(exc: ValidationError) -> ApiError:
    error = exc.errors(include_url=False)[0]
    loc = [str(part) for part in error["loc"]]
    kind = error["type"]
    if kind == "json_invalid":
        return ApiError(400, f"request body is not valid JSON: {error['msg']}", param=None)
    if not loc:
        return ApiError(400, "request body must be a JSON object", param=None)
    path = loc[0] + "".join(f"[{part}]" for part in loc[1:])
    message = _MESSAGES.get(kind)
    if message is None:
        message = str(error["msg"])
        message = message.removeprefix("Value error, ")
        message = message[0].lower() + message[1:]
    return (
        bad_request(loc[0], message)
        if path == loc[0]
        else ApiError(400, f"{path}: {message}", param=loc[0])
    )
