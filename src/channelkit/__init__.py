"""channelkit: the toolkit for the Publishing and Channel Service.

    import channelkit as ck

    with ck.Client() as client:           # CHANNELKIT_BASE_URL / CHANNELKIT_API_KEY
        wh = ck.sync(client, "warehouse.duckdb")
    wh.engagement_over_time(freq="week", tz="Europe/Berlin")

Heavy parts (pandas, DuckDB, plotly, the service) load on first use, so that
`import channelkit` stays fast for command-line use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from channelkit._lazy import lazy_attributes

__version__ = "0.1.0"

# public name -> "module" (a submodule) or "module:attribute"
_LAZY: dict[str, str] = {
    "Client": "channelkit.client:Client",
    "AsyncClient": "channelkit.client:AsyncClient",
    "ChannelkitError": "channelkit.errors:ChannelkitError",
    "APIError": "channelkit.errors:APIError",
    "BadRequestError": "channelkit.errors:BadRequestError",
    "AuthenticationError": "channelkit.errors:AuthenticationError",
    "PermissionDeniedError": "channelkit.errors:PermissionDeniedError",
    "NotFoundError": "channelkit.errors:NotFoundError",
    "ConflictError": "channelkit.errors:ConflictError",
    "RateLimitError": "channelkit.errors:RateLimitError",
    "ServerError": "channelkit.errors:ServerError",
    "APIConnectionError": "channelkit.errors:APIConnectionError",
    "APITimeoutError": "channelkit.errors:APITimeoutError",
    "APIStatusError": "channelkit.errors:APIStatusError",
    "APIResponseValidationError": "channelkit.errors:APIResponseValidationError",
    "InvalidParameterError": "channelkit.errors:InvalidParameterError",
    "NotSyncedError": "channelkit.errors:NotSyncedError",
    "PaginationError": "channelkit.errors:PaginationError",
    "LocalService": "channelkit.service:LocalService",
    "sync": "channelkit.sync:sync",
    "SyncReport": "channelkit.sync:SyncReport",
    "Warehouse": "channelkit.analysis.warehouse:Warehouse",
    "schedule": "channelkit.publish:schedule",
    "publish": "channelkit.publish",
    "plots": "channelkit.plots",
    "widgets": "channelkit.widgets",
    "to_csv": "channelkit.export:to_csv",
    "to_excel": "channelkit.export:to_excel",
}

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from channelkit import plots, publish, widgets
    from channelkit.analysis.warehouse import Warehouse
    from channelkit.client import AsyncClient, Client
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
        InvalidParameterError,
        NotFoundError,
        NotSyncedError,
        PaginationError,
        PermissionDeniedError,
        RateLimitError,
        ServerError,
    )
    from channelkit.export import to_csv, to_excel
    from channelkit.publish import schedule
    from channelkit.service import LocalService
    from channelkit.sync import SyncReport, sync

__all__ = [
    "__version__",
    "Client",
    "AsyncClient",
    "ChannelkitError",
    "APIError",
    "BadRequestError",
    "AuthenticationError",
    "PermissionDeniedError",
    "NotFoundError",
    "ConflictError",
    "RateLimitError",
    "ServerError",
    "APIConnectionError",
    "APITimeoutError",
    "APIStatusError",
    "APIResponseValidationError",
    "InvalidParameterError",
    "NotSyncedError",
    "PaginationError",
    "LocalService",
    "sync",
    "SyncReport",
    "Warehouse",
    "schedule",
    "publish",
    "plots",
    "widgets",
    "to_csv",
    "to_excel",
]


__getattr__, __dir__ = lazy_attributes(__name__, _LAZY)
