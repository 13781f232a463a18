"""What a report template receives: plain, already formatted values.

Strings are user content or formatted numbers and are escaped by the template; only
`Markup` values (plotly figure divs, Markdown rendered by the project's sanitiser, and
plotly.js itself) reach the page unescaped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from markupsafe import Markup

from channelkit.reports.parameters import ReportPeriod

Cell = str | Markup


@dataclass(frozen=True)
class TableColumn:
    """A table column; numeric ones are right-aligned.

    TableColumn("Readers", numeric=True)
    """

    label: str
    numeric: bool = False
    nowrap: bool = False  # dates and times: one line, a wrapped time doubles a row's height


@dataclass(frozen=True)
class Table:
    """A formatted table; `rows` hold one cell per column.

    Table((TableColumn("Tag"), TableColumn("Posts", numeric=True)), (("release", "12"),))
    """

    columns: tuple[TableColumn, ...]
    rows: tuple[tuple[Cell, ...], ...]

    def without_empty_columns(self) -> Table:
        """The table without the columns that are blank in every row (a "Sample" column
        when no group is small): they cost a phone's width and say nothing."""
        if not self.rows:
            return self  # nothing says a column is blank
        keep = [
            number
            for number in range(len(self.columns))
            if any(str(row[number]).strip() for row in self.rows)
        ]
        return Table(
            tuple(self.columns[n] for n in keep),
            tuple(tuple(row[n] for n in keep) for row in self.rows),
        )


@dataclass(frozen=True)
class Chart:
    """A figure with what assistive technology and print need: a text label and its data.

    Chart(figure_html(fig, "ck-trend"), "Line chart of opens per day", table)
    """

    html: Markup
    label: str  # the aria-label: what the chart shows, in words
    data: Table  # the plotted numbers, shown collapsed under the chart
    figure: Any = field(default=None, compare=False, repr=False)  # for static images
    heading: str = ""  # the figure's title, shown above it by the page (and wrapped)
    subheading: str = ""  # its second line: period, timezone


@dataclass(frozen=True)
class Sentence:
    """One sentence of the summary; `flags` say why a number needs care.

    Sentence("Read rate was 61.0%, up 4.0 points.", ("small base",))
    """

    text: str
    flags: tuple[str, ...] = ()


@dataclass(frozen=True)
class KpiTile:
    """One headline number with its change against the previous period.

    KpiTile("readers", "Readers", "400", "460", "\u221260", "\u221213.0%", "down")
    """

    key: str
    label: str
    value: str
    previous: str
    delta: str
    delta_pct: str
    direction: str  # "up", "down" or "flat": a CSS class
    flags: tuple[str, ...] = ()


@dataclass(frozen=True)
class Section:
    """One part of the report: charts, a table, or both, with notes under them.

    `empty` replaces both when the period has no data for this section. A `lead` section
    carries the report's message: on a phone its charts show and its table is folded;
    the other sections are folded whole (wide screens and paper show everything).

        Section("tags", "Tags", empty="No posts published in this period.")
    """

    id: str
    title: str
    intro: str = ""
    charts: tuple[Chart, ...] = ()
    table: Table | None = None
    notes: tuple[str, ...] = ()
    empty: str | None = None
    lead: bool = False


@dataclass(frozen=True)
class ReportPage:
    """Everything a template can use; see docs/reports.md for a custom template.

    page.title, page.summary[0].text, page.kpis[0].value, page.sections[0].table.rows
    """

    title: str
    period: ReportPeriod
    previous_period: ReportPeriod
    parameters: tuple[tuple[str, str], ...]
    freshness: tuple[tuple[str, str], ...]
    kpis: tuple[KpiTile, ...]
    sections: tuple[Section, ...]
    caveats: tuple[str, ...]
    plotlyjs: Markup
    generator: str
    summary: tuple[Sentence, ...] = ()
    links: tuple[tuple[str, str], ...] = ()  # (label, relative href): the CSV files
    section_by_id: dict[str, Section] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "section_by_id", {s.id: s for s in self.sections})

    @property
    def charts(self) -> tuple[Chart, ...]:
        return tuple(chart for section in self.sections for chart in section.charts)
