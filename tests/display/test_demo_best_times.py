"""The demo's best_times as Jupyter shows it: no hour reliably better, and every reliably
worse slot shown, also those ranked below the row cut.

The demo is seeded relative to the day it starts, so the service is seeded, synced and read
at one pinned instant; nothing here reads the clock outside it."""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd
import pytest
import time_machine
from IPython.core.interactiveshell import InteractiveShell

import channelkit as ck
from channelkit._constants import DISPLAY_MAX_ROWS
from channelkit.analysis.timing import ONLY_WORSE
from channelkit.client import Client
from channelkit.service import LocalService
from channelkit.sync import run_sync

pytestmark = pytest.mark.slow

DEMO_AT = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def demo_best(
    tmp_path_factory: pytest.TempPathFactory, shell: InteractiveShell
) -> tuple[pd.DataFrame, str]:
    """best_times over all synced days (UTC) and the HTML IPython's formatter makes of it."""
    db: Path = tmp_path_factory.mktemp("demo-best") / "demo.duckdb"
    with time_machine.travel(DEMO_AT, tick=True):
        with LocalService(seed="demo", rate_window=1.0) as svc:
            with Client(base_url=svc.base_url, api_key=svc.demo_keys["analyst"]) as client:
                run_sync(client, db, progress=False)
        best = ck.Warehouse(db).best_times(tz="UTC")
        data, _ = shell.display_formatter.format(best)
    return best, data["text/html"]


def _rows(page: str) -> list[list[str]]:
    body = page.split("<tbody>")[1]
    return [
        [html.unescape(cell) for cell in re.findall(r"<td[^>]*>([^<]*)</td>", row)]
        for row in re.findall(r"<tr>(.*?)</tr>", body, re.S)
    ]


def test_demo_has_no_hour_reliably_better_and_shows_every_worse_slot(
    demo_best: tuple[pd.DataFrame, str],
) -> None:
    best, page = demo_best
    assert best.attrs["verdict"] == ONLY_WORSE
    caption = re.search(r"<caption>(.*?)</caption>", page, re.S)
    assert caption and f'"ck-basis">{ONLY_WORSE};' in html.unescape(caption[1]), page[:800]

    distinct = best["distinct"].to_numpy(dtype=bool, na_value=False)
    worse = best[distinct & (best["vs_rest_high"] < 1).to_numpy()]
    assert not (distinct & (best["vs_rest_low"] > 1).to_numpy()).any()  # none better
    # the "five worse slots", on the demo as seeded at DEMO_AT
    assert len(worse) == best.attrs["worse_slots"] == 5
    positions = [best.index.get_loc(i) for i in worse.index]
    assert min(positions) >= DISPLAY_MAX_ROWS  # all ranked below the cut

    # (weekday, hour) of each row marked reliably worse, and of each worse slot
    marked = {(row[1], row[2]) for row in _rows(page) if "reliably worse" in row}
    slots = zip(worse["weekday_name"], worse["hour"], strict=True)
    assert marked == {(day, f"{hour:02d}:00") for day, hour in slots}
    assert page.count(">reliably worse<") == len(worse)
    assert f"only the {len(worse)} marked below are shown" in page
