"""HTML rendering: escaping of user content, plotly.js once, stable ids, custom templates."""

from __future__ import annotations

from datetime import date
from html.parser import HTMLParser
from pathlib import Path
from zoneinfo import ZoneInfo

import plotly.graph_objects as go
import pytest
from markupsafe import Markup

from channelkit.errors import ReportError
from channelkit.reports.page import (
    Chart,
    KpiTile,
    ReportPage,
    Section,
    Sentence,
    Table,
    TableColumn,
)
from channelkit.reports.parameters import ReportPeriod, previous_period
from channelkit.reports.render import (
    PLOTLY_CONFIG,
    figure_html,
    markdown_html,
    plotlyjs,
    render_page,
)

PAYLOAD = "<script>alert('pwned')</script>"
FAKE_PLOTLYJS = Markup("/* plotly.js stand-in */ window.Plotly = {newPlot() {}};")


class _Scripts(HTMLParser):
    """Collects the text of every <script> element, as a browser would delimit them."""

    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[str] = []
        self._inside = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "script":
            self._inside = True
            self.scripts.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._inside = False

    def handle_data(self, data: str) -> None:
        if self._inside:
            self.scripts[-1] += data


def scripts_of(html: str) -> list[str]:
    parser = _Scripts()
    parser.feed(html)
    return parser.scripts


def _page(*, plotly: Markup = FAKE_PLOTLYJS, figure: Markup | None = None) -> ReportPage:
    period = ReportPeriod(date(2026, 3, 30), date(2026, 4, 6), ZoneInfo("Europe/Berlin"), "week")
    table = Table(
        columns=(TableColumn("Title"), TableColumn("Body"), TableColumn("Views", numeric=True)),
        rows=((PAYLOAD, markdown_html(f"**bold** {PAYLOAD} [x](javascript:alert(1))"), "1,612"),),
    )
    return ReportPage(
        title="Engagement report",
        period=period,
        previous_period=previous_period(period),
        parameters=(("Channels", PAYLOAD),),
        freshness=(("Last sync", "2026-04-06 07:01"),),
        kpis=(KpiTile("readers", "Readers", "400", "460", "\u221260", "\u221213.0%", "down"),),
        sections=(
            Section(
                id="top-posts",
                title="Top posts",
                charts=(Chart(figure, f"Bar chart of {PAYLOAD}", table),) if figure else (),
                table=table,
                notes=(PAYLOAD,),
            ),
            Section(id="tags", title="Tags", empty="No tagged posts in this period."),
        ),
        caveats=("Reach uses today's subscriber counts.",),
        plotlyjs=plotly,
        generator="channelkit test",
        summary=(Sentence(f"Read rate was 61.0% {PAYLOAD}.", ("small base",)),),
    )


def test_user_content_is_escaped_and_markdown_sanitised() -> None:
    html = render_page(_page())
    assert PAYLOAD not in html
    assert "&lt;script&gt;alert(&#39;pwned&#39;)&lt;/script&gt;" in html
    assert "<strong>bold</strong>" in html  # Markdown from the sanitiser stays markup
    assert "href" not in html  # markdown-it refused the javascript: link
    assert scripts_of(html)[0] == str(FAKE_PLOTLYJS)
    assert len(scripts_of(html)) == 2  # plotly.js and the page's own print script


def test_sections_kpis_and_empty_sections_render() -> None:
    html = render_page(_page())
    assert 'id="kpi-readers"' in html and ">400<" in html and "\u221213.0%" in html
    assert 'class="change down"' in html
    assert "Week 14, 2026 (2026-03-30 to 2026-04-05, Europe/Berlin)" in html
    assert "compared with Week 13, 2026 (2026-03-23 to 2026-03-29" in html
    assert "Week 13, 2026: 460" in html  # the previous value names its period
    assert html.index('id="summary"') < html.index('id="kpis"') < html.index('id="top-posts"')
    assert '<span class="flag">small base</span>' in html
    assert "No tagged posts in this period." in html
    assert '<td class="num">1,612</td>' in html


def test_figures_have_stable_ids_and_inert_user_text() -> None:
    figure = go.Figure(go.Bar(x=[f"</script>{PAYLOAD}"], y=[3]), layout={"title": PAYLOAD})
    first = figure_html(figure, "ck-top-posts")
    assert first == figure_html(figure, "ck-top-posts")
    assert 'id="ck-top-posts"' in first
    html = render_page(_page(figure=first))
    scripts = scripts_of(html)
    assert len(scripts) == 3  # plotly.js, the figure, the print script: no injected one
    assert "Plotly.newPlot" in scripts[1] and "alert" in scripts[1]  # as inert JSON text
    assert "plotly.js" not in first and "cdn" not in first.lower()


def test_real_plotlyjs_is_embedded_once() -> None:
    figure = go.Figure(go.Bar(x=["a"], y=[1]))
    page = _page(plotly=plotlyjs(), figure=figure_html(figure, "ck-a"))
    html = render_page(page)
    assert html.count(str(plotlyjs())[:200]) == 1
    assert 'src="http' not in html  # nothing to fetch: works offline


def test_custom_template_can_extend_the_builtin_one(tmp_path: Path) -> None:
    custom = tmp_path / "mine.html.j2"
    custom.write_text(
        '{% extends "channelkit/report.html.j2" %}'
        "{% block caveats %}<p id=mine>{{ page.section_by_id['top-posts'].notes[0] }}</p>"
        "{% endblock %}",
        encoding="utf-8",
    )
    html = render_page(_page(), custom)
    assert "<p id=mine>&lt;script&gt;" in html
    assert "Reach uses today" not in html
    assert 'id="kpi-readers"' in html


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("{% for x in page.kpis %}", r"bad\.j2, line 1: Unexpected end of template"),
        ("{{ page.nothing_here }}", "'nothing_here'"),
        ('{% include "missing.j2" %}', "cannot find 'missing.j2'"),
        ("{{ 1 / 0 }}", "ZeroDivisionError"),
    ],
)
def test_broken_templates_give_a_clear_error(tmp_path: Path, source: str, message: str) -> None:
    template = tmp_path / "bad.j2"
    template.write_text(source, encoding="utf-8")
    with pytest.raises(ReportError, match=message):
        render_page(_page(), template)


def test_missing_template_file(tmp_path: Path) -> None:
    with pytest.raises(ReportError, match="no such file"):
        render_page(_page(), tmp_path / "nope.j2")


def test_every_chart_is_an_image_with_a_label_and_its_data_collapsed() -> None:
    figure = figure_html(go.Figure(go.Bar(x=["a"], y=[1])), "ck-top-posts")
    html = render_page(_page(figure=figure))
    assert html.count('role="img"') == 1
    assert f'aria-label="Bar chart of {PAYLOAD}"' not in html  # escaped in the attribute
    assert 'aria-label="Bar chart of &lt;script&gt;' in html
    assert '<details class="chart-data">' in html and "<details open" not in html
    assert html.count("<h1>") == 1


def test_toolbar_keeps_only_the_png_download() -> None:
    figure = figure_html(go.Figure(go.Bar(x=["a"], y=[1])), "ck-a")
    assert PLOTLY_CONFIG["modeBarButtons"] == [["toImage"]]
    assert '"displaylogo": false' in figure and '"modeBarButtons": [["toImage"]]' in figure
    assert '"showSendToCloud": false' in figure


def test_post_headings_never_reach_the_page_outline() -> None:
    html = markdown_html("# Big\n\n## Smaller\n\ntext")
    assert "<h4>Big</h4>" in html and "<h5>Smaller</h5>" in html
    assert "<h1" not in html and "<h2" not in html


def test_bundled_plotlyjs_matches_plotly_and_has_every_trace_the_report_draws(
    small_warehouse: Path,
) -> None:
    import re

    from plotly.offline import get_plotlyjs_version

    from channelkit.reports import build_report
    from channelkit.reports.render import PLOTLY_BUNDLE, bundle_version

    bundled = PLOTLY_BUNDLE.read_text(encoding="utf-8")
    # a plotly upgrade without the matching bundle would embed the 4.8 MB full build
    assert bundle_version(bundled) == get_plotlyjs_version().rsplit(".", 1)[0]
    assert str(plotlyjs()) == bundled and len(bundled) < 1_600_000
    licence = (PLOTLY_BUNDLE.parent / "plotly-LICENSE.txt").read_text(encoding="utf-8")
    assert licence.startswith("MIT License") and "Plotly" in licence
    in_bundle = set(re.findall(r'moduleType:"trace",name:"(\w+)"', bundled))
    page = build_report(small_warehouse, period="2026-W14", tz="Europe/Berlin").page
    drawn = {trace.type for chart in page.charts for trace in chart.figure.data}
    assert {"bar", "heatmap"} <= drawn <= in_bundle
