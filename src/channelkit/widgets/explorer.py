"""`ck.widgets.Explorer`: click through periods, comparisons, channels and metrics.

Every view is one `wh.kpis(...)` call: `.code` is that line, `.frame` its result, shown as
the table, with the KPI tiles over it and the chosen metric's trend beside; under it, the
channel's young posts, each on its line with its forecast band (`wh.outlook`,
`ck.plots.outlook`). Nothing here
computes a number: the Warehouse does, so what the Explorer shows is what the code returns.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

import ipywidgets as widgets

from channelkit._constants import EXPLORER_FILENAME
from channelkit._labels import KPI_LABELS
from channelkit.display.frames import frame_html
from channelkit.display.tiles import tiles_html
from channelkit.errors import ChannelkitError
from channelkit.widgets._html import message_html
from channelkit.widgets.explorer_view import (
    ALL_CHANNELS,
    COMPARE_CHOICES,
    METRICS,
    PERIOD_CHOICES,
    View,
    month_choices,
    trend_freq,
)

if TYPE_CHECKING:
    import pandas as pd
    import plotly.graph_objects as go

    from channelkit.warehouse import Warehouse

_COPY = (
    '<button class="ck-explorer-copy" title="Copy the code" '
    'onclick="navigator.clipboard.writeText(this.nextElementSibling.innerText);'
    "this.innerText='Copied';\">Copy</button>"
)


class Explorer(widgets.VBox):  # type: ignore[misc]  # ipywidgets ships no type hints
    """Choose a period, a comparison, a channel and a metric; see tiles, trend and table.

        explorer = ck.widgets.Explorer(wh)
        explorer                                   # click through it
        explorer.set(period="month", channel="All Hands", metric="read_rate")
        explorer.code     # 'wh.kpis(period="month", channel="All Hands")'
        explorer.frame    # the table shown: exactly what that line returns

    `name` is the variable the code refers to (default "wh"). The Export button writes the
    view's table with `ck.to_excel` to `export_path` (default channelkit-explorer.xlsx).
    """

    def __init__(
        self,
        wh: Warehouse,
        *,
        period: str = "last 28 days",
        compare: str = "previous",
        channel: str | list[str] | None = None,
        metric: str = "readers",
        tz: str | None = None,
        name: str = "wh",
        export_path: str | Path = EXPLORER_FILENAME,
    ) -> None:
        self._wh = wh
        self._name = name
        self.export_path = Path(export_path)
        self.view = View(tz=tz).changed(
            period=period, compare=compare, channel=channel, metric=metric
        )
        self.frame: pd.DataFrame | None = None
        self.trend: pd.DataFrame | None = None
        self.figure: go.Figure | None = None
        self.outlook: pd.DataFrame | None = None  # wh.outlook of the view's channels
        self.outlook_figure: go.Figure | None = None
        self._answers: dict[str, tuple[tuple[str, str, object], pd.DataFrame]] = {}
        # One open file for the first view's questions (channels, days, KPIs, trend).
        with wh.session():
            channels = list(wh.channels(tz=tz)["name"])
            coverage_days = _covered_days(wh)
            periods = [*PERIOD_CHOICES, *month_choices(*coverage_days)]
            if self.view.period not in {code for _, code in periods}:
                periods.append((self.view.period, self.view.period))
            self.period = widgets.Dropdown(options=periods, description="Period")
            self.compare = widgets.Dropdown(options=COMPARE_CHOICES, description="Compare with")
            self.channel = widgets.Dropdown(
                options=[ALL_CHANNELS, *channels], description="Channel"
            )
            self.metric = widgets.Dropdown(
                options=[(KPI_LABELS[m], m) for m in METRICS], description="Metric"
            )
            self.export_button = widgets.Button(description="Export to Excel", icon="download")
            self.tiles = widgets.HTML()
            self.chart = widgets.Output()
            self.outlook_chart = widgets.Output()
            self.table = widgets.HTML()
            self.code_html = widgets.HTML()
            self.status = widgets.HTML()
            self._syncing = False
            self._sync_controls()
            for control in (self.period, self.compare, self.channel, self.metric):
                control.observe(self._on_click, names="value")
            self.export_button.on_click(lambda _: self.export())
            for css, part in (
                ("ck-explorer-period", self.period),
                ("ck-explorer-compare", self.compare),
                ("ck-explorer-channel", self.channel),
                ("ck-explorer-metric", self.metric),
                ("ck-explorer-export", self.export_button),
                ("ck-explorer-tiles", self.tiles),
                ("ck-explorer-chart", self.chart),
                ("ck-explorer-outlook", self.outlook_chart),
                ("ck-explorer-table", self.table),
                ("ck-explorer-code", self.code_html),
                ("ck-explorer-status", self.status),
            ):
                part.add_class(css)
            super().__init__(
                [
                    widgets.HBox([self.period, self.compare]),
                    widgets.HBox([self.channel, self.metric, self.export_button]),
                    self.code_html,
                    self.tiles,
                    self.chart,
                    self.table,
                    self.outlook_chart,
                    self.status,
                ]
            )
            self.add_class("ck-explorer")
            self._show()

    # --- what code and clicks share -----------------------------------------------------

    @property
    def code(self) -> str:
        """The one line of Python that returns this view's table (`.frame`)."""
        return self.view.code(self._name)

    def set(
        self,
        *,
        period: str | None = None,
        compare: str | None = None,
        channel: str | list[str] | None = None,
        metric: str | None = None,
    ) -> Explorer:
        """Change the view as the clicks do (`channel="All channels"` clears the filter).

        A choice the warehouse refuses (a period outside the synced days) raises its
        `InvalidParameterError` here; a click shows the same message under the view.
        """
        self.view = self.view.changed(
            period=period, compare=compare, channel=channel, metric=metric
        )
        self._sync_controls()
        self._show(raising=True)
        return self

    def export(self) -> Path | None:
        """Write the view's table with `ck.to_excel` to `export_path`; say where."""
        from channelkit.export import to_excel

        if self.frame is None:
            return None
        try:
            written = to_excel({"KPIs": self.frame}, self.export_path)
        except (ChannelkitError, OSError) as exc:
            self.status.value = message_html(f"not exported: {exc}", kind="error")
            return None
        self.status.value = message_html(f"exported to {written}", kind="ok")
        return written

    # --- drawing ------------------------------------------------------------------------

    def _on_click(self, change: dict[str, Any]) -> None:
        if self._syncing:
            return
        channel = self.channel.value
        self.view = self.view.changed(
            period=self.period.value,
            compare=self.compare.value,
            channel=channel,
            metric=self.metric.value,
        )
        self._show()

    def _sync_controls(self) -> None:
        """Show the view in the controls without each assignment redrawing the view."""
        self._syncing = True
        try:
            options = [code for _, code in self.period.options]
            if self.view.period not in options:
                self.period.options = [*self.period.options, (self.view.period, self.view.period)]
            self.period.value = self.view.period
            self.compare.value = self.view.compare
            one = self.view.channel[0] if len(self.view.channel) == 1 else None
            if one is not None and one not in self.channel.options:
                self.channel.options = [*self.channel.options, one]
            self.channel.value = one if one is not None else ALL_CHANNELS
            self.metric.value = self.view.metric
        finally:
            self._syncing = False

    def _show(self, *, raising: bool = False) -> None:
        view = self.view
        self.code_html.value = (
            f"{_COPY}<code class='ck-explorer-code-line'>{html.escape(self.code)}</code>"
        )
        try:
            with self._wh.session():  # one connection for the questions
                frame, trend = self._ask(view)
                young = self._young(view)
        except ChannelkitError as exc:  # a period outside the data, an unknown channel
            # Nothing stale stays on screen: the table would contradict the code above it.
            self.frame = self.trend = self.outlook = self.outlook_figure = None
            self.tiles.value = self.table.value = ""
            self.status.value = message_html(str(exc), kind="error")
            if raising:
                raise
            return
        from channelkit.plots.outlook import outlook
        from channelkit.plots.trend import metric_over_time, redraw

        self.frame, self.trend, self.outlook = frame, trend, young
        self.outlook_figure = None if young.empty else outlook(young)
        # The trend's days still gathering readers are marked, heading where young posts are.
        if self.figure is None:
            self.figure = metric_over_time(trend, view.metric, young)
        else:
            redraw(self.figure, trend, view.metric, young)
        self.tiles.value = tiles_html(frame, chosen=view.metric) + self._why_no_change(frame)
        self.table.value = frame_html(frame)
        self.status.value = ""
        self._draw_chart()

    def _why_no_change(self, frame: pd.DataFrame) -> str:
        """Under tiles that all show "—" for the change: why, when the comparison has no
        synced data ("no synced data a year before 2026-11-01 (November 2025)"); "" when
        any change is shown. The table under them carries the warning in full."""
        start, missing = frame.attrs.get("start"), frame.attrs.get("missing")
        if start is None or not missing or not frame["delta_pct"].isna().all():
            return ""
        year = frame.attrs.get("compare") == "year"
        before = f"{'a year' if year else 'the period'} before {start:%Y-%m-%d}"
        previous = frame.attrs.get("previous_period")
        said = f"Every change is \u2014: no synced data {before}" + (
            f" ({previous})." if previous else "."
        )
        return f'<div class="ck-tiles-note ck-tiles-why">{html.escape(said)}</div>'

    def _ask(self, view: View) -> tuple[pd.DataFrame, pd.DataFrame]:
        kpis = view.kpis_arguments()
        frame = self._asked("kpis", kpis, lambda: self._wh.kpis(**kpis))  # type: ignore[arg-type]
        start, end = frame.attrs.get("start"), frame.attrs.get("end")
        freq = trend_freq(
            None if start is None else start.date(), None if end is None else end.date()
        )
        over = view.trend_arguments()
        trend = self._asked(
            f"trend {freq}",
            over,
            lambda: self._wh.engagement_over_time(freq, **over),  # type: ignore[arg-type]
        )
        return frame, trend

    def _young(self, view: View) -> pd.DataFrame:
        over = view.outlook_arguments()
        return self._asked("outlook", over, lambda: self._wh.outlook(**over))  # type: ignore[arg-type]

    def _asked(
        self, what: str, arguments: dict[str, object], ask: Callable[[], pd.DataFrame]
    ) -> pd.DataFrame:
        """The answer of the last identical question while the file is unchanged: a click
        on the metric or the comparison asks the warehouse only what changed."""
        key = (what, repr(sorted(arguments.items())), _file_state(self._wh))
        answer = self._answers.get(what)
        if answer is None or answer[0] != key or key[2] is None:
            answer = (key, ask())
            self._answers[what] = answer
        return answer[1].copy(deep=False)

    def _draw_chart(self) -> None:
        from IPython import get_ipython

        if get_ipython() is None:  # no kernel to draw into (a script, a test)
            return
        # The chart replaces the Output widget's outputs in one assignment rather than being
        # displayed inside `with self.chart:`: a display captured by an Output widget makes
        # nbclient's frontend stand-in write back to the kernel on the shell channel while
        # it awaits the cell's reply there, and it then sees the reply only at the cell
        # timeout (a notebook run headless, e.g. `report --notebook`, stalled on every
        # Explorer).
        assert self.figure is not None
        self.chart.outputs = (
            {"output_type": "display_data", "data": figure_bundle(self.figure), "metadata": {}},
        )
        young = self.outlook_figure
        self.outlook_chart.outputs = (
            ()
            if young is None
            else ({"output_type": "display_data", "data": figure_bundle(young), "metadata": {}},)
        )


def figure_bundle(figure: go.Figure) -> dict[str, object]:
    """The figure as JupyterLab's and VS Code's plotly renderers read it (the mimetype of
    plotly's `plotly_mimetype` renderer), built directly: `figure._repr_mimebundle_()` goes
    through plotly's renderers, which import nbformat and jsonschema and, with the
    `notebook` renderer, put plotly.js (4.6 MB) into the widget's first output: the
    seconds a first Explorer took to appear."""
    import json

    import plotly.io as pio

    spec = json.loads(pio.to_json(figure, validate=False))
    return {"application/vnd.plotly.v1+json": spec, "text/plain": "Figure"}


def _file_state(wh: Warehouse) -> tuple[int, int] | None:
    """The file's time and size, None for a lake (whose tables may move at any time)."""
    try:
        stat = wh.path.stat()
    except OSError:  # an s3:// lake, a file gone
        return None
    return None if wh.path.is_dir() else (stat.st_mtime_ns, stat.st_size)


def _covered_days(wh: Warehouse) -> tuple[date | None, date | None]:
    """The last complete and the first synced days, for the months offered by name (a
    month that began on the sync's own day has no complete day yet: not offered)."""
    from channelkit.analysis.coverage import read_coverage

    with wh.duckdb as con:
        coverage = read_coverage(con)
    return coverage.last_complete_day, coverage.first_day
