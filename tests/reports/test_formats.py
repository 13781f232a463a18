"""`--format pdf|png`: rendered by the system's Chromium; a clear error when it cannot be."""

from __future__ import annotations

import re
import struct
import sys
from pathlib import Path

import pytest

from channelkit.reports import ReportError, build_report, generate_report
from channelkit.reports.browser import find_browser
from channelkit.reports.deliver.messages import sentence_text

needs_chromium = pytest.mark.skipif(
    find_browser() is None,
    reason="no Chromium: install Debian's chromium (apt-get install chromium, as .ci/run does)",
)


def _words(text: str) -> str:
    return " ".join(text.split())


@needs_chromium
def test_pdf_holds_the_summary_sentences(small_warehouse: Path, tmp_path: Path) -> None:
    from pypdf import PdfReader

    out = generate_report(
        small_warehouse, tmp_path / "weekly.pdf", tz="Europe/Berlin", format="pdf"
    )
    assert out.read_bytes().startswith(b"%PDF-")
    reader = PdfReader(out)
    text = _words(" ".join(page.extract_text() for page in reader.pages))
    summary = build_report(small_warehouse, tz="Europe/Berlin").page.summary
    assert len(summary) >= 3
    for sentence in summary:
        # pdf text extraction may split a line anywhere a space is: compare without them
        assert re.sub(r"\s", "", sentence.text) in re.sub(r"\s", "", text), sentence.text
    width, height = (float(v) for v in reader.pages[0].mediabox.upper_right)
    assert width == pytest.approx(595.3, abs=1) and height == pytest.approx(841.9, abs=1)  # A4


@needs_chromium
def test_png_is_the_whole_page(small_warehouse: Path, tmp_path: Path) -> None:
    out = generate_report(small_warehouse, tmp_path / "weekly.png", format="png")
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert width == 1280 and height > 2000  # the full page, not one screen


def test_no_browser_is_a_clear_error_and_writes_nothing(
    small_warehouse: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BROWSER_PATH", str(tmp_path / "no-chromium"))
    with pytest.raises(ReportError, match="need Chromium.*apt-get install chromium"):
        generate_report(small_warehouse, tmp_path / "r.pdf", format="pdf")
    assert not (tmp_path / "r.pdf").exists()


def test_no_kaleido_names_the_extra(
    small_warehouse: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "choreographer", None)  # import fails as if missing
    with pytest.raises(ReportError, match=r"pip install 'channelkit\[images\]'"):
        generate_report(small_warehouse, tmp_path / "r.png", format="png")
    assert not (tmp_path / "r.png").exists()


def test_flagged_sentences_read_with_their_flags() -> None:
    from channelkit.reports.page import Sentence

    assert sentence_text(Sentence("3 posts.", ("small base",))) == "3 posts. [small base]"
