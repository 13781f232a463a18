"""`ck.widgets.BulkUpload`: a spreadsheet in, every row checked, then sent in one go.

Upload → validation table (checked against the service: channels, duplicates) → Submit,
enabled only when the plan may be sent → per-row results and the results file to download.
A file from another tool (Hootsuite, Sprout Social, ...) is read with the same choices as
`channelkit schedule`'s flags (its channel, the channel of each name it gives, its date
order, a layout file for a tool channelkit does not ship), made in the widget and shown,
with how the file was read, before Submit.
Reading, validating and submitting are `channelkit.publish`'s; this module only shows them.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import ipywidgets as widgets

from channelkit._constants import (
    LAYOUT_FILE_SUFFIX,
    WIDGET_FAILED_ROWS_FILENAME,
    WIDGET_RESULTS_FILENAME,
    WIDGET_TABLE_MAX_ROWS,
    WIDGET_TEMPLATE_FILENAME,
    WIDGET_UPLOAD_ACCEPT,
)
from channelkit.errors import ChannelkitError, InvalidParameterError
from channelkit.publish.layouts.declared import Layout
from channelkit.publish.layouts.files import layout_from_bytes, load_layout
from channelkit.publish.layouts.options import parse_choices
from channelkit.publish.layouts.read import Choices
from channelkit.publish.layouts.stamps import ORDERS
from channelkit.publish.post.validation import ChannelIndex, ChannelInfo
from channelkit.publish.sheets.plan import Plan, load_spreadsheet
from channelkit.publish.sheets.results import SubmitResult
from channelkit.publish.sheets.template import write_template
from channelkit.widgets._html import download_html, message_html, table_html
from channelkit.widgets._zones import initial_zone, options_with

if TYPE_CHECKING:
    import pandas as pd

    from channelkit.client import Client


class BulkUpload(widgets.VBox):  # type: ignore[misc]  # ipywidgets ships no type hints
    """Upload a posts spreadsheet (.xlsx or .csv), review every row, submit the valid plan.

        upload = ck.widgets.BulkUpload(client, tz="Europe/Berlin")
        upload                  # choose a file; fix it until the table shows no errors
        upload.plan             # the validated `channelkit.publish.Plan`
        upload.last_result      # the `SubmitResult` of the latest Submit

        # A Hootsuite file (no channel in it), its dates written day first:
        ck.widgets.BulkUpload(client, channel="news", date_order="dmy")
        # A file naming profiles: the channel of each name.
        ck.widgets.BulkUpload(client, names={"Facebook": "news", "LinkedIn": "eng"})
        # A tool channelkit does not ship: its layout file (or upload it in the widget).
        ck.widgets.BulkUpload(client, layout_file="schedulin.toml")

    `timezone` reads times written without an offset or a timezone column. Submitting the
    same file again creates nothing twice (see `channelkit.publish`). `channel`, `names`,
    `date_order` and `layout_file` preset the choices for files from other tools
    (`--channel`, `--map`, `--date-order`, `--layout-file` of `channelkit schedule`); they
    can be changed in the widget.
    """

    def __init__(
        self,
        client: Client,
        *,
        tz: str | None = None,
        channel: str | None = None,
        names: Mapping[str, str] | None = None,
        date_order: str | None = None,
        layout_file: str | Path | None = None,
    ) -> None:
        self._client = client
        self.plan: Plan | None = None
        self.last_result: SubmitResult | None = None
        self._file: tuple[bytes, str] | None = None
        # The layout of the Layout file control (None: the layouts channelkit and the
        # team's folder know), with the name it was given by.
        self._layout: tuple[Layout, str] | None = None
        if layout_file is not None:
            self._layout = (load_layout(Path(layout_file)), Path(layout_file).name)
        zone = initial_zone(tz)

        self.upload = widgets.FileUpload(
            accept=WIDGET_UPLOAD_ACCEPT, multiple=False, description="Spreadsheet"
        )
        self.timezone = widgets.Dropdown(
            options=options_with(zone), value=zone, description="Time zone"
        )
        self.confirm_urgent = widgets.Checkbox(description="Allow urgent rows")
        # Files from other tools: the choices `channelkit schedule` takes as flags.
        index = ChannelIndex.from_channels(list(client.channels.list()))
        self.channel = widgets.Dropdown(
            options=[(_FROM_THE_FILE, None), *((c.label, c.slug or c.id) for c in index.channels)],
            value=None,
            description="Channel",
        )
        if channel is not None:
            self.channel.value = _channel_value(index, channel)
        self.names = widgets.Textarea(
            value="\n".join(f"{name}={target}" for name, target in (names or {}).items()),
            placeholder="Facebook=news\nLinkedIn=engineering",
            description="Names",
            rows=2,
            continuous_update=False,  # read again when the box is left, not per keystroke
        )
        self.date_order = widgets.Dropdown(
            options=[(_FROM_THE_FILE, None), *((_ORDER_LABELS[key], key) for key in ORDERS)],
            value=date_order,
            description="Date order",
        )
        self.layout_file = widgets.FileUpload(
            accept=LAYOUT_FILE_SUFFIX, multiple=False, description="Layout file"
        )
        self.layout_used = widgets.HTML()
        self.drop_layout = widgets.Button(description="No layout file", icon="times")
        self.reading = widgets.HTML()
        self.allow_partial = widgets.Checkbox(description="Send only the valid rows")
        self.template = widgets.HTML(_template_link())
        self.status = widgets.HTML()
        self.table = widgets.HTML()
        self.submit_button = widgets.Button(
            description="Submit", button_style="primary", icon="paper-plane", disabled=True
        )
        self.progress = widgets.IntProgress(
            value=0, min=0, max=1, description="Sent", layout=widgets.Layout(display="none")
        )
        self.results = widgets.HTML()
        self.download = widgets.HTML()

        controls = {
            "file": self.upload,
            "template": self.template,
            "timezone": self.timezone,
            "confirm-urgent": self.confirm_urgent,
            "allow-partial": self.allow_partial,
            "channel": self.channel,
            "names": self.names,
            "date-order": self.date_order,
            "layout-file": self.layout_file,
            "layout-used": self.layout_used,
            "drop-layout": self.drop_layout,
            "reading": self.reading,
            "status": self.status,
            "table": self.table,
            "submit": self.submit_button,
            "progress": self.progress,
            "results": self.results,
            "download": self.download,
        }
        for name, control in controls.items():
            control.add_class(f"ck-bulk-{name}")
        super().__init__(
            [
                widgets.HBox([self.upload, self.timezone, self.confirm_urgent, self.template]),
                widgets.HBox(
                    [widgets.HTML(_OTHER_TOOLS), self.channel, self.names, self.date_order]
                ),
                widgets.HBox([self.layout_file, self.layout_used, self.drop_layout]),
                self.reading,
                self.status,
                self.table,
                widgets.HBox([self.submit_button, self.allow_partial, self.progress]),
                self.results,
                self.download,
            ]
        )
        self.add_class("ck-bulk-upload")

        self.upload.observe(self._on_upload, names="value")
        for control in (
            self.timezone,
            self.confirm_urgent,
            self.channel,
            self.names,
            self.date_order,
        ):
            control.observe(self._on_option, names="value")
        self.layout_file.observe(self._on_layout_upload, names="value")
        self.drop_layout.on_click(lambda _button: self.use_layout(None))
        self._show_layout()
        self.allow_partial.observe(self._on_allow_partial, names="value")
        self.submit_button.on_click(lambda _button: self.submit())
        self.status.value = message_html("Choose a posts spreadsheet (.xlsx or .csv).")

    def __repr__(self) -> str:
        return f"<BulkUpload {self.plan!r}>" if self.plan else "<BulkUpload: no file chosen yet>"

    def load(self, content: bytes, filename: str) -> Plan | None:
        """Read and check a file as the upload button does (kept: a changed choice reads it
        again); None when it cannot be used."""
        self._file = (content, filename)
        self.plan = None
        self.last_result = None
        self.table.value = self.results.value = self.download.value = self.reading.value = ""
        self.progress.layout.display = "none"
        try:
            plan = load_spreadsheet(
                content,
                filename=filename,
                tz=self.timezone.value,
                confirm_urgent=self.confirm_urgent.value,
                choices=self.choices(),
            )
            plan.check_against(self._client)
        except ChannelkitError as exc:
            self.status.value = message_html(in_widget_words(str(exc)), kind="error")
            self._update_submit()
            return None
        self.plan = plan
        if plan.sheet.reading:
            self.reading.value = message_html(in_widget_words(plan.sheet.reading))
        self._show_plan(plan)
        self.status.value = _plan_summary(plan, self.allow_partial.value)
        self._update_submit()
        return plan

    def use_layout(self, content: bytes | None, filename: str = "") -> Layout | None:
        """Read a layout file as the Layout file control does (None: no layout file), then
        the spreadsheet again with it; None, with the mistake shown, when it cannot be used."""
        self._layout = None
        if content is not None:
            try:
                self._layout = (layout_from_bytes(content, source=filename), filename)
            except InvalidParameterError as exc:
                self._show_layout()
                self.plan = None
                self.table.value = self.reading.value = ""
                self.status.value = message_html(f"Layout file: {exc.message}", kind="error")
                self._update_submit()
                return None
        self._show_layout()
        if self._file is not None:
            self.load(*self._file)
        return self._layout[0] if self._layout else None

    def choices(self) -> Choices:
        """The choices made for a file from another tool, as `load_spreadsheet` takes them;
        `InvalidParameterError` for a Names line that is not NAME=CHANNEL."""
        lines = [line.strip() for line in self.names.value.splitlines()]
        try:
            chosen = parse_choices(
                channel=self.channel.value,
                maps=[line for line in lines if line and not line.startswith("#")],
                map_file=None,
                date_order=self.date_order.value,
            )
        except InvalidParameterError as exc:
            raise InvalidParameterError("Names", exc.message) from None
        return replace(chosen, layouts=(self._layout[0],)) if self._layout else chosen

    def submit(self) -> SubmitResult | None:
        """What the Submit button does: send the plan, then show each row's outcome."""
        plan = self.plan
        if plan is None or not self._may_submit(plan):
            return None
        self.submit_button.disabled = True
        self.progress.value, self.progress.max = 0, max(1, _count(plan, "ok"))
        self.progress.layout.display = None
        try:
            result = plan.submit(
                self._client, allow_partial=self.allow_partial.value, progress=self._on_progress
            )
        except ChannelkitError as exc:
            self.status.value = message_html(f"Nothing more was sent: {exc}", kind="error")
            self._show_plan(plan)  # submit re-checked it against the service
            return None
        finally:
            self._update_submit()
        self.last_result = result
        self.results.value = table_html(
            result.preview(), max_rows=WIDGET_TABLE_MAX_ROWS, css_class="ck-table"
        )
        self.download.value = _result_links(result)
        counts = ", ".join(f"{count} {status}" for status, count in result.counts().items())
        self.status.value = message_html(
            f"Submitted {plan.sheet.source}: {counts}.", kind="ok" if result.ok else "error"
        )
        return result

    def _show_plan(self, plan: Plan) -> None:
        frame = _errors_first(plan.preview())
        self.table.value = table_html(
            frame.map(lambda value: in_widget_words(value) if isinstance(value, str) else value),
            max_rows=WIDGET_TABLE_MAX_ROWS,
            css_class="ck-table",
        )

    def _on_upload(self, _change: Mapping[str, Any]) -> None:
        if not self.upload.value:
            return
        uploaded = self.upload.value[0]
        # Emptied at once: the file then never sits in widget state (nor in a saved
        # notebook), and choosing the same file again, after fixing it, is a change.
        self.upload.value = ()
        self.load(bytes(uploaded["content"]), str(uploaded["name"]))

    def _on_layout_upload(self, _change: Mapping[str, Any]) -> None:
        if not self.layout_file.value:
            return
        uploaded = self.layout_file.value[0]
        self.layout_file.value = ()  # as the spreadsheet: choosing it again is a change
        self.use_layout(bytes(uploaded["content"]), str(uploaded["name"]))

    def _show_layout(self) -> None:
        if self._layout is None:
            self.layout_used.value = message_html(_NO_LAYOUT)
        else:
            layout, name = self._layout
            self.layout_used.value = message_html(f"{name}: reads {layout.name} files")
        self.drop_layout.disabled = self._layout is None

    def _on_option(self, _change: Mapping[str, Any]) -> None:
        if self._file is not None:
            self.load(*self._file)  # read again with the new time zone or urgent setting

    def _on_allow_partial(self, _change: Mapping[str, Any]) -> None:
        if self.plan is not None and self.last_result is None:
            self.status.value = _plan_summary(self.plan, self.allow_partial.value)
        self._update_submit()

    def _on_progress(self, done: int, total: int) -> None:
        self.progress.max = max(1, total)
        self.progress.value = done

    def _may_submit(self, plan: Plan) -> bool:
        if plan.is_valid:
            return bool(plan.rows)
        return self.allow_partial.value and _count(plan, "ok") > 0

    def _update_submit(self) -> None:
        self.submit_button.disabled = self.plan is None or not self._may_submit(self.plan)


_FROM_THE_FILE = "as the file says"
_OTHER_TOOLS = "<b>Files from other tools:</b>"
_NO_LAYOUT = "no layout file: the tools channelkit and your team's folder know"
_ORDER_LABELS = {"dmy": "day first (31/12/2031)", "mdy": "month first (12/31/2031)"}
# The command line's flags in messages, said as the widget's controls (one rule, the
# readers' messages, for both: the widget only renames what the user is told to use).
_WIDGET_WORDS: tuple[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]], ...] = (
    (re.compile(r"--date-order dmy or --date-order mdy"), "Date order (day or month first)"),
    (re.compile(r"--date-order (dmy|mdy)"), lambda found: f"Date order {ORDERS[found[1]]}"),
    (re.compile(r"--channel CHANNEL"), "a Channel"),
    (re.compile(r"--channel"), "Channel"),
    (re.compile(r"--map ('[^']*'|\S+)=CHANNEL"), "\\1=CHANNEL in Names"),
    (re.compile(r"--map"), "Names"),
    (re.compile(r"--layout-file"), "Layout file"),
)


def in_widget_words(message: str) -> str:
    """`give the channel ... with --channel CHANNEL` → `... with a Channel`: a message
    of `channelkit.publish` naming the widget's controls instead of the flags."""
    for pattern, words in _WIDGET_WORDS:
        message = pattern.sub(words, message)
    return message


def _channel_value(index: ChannelIndex, channel: str) -> str:
    found = index.resolve(channel)
    if not isinstance(found, ChannelInfo):
        raise InvalidParameterError("channel", f"{channel!r}: {found.message}")
    return found.slug or found.id


def _count(plan: Plan, status: str) -> int:
    return sum(1 for row in plan.rows if row.status == status)


def _errors_first(frame: pd.DataFrame) -> pd.DataFrame:
    # A stable sort keeps spreadsheet order within each group.
    return frame.sort_values("status", key=lambda column: column != "error", kind="stable")


def _plan_summary(plan: Plan, allow_partial: bool) -> str:
    if not plan.rows:
        return message_html(f"{plan.sheet.source} has no posts in it.", kind="error")
    ok, exists, bad = _count(plan, "ok"), _count(plan, "exists"), _count(plan, "error")
    sent = _count(plan, "sent")
    facts = f"{plan.sheet.source}: {len(plan.rows)} rows, {ok} to send"
    if sent:
        facts += f", {sent} sent before"
    if exists:
        facts += f", {exists} already scheduled"
    if not bad:
        return message_html(f"{facts}. Ready to submit.", kind="ok")
    first = next(row for row in plan.rows if row.errors)
    first_error = first.errors[0]
    advice = (
        "Submit sends only the valid rows."
        if allow_partial
        else "Fix them and upload the file again, or tick “Send only the valid rows”."
    )
    return message_html(
        f"{facts}, {bad} with errors (first: {first.label()}: {first_error} "
        f"[{first.value_of(first_error)}]). {advice}",
        kind="error",
    )


def _template_link() -> str:
    with tempfile.TemporaryDirectory(prefix="channelkit-widget-") as folder:
        path = write_template(Path(folder) / WIDGET_TEMPLATE_FILENAME)
        return download_html(
            path.read_bytes(),
            filename=WIDGET_TEMPLATE_FILENAME,
            label="Download a template",
            css_class="ck-bulk-template-file",
        )


def _result_links(result: SubmitResult) -> str:
    with tempfile.TemporaryDirectory(prefix="channelkit-widget-") as folder:
        results_path = result.to_excel(Path(folder) / WIDGET_RESULTS_FILENAME)
        links = [
            download_html(
                results_path.read_bytes(),
                filename=WIDGET_RESULTS_FILENAME,
                label=f"Download the results ({WIDGET_RESULTS_FILENAME})",
                css_class="ck-bulk-results-file",
            )
        ]
        failed_path = result.failed_rows_file(Path(folder) / WIDGET_FAILED_ROWS_FILENAME)
        if failed_path is not None:
            links.append(
                download_html(
                    failed_path.read_bytes(),
                    filename=WIDGET_FAILED_ROWS_FILENAME,
                    label=f"Download the rows to fix ({WIDGET_FAILED_ROWS_FILENAME})",
                    css_class="ck-bulk-failed-file",
                )
            )
    return "<br>".join(links)
