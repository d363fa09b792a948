"""Preflight reads a finished PDF and fails what a print service would reject."""

from __future__ import annotations

from pathlib import Path

from reportlab.pdfgen.canvas import Canvas

from nanpure.layouts.pages import PAGE_SIZES, load_fonts
from nanpure.layouts.preflight import preflight

SIX_BY_NINE = PAGE_SIZES["6x9in"]


def write_pdf(path: Path, pages: int, size=SIX_BY_NINE, font: str | None = None) -> Path:
    """A PDF of ``pages`` pages with one line of text each, in ``font`` (the embedded
    book font unless named)."""
    font = font or load_fonts().regular
    canvas = Canvas(str(path), pagesize=size, invariant=1, initialFontName=font)
    for k in range(pages):
        canvas.setFont(font, 12)
        canvas.drawString(72, 72, f"page {k + 1}")
        canvas.showPage()
    canvas.save()
    return path


def failed(report) -> list[str]:
    return [c.name for c in report.checks if not c.ok]


def test_a_good_file_passes(tmp_path):
    report = preflight(write_pdf(tmp_path / "ok.pdf", 24), SIX_BY_NINE)
    assert report.ok and report.pages == 24
    assert "passed" in report.format()


def test_odd_or_short_page_counts_fail(tmp_path):
    assert failed(preflight(write_pdf(tmp_path / "odd.pdf", 25), SIX_BY_NINE)) == ["page count"]
    short = preflight(write_pdf(tmp_path / "short.pdf", 22), SIX_BY_NINE)
    assert failed(short) == ["page count"]
    assert "below the minimum 24" in short.format()


def test_a_font_that_is_not_embedded_fails(tmp_path):
    report = preflight(write_pdf(tmp_path / "helv.pdf", 24, font="Helvetica"), SIX_BY_NINE)
    assert failed(report) == ["fonts embedded"]
    assert "Helvetica" in report.format()


def test_the_wrong_trim_size_fails(tmp_path):
    report = preflight(write_pdf(tmp_path / "a4.pdf", 24, size=PAGE_SIZES["A4"]), SIX_BY_NINE)
    assert failed(report) == ["page size"]
    assert "expected 6 x 9 in" in report.format()


def test_a_file_that_is_not_a_pdf_fails(tmp_path):
    bad = tmp_path / "bad.pdf"
    bad.write_text("not a pdf")
    report = preflight(bad, SIX_BY_NINE)
    assert not report.ok and "FAIL" in report.format()
