"""Figures carry the metric's numbers, the period and timezone, and user text as text."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import nbformat
import plotly.graph_objects as go
import plotly.io as pio
import pytest
from nbclient import NotebookClient

from channelkit import plots
from channelkit._constants import PLOT_FONT, PLOT_RENDERER, PLOT_TEMPLATE
from channelkit.errors import ImageExportError
from channelkit.plots.renderer import choose_renderer
from channelkit.plots.style import MUTED
from channelkit.warehouse import Warehouse
from fixtures.warehouse import AS_OF, XSS_TAG, XSS_TITLE, build_small_warehouse

BERLIN = "Europe/Berlin"
WINDOW = {"start": "2026-03-16", "end": "2026-04-06", "tz": BERLIN}
LABEL = "2026-03-16 to 2026-04-05 (Europe/Berlin)"


@pytest.fixture(scope="module")
def wh(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    return Warehouse(build_small_warehouse(tmp_path_factory.mktemp("wh") / "small.duckdb"))


def _styled(fig: go.Figure, label: str = LABEL) -> None:
    assert label in fig.layout.title.text
    assert fig.layout.template.layout.font.family == PLOT_FONT
    assert fig.layout.height  # explicit: embedded figures must not fill the viewport


def test_template_is_registered_not_forced_globally() -> None:
    assert PLOT_TEMPLATE in pio.templates
    assert pio.templates.default != PLOT_TEMPLATE


def test_engagement_over_time(wh: Warehouse) -> None:
    fig = plots.engagement_over_time(wh.engagement_over_time("week", **WINDOW))
    _styled(fig)
    # the read rate: its settled weeks, then (dashed) those still gathering readers
    bars, line, *young = fig.data
    rates = [y if y == y else young[0].y[i] for i, y in enumerate(line.y)]
    assert list(bars.y) == [150 + 500 + 50, 100 + 90, 300 + 20 + 0]  # readers by week
    assert rates == [700 / 2160, 190 / 350, 320 / (1000 + 190 + 194)]
    # Local wall times: plotly.js has no timezones, so the Monday after DST stays Monday.
    assert [str(x)[:10] for x in bars.x] == ["2026-03-16", "2026-03-23", "2026-03-30"]
    assert fig.layout.title.text.startswith("Readers and read rate by week · ")


def test_titles_name_the_period_and_the_filters(wh: Warehouse) -> None:
    frame = wh.engagement_over_time("week", period="2026-03", channel="engineering", tz=BERLIN)
    title = plots.engagement_over_time(frame).layout.title.text
    assert title.startswith("Readers and read rate by week · Engineering · Mar 2026")
    assert "incomplete" in title  # March 2026 starts before the synced days
    tagged = plots.tag_performance(wh.tag_performance(period="2026-W13", tag="eng"))
    assert "#eng · W13 2026" in tagged.layout.title.text


def test_kpi_tiles_show_value_and_previous(wh: Warehouse) -> None:
    kpis = wh.kpis(start="2026-03-23", end="2026-03-30", tz=BERLIN, tag="eng")
    fig = plots.kpi_tiles(kpis)
    tiles = {t.title.text: t for t in fig.data}
    assert tiles["Opens"].value == 310 and tiles["Opens"].delta.reference == 20 + 70
    assert tiles["Read rate"].number.valueformat == ".1%"
    # net_subscribers is missing with a tag filter: shown as n/a, not as 0.
    assert "Net new subscribers" not in tiles
    assert [a.text for a in fig.layout.annotations][-2:] == ["Net new subscribers", "n/a"]
    assert "2026-03-16 to 2026-03-22" in fig.layout.title.text
    opens_only = plots.kpi_tiles(kpis, metrics=["opens"])
    assert len(opens_only.data) == 1
    with pytest.raises(ValueError, match="bounces"):
        plots.kpi_tiles(kpis, metrics=["bounces"])
    # An incomplete comparison: values without deltas.
    partial = plots.kpi_tiles(wh.kpis(period="2026-03"))
    assert all(t.mode == "number" for t in partial.data)


def test_top_posts_escape_titles(wh: Warehouse) -> None:
    frame = wh.top_posts(**WINDOW)
    fig = plots.top_posts(frame)
    _styled(fig)
    bar = fig.data[0]
    assert list(bar.x) == [0, 20, 50, 90, 100, 150, 300, 500]  # readers, best at the top
    assert bar.y[-1] == "1. All-hands"
    assert "4. &lt;script&gt;alert('xss')&lt;/script&gt; Tips" in bar.y
    html = fig.to_html(include_plotlyjs=False)
    assert XSS_TITLE not in html and "<script>alert" not in html
    by_rate = plots.top_posts(wh.top_posts("engagement_rate", **WINDOW))
    assert by_rate.data[0].x[-1] == pytest.approx(0.25)
    assert "at least 100 opens" in by_rate.layout.title.text


def test_channel_comparison_shows_read_rate(wh: Warehouse) -> None:
    fig = plots.channel_comparison(wh.channel_comparison(**WINDOW))
    _styled(fig)
    assert fig.layout.title.text.startswith("Read rate by channel")
    assert list(fig.data[0].x) == ["Engineering", "Company News", "Old Stuff"]
    y = list(fig.data[0].y)
    assert y[:2] == [360 / (160 + 172 + 190 + 178 + 194), 850 / 3000] and y[2] != y[2]


def test_tag_and_priority_show_adjusted_readers_vs_expected_and_mark_small_samples(
    wh: Warehouse,
) -> None:
    tags = plots.tag_performance(wh.tag_performance(small_sample_n=2, **WINDOW))
    _styled(tags)
    bar = tags.data[0]
    assert bar.orientation == "h"  # labels and counts legible on a phone
    colours = dict(zip(bar.y, bar.marker.color, strict=True))
    assert colours["eng"] != MUTED and colours["company"] != MUTED
    assert colours["finance"] == MUTED
    assert "&lt;script&gt;alert('tag')&lt;/script&gt;" in bar.y
    assert XSS_TAG not in tags.to_html(include_plotlyjs=False)
    assert dict(zip(bar.y, bar.text, strict=True))["eng"] == "n=5"
    frame = wh.priority_impact(**WINDOW)
    prio = plots.priority_impact(frame)
    bar = prio.data[0]
    assert list(bar.y) == ["urgent", "high", "normal"]  # the first at the top
    # The fair number (docs/metrics.md, "Fair rankings"; recomputed by hand in
    # tests/analysis/test_fair_ranking.py), not the median lift, with its 95% interval.
    shown = frame.iloc[::-1]
    assert list(bar.x) == pytest.approx(list(shown["adjusted_vs_expected"]), nan_ok=True)
    assert "Readers vs expected" in prio.layout.xaxis.title.text
    ends = shown[["adjusted_vs_expected", "vs_expected_low", "vs_expected_high"]].to_numpy()
    for (value, low, high), up, down in zip(
        ends, bar.error_x.array, bar.error_x.arrayminus, strict=True
    ):
        if value == value:  # a priority without posts has neither bar nor interval
            assert value + up == pytest.approx(max(high, value))
            assert value - down == pytest.approx(min(low, value))
    assert "too few to rank (under 10 posts" in prio.layout.annotations[-1].text


def test_publishing_heatmap_in_local_hours(wh: Warehouse) -> None:
    fig = plots.publishing_heatmap(wh.publishing_heatmap(**WINDOW))
    _styled(fig)
    posts, readers = fig.data
    assert list(posts.y) == ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    assert posts.z[0][0] == 2 and posts.z[0][9] == 1 and posts.z[6][23] == 0
    assert readers.z[0][0] == (100 + 300) / 2
    assert readers.z[6][23] is None  # nothing published: no readers per post
    assert "hours in Europe/Berlin" in fig.layout.title.text


def test_reach_curve_subscribers_and_low_reach(wh: Warehouse) -> None:
    curve = plots.reach_curve(wh.reach_curve(3, **WINDOW))
    assert list(curve.data[0].x) == [0, 1, 2, 3]
    assert list(curve.data[0].y) == sorted(curve.data[0].y)
    subs = plots.subscribers(wh.subscribers("week", **WINDOW))
    net, total = subs.data
    assert list(net.y) == [35, -7, -7] and list(total.y) == [172 + 1000, 186 + 1000, 200 + 1000]
    per_channel = plots.subscribers(wh.subscribers("week", by="channel", **WINDOW))
    assert {t.name for t in per_channel.data} == {"Engineering", "Company News"}
    low = plots.low_reach(wh.low_reach(**WINDOW))
    bars, medians = low.data
    # "Zero views" (04-02) and "Sprint notes" (03-31) are still collecting readers on the
    # last synced day (04-05); of the others "Office closed" (50 of 1000) is below half
    # Company News' median (post_04: 300 of 1000).
    assert bars.y[-1].startswith("Office closed")  # the worst at the top
    assert list(medians.x)[-1] == 0.3


def test_upcoming_scheduled_table(wh: Warehouse) -> None:
    fig = plots.upcoming_scheduled(wh.upcoming_scheduled(as_of="2026-04-01", tz=BERLIN))
    cells = fig.data[0].cells.values
    assert list(cells[0]) == ["Fri 03 Apr 2026 09:00", "Fri 10 Apr 2026 09:00"]
    assert list(cells[1]) == ["Missed schedule", "Scheduled launch"]
    assert "due after 2026-04-01 00:00 (Europe/Berlin)" in fig.layout.title.text
    empty = plots.upcoming_scheduled(wh.upcoming_scheduled(as_of=AS_OF.replace(month=5)))
    assert list(empty.data[0].cells.values[0]) == []


@pytest.mark.parametrize(
    ("current", "env", "in_kernel", "expected"),
    [
        ("plotly_mimetype", None, True, PLOT_RENDERER),  # JupyterLab
        ("vscode", None, True, PLOT_RENDERER),  # VS Code
        ("notebook_connected", None, True, None),  # the user chose
        ("plotly_mimetype", "iframe", True, None),  # PLOTLY_RENDERER wins
        ("browser", None, False, None),  # a plain script keeps plotly's choice
    ],
)
def test_choose_renderer(current: str, env: str | None, in_kernel: bool, expected: str) -> None:
    assert choose_renderer(current, env_renderer=env, in_kernel=in_kernel) == expected


@pytest.mark.slow
def test_figures_in_a_kernel_carry_offline_html(monkeypatch: pytest.MonkeyPatch) -> None:
    """In a real Jupyter kernel a figure's output has the plotly mimetype AND HTML."""
    monkeypatch.delenv("PLOTLY_RENDERER", raising=False)  # the kernel inherits this env
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(
            "import sys, plotly.io as pio, plotly.graph_objects as go\n"
            "import channelkit as ck\n"
            "ck.plots  # the lazy import configures the renderer\n"
            "print('nbformat' in sys.modules)  # when plotly loads its renderers\n"
            "print(pio.renderers.default)\n"
            "go.Figure(go.Bar(y=[1, 2]))"
        )
    ]
    NotebookClient(nb, timeout=120, kernel_name="python3").execute()
    outputs = nb.cells[0].outputs
    # seconds of imports (nbformat, jsonschema) not paid by an Explorer, which needs no renderer
    printed = "".join(out["text"] for out in outputs if out["output_type"] == "stream")
    assert printed.split() == ["False", PLOT_RENDERER]
    kinds = {kind for out in outputs for kind in out.get("data", {})}
    assert {"application/vnd.plotly.v1+json", "text/html"} <= kinds
    html = "".join(out["data"].get("text/html", "") for out in outputs if "data" in out)
    # plotly.js itself is embedded (megabytes), not loaded from a CDN.
    assert len(html) > 1_000_000
    assert 'src="https://cdn.plot.ly' not in html


def test_every_plot_draws_a_quiet_channel(wh: Warehouse) -> None:
    week = {"start": "2026-03-23", "end": "2026-03-30", "channel": "old-stuff"}
    figures = [
        plots.engagement_over_time(wh.engagement_over_time("day", **week)),
        plots.kpi_tiles(wh.kpis(**week)),
        plots.top_posts(wh.top_posts(**week)),
        plots.channel_comparison(wh.channel_comparison(**week)),
        plots.tag_performance(wh.tag_performance(**week)),
        plots.priority_impact(wh.priority_impact(**week)),
        plots.publishing_heatmap(wh.publishing_heatmap(**week)),
        plots.reach_curve(wh.reach_curve(3, **week)),
        plots.low_reach(wh.low_reach(**week)),
        plots.subscribers(wh.subscribers(**week)),
    ]
    assert all("Old Stuff" in f.layout.title.text for f in figures)
    assert all("2026-03-23 to 2026-03-29 (UTC)" in f.layout.title.text for f in figures)
    assert list(figures[0].data[0].y) == [0] * 7  # a week of zeros, not an empty chart
    rate = {a.text for a in figures[1].layout.annotations}
    assert "n/a" in rate  # no opens: no engagement rate


def test_static_images_use_the_system_chromium(wh: Warehouse, tmp_path: Path) -> None:
    fig = plots.reach_curve(wh.reach_curve(3, **WINDOW))
    path = plots.save_image(fig, tmp_path / "reach.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    fig.write_image(tmp_path / "reach.svg")  # plotly's own call works too
    assert (tmp_path / "reach.svg").read_text().startswith("<svg")


def test_static_images_without_the_extra_name_it(
    wh: Warehouse, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "kaleido", None)  # as if `[images]` were not installed
    monkeypatch.setattr("importlib.util.find_spec", lambda name, *a: None)
    with pytest.raises(ImageExportError, match=r"channelkit\[images\]"):
        plots.save_image(go.Figure(), tmp_path / "x.png")
    assert not (tmp_path / "x.png").exists()


def test_importing_plots_outside_a_kernel_leaves_plotly_renderers_alone() -> None:
    # Reading pio.renderers imports nbformat and jsonschema (seconds): `channelkit report`
    # and `channelkit demo` must not pay for it.
    code = "import sys, channelkit.plots; print('nbformat' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_plots_import_neither_duckdb_nor_the_analysis_layer() -> None:
    code = (
        "import sys, channelkit.plots\n"
        "analysis = any(m.startswith('channelkit.analysis') for m in sys.modules)\n"
        "print('duckdb' in sys.modules, analysis)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


@pytest.mark.parametrize(
    ("top", "step", "last_tick"),
    [(0.786, 0.2, 0.8), (0.7, 0.2, 0.8), (1.47, 0.5, 1.5), (0.031, 0.01, 0.04), (0.0, 0.2, 1.0)],
)
def test_axes_tick_at_round_values(top: float, step: float, last_tick: float) -> None:
    from channelkit.plots.style import round_axis

    axis = round_axis(top, percent=True)
    assert axis["tick0"] == 0 and axis["dtick"] == pytest.approx(step)
    low, high = axis["range"]  # type: ignore[misc]
    assert low == 0 and last_tick <= high < last_tick + step / 2  # the last round tick shows


def test_trend_read_rate_axis_ticks_at_round_percentages(wh: Warehouse) -> None:
    fig = plots.engagement_over_time(wh.engagement_over_time("day", **WINDOW))
    axis = fig.layout.yaxis2
    assert axis.tick0 == 0 and axis.tickformat == ".0%"
    assert round(axis.dtick * 100) in (1, 2, 5, 10, 20, 25, 50)


def test_a_browser_message_choreographer_ignores_prints_no_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """On a busy machine Chromium's DevTools pipe can hand choreographer (kaleido's driver) a
    message it cannot decode; it logs the traceback and ignores the message, and the image
    is drawn all the same. Through choreographer's own pipe: the ignored message leaves no
    record once channelkit drives a browser; the next message and other errors are kept."""
    import os

    from choreographer.channels.pipe import Pipe

    from channelkit.plots.images import quiet_browser_driver

    def read(raw: bytes) -> list[object]:
        pipe = Pipe()
        pipe.open()
        try:
            os.write(pipe.from_external_to_choreo, raw)
            return list(pipe.read_jsons(blocking=False)[0])
        finally:
            pipe.close()

    quiet_browser_driver()
    with caplog.at_level("DEBUG", logger="choreographer"):
        assert read(b"{'id': 1}\0" + b'{"id": 2}\0') == [{"id": 2}]
    assert not [r for r in caplog.records if r.levelno >= 40]  # ERROR and above: none
    with caplog.at_level("ERROR", logger="choreographer"):
        logging.getLogger("choreographer.channels.pipe").error("another failure")
    assert [r.getMessage() for r in caplog.records if r.levelno >= 40] == ["another failure"]
