"""channelkit's exceptions.

`ChannelkitError` is the root of everything channelkit raises on purpose; the API errors
below it are built from the service's error body in one place.
"""

from __future__ import annotations


class ChannelkitError(Exception):
    """Base class of every error channelkit raises on purpose."""
