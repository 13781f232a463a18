"""Publishing helpers: schedule posts from a notebook cell or a spreadsheet.

import channelkit as ck

ck.schedule(channel="all-hands", title="Town hall", body="**Thursday** at 10",
            at="2026-12-01 09:00", tz="Europe/Berlin")

ck.schedule_file("posts.xlsx", tz="Europe/Berlin")    # every row checked, then sent once
# Another tool's file: the choices of `channelkit schedule --channel/--map/--date-order/
# --layout-file`, as keywords.
ck.schedule_file("schedulin.csv", layout_file="schedulin.toml", tz="Europe/Berlin")

plan = ck.publish.load_spreadsheet("posts.xlsx", tz="Europe/Berlin")
# Another tool's bulk file: the choices of `channelkit schedule --channel/--map/--date-order`.
chosen = ck.publish.Choices(channel="all-hands", date_order="dmy")
hootsuite = ck.publish.load_spreadsheet("hootsuite.csv", tz="Europe/Berlin", choices=chosen)
plan.preview()                      # every row checked before anything is sent
result = plan.submit(client)        # each row created exactly once, even when re-run
result.to_excel("results.xlsx")

ck.calendar_export("cal.xlsx", start="2026-12-01", end="2027-01-01", tz="Europe/Berlin")
calendar = ck.publish.load_calendar("cal.xlsx").check_against(client)   # after editing
calendar.submit(client).to_file("cal.xlsx")     # creates, updates, cancels; conflicts refused
"""

from __future__ import annotations

from channelkit.errors import FieldError, PlanNotValidError, PostValidationError, SpreadsheetError
from channelkit.publish.calendar.round_trip import (
    CalendarPlan,
    CalendarResult,
    calendar_export,
    calendar_frame,
    load_calendar,
)
from channelkit.publish.cell import ScheduledPost, schedule
from channelkit.publish.cell_file import schedule_file
from channelkit.publish.layouts.read import Choices
from channelkit.publish.post.row_types import PlanRow, RowResult
from channelkit.publish.post.validation import ChannelIndex, ChannelInfo, PostRequest, validate_post
from channelkit.publish.sheets.plan import Plan, load_spreadsheet
from channelkit.publish.sheets.results import SubmitResult
from channelkit.publish.sheets.template import write_template

__all__ = [
    "CalendarPlan",
    "CalendarResult",
    "ChannelIndex",
    "ChannelInfo",
    "Choices",
    "FieldError",
    "Plan",
    "PlanNotValidError",
    "PlanRow",
    "PostRequest",
    "PostValidationError",
    "RowResult",
    "ScheduledPost",
    "SpreadsheetError",
    "SubmitResult",
    "calendar_export",
    "calendar_frame",
    "load_calendar",
    "load_spreadsheet",
    "schedule",
    "schedule_file",
    "validate_post",
    "write_template",
]
