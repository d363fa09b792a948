"""Preflight reads a finished PDF and fails what a print service would reject."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import CJK_FONT
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


def write_words(path: Path, words: list[tuple[int, float, float, str]], pages: int = 24,
                font: str | None = None) -> Path:
    """A 6 x 9 in PDF of ``pages`` pages with (page, x, y, text) pieces of 10 pt text, in
    ``font`` (the embedded book font unless named)."""
    font = font or load_fonts().regular
    canvas = Canvas(str(path), pagesize=SIX_BY_NINE, invariant=1, initialFontName=font)
    for k in range(1, pages + 1):
        for page, x, y, text in words:
            if page == k:
                canvas.setFont(font, 10)
                canvas.drawString(x, y, text)
        canvas.showPage()
    canvas.save()
    return path


def text_check(report):
    return next(c for c in report.checks if c.name == "text")


def test_text_inside_the_margins_and_apart_passes(tmp_path):
    pdf = write_words(tmp_path / "ok.pdf", [(3, 72, 300, "Contents"), (3, 72, 285, "Easy"),
                                            (3, 380, 285, "5")])
    check = text_check(preflight(pdf, SIX_BY_NINE))
    assert check.ok and check.detail == "inside the margins, nothing overlapping, on every page"


@pytest.mark.parametrize("page, x, problem", [
    (3, 400, "runs past the margins (0.25 in inside the trim, 0.375 in at the binding)"),
    (3, 20, "runs past the margins"),  # the gutter of a right-hand page
    (4, 10, "runs past the margins"),  # the outside edge of a left-hand page
])
def test_text_past_the_margins_fails(tmp_path, page, x, problem):
    pdf = write_words(tmp_path / "wide.pdf", [(page, x, 300, "Medium: Pairs and Pointing")])
    report = preflight(pdf, SIX_BY_NINE)
    assert failed(report) == ["text"]
    assert text_check(report).detail.startswith(f"page {page}: text 'Medium: Pairs and "
                                                "Pointing' at ")
    assert problem in text_check(report).detail


def test_overlapping_text_fails_naming_both(tmp_path):
    # a contents row whose title runs under its page number
    pdf = write_words(tmp_path / "clash.pdf", [
        (3, 36, 300, "Medium: Puzzles That Need Pairs, Pointing and Box/Line Reduction"),
        (3, 340, 300, "5")])
    report = preflight(pdf, SIX_BY_NINE)
    assert failed(report) == ["text"]
    assert text_check(report).detail == ("page 3: text 'Medium: Puzzles That Need Pairs, "
                                         "Pointing and Box/Line Reduction' overlaps text '5'")


@pytest.mark.skipif(CJK_FONT is None, reason="no CJK TrueType font installed "
                    "(apt-get install fonts-ipafont-gothic)")
def test_failures_show_japanese_text_as_its_characters(tmp_path):
    """The text was named by its character codes in the embedded subset, so a Japanese
    title read as control characters ('\\x01\\x02...')."""
    font = load_fonts(CJK_FONT).cjk
    pdf = write_words(tmp_path / "clash.pdf", [(3, 100, 300, "ナンプレ 百問"),
                                              (3, 120, 300, "数独")], font=font)
    report = preflight(pdf, SIX_BY_NINE)
    assert text_check(report).detail == "page 3: text 'ナンプレ 百問' overlaps text '数独'"
    pdf = write_words(tmp_path / "margin.pdf", [(4, 400, 300, "ナンプレ")], font=font)
    report = preflight(pdf, SIX_BY_NINE)
    assert text_check(report).detail.startswith("page 4: text 'ナンプレ' at ")


def test_a_pdf_beyond_a_limit_of_pypdf_fails_the_readable_check(tmp_path, monkeypatch):
    # pypdf reads no array of more than 100,000 elements: a book of more pages than that
    # raised its LimitReachedError through the preflight
    from pypdf import PdfReader
    from pypdf.errors import LimitReachedError

    from nanpure.layouts import preflight as preflight_module

    def limited(path):
        raise LimitReachedError("Reached maximum array element count.")

    path = write_pdf(tmp_path / "book.pdf", 24)
    monkeypatch.setattr(preflight_module, "PdfReader", limited)
    report = preflight(path, SIX_BY_NINE)
    assert not report.ok and failed(report) == ["readable"]
    assert "maximum array element count" in report.format()
    monkeypatch.setattr(preflight_module, "PdfReader", PdfReader)
    assert preflight(path, SIX_BY_NINE).ok


@pytest.mark.parametrize("pixels, mark", [((300, 200), "FAIL"), ((500, 400), "WARN"),
                                          ((700, 500), None)])
def test_a_picture_on_a_page_is_checked_for_its_resolution(tmp_path, pixels, mark):
    """Only a cover's pictures were drawn by the book; any raster image in the interior
    is checked too: placed 2 x 1.5 in on page 5, 300 x 200 px is 100 ppi (fails), 500 x
    400 px 250 ppi (a warning: the file passes), 700 x 500 px 333 ppi."""
    from PIL import Image
    from reportlab.lib.utils import ImageReader

    picture = tmp_path / "p.png"
    Image.new("RGB", pixels, (10, 20, 30)).save(picture)
    pdf = tmp_path / "pictures.pdf"
    canvas = Canvas(str(pdf), pagesize=SIX_BY_NINE, invariant=1,
                    initialFontName=load_fonts().regular)  # no Helvetica, unembedded
    for k in range(1, 25):
        if k == 5:
            canvas.drawImage(ImageReader(str(picture)), 72, 72, 144, 108)
        canvas.showPage()
    canvas.save()
    report = preflight(pdf, SIX_BY_NINE)
    check = next(c for c in report.checks if c.name == "pictures")
    assert report.ok == (mark != "FAIL")
    if mark is None:
        assert check.ok and check.detail == "1 picture, 333 ppi or more"
        return
    ppi = min(pixels[0] // 2, int(pixels[1] / 1.5))
    assert f"  {mark}  pictures: a picture of {pixels[0]} x {pixels[1]} px is placed at " \
           f"2 x 1.5 in on page 5: {ppi} ppi, under the 300 ppi print needs (" in report.format()
    assert check.detail.endswith("; give one of at least 600 x 450 px")


def pypdf_reading(data: bytes) -> list:
    """pypdf's operations of the content ``data``, as the fast reading gives them: numbers
    as floats, names as str, strings as their bytes."""
    from pypdf.generic import ContentStream, DecodedStreamObject

    from nanpure.layouts.preflight import _bytes

    def plain(value):
        if isinstance(value, list):
            return [plain(v) for v in value]
        if isinstance(value, int | float):
            return float(value)
        if type(value).__name__ == "NameObject":
            return str(value)
        return _bytes(value)

    stream = DecodedStreamObject()
    stream.set_data(data)
    return [([plain(v) for v in operands], op)
            for operands, op in ContentStream(stream, None).operations]


@pytest.mark.parametrize("data", [
    b"BT /F1+0 10 Tf 1 0 0 1 72 72 Tm (page 1) Tj T* ET",
    b"q 1 0 0 1 0 0 cm .5 w\nn 36 545.6 m 383.5 545.6 l S Q",
    b"BT (a \\(b\\) \\\\ c) Tj (\\001\\0027\\101x) Tj (nested (paren) ok) Tj ET",
    b"BT (\\n\\r\\t\\b\\f\\/\\ \\%\\<\\>\\[\\]\\#\\_\\&\\$) Tj ET",
    b"BT <48656c6c6f> Tj <4 8 6\n5 6> Tj <> Tj <abc> Tj ET",
    b"BT [(A) -120 (W) 30.5 <41>] TJ [] TJ ET",
    b"+.5 -3. 7 0 -0 re f 0 0 m10 10 l S",  # signs, bare points, an operator glued on
    b"1 0 0 1 0 0cm 2 (x) 3 Tj 0 0 1 RG true false null",
    b"123456789012345678901 w 123456789012345678901234567890.123456789012345678901234567890 w",
    b"/Im1 Do /GS0 gs /F1 12 Tf\r\n1 0 0 RG 0 g",
    b"  \t\f\n",
    b"",
    b"1 2 3",  # operands with no operator: dropped, as pypdf drops them
])
def test_content_is_read_as_pypdf_reads_it(data):
    from nanpure.layouts.preflight import _fast_operations

    assert _fast_operations(data) == pypdf_reading(data)


@pytest.mark.parametrize("data", [
    b"% a comment\n0 0 m",
    b"BI /W 1 /H 1 /BPC 8 /CS /G ID \x00 EI",
    b"/Span <</MCID 0>> BDC EMC",
    b"BT (broken \\\nline) Tj ET",  # an escaped line break
    b"BT (\\q) Tj ET",  # an escape pypdf warns of
    b"BT (\\777) Tj ET",  # an octal code past 255
    b"/A#20B gs",  # a name pypdf decodes
    b"1 0 R 0 0 m",  # pypdf reads an indirect reference
    b"[[1] 2] TJ",
    b"1.2.3 w",
    b"12345678901234567890123456789012345678901234567890123456789012345 w",  # over 64
    b"0 0 m 1 0 R1 0 0 l",  # R then a figure: an indirect reference to pypdf
    b"0\x000 m",
    b"0\x0b0 m",
    b"BT (unterminated Tj ET",
    b"BT <4g> Tj ET",
    b"{ 1 } 0 m",
])
def test_content_beyond_the_plain_syntax_is_left_to_pypdf(data):
    from nanpure.layouts.preflight import _fast_operations

    assert _fast_operations(data) is None


def clash_pdf(path: Path) -> Path:
    """24 pages, a rule and words with escapes and non-ASCII on each; two overlap on 9."""
    font = load_fonts().regular
    canvas = Canvas(str(path), pagesize=SIX_BY_NINE, invariant=1, initialFontName=font)
    for k in range(1, 25):
        canvas.setFont(font, 10)
        canvas.line(72, 100, 300, 100)
        canvas.drawString(72, 300, "Puzzles 1–40 · (easy) \\ ok")
        if k == 9:
            canvas.drawString(80, 305, "two")
        canvas.showPage()
    canvas.save()
    return path


def test_a_books_pages_are_read_without_pypdfs_content_parser(tmp_path, monkeypatch):
    """Parsing each page with pypdf's ContentStream took two thirds of a book's preflight
    (a 256-page A5 book: 24 of 35 s under a profiler); reportlab's content is read here,
    with the same outcome as when pypdf reads it."""
    from pypdf.generic import ContentStream

    pdf = clash_pdf(tmp_path / "clash.pdf")
    by_pypdf = preflight(pdf, SIX_BY_NINE)

    def refused(self):
        raise AssertionError("pypdf parsed a page's content")

    monkeypatch.setattr(ContentStream, "operations", property(refused))
    report = preflight(pdf, SIX_BY_NINE)
    assert failed(report) == ["text"]
    assert text_check(report).detail == ("page 9: text 'Puzzles 1–40 · (easy) \\\\ ok' "
                                         "overlaps text 'two'")
    assert report.format() == by_pypdf.format()


def test_pypdf_reads_what_the_fast_reading_leaves_with_the_same_outcome(tmp_path,
                                                                         monkeypatch):
    import nanpure.layouts.preflight as preflight_module

    pdf = clash_pdf(tmp_path / "clash.pdf")
    fast = preflight(pdf, SIX_BY_NINE).format()
    monkeypatch.setattr(preflight_module, "_fast_operations", lambda data: None)
    assert preflight(pdf, SIX_BY_NINE).format() == fast


def test_each_font_is_read_once_for_the_whole_book(tmp_path, monkeypatch):
    """Every page read its fonts' widths and ToUnicode map again (and the widths at every
    piece of text)."""
    import nanpure.layouts.preflight as preflight_module

    reads = []
    real = preflight_module._unicode_map
    monkeypatch.setattr(preflight_module, "_unicode_map",
                        lambda font: reads.append(font) or real(font))
    assert preflight(write_pdf(tmp_path / "ok.pdf", 24), SIX_BY_NINE).ok
    assert len(reads) == 1
