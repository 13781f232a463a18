"""channelkit: the toolkit for the Publishing and Channel Service.

    import channelkit as ck

    with ck.Client() as client:           # CHANNELKIT_BASE_URL / CHANNELKIT_API_KEY
        wh = ck.sync(client, "warehouse.duckdb")
    wh.engagement_over_time(freq="week", tz="Europe/Berlin")

Heavy parts (pandas, DuckDB, plotly, the service) load on first use, so that
`import channelkit` stays fast for command-line use.
"""

from __future__ import annotations

import sys
import types
from typing import TYPE_CHECKING, Any

from channelkit._lazy import lazy_attributes
from channelkit._version import __version__

# public name -> "module" (a submodule) or "module:attribute"
_LAZY: dict[str, str] = {
    # the client and what it returns
    "Client": "channelkit.client:Client",
    "AsyncClient": "channelkit.client:AsyncClient",
    "Post": "channelkit.client:Post",
    "Channel": "channelkit.client:Channel",
    "Author": "channelkit.client:Author",
    "PostAnalyticsRow": "channelkit.client:PostAnalyticsRow",
    "ChannelAnalyticsRow": "channelkit.client:ChannelAnalyticsRow",
    "Page": "channelkit.client:Page",
    "NOT_GIVEN": "channelkit.client:NOT_GIVEN",
    # the error tree (errors.py), then each part's own errors
    "ChannelkitError": "channelkit.errors:ChannelkitError",
    "APIError": "channelkit.errors:APIError",
    "APIStatusError": "channelkit.errors:APIStatusError",
    "BadRequestError": "channelkit.errors:BadRequestError",
    "AuthenticationError": "channelkit.errors:AuthenticationError",
    "PermissionDeniedError": "channelkit.errors:PermissionDeniedError",
    "NotFoundError": "channelkit.errors:NotFoundError",
    "ConflictError": "channelkit.errors:ConflictError",
    "RateLimitError": "channelkit.errors:RateLimitError",
    "ServerError": "channelkit.errors:ServerError",
    "APIConnectionError": "channelkit.errors:APIConnectionError",
    "APITimeoutError": "channelkit.errors:APITimeoutError",
    "APIResponseValidationError": "channelkit.errors:APIResponseValidationError",
    "InvalidParameterError": "channelkit.errors:InvalidParameterError",
    "NotSyncedError": "channelkit.errors:NotSyncedError",
    "PaginationError": "channelkit.errors:PaginationError",
    "MissingDependencyError": "channelkit.errors:MissingDependencyError",
    "ServiceError": "channelkit.errors:ServiceError",
    "SyncError": "channelkit.errors:SyncError",
    "SyncDataError": "channelkit.errors:SyncDataError",
    "SyncViewError": "channelkit.errors:SyncViewError",
    "WarehouseError": "channelkit.errors:WarehouseError",
    "ReportError": "channelkit.errors:ReportError",
    "NotebookCellError": "channelkit.errors:NotebookCellError",
    "SpreadsheetError": "channelkit.errors:SpreadsheetError",
    "PostValidationError": "channelkit.errors:PostValidationError",
    "PlanNotValidError": "channelkit.errors:PlanNotValidError",
    "ImageExportError": "channelkit.errors:ImageExportError",
    "DeliveryError": "channelkit.errors:DeliveryError",
    "PublishError": "channelkit.errors:PublishError",
    "TimeError": "channelkit.errors:TimeError",
    "UnknownZoneError": "channelkit.errors:UnknownZoneError",
    "LakeError": "channelkit.errors:LakeError",
    # the parts
    "LocalService": "channelkit.service:LocalService",
    "sync": "channelkit._facade:sync",
    "SyncReport": "channelkit.sync:SyncReport",
    "Warehouse": "channelkit.warehouse:Warehouse",
    "schedule": "channelkit.publish:schedule",
    "schedule_file": "channelkit.publish:schedule_file",
    "calendar_export": "channelkit.publish:calendar_export",
    "hold": "channelkit.publish.hold.holding:hold",
    "release": "channelkit.publish.hold.holding:release",
    "approve": "channelkit.publish.approval.notebook:approve",
    "publish": "channelkit.publish",
    "plots": "channelkit.plots",
    "display": "channelkit.display",
    "reports": "channelkit.reports",
    "widgets": "channelkit.widgets",
    "to_csv": "channelkit.export:to_csv",
    "to_excel": "channelkit.export:to_excel",
}

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from channelkit import display, plots, publish, reports, widgets
    from channelkit._facade import sync
    from channelkit.client import (
        NOT_GIVEN,
        AsyncClient,
        Author,
        Channel,
        ChannelAnalyticsRow,
        Client,
        Page,
        Post,
        PostAnalyticsRow,
    )
    from channelkit.errors import (
        APIConnectionError,
        APIError,
        APIResponseValidationError,
        APIStatusError,
        APITimeoutError,
        AuthenticationError,
        BadRequestError,
        ChannelkitError,
        ConflictError,
        DeliveryError,
        ImageExportError,
        InvalidParameterError,
        LakeError,
        MissingDependencyError,
        NotebookCellError,
        NotFoundError,
        NotSyncedError,
        PaginationError,
        PermissionDeniedError,
        PlanNotValidError,
        PostValidationError,
        PublishError,
        RateLimitError,
        ReportError,
        ServerError,
        ServiceError,
        SpreadsheetError,
        SyncDataError,
        SyncError,
        SyncViewError,
        TimeError,
        UnknownZoneError,
        WarehouseError,
    )
    from channelkit.export import to_csv, to_excel
    from channelkit.publish import calendar_export, schedule, schedule_file
    from channelkit.publish.approval.notebook import approve
    from channelkit.publish.hold.holding import hold, release
    from channelkit.service import LocalService
    from channelkit.sync import SyncReport
    from channelkit.warehouse import Warehouse

__all__ = [
    "__version__",
    "Client",
    "AsyncClient",
    "Post",
    "Channel",
    "Author",
    "PostAnalyticsRow",
    "ChannelAnalyticsRow",
    "Page",
    "NOT_GIVEN",
    "ChannelkitError",
    "APIError",
    "APIStatusError",
    "BadRequestError",
    "AuthenticationError",
    "PermissionDeniedError",
    "NotFoundError",
    "ConflictError",
    "RateLimitError",
    "ServerError",
    "APIConnectionError",
    "APITimeoutError",
    "APIResponseValidationError",
    "InvalidParameterError",
    "NotSyncedError",
    "PaginationError",
    "MissingDependencyError",
    "ServiceError",
    "SyncError",
    "SyncDataError",
    "SyncViewError",
    "WarehouseError",
    "ReportError",
    "NotebookCellError",
    "SpreadsheetError",
    "PostValidationError",
    "PlanNotValidError",
    "ImageExportError",
    "DeliveryError",
    "PublishError",
    "TimeError",
    "UnknownZoneError",
    "LakeError",
    "LocalService",
    "sync",
    "SyncReport",
    "Warehouse",
    "schedule",
    "schedule_file",
    "calendar_export",
    "hold",
    "release",
    "approve",
    "publish",
    "plots",
    "display",
    "reports",
    "widgets",
    "to_csv",
    "to_excel",
]

# Public functions named like a subpackage: `ck.sync` (channelkit._facade) and `channelkit.sync`.
_FUNCTIONS_NAMED_LIKE_SUBPACKAGES = frozenset({"sync"})


class _Package(types.ModuleType):
    """`channelkit` itself, so that `ck.sync` is the function whatever was imported first.

    Importing the subpackage `channelkit.sync` makes Python bind it as this package's
    attribute `sync`, which would hide the function `ck.sync`. That binding is skipped, so
    `ck.sync` stays the function (loaded on first use); the subpackage stays importable by
    name: `from channelkit.sync import runner`.
    """

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _FUNCTIONS_NAMED_LIKE_SUBPACKAGES and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
__getattr__, __dir__ = lazy_attributes(__name__, _LAZY)
