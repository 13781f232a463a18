"""Builders for spreadsheets of posts, made in the test from plain Python rows, and a
client of the real local service with the channels those rows name."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterator, Sequence
from types import SimpleNamespace

import pytest
from openpyxl import Workbook

from channelkit.client import Client
from channelkit.service import LocalService

HEADER = ["channel", "title", "body", "scheduled_at"]


def make_csv(
    rows: Sequence[Sequence[object]], *, encoding: str = "utf-8", delimiter: str = ","
) -> bytes:
    buffer = io.StringIO(newline="")
    csv.writer(buffer, delimiter=delimiter).writerows(rows)
    return buffer.getvalue().encode(encoding)


def make_xlsx(
    rows: Sequence[Sequence[object]],
    *,
    sheet: str = "posts",
    edit: Callable[[object], None] | None = None,
    extra_sheets: Sequence[str] = (),
) -> bytes:
    workbook = Workbook()
    worksheet = workbook.active
    assert worksheet is not None
    worksheet.title = sheet
    for row in rows:
        worksheet.append(list(row))
    for name in extra_sheets:  # each a copy of the first
        extra = workbook.create_sheet(name)
        for row in rows:
            extra.append(list(row))
    if edit is not None:
        edit(worksheet)
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()


@pytest.fixture
def sheets() -> SimpleNamespace:
    """`sheets.csv(rows, encoding=, delimiter=)` and `sheets.xlsx(rows, sheet=, edit=)`."""
    return SimpleNamespace(csv=make_csv, xlsx=make_xlsx, header=HEADER)


@pytest.fixture
def client(service: LocalService, admin_key: str) -> Iterator[Client]:
    """An admin's client of the real local service, with the channels "All hands" and
    "Engineering" (slugs `all-hands`, `engineering`)."""
    with Client(base_url=service.base_url, api_key=admin_key) as client:
        client.channels.create(name="All hands")
        client.channels.create(name="Engineering")
        yield client
