"""The demo month and week on paper: at most 8 pages, nothing interactive printed, on A4 and
on Letter. Pages are rendered by poppler's pdftoppm (as .ci/run installs it; the tests are
skipped without it) and their used height measured.

The demo's content follows its day (its "month" is the last whole month), so every run is
pinned to a day: the service, the sync and the report believe it, and the page count does
not depend on the day the suite runs. docs/reports.md promises 8 pages for any month:
`test_every_demo_month_fits_eight_pages` checks each month of 2026 and 2027, made on the
7th of the month after (dates pinned: the calendar run does not repeat it). Each month's
page is made once and printed on both papers, at the same scale (Chromium shrinks a whole
document that is wider than its paper)."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from channelkit.reports import generate_report
from channelkit.reports.browser import find_browser, render_file
from channelkit.reports.generate import build_report
from fixtures.demo import DEMO_DAY, demo_synced_on

DEMO_DAYS = (DEMO_DAY,)  # the day the demo week's (and a well-filled month's) report is made on
PAPERS = {"a4": (595.3, 841.9), "letter": (612, 792)}  # their size in points
MAX_PAGES = 8  # docs/reports.md: the demo week and any demo month, on either paper
ZONE = "Europe/Berlin"
# Each month of 2026 and 2027 as the demo's month: the demo made on the 7th after it
SWEPT_MONTHS = [f"{year}-{month:02}" for year in (2026, 2027) for month in range(1, 13)]

DPI = 30
# A row counts as used when ink is within this many pixel rows (about 2.5 mm at 30 dpi):
# the gaps between lines of text belong to the text.
NEAR = 3
INK = 235  # grey level below which a pixel is ink (paper is 255)

pytestmark = [
    pytest.mark.skipif(
        find_browser() is None,
        reason="no Chromium: install Debian's chromium (apt-get install chromium, as .ci/run does)",
    ),
    pytest.mark.skipif(
        shutil.which("pdftoppm") is None or shutil.which("pdftotext") is None,
        reason="no pdftoppm/pdftotext: install poppler-utils (as .ci/run does) to measure "
        "printed pages",
    ),
]


def page_fill(pdf: Path, work: Path) -> list[float]:
    """The share of each page's height that holds something, from a greyscale rendering."""
    subprocess.run(["pdftoppm", "-gray", "-r", str(DPI), str(pdf), str(work / "p")], check=True)
    pages = sorted(work.glob("p-*.pgm"), key=lambda path: int(path.stem.split("-")[1]))
    return [used_share(path.read_bytes()) for path in pages]


def heading_width(pdf: Path) -> float:
    """The printed width (pt) of the first page's "Summary" heading, from poppler's
    pdftotext, whose `-bbox` gives each word's box in points."""
    page = subprocess.run(
        ["pdftotext", "-f", "1", "-l", "1", "-bbox", str(pdf), "-"],
        check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    word = re.search(r'<word xMin="([\d.]+)"[^>]*xMax="([\d.]+)"[^>]*>Summary</word>', page)
    assert word, "no Summary heading on the first page"
    return float(word[2]) - float(word[1])


def used_share(pgm: bytes) -> float:
    """The share of rows of a binary greyscale image (PGM) with ink on or near them."""
    magic, size, _maxval, pixels = pgm.split(b"\n", 3)
    assert magic == b"P5"
    width, height = (int(v) for v in size.split())
    ink = [min(pixels[y * width : (y + 1) * width]) < INK for y in range(height)]
    used = sum(1 for y in range(height) if any(ink[max(0, y - NEAR) : y + NEAR + 1]))
    return used / height


@pytest.fixture(scope="module", params=DEMO_DAYS)
def demo_db(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Path]:
    """A demo warehouse synced on the pinned day, which the test's report believes too."""
    with demo_synced_on(request.param, tmp_path_factory.mktemp("paper") / "demo.duckdb") as db:
        yield db


def printed_sections_only(reader: object) -> None:
    """Every section is printed open, without its disclosure control or toolbar."""
    text = " ".join(page.extract_text() for page in reader.pages)  # type: ignore[attr-defined]
    for heading in ("Most read posts", "Tags", "Priority", "Upcoming scheduled posts"):
        assert heading in text
    for control in ("\u25b6", "\u25bc", "Data of this chart", "Table: ", "Download plot"):
        assert control not in text, control


@pytest.mark.slow
@pytest.mark.parametrize(
    ("period", "paper", "size_pt"),
    [
        ("month", "a4", PAPERS["a4"]),
        ("month", "letter", PAPERS["letter"]),
        # the example report (docs/reports.md), its fair rankings with their intervals
        ("week", "a4", PAPERS["a4"]),
        ("week", "letter", PAPERS["letter"]),
    ],
)
def test_demo_month_and_week_fit_eight_well_filled_pages(
    demo_db: Path, tmp_path: Path, period: str, paper: str, size_pt: tuple[float, float]
) -> None:
    from pypdf import PdfReader

    pdf = generate_report(
        demo_db, tmp_path / f"{period}-{paper}.pdf", period=period, tz="Europe/Berlin",
        format="pdf", paper=paper,
    )  # fmt: skip
    reader = PdfReader(pdf)
    width, height = (float(v) for v in reader.pages[0].mediabox.upper_right)
    assert (width, height) == pytest.approx(size_pt, abs=1)
    fills = page_fill(pdf, tmp_path)
    print(f"--- {period}, {paper}: {len(fills)} pages, used {[round(f, 2) for f in fills]}")
    assert 2 <= len(fills) <= MAX_PAGES
    assert all(fill >= 0.4 for fill in fills[:-1]), fills
    printed_sections_only(reader)


def made_on(month: str) -> datetime:
    """06:00 in Berlin on the 7th of the month after `month` ("2027-03")."""
    year, number = (int(part) for part in month.split("-"))
    year, number = (year + 1, 1) if number == 12 else (year, number + 1)
    return datetime(year, number, 7, 6, tzinfo=ZoneInfo(ZONE))


@pytest.mark.slow
@pytest.mark.parametrize("month", SWEPT_MONTHS)
def test_every_demo_month_fits_eight_pages(month: str, tmp_path: Path) -> None:
    """The page is made once and printed on both papers, as `generate_report` does for each
    (`build_report`, then `render_file`): half the reports and syncs, the same PDFs."""
    from pypdf import PdfReader

    with demo_synced_on(made_on(month), tmp_path / "demo.duckdb") as db:
        report = build_report(db, period="month", tz=ZONE)
        assert report.page.period.start.strftime("%Y-%m") == month  # the demo's month
        pages, widths = {}, {}
        for paper, size_pt in PAPERS.items():
            pdf = tmp_path / f"{paper}.pdf"
            render_file(report.html, pdf, "pdf", paper)
            reader = PdfReader(pdf)
            width, height = (float(v) for v in reader.pages[0].mediabox.upper_right)
            assert (width, height) == pytest.approx(size_pt, abs=1)
            printed_sections_only(reader)
            (tmp_path / paper).mkdir()
            pages[paper] = [round(fill, 2) for fill in page_fill(pdf, tmp_path / paper)]
            widths[paper] = heading_width(pdf)
    print(f"--- {month}: {pages}")
    assert all(len(fills) <= MAX_PAGES for fills in pages.values()), pages
    # neither paper shrunk: a table wider than A4 once printed Letter at 93%, A4 at 100%
    assert widths["a4"] == pytest.approx(widths["letter"], abs=0.05), widths


def test_used_share_counts_ink_and_the_gaps_between_lines() -> None:
    width = 10
    header = b"P5\n%d 100\n255\n" % width
    blank, ink = bytes([255] * width), bytes([255] * 9 + [0])
    assert used_share(header + blank * 100) == 0
    assert used_share(header + ink * 50 + blank * 50) == pytest.approx(0.53)  # + NEAR rows
    lines = (ink + blank * 4) * 10 + blank * 50  # ten lines of text: the top half used
    assert used_share(header + lines) == pytest.approx(0.5, abs=0.03)
