"""Every file format is one declaration: reading a file is one loop over the formats.

A format answers two questions about a `Table` (a file's cells): "is this file mine?"
(`claim`, with how many columns it recognised) and "translate it into rows" (the claim's
`read`, which gives the `Sheet`). The channelkit posts file is one format
(`sheets/native.py`), each layout another tool's (`sheets/foreign.py`); the claim that
recognises most columns reads the file (the native one first on a tie). When no format
claims the file, each says what it makes of it (`Hints`) and one refusal gathers them,
ending with a layout file drafted from the headers.

    sheet = read_table(table, Choices(channel="news"))

Pure: no I/O beyond the team's layout folder (`layouts/library.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol

from channelkit.errors import SpreadsheetError
from channelkit.publish.layouts.library import known_layouts
from channelkit.publish.layouts.meanings import draft_layout
from channelkit.publish.layouts.read import Choices, first_row_hint
from channelkit.publish.sheets.columns import expected_columns, map_headers
from channelkit.publish.sheets.foreign import LayoutFormat
from channelkit.publish.sheets.native import NATIVE
from channelkit.publish.sheets.sheet import Claim, Hints, Sheet, Table, blank, header_text


class Format(Protocol):
    """One kind of file: `claim` answers "is this file mine?", `hints` what it makes of
    a file it does not claim; `what` names it when its header row sits below a title."""

    @property
    def what(self) -> str | None: ...

    def claim(self, table: Table) -> Claim | None: ...

    def hints(self, table: Table) -> Hints: ...


def formats(choices: Choices) -> tuple[Format, ...]:
    """The native posts file, then the layouts of `choices` (or every known one)."""
    layouts = choices.layouts or known_layouts()
    return (NATIVE, *(LayoutFormat(layout) for layout in layouts))


def read_table(table: Table, choices: Choices | None) -> Sheet:
    """The sheet of the format that claims `table`; `SpreadsheetError` when none does."""
    chosen = choices or Choices()
    every = formats(chosen)
    claims = [claim for claim in (kind.claim(table) for kind in every) if claim is not None]
    if not claims:
        raise SpreadsheetError(refusal(table, every))
    best = max(claims, key=lambda claim: claim.placed)  # max keeps the first of a tie
    return best.read(chosen)


def refusal(table: Table, every: Sequence[Format]) -> str:
    """The one message for a file no format claims: the hints of all, then a layout file
    drafted from the headers."""
    if table.not_utf8:
        return table.not_utf8
    if not table.headers:
        return (
            f"{table.where}: row 1 must hold the column headers ({expected_columns()}) but is empty"
        )
    hints = [kind.hints(table) for kind in every]
    shapes = [hint.shape for hint in hints if hint.shape]
    lead = first_row_hint(table.header_cells, shapes) or _title_row(table, every)
    problems = [*([lead] if lead else []), *(p for hint in hints for p in hint.problems)]
    fields = map_headers(table.headers)[0]
    unknown = {h for h, field in zip(table.headers, fields, strict=True) if h and field is None}
    uses: dict[tuple[str, str], list[str]] = {}
    for hint in hints:
        for header, field, tool in hint.meanings:
            if header in unknown:  # what another tool means by a column channelkit lacks
                uses.setdefault((header, field), []).append(tool)
    known = [f"{h!r} → {field} (in {', '.join(sorted(t))} files)" for (h, field), t in uses.items()]
    other_tools = f". From other tools' files: {'; '.join(known)}" if known else ""
    message = f"{table.where}: {'; '.join(problems)}. Expected columns: {expected_columns()}"
    # Mostly channelkit's own headers: a posts file with a mistake, which the problems
    # name; else another tool's file, which a layout file reads.
    if lead or 2 * len(unknown) < len(table.headers) - table.headers.count(""):
        return message + other_tools
    return (
        f"{message}{other_tools}.\nAdd a `channel` and a `title` column, or declare a "
        "layout: this layout file, drafted from the headers, reads the file once its blanks "
        'are filled in (docs/publishing.md, "Moving from another tool"):\n\n'
        f"{draft_layout(table.source, table.headers, table.rows)}"
    )


def _title_row(table: Table, every: Sequence[Format]) -> str | None:
    """For a file whose row 1 holds one cell (a title) above a header row a format knows."""
    filled = [cell for cell in table.header_cells if not blank(cell)]
    if len(filled) != 1 or not table.rows:
        return None
    number, cells = table.rows[0]
    below = replace(table, header_cells=tuple(cells), rows=())
    what = next((kind.what for kind in every if kind.what and kind.claim(below)), None)
    if what is None:
        return None
    return (
        f"row 1 holds only {header_text(filled[0])!r}, a title above the header row: row "
        f"{number} has {what}; delete row 1 (and any rows above the headers) so the headers "
        "are in row 1"
    )
