"""Which kind each column holds: declared by the metric that makes it, carried in the frame.

Each metric declares its output columns' kinds where it is defined, and its frame carries
them by name in `attrs["kinds"]` (pandas keeps attrs through a selection, slice, sort,
`set_index`, `reset_index`, `assign`, `rename`, `concat` of frames alike and `groupby`;
tests/display/test_columns.py says which):

    COLUMNS = declare("reach_curve", {"day": COUNT, "share": RATE})  # analysis/reach.py
    frame.attrs["kinds"] = COLUMNS.names(frame.columns)       # what Query.finish does
    kind_of(frame, "share")                                   # RATE
    set_kind(frame, "share", "count")                         # the user's word wins

A frame that carries declarations shows only its declared columns by their kinds: a
column the user added is shown by its dtype, also when its name is one a metric declares.
A frame without them (a merge with a frame of no declarations drops attrs, a CSV read
back) falls back on the names: a name every metric that declares it declares as one kind
has that kind. The names are derived from the declarations, never listed by hand.

A column `x` beside `x_low` and `x_high` is one interval cell; `x_low`, `x_high` and a
merge's `x_x`, `x_y` have `x`'s kind. A KPI row's kind (a rate or a count in the same
`value` column) comes from its `kind`, `metric` or `label`, whichever the user kept.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from channelkit._labels import KPI_LABELS
from channelkit.display.kinds import KINDS, NUMBER, RATE, RATIO, Kind, as_kind

if TYPE_CHECKING:
    import pandas as pd

KINDS_ATTR = "kinds"  # attrs["kinds"]: column name -> kind name (None: shown by its dtype)
INTERVAL_ENDS = ("_low", "_high")
_MERGE_SUFFIXES = ("_x", "_y")  # pandas' default suffixes of a merge's shared columns
_BY_LABEL = {label: metric for metric, label in KPI_LABELS.items()}


@dataclass(frozen=True)
class Columns:
    """A metric's output columns and their kinds, declared where the metric is defined.

    COLUMNS = declare("reach_curve", {"day": COUNT, "share": RATE})
    COLUMNS.names(["day", "share", "note"])   # {"day": "count", "share": "rate"}
    """

    metric: str
    kinds: Mapping[str, Kind]
    by_row: tuple[str, ...] = ()  # columns of each row's own kind (a KPI's `value`)

    def names(self, columns: Iterable[Hashable]) -> dict[str, str]:
        """The kinds of those of `columns` declared (their interval's ends by the value's)."""
        out: dict[str, str] = {}
        for name in columns:
            kind = _by_stem(name, self.kinds)
            if kind is not None:
                out[str(name)] = kind.name
        return out


DECLARED: dict[str, Columns] = {}  # every declaration made, by metric
# (how many declarations it was derived from, the names' kinds), once derived
_FALLBACK: list[tuple[int, Mapping[str, Kind]]] = []


def declare(metric: str, kinds: Mapping[str, Kind], *, by_row: tuple[str, ...] = ()) -> Columns:
    """Declare `metric`'s columns' kinds, and those whose kind is each row's (`by_row`, read
    from its `kind`, `metric` or `label`); once per metric: a second, different one is a bug."""
    columns = Columns(metric, kinds, by_row)
    if DECLARED.setdefault(metric, columns) != columns:
        raise ValueError(f"the columns of {metric!r} are declared twice, differently")
    return columns


def kinds_by_name() -> Mapping[str, Kind]:
    """The fallback for a frame without declarations: each name every declaration gives
    one kind, with that kind (a name declared as two kinds has none)."""
    if _FALLBACK and _FALLBACK[0][0] == len(DECLARED):  # declarations are only ever added
        return _FALLBACK[0][1]
    found: dict[str, set[Kind]] = {}
    for columns in DECLARED.values():
        for name, kind in columns.kinds.items():
            found.setdefault(name, set()).add(kind)
    names = {name: next(iter(kinds)) for name, kinds in found.items() if len(kinds) == 1}
    _FALLBACK[:] = [(len(DECLARED), names)]
    return names


def declared(frame: pd.DataFrame) -> Mapping[str, str | None] | None:
    """The frame's declarations (`attrs["kinds"]`), or None without them."""
    kinds = frame.attrs.get(KINDS_ATTR)
    return kinds if isinstance(kinds, Mapping) else None


def kind_of(frame: pd.DataFrame, name: Hashable) -> Kind | None:
    """The kind of `frame`'s column `name`: its declaration, or (without declarations) the
    kind its name has in every metric's; None for a column shown by its dtype."""
    kinds = declared(frame)
    if kinds is None:
        return column_kind(name)
    for stem in _stems(name):
        if stem in kinds:
            shown = kinds[stem]
            return None if shown is None else KINDS.get(shown)
    return None


def column_kind(name: Hashable) -> Kind | None:
    """The kind a column named `name` has by the metrics' declarations (the fallback)."""
    return _by_stem(name, kinds_by_name())


def set_kind(frame: pd.DataFrame, column: str, kind: Kind | str | None) -> pd.DataFrame:
    """Say what `frame[column]` holds, in place, and return the frame (for chaining):

        ck.display.set_kind(df, "score", "rate")     # 0.57 shown 57.2%, %{y:.1%} in plots
        ck.display.set_kind(df, "readers", None)     # shown by its dtype, not as a count

    `kind` is one of `display.kinds.KINDS` (its name or the `Kind`), or None. A frame
    without declarations keeps the fallback of its other columns (taken over as its own).
    """
    if column not in frame.columns:
        raise ValueError(f"column {column!r} is not in the frame")
    kinds = declared(frame)
    if kinds is None:  # the names' fallback, kept as the frame's own declarations
        kinds = {str(c): k.name for c in frame.columns if (k := column_kind(c)) is not None}
    frame.attrs[KINDS_ATTR] = {**kinds, column: None if kind is None else as_kind(kind).name}
    return frame


def row_kind(value: object) -> Kind | None:
    """A KPI row's kind from its `kind` ("rate"), metric ("read_rate") or label ("Read rate")."""
    if not isinstance(value, str):
        return None
    if value in KINDS:
        return KINDS[value]
    return column_kind(_BY_LABEL.get(value, value))


def kpi_kind(row: Mapping[Any, Any]) -> Kind:
    """A KPI record's kind (a row of `wh.kpis()`): its `kind`, else its metric's or its
    label's; a plain number when it keeps none of them."""
    for key in ("kind", "metric", "label"):
        kind = row_kind(row.get(key))
        if kind is not None:
            return kind
    return NUMBER


def row_kinds(frame: pd.DataFrame) -> list[Kind | None] | None:
    """Each row's kind, from its `kind`, `metric` or `label` (a column or the index);
    None when the frame keeps none of them."""
    for name in ("kind", "metric", "label"):
        if name in frame.columns:
            return [row_kind(value) for value in frame[name]]
    if any(level in ("metric", "label") for level in frame.index.names):
        return [_index_kind(key) for key in frame.index]
    return None


def _index_kind(key: object) -> Kind | None:
    parts: Sequence[object] = key if isinstance(key, tuple) else (key,)
    found = [row_kind(part) for part in parts]
    return next((kind for kind in found if kind is not None), None)


def has_kinds(frame: pd.DataFrame) -> bool:
    """Whether a frame is shown by its kinds though no metric made it: it declares some,
    has columns whose names say a rate or a ratio (a merge of a metric frame), or KPI rows
    (a `value` beside a KPI's metric or label)."""
    if declared(frame):
        return True
    if any(column_kind(name) in (RATE, RATIO) for name in frame.columns):
        return True
    return "value" in frame.columns and any(row_kinds(frame) or ())


def interval_of(name: Hashable, columns: Sequence[Hashable]) -> tuple[str, str] | None:
    """(`name`_low, `name`_high) when both are among `columns`, else None."""
    if not isinstance(name, str):
        return None
    low, high = (f"{name}{end}" for end in INTERVAL_ENDS)
    return (low, high) if low in columns and high in columns else None


def _stems(name: Hashable) -> list[str]:
    """`name`, then without a merge's suffix, then without its interval's end."""
    if not isinstance(name, str):
        return []
    found = [name]
    for suffixes in (_MERGE_SUFFIXES, INTERVAL_ENDS):
        for suffix in suffixes:
            if found[-1].endswith(suffix):
                found.append(found[-1].removesuffix(suffix))
    return found


def _by_stem(name: Hashable, kinds: Mapping[str, Kind]) -> Kind | None:
    return next((kinds[stem] for stem in _stems(name) if stem in kinds), None)
