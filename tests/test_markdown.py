"""The one Markdown sanitiser: safe HTML, and headings kept below a page's own."""

from __future__ import annotations

import pytest

from channelkit._markdown import render_markdown


def test_headings_shift_down_and_stop_at_h6() -> None:
    html = render_markdown("# One\n\n## Two\n\n#### Four", top_heading=4)
    assert html.split("\n")[:3] == ["<h4>One</h4>", "<h5>Two</h5>", "<h6>Four</h6>"]
    assert render_markdown("# One") == "<h1>One</h1>\n"


def test_script_and_javascript_links_never_survive() -> None:
    html = render_markdown("<script>x</script> [a](javascript:alert(1)) **b**", top_heading=3)
    assert "<script" not in html and "href" not in html and "<strong>b</strong>" in html


def test_top_heading_is_checked() -> None:
    with pytest.raises(ValueError, match="top_heading=7"):
        render_markdown("# x", top_heading=7)
