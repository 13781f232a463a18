"""`plots.calendar`: upcoming posts per channel on a timeline, coloured by priority."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from channelkit import plots
from channelkit.errors import InvalidParameterError
from channelkit.plots.calendar import PRIORITY_COLOURS
from channelkit.publish import load_spreadsheet
from channelkit.warehouse import Warehouse
from fixtures.warehouse import AS_OF, build_small_warehouse


def test_calendar_of_the_warehouse_schedule(tmp_path: Path) -> None:
    wh = Warehouse(build_small_warehouse(tmp_path / "small.duckdb"))
    frame = wh.upcoming_scheduled(as_of="2026-04-01", tz="Europe/Berlin")

    fig = plots.calendar(frame)

    by_priority = {trace.name: trace for trace in fig.data}
    assert set(by_priority) == {"normal", "high"}
    assert list(by_priority["normal"].y) == ["Engineering"]
    assert list(by_priority["normal"].customdata) == ["Missed schedule"]
    # Berlin wall time (07:00 UTC is 09:00 CEST), as the frame's zone says.
    assert str(pd.Timestamp(by_priority["high"].x[0])) == "2026-04-10 09:00:00"
    assert by_priority["high"].marker.color == PRIORITY_COLOURS["high"]
    assert "Posting calendar" in fig.layout.title.text
    empty = plots.calendar(wh.upcoming_scheduled(as_of=AS_OF.replace(month=5)))
    assert list(empty.data) == []


@pytest.mark.calendar
def test_calendar_of_a_plan_escapes_titles(tmp_path: Path) -> None:
    path = tmp_path / "posts.csv"
    path.write_text(
        "channel,title,body,scheduled_at,priority\n"
        "news,<b>Town</b> hall,Body,2030-12-02 09:00,urgent\n"
        "eng,Release,Body,2030-12-03 10:30,\n"
        "eng,,Body,2030-12-04 10:30,\n"  # an error row: not shown
    )
    plan = load_spreadsheet(path, tz="Europe/Berlin", confirm_urgent=True)

    fig = plots.calendar(plan.upcoming())

    by_priority = {trace.name: trace for trace in fig.data}
    assert list(by_priority["urgent"].customdata) == ["&lt;b&gt;Town&lt;/b&gt; hall"]
    assert list(by_priority["normal"].y) == ["eng"]
    assert str(pd.Timestamp(by_priority["normal"].x[0])) == "2030-12-03 10:30:00"
    with pytest.raises(InvalidParameterError, match="needs the columns priority"):
        plots.calendar(plan.upcoming().drop(columns="priority"))
