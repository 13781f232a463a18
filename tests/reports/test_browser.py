"""A demo report in Debian's Chromium (Playwright, never a browser download): any screen,
assistive technology, print, and no request leaving the file."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from channelkit.reports import generate_report
from fixtures.demo import DEMO_DAY, demo_synced_on

if TYPE_CHECKING:
    from playwright.sync_api import Browser

VIEWPORTS = [(390, 844), (1280, 800)]
_DRAWN = "document.querySelectorAll('.plotly-graph-div:not(.js-plotly-plot)').length === 0"

_CHARTS = """() => [...document.querySelectorAll('.plotly-graph-div')].map((plot) => {
    const image = plot.closest('[role="img"]');
    const data = image && image.closest('.chart-block').nextElementSibling;
    return {
        id: plot.id,
        label: image ? image.getAttribute('aria-label') : null,
        rows: data && data.matches('details.chart-data:not([open])')
            ? data.querySelectorAll('table tbody tr').length : 0,
    };
})"""
# Every section's heading stays with its first chart: in the same unbreakable block, or
# in the summary of its fold right before it, which keeps with what follows.
_HEADINGS_WITH_CHARTS = """() => [...document.querySelectorAll('section')]
    .filter((s) => s.querySelector('.chart'))
    .map((s) => {
        const block = s.querySelector('.chart-block');
        const style = getComputedStyle(block);
        const heading = s.querySelector('h2');
        const holder = heading.closest('summary') || heading;
        return {
            id: s.id,
            together: block.contains(heading) || holder.closest('details') === block.parentElement,
            breakInside: style.breakInside,
            headingBreakAfter: getComputedStyle(holder).breakAfter,
        };
    })"""
# Each chart's box height and the height its figure is drawn at.
_CHART_BOXES = """() => [...document.querySelectorAll('.chart')].map((chart) => [
    Math.round(chart.getBoundingClientRect().height),
    chart.querySelector('.js-plotly-plot').layout.height,
])"""
# Right edges of the headers of the columns a table is about, in every table, unfolded.
_KEY_COLUMNS = """() => {
    document.querySelectorAll('details').forEach((d) => { d.open = true; });
    return [...document.querySelectorAll('th')]
        .filter((th) => ['Readers', 'Read rate', 'Readers per post', 'Readers vs expected']
            .includes(th.textContent.trim().replace(/ \\(95% interval\\)$/, '')))
        .map((th) => ({
            table: th.closest('[aria-label]').getAttribute('aria-label').slice(0, 60),
            column: th.textContent.trim(),
            right: th.getBoundingClientRect().right,
        }));
}"""
_FOLDS = """() => [...document.querySelectorAll('main > section')].map((s) => {
    const fold = s.querySelector(':scope > details.fold:not(.table-fold)');
    return [s.id, fold ? fold.open : null];
})"""


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The demo synced on a pinned day: the tests count screens, bars and charts."""
    with demo_synced_on(DEMO_DAY, tmp_path_factory.mktemp("browser-demo") / "demo.duckdb") as db:
        yield db


@pytest.fixture(scope="module")
def demo_report(demo_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("browser-report")
    return generate_report(
        demo_db, folder / "report.html", period="month", tz="Europe/Berlin", csv_dir=folder / "csv"
    )


@pytest.mark.browser
@pytest.mark.parametrize(("width", "height"), VIEWPORTS)
def test_demo_report_on_a_phone_and_a_desktop(
    browser: Browser, demo_report: Path, tmp_path: Path, width: int, height: int
) -> None:
    page = browser.new_page(viewport={"width": width, "height": height})
    errors: list[str] = []
    external: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))

    def request(req: Any) -> None:
        if not req.url.startswith(("file:", "data:", "blob:", "about:")):
            external.append(req.url)

    page.on("request", request)
    page.goto(demo_report.as_uri())
    page.wait_for_function(_DRAWN)
    page.wait_for_load_state("networkidle")
    page.screenshot(path=str(tmp_path / f"report-{width}.png"), full_page=True)
    print(f"--- screenshot: {tmp_path / f'report-{width}.png'}")

    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert errors == [] and external == []
    assert demo_report.stat().st_size <= 2_000_000  # plotly.js's partial bundle
    page_height = page.evaluate("document.documentElement.scrollHeight")
    folds = dict(page.evaluate(_FOLDS))
    print(f"--- {width} px: page {page_height} px, {page_height / height:.1f} screens")
    if width < 600:
        # headline, tiles and the lead charts; every other section folded
        assert page_height <= 8 * height
        assert folds["trend"] is None and folds["top-posts"] is None
        assert folds["tags"] is False and folds["heatmap"] is False
        assert page.locator("#ck-trend").is_visible() and not page.locator("#ck-tags").is_visible()
    else:
        assert all(open_ is not False for open_ in folds.values()), folds
    # every chart drew its traces (the partial plotly.js bundle has each type)
    assert page.locator("#ck-heatmap-1 .heatmaplayer image").count() == 1
    assert page.locator("#ck-tags .barlayer .point").count() >= 10
    assert page.locator("h1").count() == 1
    assert page.locator(".body h1, .body h2").count() == 0  # post bodies add no outline
    assert page.locator("main > section").first.get_attribute("id") == "summary"
    summary = page.locator("#summary li").all_inner_texts()
    assert 3 <= len(summary) <= 5

    charts = page.evaluate(_CHARTS)
    assert len(charts) >= 7
    for chart in charts:
        assert chart["label"] and len(chart["label"]) > 20, chart
        assert re.search(r"\d", chart["label"]) and "table" not in chart["label"], chart
        assert chart["rows"] > 0, chart  # its numbers, in a collapsed table
    # the heatmaps carry their colour scale as a legend
    assert page.evaluate("document.getElementById('ck-heatmap-1').data[0].showscale") is True
    # the toolbar: download as PNG only, no logo, no link out
    page.hover("#ck-trend")
    buttons = page.eval_on_selector_all(
        "#ck-trend .modebar-btn", "els => els.map(e => e.getAttribute('data-title'))"
    )
    assert buttons == ["Download plot as a PNG"]
    assert page.locator(".modebar a[href], .modebar-btn--logo").count() == 0
    # the number each table is about is on screen without scrolling sideways
    columns = page.evaluate(_KEY_COLUMNS)
    assert len(columns) >= 10
    for column in columns:
        assert column["right"] <= width, column
    page.close()


@pytest.mark.browser
def test_the_weekly_report_with_its_intervals_fits_a_phone(
    browser: Browser, demo_db: Path, tmp_path: Path
) -> None:
    """The example report (docs/reports.md): the fair rankings' "Read rate (95% interval)"
    column on screen at 390 px, each interval under its rate, nothing scrolling sideways."""
    report = generate_report(demo_db, tmp_path / "weekly.html", period="week", tz="Europe/Berlin")
    page = browser.new_page(viewport={"width": 390, "height": 844})
    page.goto(report.as_uri())
    page.wait_for_function(_DRAWN)
    page.screenshot(path=str(tmp_path / "weekly-390.png"), full_page=True)
    print(f"--- screenshot: {tmp_path / 'weekly-390.png'}")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    columns = page.evaluate(_KEY_COLUMNS)
    intervals = [c for c in columns if c["column"].endswith("(95% interval)")]
    # the groups' "Readers vs expected (95% interval)" ended at 413 px: its ratios' signed
    # ends ("−20.1% to −3.0%") now wrap under the value
    assert {c["table"] for c in intervals} >= {
        "Channels",
        "Posts with the highest read rate",
        "Tags",
    }
    for column in columns:
        assert column["right"] <= 390, column
    # the interval under the rate: one cell, two lines, the text as on a wide screen
    cell = page.locator("section#channels td.num .interval").first
    assert cell.evaluate("e => getComputedStyle(e).display") == "block"
    assert re.fullmatch(
        r"\d+\.\d% \(\d+\.\d%\u2013\d+\.\d%\)",
        cell.evaluate("e => e.parentElement.textContent.trim()"),
    )
    page.close()


@pytest.mark.browser
def test_print_keeps_each_heading_with_its_chart(browser: Browser, demo_report: Path) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(demo_report.as_uri())
    page.wait_for_function(_DRAWN)
    page.emulate_media(media="print")
    page.evaluate("window.channelkitBeforePrint()")
    blocks = page.evaluate(_HEADINGS_WITH_CHARTS)
    assert len(blocks) >= 6
    for block in blocks:
        assert block == {
            "id": block["id"],
            "together": True,
            "breakInside": "avoid",
            "headingBreakAfter": "avoid",
        }
    # each chart takes the room it is drawn in for paper, not its screen height (which
    # plotly's wrapper div carries inline): no blank band under a chart
    sizes = page.evaluate(_CHART_BOXES)
    assert len(sizes) >= 6 and all(box == drawn for box, drawn in sizes), sizes
    # collapsed data tables and the toolbar stay off paper
    assert page.evaluate("getComputedStyle(document.querySelector('.chart-data')).display") == (
        "none"
    )
    # nothing to click on paper; tables break between rows, their header printed once (a
    # header repeated on every page made Chromium push whole charts to the next page)
    style = "(selector, property) => getComputedStyle(document.querySelector(selector))[property]"
    assert page.evaluate(f"({style})('td details', 'display')") == "none"
    assert page.evaluate(f"({style})('.table-fold > summary', 'display')") == "none"
    assert page.evaluate(f"({style})('details.fold > summary', 'listStyleType')") == "none"
    assert page.evaluate(f"({style})('thead', 'display')") == "table-row-group"
    assert page.evaluate(f"({style})('tbody tr', 'breakInside')") == "avoid"
    page.close()
