"""Raw page items (decoded JSON) to Arrow tables shaped like the warehouse's tables.

This is the sync's hot path: one `pa.Table.from_pylist` per batch with an explicit schema
(extra fields the server may add are ignored), then vectorised casts. No per-row Python
objects are built; only when a cast fails are the items scanned again, to name the item
and field that is wrong.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from channelkit.errors import ChannelkitError

TIMESTAMP = pa.timestamp("us", tz="UTC")


class SyncDataError(ChannelkitError):
    """An item the server sent does not fit the warehouse (wrong type, bad timestamp...)."""


@dataclass(frozen=True)
class TableShape:
    """How items of one listing become rows of one warehouse table.

    `source` lists the item fields as Arrow types; `timestamps` and `dates` are source
    string fields cast to TIMESTAMPTZ / DATE; `struct_fields` flattens nested objects
    (`author.id` -> `author_id`).
    """

    table: str
    key: tuple[str, ...]
    source: pa.Schema
    timestamps: tuple[str, ...] = ()
    dates: tuple[str, ...] = ()
    struct_fields: tuple[tuple[str, str, str], ...] = ()  # (struct, field, column)
    required: tuple[str, ...] = ()


_AUTHOR = pa.struct([("id", pa.string()), ("name", pa.string()), ("email", pa.string())])

CHANNELS = TableShape(
    table="channels",
    key=("id",),
    source=pa.schema(
        [
            ("id", pa.string()),
            ("name", pa.string()),
            ("slug", pa.string()),
            ("description", pa.string()),
            ("visibility", pa.string()),
            ("subscriber_count", pa.int64()),
            ("post_count", pa.int64()),
            ("is_default", pa.bool_()),
            ("is_archived", pa.bool_()),
            ("created_at", pa.string()),
            ("updated_at", pa.string()),
        ]
    ),
    timestamps=("created_at", "updated_at"),
    required=("id", "name", "slug", "visibility"),
)

POSTS = TableShape(
    table="posts",
    key=("id",),
    source=pa.schema(
        [
            ("id", pa.string()),
            ("channel_id", pa.string()),
            ("title", pa.string()),
            ("body", pa.string()),
            ("priority", pa.string()),
            ("tags", pa.list_(pa.string())),
            ("author", _AUTHOR),
            ("status", pa.string()),
            ("published_at", pa.string()),
            ("scheduled_at", pa.string()),
            ("cover_image_url", pa.string()),
            ("views", pa.int64()),
            ("created_at", pa.string()),
            ("updated_at", pa.string()),
        ]
    ),
    timestamps=("published_at", "scheduled_at", "created_at", "updated_at"),
    struct_fields=(
        ("author", "id", "author_id"),
        ("author", "name", "author_name"),
        ("author", "email", "author_email"),
    ),
    required=("id", "channel_id", "title", "priority", "status"),
)

_DAILY_COUNT = pa.int64()

POST_DAILY = TableShape(
    table="post_daily",
    key=("post_id", "date"),
    source=pa.schema(
        [
            ("post_id", pa.string()),
            ("channel_id", pa.string()),
            ("date", pa.string()),
            ("views", _DAILY_COUNT),
            ("unique_viewers", _DAILY_COUNT),
            ("reactions", _DAILY_COUNT),
            ("comments", _DAILY_COUNT),
            ("shares", _DAILY_COUNT),
            ("clicks", _DAILY_COUNT),
        ]
    ),
    dates=("date",),
    required=(
        "post_id",
        "channel_id",
        "date",
        "views",
        "unique_viewers",
        "reactions",
        "comments",
        "shares",
        "clicks",
    ),
)

CHANNEL_DAILY = TableShape(
    table="channel_daily",
    key=("channel_id", "date"),
    source=pa.schema(
        [
            ("channel_id", pa.string()),
            ("date", pa.string()),
            ("subscribers", _DAILY_COUNT),
            ("subscribers_gained", _DAILY_COUNT),
            ("subscribers_lost", _DAILY_COUNT),
            ("posts_published", _DAILY_COUNT),
            ("views", _DAILY_COUNT),
        ]
    ),
    dates=("date",),
    required=(
        "channel_id",
        "date",
        "subscribers",
        "subscribers_gained",
        "subscribers_lost",
        "posts_published",
        "views",
    ),
)


def items_to_arrow(shape: TableShape, items: Sequence[dict[str, Any]], where: str) -> pa.Table:
    """Convert decoded items to an Arrow table with the warehouse table's column names.

    `where` names the listing (for example "GET /posts") in error messages.
    """
    _check_containers(shape, items, where)
    try:
        raw = pa.Table.from_pylist(list(items), schema=shape.source)
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise _locate(shape, items, where, exc) from None
    columns: dict[str, pa.Array | pa.ChunkedArray] = {}
    for name in shape.source.names:
        column = raw.column(name)
        if name in shape.required and column.null_count:
            index = column.to_pylist().index(None)
            raise SyncDataError(
                f"{where}: item {_label(items, index)} has no {name!r} (a required field)"
            )
        if pa.types.is_struct(column.type):
            continue
        if name in shape.timestamps:
            column = _cast(column, TIMESTAMP, shape, items, where, name, "an RFC 3339 timestamp")
        elif name in shape.dates:
            column = _cast(column, pa.date32(), shape, items, where, name, "a YYYY-MM-DD date")
        columns[name] = column
    for struct, field, target in shape.struct_fields:
        columns[target] = pc.struct_field(raw.column(struct), field)
    return pa.table(columns)


def _check_containers(shape: TableShape, items: Sequence[dict[str, Any]], where: str) -> None:
    # Arrow would read a string as a list of characters, and a non-object item as nulls.
    lists = [f.name for f in shape.source if pa.types.is_list(f.type)]
    for index, item in enumerate(items):
        if type(item) is not dict:
            raise SyncDataError(f"{where}: item {index} is not an object")
        for name in lists:
            value = item.get(name)
            if value is not None and type(value) is not list:
                raise SyncDataError(
                    f"{where}: item {_label(items, index)}: field {name!r} is {value!r}, "
                    "expected a list of strings"
                )


def _cast(
    column: pa.ChunkedArray,
    target: pa.DataType,
    shape: TableShape,
    items: Sequence[dict[str, Any]],
    where: str,
    name: str,
    expected: str,
) -> pa.ChunkedArray:
    try:
        return pc.cast(column, target)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        pass
    for index, item in enumerate(items):
        value = item.get(name)
        if value is None:
            continue
        try:
            pc.cast(pa.array([value]), target)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
            raise SyncDataError(
                f"{where}: item {_label(items, index)}: field {name!r} is {value!r}, "
                f"expected {expected}"
            ) from None
    raise SyncDataError(f"{where}: field {name!r} cannot be read as {expected}")


def _locate(
    shape: TableShape, items: Sequence[dict[str, Any]], where: str, exc: Exception
) -> SyncDataError:
    for index, item in enumerate(items):
        for field in shape.source:
            if field.name not in item:
                continue
            try:
                pa.array([item[field.name]], type=field.type)
            except (pa.ArrowInvalid, pa.ArrowTypeError):
                return SyncDataError(
                    f"{where}: item {_label(items, index)}: field {field.name!r} is "
                    f"{item[field.name]!r}, expected {_describe(field.type)}"
                )
    return SyncDataError(f"{where}: items do not fit the warehouse: {exc}")


def _label(items: Sequence[dict[str, Any]], index: int) -> str:
    item = items[index]
    ident = item.get("id") or item.get("post_id") or item.get("channel_id")
    return f"{index} ({ident})" if ident else str(index)


def _describe(type_: pa.DataType) -> str:
    if pa.types.is_integer(type_):
        return "an integer"
    if pa.types.is_boolean(type_):
        return "true or false"
    if pa.types.is_list(type_):
        return "a list of strings"
    if pa.types.is_struct(type_):
        return "an object"
    return "a string"
