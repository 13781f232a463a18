"""Publishing from a notebook with forms: `Composer` (one post) and `BulkUpload` (a file).

import channelkit as ck

ck.widgets.Composer(client, tz="Europe/Berlin")     # form with live preview
ck.widgets.BulkUpload(client, tz="Europe/Berlin")   # spreadsheet → check → submit
ck.widgets.Explorer(wh)                               # periods, channels, metrics: click
ck.widgets.Approvals(client, by="ann")                # what awaits approval: approve, reject

Both are ipywidgets 8 widgets; validation is `channelkit.publish`'s, so a mistake gets the
same message here as in `ck.schedule` or `channelkit schedule`.
"""

from __future__ import annotations

from channelkit.widgets.approvals import Approvals
from channelkit.widgets.bulk_upload import BulkUpload
from channelkit.widgets.composer import Composer
from channelkit.widgets.explorer import Explorer

__all__ = ["Approvals", "BulkUpload", "Composer", "Explorer"]
