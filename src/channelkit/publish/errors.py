"""What the publishing helpers raise when the user's input cannot go through."""

from __future__ import annotations

from collections.abc import Sequence

from channelkit.errors import ChannelkitError
from channelkit.publish.validation import FieldError


class SpreadsheetError(ChannelkitError):
    """A file that cannot be read as a posts spreadsheet; the message names the problem."""


class PostValidationError(ChannelkitError):
    """A post that failed validation; `errors` holds one `FieldError` per problem."""

    def __init__(self, errors: Sequence[FieldError]) -> None:
        self.errors = tuple(errors)
        super().__init__("; ".join(str(error) for error in self.errors))


class PlanNotValidError(ChannelkitError):
    """`Plan.submit` refused: some rows have errors and `allow_partial` was not given."""
