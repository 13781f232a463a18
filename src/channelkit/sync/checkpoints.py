"""Typed checkpoint contents, serialised here and nowhere else.

A walk's checkpoint keeps the plan step it belongs to (an analytics date range, a slice
of history) and a sweep keeps where it stands; both are small frozen dataclasses, turned
into the JSON the warehouse stores (and back) by their field types.

    params = encode(HistorySlice(after=None, before=t, number=1, count=7))
    decode(params) == HistorySlice(after=None, before=t, number=1, count=7)
    sweep_checkpoint("posts:history", run_id, Sweep(t, 1))   # -> a Checkpoint to save
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Mapping
from dataclasses import fields
from datetime import date, datetime
from typing import Any

from channelkit.storage.writer import Checkpoint
from channelkit.sync.history import HistorySlice, Sweep
from channelkit.sync.windows import AnalyticsPlan

Step = HistorySlice | AnalyticsPlan
_KINDS: dict[str, type[Step]] = {"history": HistorySlice, "analytics": AnalyticsPlan}
_NAMES = {cls: kind for kind, cls in _KINDS.items()}


def encode(step: Step | None) -> dict[str, str]:
    if step is None:
        return {}
    out = {"kind": _NAMES[type(step)]}
    for spec in fields(step):
        value = getattr(step, spec.name)
        out[spec.name] = "" if value is None else _text(value)
    return out


def decode(data: Mapping[str, str]) -> Step | None:
    """The step a checkpoint holds; a ValueError when another version wrote it."""
    if not data:
        return None
    cls = _KINDS.get(data.get("kind", "history"))
    if cls is None:
        raise ValueError(f"unknown step {data.get('kind')!r}")
    try:
        values: dict[str, Any] = {
            name: None if data[name] == "" else read(data[name])
            for name, read in _readers(cls).items()
        }
        return cls(**values)
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{cls.__name__}: {exc}") from None


def sweep_checkpoint(resource: str, run_id: str, sweep: Sweep) -> Checkpoint:
    """The checkpoint of a sweep with no walk in progress."""
    return Checkpoint(
        resource, run_id, high_water_mark=sweep.position, state={"runs": sweep.runs_done}
    )


def sweep_of(checkpoint: Checkpoint | None) -> Sweep:
    """Where the sweep stood (a new cycle when it never ran)."""
    if checkpoint is None:
        return Sweep()
    runs = (checkpoint.state or {}).get("runs", 0)
    return Sweep(position=checkpoint.high_water_mark, runs_done=int(runs))


def _text(value: object) -> str:
    return value.isoformat() if isinstance(value, date) else str(value)


def _readers(cls: type[Step]) -> dict[str, Callable[[str], Any]]:
    hints = typing.get_type_hints(cls)
    readers: dict[str, Callable[[str], Any]] = {}
    for spec in fields(cls):
        kinds = typing.get_args(hints[spec.name]) or (hints[spec.name],)
        if datetime in kinds:
            readers[spec.name] = datetime.fromisoformat
        elif date in kinds:
            readers[spec.name] = date.fromisoformat
        else:
            readers[spec.name] = int
    return readers
