"""Report HTML: Jinja2 with autoescaping, plotly.js embedded once, stable figure ids.

The plotly.js embedded is the "cartesian" partial bundle (bar, scatter, heatmap, box, pie,
histogram, ...: every trace type the report draws), 1.5 MB instead of the full 4.8 MB.
It sits in `assets/` with its MIT licence; update it with plotly:
`npm pack plotly.js-cartesian-dist-min@X.Y.Z` for the `plotly.offline.get_plotlyjs_version()`
of the installed plotly, then copy `plotly-cartesian.min.js` over the old one.

A custom template (`--template PATH`) sees the same `page` (a `ReportPage`) and can extend
the built-in one: `{% extends "channelkit/report.html.j2" %}` and override its blocks
(`style`, `meta`, `kpis`, `sections`, `caveats`).
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from channelkit._constants import REPORT_BODY_TOP_HEADING, REPORT_TEMPLATE_NAME
from channelkit._markdown import render_markdown
from channelkit.errors import ReportError
from channelkit.reports.page import ReportPage

TEMPLATES_DIR = Path(__file__).resolve().parent / "templates"
PLOTLY_BUNDLE = Path(__file__).resolve().parent / "assets" / "plotly-cartesian.min.js"
_BUNDLE_VERSION = re.compile(r"plotly\.js \(cartesian - minified\) v(\d+\.\d+)\.")
_BUILTIN_PREFIX = "channelkit"

# Figures follow the page width. The toolbar keeps one button, download as PNG: the
# plotly logo and the "edit in Chart Studio"/"send to cloud" buttons lead to the
# internet, which an offline (and possibly confidential) report must not.
PLOTLY_CONFIG: dict[str, Any] = {
    "responsive": True,
    "displaylogo": False,
    "displayModeBar": "hover",
    "modeBarButtons": [["toImage"]],
    "showSendToCloud": False,
    "toImageButtonOptions": {"format": "png"},
}


@cache
def plotlyjs() -> Markup:
    """plotly.js, to be inlined once per page so that the report works offline: the
    bundled partial build when it is of the installed plotly's major.minor version, else
    (plotly upgraded, bundle not yet) plotly's full build, larger but always matching."""
    from plotly.offline import get_plotlyjs, get_plotlyjs_version

    bundled = PLOTLY_BUNDLE.read_text(encoding="utf-8")
    if bundle_version(bundled) == get_plotlyjs_version().rsplit(".", 1)[0]:
        return Markup(bundled)
    return Markup(get_plotlyjs())


def bundle_version(script: str) -> str | None:
    """ "4.1" from the header of a plotly.js cartesian bundle."""
    found = _BUNDLE_VERSION.search(script[:300])
    return found.group(1) if found else None


def figure_html(figure: Any, div_id: str, *, default_height: int | str = "100%") -> Markup:
    """A plotly figure (or its JSON, as a notebook output holds it) as a `<div>` +
    `<script>` without plotly.js; `default_height` when its layout has none.

    `div_id` is fixed by the caller (plotly would pick a random UUID), which keeps the
    output byte-for-byte the same for the same data. plotly escapes `<`, `>` and `/` inside
    its JSON, so user text in a figure cannot close the script element.
    """
    import plotly.io as pio

    # validate=False: the figure was validated as it was built; doing it again costs time
    html = pio.to_html(
        figure,
        full_html=False,
        include_plotlyjs=False,
        div_id=div_id,
        config={**PLOTLY_CONFIG, "toImageButtonOptions": {"format": "png", "filename": div_id}},
        validate=False,
        default_height=default_height,
    )
    return Markup(html)


def markdown_html(text: str) -> Markup:
    """User Markdown as HTML, through the project's sanitiser and nothing else; its
    headings start at h4 so that a post never adds a top-level heading to the report."""
    return Markup(render_markdown(text, top_heading=REPORT_BODY_TOP_HEADING))


def _environment(template: Path | None) -> jinja2.Environment:
    builtin = jinja2.FileSystemLoader(TEMPLATES_DIR)
    loaders: list[jinja2.BaseLoader] = [jinja2.PrefixLoader({_BUILTIN_PREFIX: builtin})]
    if template is not None:
        loaders.insert(0, jinja2.FileSystemLoader(template.parent))
    else:
        loaders.insert(0, builtin)
    return jinja2.Environment(
        loader=jinja2.ChoiceLoader(loaders),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def render_named(name: str, **context: Any) -> str:
    """Another built-in page (the upcoming digest), with the report's autoescaping."""
    return _environment(None).get_template(name).render(**context)


def render_page(page: ReportPage, template: Path | None = None) -> str:
    """Render `page` with the built-in template or the one at `template`."""
    name = template.name if template is not None else REPORT_TEMPLATE_NAME
    where = str(template) if template is not None else f"built-in {REPORT_TEMPLATE_NAME}"
    if template is not None and not template.is_file():
        raise ReportError(f"--template {template}: no such file")
    try:
        return _environment(template).get_template(name).render(page=page)
    except jinja2.TemplateSyntaxError as exc:
        raise ReportError(
            f"template {exc.filename or where}, line {exc.lineno}: {exc.message}"
        ) from None
    except jinja2.TemplateNotFound as exc:
        raise ReportError(f"template {where}: cannot find {exc.name!r}") from None
    except jinja2.UndefinedError as exc:
        raise ReportError(f"template {where}: {exc.message}") from None
    except jinja2.TemplateError as exc:
        raise ReportError(f"template {where}: {exc}") from None
    except UnicodeDecodeError:
        raise ReportError(f"template {where}: not UTF-8 text") from None
    except Exception as exc:
        if template is None:
            raise
        # a user's template may fail in any way (a filter on the wrong type, 1/0, ...)
        raise ReportError(f"template {where}: {type(exc).__name__}: {exc}") from None
