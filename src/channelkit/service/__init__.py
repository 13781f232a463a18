"""The local Publishing and Channel Service (`channelkit serve`, `LocalService`).

`LocalService` loads the ASGI stack on first use, so the `channelkit` command stays quick.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from channelkit.errors import ServiceError
    from channelkit.service.local import LocalService

__all__ = ["LocalService", "ServiceError"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from channelkit.service import local

        return getattr(local, name)
    raise AttributeError(f"module 'channelkit.service' has no attribute {name!r}")
