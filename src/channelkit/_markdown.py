"""Markdown → safe HTML, the one way channelkit renders user content as rich text.

Post bodies come from users; they are rendered by markdown-it (raw HTML disabled) and then
sanitised by nh3, so that neither Markdown links nor stray HTML can run script.
"""

from __future__ import annotations

import nh3
from markdown_it import MarkdownIt

_md = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")

_URL_SCHEMES = {"http", "https", "mailto"}
_DEEPEST_HEADING = 6


def render_markdown(text: str, *, top_heading: int = 1) -> str:
    """Render Markdown `text` to sanitised HTML safe to embed in a page or notebook.

    `top_heading` is the highest heading level the text may produce: with 4, a `# Title`
    becomes `<h4>` and `##` becomes `<h5>`, so that a post shown inside a page never adds
    a top-level heading to that page's outline.

        render_markdown("# Hi", top_heading=4)  # '<h4>Hi</h4>\\n'
    """
    if not 1 <= top_heading <= _DEEPEST_HEADING:
        raise ValueError(f"top_heading={top_heading}: expected 1 to {_DEEPEST_HEADING}")
    tokens = _md.parse(text)
    shift = top_heading - 1
    if shift:
        for token in tokens:
            if token.type in ("heading_open", "heading_close"):
                level = min(int(token.tag[1:]) + shift, _DEEPEST_HEADING)
                token.tag = f"h{level}"
    html = _md.renderer.render(tokens, _md.options, {})
    return str(nh3.clean(html, url_schemes=_URL_SCHEMES, link_rel="noopener noreferrer"))
