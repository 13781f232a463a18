"""The error every bad analysis argument raises."""

from __future__ import annotations

from channelkit.client.errors import ChannelkitError


class AnalysisParameterError(ChannelkitError, ValueError):
    """An argument of a metric is wrong; `param` names it, the message says why.

    >>> try:
    ...     raise AnalysisParameterError("freq", "'hour' is not one of day, week, month")
    ... except ValueError as exc:
    ...     print(exc)
    freq: 'hour' is not one of day, week, month
    """

    def __init__(self, param: str, message: str) -> None:
        super().__init__(f"{param}: {message}")
        self.param = param
