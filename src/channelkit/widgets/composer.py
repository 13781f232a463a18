"""`ck.widgets.Composer`: write one post in a form, see it rendered, schedule it.

The form only collects values: `channelkit.publish.validate_post` decides what is valid (the
same rules as `ck.schedule` and spreadsheets), and its messages appear beside the field they
concern. The client stays a plain Python attribute, so the API key never enters widget state.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

import ipywidgets as widgets

from channelkit.errors import APIError, ChannelkitError, FieldError, PostValidationError, TimeError
from channelkit.publish.approval.approving import gate, untimed
from channelkit.publish.approval.policy import Policy
from channelkit.publish.post.fields import PUBLISH_FIELDS, PostField, by_name
from channelkit.publish.post.preview import format_when, post_html
from channelkit.publish.post.sending import send_one
from channelkit.publish.post.times import parse_when, time_zone
from channelkit.publish.post.validation import (
    DEFAULT_LEAD_TIME,
    ChannelIndex,
    PostRequest,
    service_now,
    validate_post,
)
from channelkit.widgets._html import message_html
from channelkit.widgets._zones import initial_zone, options_with

if TYPE_CHECKING:
    from channelkit.client import Client
    from channelkit.client.models import Post

# The form's fields in order: every post field of the contract, the time zone after the
# time. Each shows its validation messages; the service's `param` names map onto them.
FORM_FIELDS = tuple(
    name
    for field in PUBLISH_FIELDS
    for name in ((field.name, "timezone") if field.kind == "instant" else (field.name,))
)
_PARAM_TO_FIELD = {field.api: field.name for field in PUBLISH_FIELDS}


class Composer(widgets.VBox):  # type: ignore[misc]  # ipywidgets ships no type hints
    """A form that schedules one post, with a live preview of the rendered Markdown.

        composer = ck.widgets.Composer(client, tz="Europe/Berlin")
        composer                     # fill it in, press Schedule
        composer.last_post           # the Post created by the latest Schedule

    Every control is an attribute (`channel`, `title`, `body`, `priority`, `confirm_urgent`,
    `tags`, `when`, `timezone`, `cover_image_url`, `confirm_now`, `schedule_button`), so it
    can also be driven from code. Pressing Schedule twice with the same content creates one
    post.

    No channel is selected at first (pass `channel=` to preselect one by id, slug or name).
    Without a time nothing is published until `confirm_now` ("Publish now to All Hands,
    1,204 people?"), shown only then, is ticked. After a post is sent, title, body, tags
    and cover are emptied (priority back to normal) for the next one; channel and time zone
    stay.
    """

    def __init__(
        self,
        client: Client,
        *,
        tz: str | None = None,
        channel: str | None = None,
        lead_time: timedelta = DEFAULT_LEAD_TIME,
    ) -> None:
        self._client = client
        self._lead_time = lead_time
        listed = list(client.channels.list())
        self._index = ChannelIndex.from_channels(listed)
        self._audience = _audiences(listed)
        self.last_post: Post | None = None
        zone = initial_zone(tz)

        self.channel = widgets.Dropdown(
            options=[(info.label, info.id) for info in self._index.channels],
            value=None,  # the user chooses: never the all-company channel by default
            description="Channel",
            layout=_WIDE,
        )
        if channel is not None:
            preselected = self._index.resolve(channel)
            if isinstance(preselected, FieldError):
                raise PostValidationError([preselected])
            self.channel.value = preselected.id
        self.confirm_urgent = widgets.Checkbox(
            description="Yes, notify everyone now (urgent ignores notification settings)",
            layout=widgets.Layout(display="none"),
        )
        self.when = widgets.NaiveDatetimePicker(description=by_name("scheduled_at").label)
        self.timezone = widgets.Dropdown(
            options=options_with(zone), value=zone, description="Time zone"
        )
        # One control per other post field of the contract, made from its kind; each is an
        # attribute named like the field (`composer.title`, `composer.cover_image_url`).
        self._fields = {
            field.name: _control(field) for field in PUBLISH_FIELDS if field.name not in _APART
        }
        for name, control in self._fields.items():
            if not hasattr(widgets.VBox, name):  # a field must not hide a widget trait
                setattr(self, name, control)
        self.tags.observe(self._split_tags, names="value")
        self.confirm_now = widgets.Checkbox(
            description="Publish now", layout=widgets.Layout(display="none", width="auto")
        )
        self.schedule_button = widgets.Button(
            description="Publish now", button_style="primary", icon="paper-plane"
        )
        self.preview = widgets.HTML()
        self.result = widgets.HTML()
        self.errors = {field: widgets.HTML() for field in FORM_FIELDS}

        controls = {
            "channel": self.channel,
            **{_CSS_NAMES.get(name, name.replace("_", "-")): c for name, c in self._fields.items()},
            "confirm-urgent": self.confirm_urgent,
            "when": self.when,
            "timezone": self.timezone,
            "confirm-now": self.confirm_now,
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
        tags_hint = widgets.HTML(
            '<span style="color:#777">Enter after each tag; "a, b, c" gives three</span>'
        )
        rows = {
            "channel": self.channel,
            **self._fields,
            "priority": widgets.HBox([self.priority, self.confirm_urgent]),
            "tags": widgets.HBox([tags_label, self.tags, tags_hint]),
            "scheduled_at": widgets.HBox([self.when, self.timezone]),
        }
        form = widgets.VBox(
            [
                *(
                    part
                    for name in FORM_FIELDS
                    for part in ((rows[name],) if name in rows else ()) + (self.errors[name],)
                ),
                self.confirm_now,
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
            **self._fields,
            "scheduled_at": self.when,
            "timezone": self.timezone,
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
        values: dict[str, object] = {
            "channel": self.channel.value,
            **{name: _value(control) for name, control in self._fields.items()},
            "scheduled_at": self.when.value,
        }
        return {name: values[name] for name in FORM_FIELDS if name in values}

    def schedule(self) -> Post | None:
        """What the Schedule button does: validate, create, show the post or the errors.

        Without a time, the first press only asks (`confirm_now`); the post is published
        when that box is ticked and the button pressed again.
        """
        self._show_errors([])
        self.result.value = ""
        request = validate_post(
            self.fields(),
            channels=self._index,
            tz=time_zone(self.timezone.value),  # the dropdown's name: resolved here
            now=service_now(self._client),
            lead_time=self._lead_time,
            confirm_urgent=self.confirm_urgent.value,
        )
        if isinstance(request, list):
            self._show_errors([self._plain(error) for error in request])
            self.result.value = message_html(
                "Not sent: fix the fields marked above.", kind="error", css_class="ck-not-sent"
            )
            return None
        if request.scheduled_at is None and not self.confirm_now.value:
            self.confirm_now.layout.display = None
            self.result.value = message_html(
                f"Not sent yet: no time is set, so this publishes at once. Tick "
                f"“{self.confirm_now.description}” and press the button again, or choose a time.",
                kind="info",
                css_class="ck-not-sent",
            )
            return None
        label = self.schedule_button.description
        self.schedule_button.disabled = True
        self.schedule_button.description = "Sending…"
        try:
            policy = Policy.load()
            unapproved = untimed(self._client, policy, [request])
            if unapproved is not None:
                raise ChannelkitError(f"{unapproved}; nothing was sent")
            post, before = send_one(self._client, request, source="composer")
            if post is not None:  # a post of an approval channel waits for approval
                post = gate(self._client, policy, [post])[post.id]
        except ChannelkitError as exc:
            self._show_failure(exc)
            return None
        finally:
            self.schedule_button.disabled = False
            self.schedule_button.description = label
        if before is not None:
            # The same post went out before (this machine's ledger, or a replay): nothing
            # was created; the form stays as it is, so it can be changed into a new post.
            self.result.value = message_html(
                f"Not sent again: {before.describe()}.", kind="info", css_class="ck-sent-before"
            )
            self.last_post = post
            return None
        assert post is not None  # a create returns its post
        self.last_post = post
        self._clear_after_send()
        self.result.value = _created_html(post, request, self._client.base_url)
        return post

    def _clear_after_send(self) -> None:
        # What makes one post different is emptied, so that the next press cannot send a
        # copy with a new title; where and when to publish usually stay for the next post.
        for name, control in self._fields.items():
            # an urgent post's priority must never carry over: choices go back to default
            control.value = _empty(by_name(name))
        self.confirm_urgent.value = False
        self.confirm_now.value = False
        self.confirm_now.layout.display = "none"  # the next publish-now asks again

    def _split_tags(self, change: Mapping[str, Any]) -> None:
        # Pasting "a, b, c" into the tags box gives one tag holding commas: split it.
        tags = list(change.get("new") or ())
        split = _split_tag_texts(tags)
        if split != tags:
            self.tags.value = split

    def _plain(self, error: FieldError) -> FieldError:
        # validate_post speaks to programmers (confirm_urgent=True); here, say who is reached.
        if error.field == "priority" and self.priority.value == "urgent":
            return FieldError(
                "priority", f"Urgent: {self._urgent_words()} Tick the box to confirm."
            )
        return error

    def _channel_words(self) -> tuple[str, str]:
        """The selected channel's name and its audience, as people say it."""
        info = self._index.get(self.channel.value) if self.channel.value else None
        if info is None:
            return "(no channel)", "its readers"
        count = self._audience.get(info.id)
        if count is None:
            return info.name, "everyone in it"
        return info.name, f"{count:,} {'person' if count == 1 else 'people'}"

    def _urgent_words(self) -> str:
        name, people = self._channel_words()
        when = "when it publishes" if self.when.value else "immediately"
        return f"notifies {people} in {name} {when}, even those who turned notifications off."

    def _on_edit(self, change: Mapping[str, Any]) -> None:
        owner = change.get("owner")
        for field, control in self._inputs.items():
            if owner is control:
                self.errors[field].value = ""  # the user is fixing it
        urgent = self.priority.value == "urgent"
        self.confirm_urgent.layout.display = None if urgent else "none"
        if not urgent:
            self.confirm_urgent.value = False
        name, people = self._channel_words()
        when = "at its time" if self.when.value else "now"
        self.confirm_urgent.description = (
            f"Yes, notify {people} in {name} {when}, even with notifications off"
        )
        if owner in (self.channel, self.when) or self.when.value:
            # A confirmation names one channel, with no time: any change asks again.
            self.confirm_now.value = False
            self.confirm_now.layout.display = "none"
        self.confirm_now.description = f"Publish now to {name}, {people}?"
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
            cover_image_url=(self.cover_image_url.value or "").strip() or None,
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


# The fields with a control of their own (a channel dropdown, a date-time picker).
_APART = ("channel", "scheduled_at")
# CSS class names (`ck-composer-NAME`) that predate the contract-driven form.
_CSS_NAMES = {"cover_image_url": "cover"}
_WIDE = widgets.Layout(width="34em")


def _control(field: PostField) -> Any:
    """The control for `field`, by its contract kind: a tags box, a dropdown of the
    choices, a text area for multi-line text, else a one-line text box."""
    if field.kind == "tags":
        return widgets.TagsInput(allow_duplicates=False)
    if field.kind == "enum":
        return widgets.Dropdown(
            options=field.spec.choices, value=_empty(field), description=field.label
        )
    if field.multiline:
        return widgets.Textarea(
            description=field.label,
            placeholder=field.placeholder,
            layout=widgets.Layout(width="34em", height="10em"),
        )
    return widgets.Text(description=field.label, placeholder=field.placeholder, layout=_WIDE)


def _empty(field: PostField) -> object:
    """A control's value for a new post: the contract's default choice, else empty."""
    if field.kind == "tags":
        return []
    if field.kind == "enum":
        return field.spec.default or field.spec.choices[0]
    return ""


def _value(control: Any) -> object:
    value = control.value
    return list(value) if isinstance(value, (list, tuple)) else value


def _preview_when(wall: datetime | None, zone: str) -> str:
    """The chosen time as readers' local and UTC time; as typed when it cannot be read."""
    if wall is None:
        return "now"
    try:
        local = time_zone(zone)  # the dropdown's name: the form is the edge that resolves it
        return format_when(parse_when(wall, tz=local), local)
    except TimeError:
        return f"{wall:%a %d %b %Y, %H:%M} {zone}"  # Schedule will say what is wrong


def _audiences(channels: Iterable[Any]) -> dict[str, int]:
    """Subscribers per channel id, where the service says."""
    return {
        str(channel.id): int(channel.subscriber_count)
        for channel in channels
        if getattr(channel, "subscriber_count", None) is not None
    }


def _split_tag_texts(tags: Iterable[str]) -> list[str]:
    """`["a, b, c", "d"]` -> `["a", "b", "c", "d"]`: stripped, blanks and repeats dropped."""
    pieces = (piece.strip() for tag in tags for piece in str(tag).split(","))
    return list(dict.fromkeys(piece for piece in pieces if piece))


def _post_url(base_url: str, post_id: str) -> str:
    """The post's address in the API, never with a user name or password in it."""
    parts = urlsplit(base_url)
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, host, f"{parts.path.rstrip('/')}/posts/{post_id}", "", ""))


def _created_html(post: Post, request: PostRequest, base_url: str) -> str:
    verb = "Scheduled" if post.status == "scheduled" else post.status.capitalize()
    when = format_when(post.scheduled_at or post.published_at, request.tz)
    channel = request.channel_name or post.channel_id
    link = html.escape(_post_url(base_url, post.id), quote=True)
    headline = (
        f'<div class="ck-composer-created ck-ok" style="color:#1b7f3b">✓ {html.escape(verb)} '
        f'in {html.escape(channel)}: <a href="{link}" target="_blank" rel="noopener" '
        f'style="color:#1a6fb5;text-decoration:underline" title="the post in the API">'
        f'<code class="ck-post-id">{html.escape(post.id)}</code></a> '
        f"“{html.escape(post.title)}” · {html.escape(when)}</div>"
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
