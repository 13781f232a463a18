"""The widgets' HTML fragments: escaping, truncated tables, download links."""

from __future__ import annotations

import base64
import re

import pandas as pd

from channelkit.widgets._html import XLSX_MIME, download_html, message_html, table_html


def test_message_is_escaped_and_marked_by_kind() -> None:
    shown = message_html("row 2: '<script>' & more", kind="error", css_class="x")
    assert "row 2: '&lt;script&gt;' &amp; more" in shown  # quotes in text stay readable
    assert shown.startswith('<div class="x ck-error"')


def test_table_is_escaped_blank_for_missing_and_says_what_was_left_out() -> None:
    frame = pd.DataFrame(
        {"title": ["<b>one</b>", "two", "three"], "post_id": [None, "post_2", None]}
    )

    shown = table_html(frame, max_rows=2, css_class="ck-table")

    assert "&lt;b&gt;one&lt;/b&gt;" in shown and "<b>one" not in shown
    assert "three" not in shown
    assert "None" not in shown and "nan" not in shown
    assert "showing 2 of 3 rows" in shown
    assert "showing" not in table_html(frame, max_rows=3, css_class="ck-table")


def test_download_link_carries_the_bytes_and_a_safe_name() -> None:
    data = bytes(range(256))

    link = download_html(data, filename='a"b.xlsx', label="Get <it>", css_class="dl")

    match = re.search(r'href="data:([^;]+);base64,([^"]+)"', link)
    assert match is not None
    assert match[1] == XLSX_MIME
    assert base64.b64decode(match[2]) == data
    assert 'download="a&quot;b.xlsx"' in link
    assert "Get &lt;it&gt;" in link
