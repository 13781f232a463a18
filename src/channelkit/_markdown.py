"""Markdown → safe HTML, the one way channelkit renders user content as rich text.

Post bodies come from users; they are rendered by markdown-it (raw HTML disabled) and then
sanitised by nh3, so that neither Markdown links nor stray HTML can run script.
"""

from __future__ import annotations

import nh3
from markdown_it import MarkdownIt

_md = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")

_URL_SCHEMES = {"http", "https", "mailto"}


def render_markdown(text: str) -> str:
    """Render Markdown `text` to sanitised HTML safe to embed in a page or notebook."""
    return str(
        nh3.clean(_md.render(text), url_schemes=_URL_SCHEMES, link_rel="noopener noreferrer")
    )
