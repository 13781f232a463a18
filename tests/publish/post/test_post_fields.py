"""Every writable post field of the contract reaches every way of writing a post.

Walks `_spec.POST_FIELDS` (not `publish.post_fields`, which derives from it) so that a new
field cannot be forgotten by the spreadsheet template, `ck.schedule`, the composer or the
calendar; and adds a field to the contract in a fresh interpreter to see it arrive.
"""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
import textwrap
from datetime import UTC, datetime, timedelta
from pathlib import Path

import openpyxl
import pytest

import channelkit as ck
from channelkit import _spec
from channelkit.client import Client
from channelkit.publish import calendar_export, load_calendar
from channelkit.publish.calendar.records import CALENDAR_HEADERS
from channelkit.publish.post.validation import FIELDS
from channelkit.publish.sheets.columns import COLUMNS
from channelkit.publish.sheets.template import TEMPLATE_COLUMNS
from channelkit.service import LocalService
from channelkit.widgets import Composer
from channelkit.widgets.composer import FORM_FIELDS

WRITABLE = [field for field in _spec.POST_FIELDS if field.create is not None]
# What people call the two fields that publishing names apart.
_PEOPLE = {"channel_id": "channel"}
_SCHEDULE_KEYWORD = {"channel_id": "channel", "scheduled_at": "at"}


def _name(field: _spec.Field) -> str:
    return _PEOPLE.get(field.name, field.name)


@pytest.mark.parametrize("field", WRITABLE, ids=lambda field: field.name)
def test_each_writable_field_is_a_column_a_keyword_a_control_and_a_calendar_column(
    field: _spec.Field,
) -> None:
    name = _name(field)
    assert name in TEMPLATE_COLUMNS
    assert name in {column.name for column in COLUMNS}
    assert name in FIELDS  # what validate_post reads
    assert (
        _SCHEDULE_KEYWORD.get(field.name, field.name) in inspect.signature(ck.schedule).parameters
    )
    assert name in FORM_FIELDS
    assert name in CALENDAR_HEADERS


@pytest.mark.calendar
def test_the_composer_has_a_control_for_each_writable_field(
    service: LocalService, admin_key: str
) -> None:
    with Client(base_url=service.base_url, api_key=admin_key) as client:
        composer = Composer(client, tz="Europe/Berlin")
        assert set(composer.fields()) == {_name(field) for field in WRITABLE}
        assert list(composer.fields()) == [name for name in FORM_FIELDS if name != "timezone"]


# A contract with one more field, as `_spec.py` would say it; what each surface makes of it.
_NEW_FIELD = textwrap.dedent(
    """
    import inspect, json
    from datetime import UTC, datetime
    from channelkit import _spec

    _spec.TEXT_RULES["teaser"] = _spec.TextRule(0, 30, may_be_empty=True)
    _spec.POST_FIELDS = (
        *_spec.POST_FIELDS,
        _spec.Field("teaser", "text", "A teaser.", create="optional", update=True,
                    text="teaser"),
    )
    import channelkit as ck
    from channelkit.publish.calendar.records import CALENDAR_HEADERS
    from channelkit.publish.sheets.columns import COLUMNS
    from channelkit.publish.sheets.template import TEMPLATE_COLUMNS
    from channelkit.publish.post.validation import validate_post
    from channelkit.widgets.composer import FORM_FIELDS

    def check(teaser):
        request = validate_post(
            {"channel": "chan_1", "title": "Hi", "body": "Text", "teaser": teaser},
            channels=None, tz="UTC", now=datetime.now(UTC),
        )
        if isinstance(request, list):
            return [str(error) for error in request]
        return request.to_create_kwargs().get("teaser")

    print(json.dumps({
        "template": "teaser" in TEMPLATE_COLUMNS,
        "note": [c.description for c in COLUMNS if c.name == "teaser"],
        "schedule": "teaser" in inspect.signature(ck.schedule).parameters,
        "composer": "teaser" in FORM_FIELDS,
        "calendar": "teaser" in CALENDAR_HEADERS,
        "sent": check("Read this"),
        "too_long": check("x" * 31),
        "blank": check(""),
    }))
    """
)


def test_a_new_contract_field_reaches_every_surface_and_is_checked_by_its_rule() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _NEW_FIELD], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen == {
        "template": True,
        "note": ["A teaser. Optional, 0 to 30 characters."],
        "schedule": True,
        "composer": True,
        "calendar": True,
        "sent": "Read this",
        "too_long": ["teaser: teaser is 31 characters; at most 30"],
        "blank": None,
    }


@pytest.mark.calendar
def test_the_calendar_changes_a_cover_image_and_a_blank_cell_keeps_it(
    service: LocalService, admin_key: str, tmp_path: Path
) -> None:
    with Client(base_url=service.base_url, api_key=admin_key) as client:
        channel = client.channels.create(name="News", slug="news")
        when = datetime.now(UTC) + timedelta(days=3)
        posts = [
            client.posts.create(
                channel_id=channel.id,
                title=f"Post {n}",
                body="Body",
                scheduled_at=when + timedelta(hours=n),
                cover_image_url=f"https://example.com/{n}.png",
            )
            for n in range(3)
        ]
        cal = calendar_export(
            tmp_path / "cal.xlsx",
            start=f"{when - timedelta(days=1):%Y-%m-%d}",
            end=f"{when + timedelta(days=2):%Y-%m-%d}",
            tz="UTC",
            client=client,
        )
        book = openpyxl.load_workbook(cal)
        sheet = book.active
        assert sheet is not None
        column = [cell.value for cell in sheet[1]].index("cover_image_url") + 1
        assert [sheet.cell(row, column).value for row in (2, 3, 4)] == [
            f"https://example.com/{n}.png" for n in range(3)
        ]
        sheet.cell(2, column, "https://example.com/new.png")
        sheet.cell(3, column).value = None  # cell(..., None) would leave it as it is
        book.save(cal)

        checked = load_calendar(cal, tz="UTC").check_against(client)
        assert [row.kind for row in checked.rows] == ["update", "unchanged", "unchanged"]
        checked.submit(client)
        covers = [client.posts.retrieve(post.id).cover_image_url for post in posts]
        assert covers == [
            "https://example.com/new.png",
            "https://example.com/1.png",
            "https://example.com/2.png",
        ]
