"""`ck.widgets.Composer`: write one post in a form, see it rendered, schedule it.

The form only collects values: `channelkit.publish.validate_post` decides what is valid (the
same rules as `ck.schedule` and spreadsheets), and its messages appear beside the field they
concern. The client stays a plain Python attribute, so the API key never enters widget state.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

import ipywidgets as widgets

from channelkit._spec import PRIORITIES
from channelkit.errors import APIError, ChannelkitError
from channelkit.publish.preview import format_when, post_html
from channelkit.publish.times import TimeError, parse_when
from channelkit.publish.validation import (
    DEFAULT_LEAD_TIME,
    ChannelIndex,
    FieldError,
    PostRequest,
    validate_post,
)
from channelkit.widgets._html import message_html
from channelkit.widgets._zones import initial_zone, options_with

if TYPE_CHECKING:
    from channelkit.client import Client
    from channelkit.client.models import Post

# Where each validation field's message is shown; the service's `param` names map onto them.
FORM_FIELDS = (
    "channel",
    "title",
    "body",
    "priority",
    "tags",
    "scheduled_at",
    "timezone",
    "cover_image_url",
)
_PARAM_TO_FIELD = {"channel_id": "channel"}

_WIDE = widgets.Layout(width="34em")


class Composer(widgets.VBox):  # type: ignore[misc]  # ipywidgets ships no type hints
    """A form that schedules one post, with a live preview of the rendered Markdown.

        composer = ck.widgets.Composer(client, tz="Europe/Berlin")
        composer                     # fill it in, press Schedule
        composer.last_post           # the Post created by the latest Schedule

    Every control is an attribute (`channel`, `title`, `body`, `priority`, `confirm_urgent`,
    `tags`, `when`, `timezone`, `cover_image_url`, `schedule_button`), so it can also be
    driven from code. Pressing Schedule twice with the same content creates one post.
    """

    def __init__(
        self,
        client: Client,
        *,
        tz: str | None = None,
        lead_time: timedelta = DEFAULT_LEAD_TIME,
    ) -> None:
        self._client = client
        self._lead_time = lead_time
        self._index = ChannelIndex.from_client(client)
        self.last_post: Post | None = None
        zone = initial_zone(tz)

        self.channel = widgets.Dropdown(
            options=[(info.label, info.id) for info in self._index.channels],
            description="Channel",
            layout=_WIDE,
        )
        self.title = widgets.Text(description="Title", placeholder="Headline", layout=_WIDE)
        self.body = widgets.Textarea(
            description="Body",
            placeholder="Markdown: **bold**, lists, [links](https://example.com)",
            layout=widgets.Layout(width="34em", height="10em"),
        )
        self.priority = widgets.Dropdown(options=PRIORITIES, value="normal", description="Priority")
        self.confirm_urgent = widgets.Checkbox(
            description="Yes, notify everyone now (urgent ignores notification settings)",
            layout=widgets.Layout(display="none"),
        )
        self.tags = widgets.TagsInput(allow_duplicates=False)
        self.when = widgets.NaiveDatetimePicker(description="Publish at")
        self.timezone = widgets.Dropdown(
            options=options_with(zone), value=zone, description="Time zone"
        )
        self.cover_image_url = widgets.Text(
            description="Cover URL", placeholder="https://… (optional)", layout=_WIDE
        )
        self.schedule_button = widgets.Button(
            description="Publish now", button_style="primary", icon="paper-plane"
        )
        self.preview = widgets.HTML()
        self.result = widgets.HTML()
        self.errors = {field: widgets.HTML() for field in FORM_FIELDS}

        controls = {
            "channel": self.channel,
            "title": self.title,
            "body": self.body,
            "priority": self.priority,
            "confirm-urgent": self.confirm_urgent,
            "tags": self.tags,
            "when": self.when,
            "timezone": self.timezone,
            "cover": self.cover_image_url,
            "schedule": self.schedule_button,
            "preview": self.preview,
            "result": self.result,
        }
        for name, control in controls.items():
            control.add_class(f"ck-composer-{name}")
        for field, label in self.errors.items():
            label.add_class("ck-field-error")
            label.add_class(f"ck-composer-error-{field}")

        # Lined up with the descriptions of the other controls (TagsInput has none).
        tags_label = widgets.HTML(
            '<div style="text-align:right;padding-right:8px">Tags</div>',
            layout=widgets.Layout(width="var(--jp-widgets-inline-label-width, 80px)"),
        )
        tags_hint = widgets.HTML('<span style="color:#777">press Enter after each tag</span>')
        tags_row = widgets.HBox([tags_label, self.tags, tags_hint])
        form = widgets.VBox(
            [
                self.channel,
                self.errors["channel"],
                self.title,
                self.errors["title"],
                self.body,
                self.errors["body"],
                widgets.HBox([self.priority, self.confirm_urgent]),
                self.errors["priority"],
                tags_row,
                self.errors["tags"],
                widgets.HBox([self.when, self.timezone]),
                self.errors["scheduled_at"],
                self.errors["timezone"],
                self.cover_image_url,
                self.errors["cover_image_url"],
                self.schedule_button,
            ]
        )
        preview = widgets.VBox(
            [widgets.HTML("<b>Preview</b>"), self.preview],
            layout=widgets.Layout(margin="0 0 0 2em", max_width="40em"),
        )
        super().__init__([widgets.HBox([form, preview]), self.result])
        self.add_class("ck-composer")

        self._inputs = {
            "channel": self.channel,
            "title": self.title,
            "body": self.body,
            "priority": self.priority,
            "tags": self.tags,
            "scheduled_at": self.when,
            "timezone": self.timezone,
            "cover_image_url": self.cover_image_url,
        }
        for control in self._inputs.values():
            control.observe(self._on_edit, names="value")
        self.schedule_button.on_click(lambda _button: self.schedule())
        self._on_edit({})
        if not self._index.channels:
            self.errors["channel"].value = message_html(
                "this API key sees no channel it can publish in", kind="error"
            )

    def __repr__(self) -> str:
        return f"<Composer {len(self._index.channels)} channels>"

    def fields(self) -> dict[str, object]:
        """The form's values as `validate_post` reads them."""
        return {
            "channel": self.channel.value,
            "title": self.title.value,
            "body": self.body.value,
            "priority": self.priority.value,
            "tags": list(self.tags.value),
            "scheduled_at": self.when.value,
            "cover_image_url": self.cover_image_url.value,
        }

    def schedule(self) -> Post | None:
        """What the Schedule button does: validate, create, show the post or the errors."""
        self._show_errors([])
        self.result.value = ""
        request = validate_post(
            self.fields(),
            channels=self._index,
            tz=self.timezone.value,
            now=datetime.now(UTC),
            lead_time=self._lead_time,
            confirm_urgent=self.confirm_urgent.value,
        )
        if isinstance(request, list):
            self._show_errors(request)
            self.result.value = message_html(
                "Not sent: fix the fields marked above.", kind="error", css_class="ck-not-sent"
            )
            return None
        label = self.schedule_button.description
        self.schedule_button.disabled = True
        self.schedule_button.description = "Sending…"
        try:
            post = self._client.posts.create(
                **request.to_create_kwargs(), idempotency_key=request.idempotency_key()
            )
        except ChannelkitError as exc:
            self._show_failure(exc)
            return None
        finally:
            self.schedule_button.disabled = False
            self.schedule_button.description = label
        self.last_post = post
        self.result.value = _created_html(post, request)
        return post

    def _on_edit(self, change: Mapping[str, Any]) -> None:
        owner = change.get("owner")
        for field, control in self._inputs.items():
            if owner is control:
                self.errors[field].value = ""  # the user is fixing it
        urgent = self.priority.value == "urgent"
        self.confirm_urgent.layout.display = None if urgent else "none"
        if not urgent:
            self.confirm_urgent.value = False
        self.schedule_button.description = "Schedule" if self.when.value else "Publish now"
        self.preview.value = self._preview_html()

    def _preview_html(self) -> str:
        channel = self._index.get(self.channel.value) if self.channel.value else None
        return post_html(
            title=self.title.value or "(no title yet)",
            body=self.body.value,
            channel=channel.label if channel else "(no channel)",
            when=_preview_when(self.when.value, self.timezone.value),
            priority=self.priority.value,
            tags=list(self.tags.value),
            cover_image_url=self.cover_image_url.value.strip() or None,
        )

    def _show_errors(self, errors: list[FieldError]) -> None:
        by_field: dict[str, list[str]] = {field: [] for field in FORM_FIELDS}
        for error in errors:
            by_field.setdefault(error.field, []).append(error.message)
        for field, label in self.errors.items():
            messages = by_field.get(field, [])
            label.value = (
                "".join(message_html(text, kind="error") for text in messages) if messages else ""
            )

    def _show_failure(self, exc: ChannelkitError) -> None:
        field = None
        if isinstance(exc, APIError) and exc.param:
            field = _PARAM_TO_FIELD.get(exc.param, exc.param)
        if field in self.errors:
            self._show_errors([FieldError(field, str(exc))])
            text = "Not sent: the service refused the field marked above."
        else:
            text = f"Not sent: {exc}"
        self.result.value = message_html(text, kind="error", css_class="ck-not-sent")


def _preview_when(wall: datetime | None, zone: str) -> str:
    """The chosen time as readers' local and UTC time; as typed when it cannot be read."""
    if wall is None:
        return "now"
    try:
        return format_when(parse_when(wall, zone_name=zone), zone)
    except TimeError:
        return f"{wall:%a %d %b %Y, %H:%M} {zone}"  # Schedule will say what is wrong


def _created_html(post: Post, request: PostRequest) -> str:
    verb = "Scheduled" if post.status == "scheduled" else post.status.capitalize()
    when = format_when(post.scheduled_at or post.published_at, request.tz)
    headline = (
        f'<div class="ck-composer-created ck-ok" style="color:#1b7f3b">✓ {html.escape(verb)} '
        f'<code class="ck-post-id">{html.escape(post.id)}</code> · {html.escape(when)}</div>'
    )
    card = post_html(
        title=post.title,
        body=post.body or "",
        channel=request.channel_name or post.channel_id,
        when=when,
        status=post.status,
        priority=post.priority,
        tags=post.tags,
        post_id=post.id,
        cover_image_url=post.cover_image_url,
    )
    return headline + card
