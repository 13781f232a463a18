"""Raw page items (decoded JSON) to Arrow tables shaped like the warehouse's tables.

This is the sync's hot path: one `pa.Table.from_pylist` per batch with an explicit schema,
then vectorised casts. No per-row Python objects are built; only when a cast fails are the
items scanned again, to name the item and field that is wrong.

Fields the contract does not name are kept: they follow the table's columns, typed as
they came (a nested object or list as JSON text); the writer gives each a column.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import orjson
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pa_json

from channelkit import _resources, _spec
from channelkit.errors import SyncDataError

TIMESTAMP = pa.timestamp("us", tz="UTC")
_BLOCK_BYTES = 1 << 26  # the JSON reader's block: larger than any batch, one chunk each


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

    @cached_property
    def columns(self) -> frozenset[str]:
        """The table columns the contract's fields become (the rest are unknown fields)."""
        structs = {struct for struct, _, _ in self.struct_fields}
        flat = {column for _, _, column in self.struct_fields}
        return frozenset({n for n in self.source.names if n not in structs} | flat)


# Arrow types of the contract's field kinds; the sync's tables follow `_spec`'s field
# lists, so a new post or channel field needs no change here.
_AUTHOR = pa.struct([(name, pa.string()) for name in _spec.AUTHOR_FIELDS])
_KIND_TYPES: dict[str, pa.DataType] = {
    "id": pa.string(),
    "text": pa.string(),
    "slug": pa.string(),
    "enum": pa.string(),
    "url": pa.string(),
    "instant": pa.string(),  # RFC 3339 text, cast to TIMESTAMPTZ after decoding
    "tags": pa.list_(pa.string()),
    "count": pa.int64(),
    "flag": pa.bool_(),
    "author": _AUTHOR,
}


def _item_shape(
    table: str, key: tuple[str, ...], fields: tuple[_spec.Field, ...], required: tuple[str, ...]
) -> TableShape:
    return TableShape(
        table=table,
        key=key,
        source=pa.schema([(f.name, _KIND_TYPES[f.kind]) for f in fields]),
        timestamps=tuple(f.name for f in fields if f.kind == "instant"),
        struct_fields=tuple(
            (f.name, part, f"{f.name}_{part}")
            for f in fields
            if f.kind == "author"
            for part in _spec.AUTHOR_FIELDS
        ),
        required=required,
    )


def _daily_shape(table: str, fields: tuple[str, ...], key: tuple[str, ...]) -> TableShape:
    # Every field of a daily row is required: ids and the date as text, the rest counts.
    return TableShape(
        table=table,
        key=key,
        source=pa.schema(
            [(name, pa.string() if name in (*key, "channel_id") else pa.int64()) for name in fields]
        ),
        dates=("date",),
        required=fields,
    )


def shape_of(resource: _resources.Resource) -> TableShape:
    """The shape of a declared resource's items: its contract fields, or a daily row's."""
    if resource.fields is None:
        return _daily_shape(resource.table, resource.day_fields, resource.key)
    return _item_shape(resource.table, resource.key, resource.fields, resource.required)


SHAPES = {resource.table: shape_of(resource) for resource in _resources.RESOURCES}


def items_to_arrow(shape: TableShape, items: Sequence[dict[str, Any]], where: str) -> pa.Table:
    """Convert decoded items to an Arrow table with the warehouse table's column names.

    `where` names the listing (for example "GET /posts") in error messages.
    """
    _check_containers(shape, items, where)
    try:
        raw = pa.Table.from_pylist(list(items), schema=shape.source)
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise _locate(shape, items, where, exc) from None
    known = set(shape.source.names)
    for name in sorted({key for item in items for key in item} - known):
        raw = raw.append_column(name, _values([item.get(name) for item in items]))
    shaped = _shaped(shape, raw)
    if shaped is None:
        _explain(shape, raw, items, where)
    assert shaped is not None  # _explain raised
    return shaped


def pages_to_arrow(shape: TableShape, bodies: Sequence[bytes], where: str) -> pa.Table:
    """Page bodies (JSON page envelopes) straight to an Arrow table, like `items_to_arrow`.

    pyarrow's JSON reader parses them into columns outside the GIL. Anything it cannot
    read as the table's types (a pretty-printed page, a wrong type, a missing required
    field) is decoded again item by item, which names the item and field at fault.
    """
    if not any(b"\n" in body for body in bodies):
        try:
            raw = pa_json.read_json(
                io.BytesIO(b"\n".join(bodies)),
                read_options=pa_json.ReadOptions(use_threads=False, block_size=_BLOCK_BYTES),
                parse_options=pa_json.ParseOptions(
                    explicit_schema=pa.schema([("data", pa.list_(pa.struct(list(shape.source))))]),
                    unexpected_field_behavior="infer",
                ),
            )
            items = pc.list_flatten(raw.column("data")).combine_chunks()
            shaped = _shaped(shape, pa.Table.from_struct_array(items))
            if shaped is not None:
                return shaped
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
            pass
    decoded = [item for body in bodies for item in _page_items(body)]
    return items_to_arrow(shape, decoded, where)


def _page_items(body: bytes) -> list[Any]:
    data = orjson.loads(body).get("data")
    return data if isinstance(data, list) else []


def _shaped(shape: TableShape, raw: pa.Table) -> pa.Table | None:
    """The warehouse's columns from raw item columns, or None when a value does not fit
    (a required field missing, a bad timestamp or date): `_explain` then says which."""
    columns: dict[str, pa.Array | pa.ChunkedArray] = {}
    for name in shape.source.names:
        column = raw.column(name)
        if name in shape.required and column.null_count:
            return None
        if pa.types.is_struct(column.type):
            continue
        target = TIMESTAMP if name in shape.timestamps else None
        target = pa.date32() if name in shape.dates else target
        if target is not None:
            try:
                column = pc.cast(column, target)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                return None
        columns[name] = column
    for struct, field, column_name in shape.struct_fields:
        columns[column_name] = pc.struct_field(raw.column(struct), field)
    for name in raw.column_names:
        if name not in columns and name not in shape.source.names:
            columns[name] = _unknown(raw.column(name))
    return pa.table(columns)


def _unknown(column: pa.ChunkedArray) -> pa.ChunkedArray | pa.Array:
    """A field the contract does not name, as a column: a nested object or list as JSON
    text, an instant as TIMESTAMPTZ, the rest as it came."""
    type_ = column.type
    if pa.types.is_nested(type_):
        return pa.array(
            [None if v is None else orjson.dumps(v).decode() for v in column.to_pylist()],
            pa.string(),
        )
    if pa.types.is_timestamp(type_):
        return pc.cast(column, TIMESTAMP)
    return column


def _values(values: list[Any]) -> pa.Array:
    """An unknown field's values as Arrow infers them; text when they do not agree."""
    try:
        return pa.array(values)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return pa.array(
            [v if v is None or isinstance(v, str) else orjson.dumps(v).decode() for v in values],
            pa.string(),
        )


def _explain(shape: TableShape, raw: pa.Table, items: Sequence[dict[str, Any]], where: str) -> None:
    """Raise the SyncDataError naming the first item and field `_shaped` could not take."""
    for name in shape.source.names:
        column = raw.column(name)
        if name in shape.required and column.null_count:
            index = column.to_pylist().index(None)
            raise SyncDataError(
                f"{where}: item {_label(items, index)} has no {name!r} (a required field)"
            )
        if name in shape.timestamps:
            _cast(column, TIMESTAMP, shape, items, where, name, "an RFC 3339 timestamp")
        elif name in shape.dates:
            _cast(column, pa.date32(), shape, items, where, name, "a YYYY-MM-DD date")


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
