"""Layout files: a `Layout` written as a small TOML file, read back into the same `Layout`.

Every field of `Layout` (publish/layouts/declared.py) is a key of the file (`has_header`
is written `header`), and each column is one `[[columns]]` table with its `role`, its
`headers` and whether it is `required` or `repeats`; a column of a file without a header
row may say its place (`column = "B"`), which must be where it is listed. The channel
mapping is a `[channels]` table (`Facebook = "news"`). A mistake is refused naming the
file, the key and what is wrong (`later.toml: columns[2].role: 'msg' is not a role; ...`).

    layout = parse_layout(Path("later.toml").read_text(), source="later.toml")
    text = layout_toml(layout)   # parse_layout(text, ...) == layout

TOML is read with the standard library's `tomllib` ("tomllib — Parse TOML files",
https://docs.python.org/3/library/tomllib.html: parses TOML 1.0.0 since Python 3.11 and
"does not support writing TOML"), so the few value types a layout holds are written here:
strings as TOML basic strings, whose escapes (`\\"`, `\\\\`, `\\n`, `\\uXXXX`) are the
ones JSON writes (TOML 1.0.0, https://toml.io/en/v1.0.0#string; checked against the
toml-test suite's `string-escapes.toml`, not against the spec page itself).
"""

from __future__ import annotations

import difflib
import json
import re
import tomllib
import typing
from collections.abc import Mapping, Sequence
from dataclasses import MISSING, fields
from pathlib import Path
from typing import Any

from channelkit.errors import InvalidParameterError
from channelkit.publish.layouts.declared import (
    DATE_RULES,
    ROLE_FIELDS,
    TITLE_RULES,
    Column,
    Layout,
)
from channelkit.publish.post.cells import column_letter

BLANK = "FILL IN"  # what a drafted layout file writes where the user must decide
_PARAM = "layout_file"
_RENAMED = {"has_header": "header"}  # the field's name -> the key a file writes
_KEY = re.compile(r"[a-z0-9][a-z0-9-]*")
_CHOICES = {"dates": DATE_RULES, "title": TITLE_RULES}


class _Refusal(Exception):
    """A mistake at `where` (a key path such as `columns[2].role`)."""

    def __init__(self, where: str, what: str) -> None:
        super().__init__(f"{where}: {what}")


def load_layout(path: Path) -> Layout:
    """The layout the TOML file at `path` declares; its key defaults to the file's name."""
    try:
        content = path.read_bytes()
    except FileNotFoundError:
        raise InvalidParameterError(_PARAM, f"{path}: no such file") from None
    except OSError as exc:
        raise InvalidParameterError(_PARAM, f"cannot read {path}: {exc.strerror}") from None
    return layout_from_bytes(content, source=str(path))


def layout_from_bytes(content: bytes, *, source: str) -> Layout:
    """The layout a layout file's bytes declare (an upload, say); `source` is its path or
    name, whose stem is the key unless the file says one."""
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InvalidParameterError(_PARAM, f"{source} is not UTF-8 text") from None
    return parse_layout(text, source=source, key=_key_of(Path(source).stem))


def parse_layout(text: str, *, source: str, key: str | None = None) -> Layout:
    """The layout `text` declares; `InvalidParameterError` naming `source`, the key and
    what is wrong for a mistake."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InvalidParameterError(_PARAM, f"{source}: not TOML ({exc})") from None
    try:
        return _layout(data, key)
    except _Refusal as exc:
        raise InvalidParameterError(_PARAM, f"{source}: {exc}") from None


def layout_toml(layout: object) -> str:
    """The TOML text of a layout (any dataclass shaped as `Layout`: the one-off generator
    of the built-in files reads older declarations too). Defaults are left out."""
    lines: list[str] = []
    columns: Sequence[Any] = ()
    channels: Sequence[tuple[str, str]] = ()
    for spec in fields(layout):  # type: ignore[arg-type]
        value = getattr(layout, spec.name)
        if spec.name == "columns":
            columns = value
        elif spec.name == "channels":
            channels = value
        elif spec.default is MISSING or value != spec.default:
            lines.append(f"{_RENAMED.get(spec.name, spec.name)} = {toml_value(value)}")
    positional = not getattr(layout, "has_header", True)
    for index, column in enumerate(columns):
        lines += ["", "[[columns]]"]
        if positional:
            lines.append(f"column = {toml_value(column_letter(index))}")
        for spec in fields(column):
            value = getattr(column, spec.name)
            if spec.default is MISSING or value != spec.default:
                lines.append(f"{spec.name} = {toml_value(value)}")
    if channels:
        lines += [
            "",
            "[channels]",
            *(f"{toml_value(name)} = {toml_value(to)}" for name, to in channels),
        ]
    return "\n".join(lines) + "\n"


def toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, Sequence):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    raise TypeError(f"a layout file holds no {type(value).__name__}")


def _key_of(stem: str) -> str:
    """`Schedulin (1)` -> `schedulin-1`: a file's name as a key (a browser saves a second
    download of `schedulin.toml` as `schedulin (1).toml`)."""
    return re.sub(r"[^a-z0-9]+", "-", stem.lower()).strip("-")


def _layout(data: Mapping[str, Any], key: str | None) -> Layout:
    known = {_RENAMED.get(spec.name, spec.name): spec for spec in fields(Layout)}
    _no_stranger(data, known, "")
    values: dict[str, Any] = {"key": data.get("key", key)}
    hints = typing.get_type_hints(Layout)
    for name, spec in known.items():
        if name in data and name not in ("columns", "channels", "key"):
            values[spec.name] = _typed(data[name], hints[spec.name], name)
    for name in ("key", "name", "dates", "columns"):
        if values.get(known[name].name) is None and name not in data:
            raise _Refusal(name, "missing; every layout file says it")
    if not isinstance(values["key"], str) or not _KEY.fullmatch(values["key"]):
        raise _Refusal("key", f"{values['key']!r} is not a name of lowercase letters, digits, -")
    values["columns"] = _columns(data["columns"], positional=not values.get("has_header", True))
    values["channels"] = _channels(data.get("channels", {}))
    layout = Layout(**values)
    _check(layout)
    return layout


def _columns(items: object, *, positional: bool) -> tuple[Column, ...]:
    if not isinstance(items, list) or not items or not all(isinstance(i, dict) for i in items):
        raise _Refusal("columns", "a list of [[columns]] tables, one per column")
    known = {spec.name: spec for spec in fields(Column)}
    hints = typing.get_type_hints(Column)
    columns = []
    for index, item in enumerate(items):
        where = f"columns[{index}]"
        _no_stranger(item, {**known, "column": None}, f"{where}.")
        if "role" not in item:
            raise _Refusal(f"{where}.role", f"missing; one of {', '.join(ROLE_FIELDS)}")
        column = Column(
            **{n: _typed(item[n], hints[n], f"{where}.{n}") for n in known if n in item}
        )
        if column.role not in ROLE_FIELDS:
            raise _Refusal(
                f"{where}.role",
                f"{column.role!r} is not a role; use one of {', '.join(ROLE_FIELDS)}",
            )
        if positional and item.get("column", column_letter(index)) != column_letter(index):
            raise _Refusal(
                f"{where}.column",
                f"{item['column']!r}, but it is listed as column {column_letter(index)}: "
                "list the columns of a file without a header row in their order, A first",
            )
        if not positional and not column.headers:
            raise _Refusal(f"{where}.headers", "missing; the headers this column is written with")
        columns.append(column)
    return tuple(columns)


def _channels(table: object) -> tuple[tuple[str, str], ...]:
    if not isinstance(table, dict):
        raise _Refusal("channels", 'a table of NAME = "channel" lines')
    for name, channel in table.items():
        _typed(channel, str, f"channels.{name}")  # refuses a blank left to fill in
        if not isinstance(channel, str) or not channel.strip():
            raise _Refusal(f"channels.{name}", f"{channel!r} is not a channel's name")
    return tuple(table.items())


def _typed(value: object, hint: object, where: str) -> Any:
    """`value` as the field's type (str, bool, str | None, tuple[str, ...])."""
    if value == BLANK or (isinstance(value, list) and BLANK in value):
        raise _Refusal(where, f'"{BLANK}" is a blank this draft left for you: fill it in')
    origin = typing.get_origin(hint)
    if hint is bool and isinstance(value, bool):
        return value
    if hint in (str, str | None) and isinstance(value, str):
        return value
    if origin is tuple and isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    if origin is tuple and isinstance(value, str):  # one header: a list of one
        return (value,)
    wanted = {bool: "true or false", str: "a string", str | None: "a string"}
    raise _Refusal(where, f"{value!r} is not {wanted.get(hint, 'a list of strings')}")  # type: ignore[call-overload]


def _no_stranger(data: Mapping[str, Any], known: Mapping[str, object], prefix: str) -> None:
    for name in data:
        if name not in known:
            close = difflib.get_close_matches(name, list(known), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else f"; keys: {', '.join(known)}"
            raise _Refusal(f"{prefix}{name}", f"unknown key{hint}")


def _check(layout: Layout) -> None:
    """What holds across keys: a rule among its choices, a message column, a time column
    unless the file has none."""
    for name, choices in _CHOICES.items():
        if getattr(layout, name) not in choices:
            shown = getattr(layout, name)
            raise _Refusal(name, f"{shown!r} is not one of {', '.join(choices)}")
    roles = layout.roles()
    if "message" not in roles:
        raise _Refusal("columns", 'no column has role = "message" (the post\'s text)')
    timed = {role for role in roles if ROLE_FIELDS[role] == "scheduled_at"}
    if layout.dates == "none" and timed:
        raise _Refusal("dates", f'"none", but a column has role {sorted(timed)[0]!r}')
    if layout.dates != "none" and not timed:
        raise _Refusal(
            "dates",
            f'{layout.dates!r}, but no column holds the time ("when", or "date" and "time")',
        )
    if layout.dates == "header" and not layout.pattern:
        raise _Refusal("pattern", 'missing; dates = "header" reads the format the header names')
