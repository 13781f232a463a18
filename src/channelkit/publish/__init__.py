"""Publishing helpers: schedule posts from a notebook cell or a spreadsheet.

import channelkit as ck

ck.schedule(channel="all-hands", title="Town hall", body="**Thursday** at 10",
            at="2026-12-01 09:00", tz="Europe/Berlin")
"""

from __future__ import annotations
