"""Request bodies, derived from the contract's field tables and validated strictly.

Unknown fields, wrong types, bad lengths and the text rules of `channelkit._spec` are 400.
`parse_body` turns pydantic's errors into the spec's error, with `param` naming the
top-level field at fault and the message giving the full path inside it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, create_model

from channelkit import _spec
from channelkit.errors import ServiceHTTPError


def _text_rule(rule: str) -> Callable[[str], str]:
    def check(value: str) -> str:
        problem = _spec.text_problem(rule, value)
        if problem is not None:
            raise ValueError(problem)
        return value

    return check


def _url(value: str) -> str:
    problem = _spec.url_problem(value)
    if problem is not None:
        raise ValueError(problem)
    return value


def _unique(tags: list[str]) -> list[str]:
    return list(dict.fromkeys(tags))


_Id = Annotated[str, Field(min_length=1, max_length=_spec.ID_MAX_CHARS)]
_Slug = Annotated[str, Field(max_length=_spec.CHANNEL_NAME_MAX_CHARS, pattern=_spec.SLUG_PATTERN)]
_Instant = Annotated[str, Field(min_length=1, max_length=_spec.ID_MAX_CHARS)]
_Url = Annotated[str, AfterValidator(_url)]


def _type(field: _spec.Field) -> Any:
    """The pydantic type of a request field of `field.kind`."""
    if field.kind == "text":
        assert field.text is not None
        return Annotated[str, AfterValidator(_text_rule(field.text))]
    if field.kind == "tags":
        assert field.text is not None
        tag = Annotated[str, AfterValidator(_text_rule(field.text))]
        return Annotated[list[tag], Field(max_length=_spec.TAGS_MAX_COUNT), AfterValidator(_unique)]
    if field.kind == "enum":
        return Literal[field.choices]
    simple: dict[str, Any] = {
        "id": _Id, "slug": _Slug, "instant": _Instant, "url": _Url, "flag": bool,
    }  # fmt: skip
    return simple[field.kind]


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


def _create_model(name: str, fields: tuple[_spec.Field, ...]) -> type[_Body]:
    definitions: dict[str, Any] = {}
    for field in _spec.create_fields(fields):
        kind = _type(field)
        if field.create == "required":
            definitions[field.name] = (kind, ...)
        elif field.default is not None:
            definitions[field.name] = (kind, field.default)
        elif field.kind == "tags":
            definitions[field.name] = (kind, [])
        else:
            definitions[field.name] = (kind | None, None)
    return create_model(name, __base__=_Body, **definitions)


def _update_model(name: str, fields: tuple[_spec.Field, ...]) -> type[_Body]:
    """Every field optional; `model_fields_set` tells which were sent."""
    definitions: dict[str, Any] = {}
    for field in _spec.update_fields(fields):
        kind = _type(field)
        definitions[field.name] = ((kind | None) if field.clearable else kind, None)
    return create_model(name, __base__=_Body, **definitions)


# Typed as Any: their fields come from the contract's tables at import time.
PostCreate: Any = _create_model("PostCreate", _spec.POST_FIELDS)
PostUpdate: Any = _update_model("PostUpdate", _spec.POST_FIELDS)
ChannelCreate: Any = _create_model("ChannelCreate", _spec.CHANNEL_FIELDS)
ChannelUpdate: Any = _update_model("ChannelUpdate", _spec.CHANNEL_FIELDS)


def stored_fields(fields: tuple[_spec.Field, ...]) -> tuple[str, ...]:
    """Fields kept as sent, one column each (the others are computed or stored apart)."""
    return tuple(
        f.name
        for f in _spec.create_fields(fields)
        if f.kind in ("text", "slug", "enum", "url", "flag")
    )


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
        raise ServiceHTTPError(400, "request body is empty; send a JSON object", param=None)
    try:
        return model.model_validate_json(raw)
    except ValidationError as exc:
        raise _to_api_error(exc) from None


def _to_api_error(exc: ValidationError) -> ServiceHTTPError:
    error = exc.errors(include_url=False)[0]
    loc = [str(part) for part in error["loc"]]
    kind = error["type"]
    if kind == "json_invalid":
        return ServiceHTTPError(400, f"request body is not valid JSON: {error['msg']}", param=None)
    if not loc:
        return ServiceHTTPError(400, "request body must be a JSON object", param=None)
    path = loc[0] + "".join(f"[{part}]" for part in loc[1:])
    message = _MESSAGES.get(kind)
    if message is None:
        message = str(error["msg"])
        message = message.removeprefix("Value error, ")
        message = message[0].lower() + message[1:]
    return (
        ServiceHTTPError.bad_request(loc[0], message)
        if path == loc[0]
        else ServiceHTTPError(400, f"{path}: {message}", param=loc[0])
    )
