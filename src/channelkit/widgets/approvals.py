"""`Approvals`: what waits for approval, whole, and Approve / Reject buttons, in a notebook.

    board = ck.widgets.Approvals(client, by="ann", tz="Europe/Berlin")   # policy, key: env
    board                      # each waiting post: channel, time, author, title, whole body

The same rules as `channelkit approve` (`channelkit.publish.approval.approving`): the
approver's own key signs, the author and unlisted names are refused, each post is
scheduled once.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import TYPE_CHECKING

import ipywidgets as widgets

from channelkit._tz import resolve_zone
from channelkit.errors import ChannelkitError
from channelkit.publish.approval import approving
from channelkit.publish.approval.policy import Policy
from channelkit.publish.approval.signing import Signer
from channelkit.widgets._html import message_html

if TYPE_CHECKING:
    from channelkit.client import Client


class Approvals(widgets.VBox):  # type: ignore[misc]  # ipywidgets has no type hints
    """The waiting posts (ticked to act on them), a reason for a rejection, two buttons.

    >>> Approvals.__name__
    'Approvals'
    """

    def __init__(
        self,
        client: Client,
        *,
        by: str,
        policy: str | Path | Policy | None = None,
        key: str | Path | None = None,
        tz: str | None = None,
    ) -> None:
        self._client = client
        self._policy = policy if isinstance(policy, Policy) else Policy.load(policy)
        self._signer = Signer.load(by, key)
        self._tz = resolve_zone(tz)  # once, here: the listing shows every time in it
        self.listing = widgets.HTML()
        self.chosen = widgets.SelectMultiple(description="Posts")
        self.reason = widgets.Text(description="Reason", placeholder="why, for a rejection")
        self.approve_button = widgets.Button(description="Approve", button_style="success")
        self.reject_button = widgets.Button(description="Reject", button_style="warning")
        self.result = widgets.HTML()
        self.approve_button.on_click(lambda _: self.approve())
        self.reject_button.on_click(lambda _: self.reject())
        buttons = widgets.HBox([self.approve_button, self.reject_button])
        super().__init__([self.listing, self.chosen, self.reason, buttons, self.result])
        self.refresh()

    def refresh(self) -> None:
        reviews = approving.waiting(self._client, self._policy)
        self.chosen.options = [(f"{r.post.title} ({r.post.id})", r.post.id) for r in reviews]
        blocks = []
        for review in reviews:
            head, *rest = review.lines(self._tz)
            body = "\n".join(html.escape(line) for line in rest)
            blocks.append(f"<p><b>{html.escape(head)}</b></p><pre>{body}</pre>")
        self.listing.value = "".join(blocks) or "<p>Nothing awaits approval.</p>"

    def approve(self) -> approving.ApprovalResult | None:
        try:
            result = approving.approve(
                self._client, self._policy, self._signer, posts=list(self.chosen.value)
            )
        except ChannelkitError as exc:
            self.result.value = message_html(str(exc), kind="error", css_class="ck-refused")
            return None
        lines = [f"Approved and scheduled: {r.post.title}" for r, _ in result.scheduled]
        lines += [f"Approved, needs more: {r.post.title}" for r in result.recorded]
        lines += [f"Missed, still waiting: {r.post.title}" for r in result.missed]
        lines += [f"Refused: {r.post.title}: {why}" for r, why in result.refused]
        self.result.value = message_html("; ".join(lines) or "nothing chosen", kind="info",
                                         css_class="ck-approved")  # fmt: skip
        self.refresh()
        return result

    def reject(self) -> None:
        try:
            approving.reject(
                self._client, self._policy, self._signer.name, self.reason.value,
                posts=list(self.chosen.value),
            )  # fmt: skip
        except ChannelkitError as exc:
            self.result.value = message_html(str(exc), kind="error", css_class="ck-refused")
            return
        self.result.value = message_html("Rejected.", kind="info", css_class="ck-rejected")
        self.refresh()
