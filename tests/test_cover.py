"""The full-wrap cover (layouts/cover.py) and its preflight, and the interior's bleed."""

from __future__ import annotations

import io
import re
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import CJK_FONT
from pypdf import PdfReader
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfgen.canvas import Canvas

from nanpure.layouts.book import BookSection, BookSettings, build_book
from nanpure.layouts.cover import (
    CoverGeometry,
    CoverSettings,
    render_cover,
)
from nanpure.layouts.pages import INCH, PAGE_SIZES, load_fonts
from nanpure.layouts.preflight import marks, preflight, preflight_cover
from nanpure.record import PuzzleRecord

SIX_BY_NINE = PAGE_SIZES["6x9in"]
SETTINGS = CoverSettings(title="Nightly Sudoku", subtitle="Easy to hard", author="nanpure",
                         back=("Sixty puzzles, each with one solution.",))


def cover_pdf(path: Path, pages: int, paper: str = "white", trim=SIX_BY_NINE,
              settings: CoverSettings = SETTINGS, sample: str | None = None) -> Path:
    render_cover(settings, load_fonts(), trim, pages, str(path), sample)
    return path


@pytest.mark.parametrize("paper, per_page", [("white", 0.002252), ("cream", 0.0025)])
@pytest.mark.parametrize("pages", [24, 100, 300])
def test_cover_width_is_two_trims_the_spine_and_the_bleed(tmp_path, pages, paper, per_page):
    settings = CoverSettings(title="T", paper=paper)
    pdf = cover_pdf(tmp_path / "cover.pdf", pages, paper, settings=settings)
    box = PdfReader(str(pdf)).pages[0].mediabox
    assert float(box.width) / INCH == pytest.approx(0.125 + 6 + pages * per_page + 6 + 0.125,
                                                    abs=1e-3)
    assert float(box.height) / INCH == pytest.approx(9.25, abs=1e-3)
    report = preflight_cover(pdf, SIX_BY_NINE, pages, paper)
    assert report.ok, report.format()


def test_cover_widths_for_24_100_300_pages_as_numbers():
    widths = {(pages, paper): round(CoverGeometry.of(SIX_BY_NINE, pages, paper).width / INCH, 4)
              for pages in (24, 100, 300) for paper in ("white", "cream")}
    assert widths == {(24, "white"): 12.304, (24, "cream"): 12.31,
                      (100, "white"): 12.4752, (100, "cream"): 12.5,
                      (300, "white"): 12.9256, (300, "cream"): 13.0}


def test_cover_preflight_gives_the_width_to_the_thousandth(tmp_path):
    # 12.304048 in: "12.3" would not compare with a print service's calculator
    report = preflight_cover(cover_pdf(tmp_path / "cover.pdf", 24), SIX_BY_NINE, 24, "white")
    size = next(c for c in report.checks if c.name == "cover size")
    assert size.detail.startswith("12.304 x 9.25 in, spine 0.05405 in for 24 pages"), size.detail


def texts_of(pdf: Path) -> list[str]:
    return [what for what, _ in marks(PdfReader(str(pdf)).pages[0]) if what.startswith("text")]


def test_spine_text_only_from_80_pages(tmp_path):
    thin = texts_of(cover_pdf(tmp_path / "thin.pdf", 78))
    thick = texts_of(cover_pdf(tmp_path / "thick.pdf", 80))
    assert thin.count("text 'Nightly Sudoku'") == 2  # front and back
    assert thick.count("text 'Nightly Sudoku'") == 3  # and the spine
    assert preflight_cover(tmp_path / "thick.pdf", SIX_BY_NINE, 80, "white").ok


def test_cover_preflight_finds_the_wrong_size(tmp_path):
    pdf = cover_pdf(tmp_path / "cover.pdf", 100)
    report = preflight_cover(pdf, SIX_BY_NINE, 120, "white")
    assert [c.name for c in report.checks if not c.ok] == ["cover size"]
    assert "expected one of" in report.format()


def raw_cover(path: Path, pages: int, x: float, y: float, image: bool = False) -> Path:
    """A cover of the right size with a background and one word (or picture) at (x, y)."""
    geometry = CoverGeometry.of(SIX_BY_NINE, pages, "white")
    fonts = load_fonts()
    canvas = Canvas(str(path), pagesize=(geometry.width, geometry.height), invariant=1)
    canvas.setFillColorRGB(0.2, 0.3, 0.4)
    canvas.rect(0, 0, geometry.width, geometry.height, stroke=0, fill=1)  # background
    canvas.setFillColorRGB(1, 1, 1)
    canvas.setFont(fonts.regular, 10)
    canvas.drawString(x, y, "Word")
    canvas.showPage()
    canvas.save()
    return path


@pytest.mark.parametrize("where, problem", [
    ("middle of the front", None),
    ("near the trim", "runs over the trim, where the front keeps 0.125 in clear: move it "
                      "in or shorten it"),
    ("across the spine fold", "runs over a spine fold, where the spine keeps 0.0625 in "
                              "clear: give the spine a shorter title or author"),
    ("near the fold on the front", "is 0.1 in from a spine fold, where the front keeps "
                                   "0.125 in clear: move it in or shorten it"),
    ("barcode", "is in the barcode's corner; move it or leave the corner to the background"),
])
def test_cover_preflight_keeps_marks_in_the_safe_areas(tmp_path, where, problem):
    """A mark too near an edge names the distance that applies there: 0.125 in from the
    trim and, on the back and front, from a fold; 0.0625 in from a fold on the spine."""
    g = CoverGeometry.of(SIX_BY_NINE, 100, "white")
    x, y = {"middle of the front": ((g.front.x0 + g.front.x1) / 2, g.height / 2),
            "near the trim": (g.front.x0 + INCH, g.height - 0.15 * INCH),
            "across the spine fold": (g.folds[0] - 5, g.height / 2),
            "near the fold on the front": (g.folds[1] + 0.1 * INCH, g.height / 2),
            "barcode": ((g.barcode.x0 + g.barcode.x1) / 2, g.barcode.y0 + 10)}[where]
    pdf = raw_cover(tmp_path / "cover.pdf", 100, x, y)
    check = next(c for c in preflight_cover(pdf, SIX_BY_NINE, 100, "white").checks
                 if c.name == "safe areas")
    assert check.ok == (problem is None), check.detail
    if problem:
        assert check.detail.startswith("text 'Word' at ") and check.detail.endswith(problem)


def test_spine_text_near_a_fold_is_told_the_spines_own_distance(tmp_path):
    """Spine text 0.04 in from a fold was said to be "within 0.125 in of the trim or a
    spine fold", where the spine's rule is 0.0625 in."""
    g = CoverGeometry.of(SIX_BY_NINE, 300, "white")
    fonts = load_fonts()
    pdf = tmp_path / "cover.pdf"
    canvas = Canvas(str(pdf), pagesize=(g.width, g.height), invariant=1)
    canvas.setFont(fonts.regular, 8)
    # down the spine, as its words are set: the descent towards the back's fold
    canvas.translate(g.folds[0] + 0.04 * INCH + 8 * fonts.extent("Word")[1], g.height / 2)
    canvas.rotate(-90)
    canvas.drawString(0, 0, "Word")
    canvas.showPage()
    canvas.save()
    check = next(c for c in preflight_cover(pdf, SIX_BY_NINE, 300, "white").checks
                 if c.name == "safe areas")
    assert not check.ok and check.detail.endswith(
        "is 0.04 in from a spine fold, where the spine keeps 0.0625 in clear: give the "
        "spine a shorter title or author"), check.detail


def test_the_cover_image_is_drawn_inside_the_front(tmp_path):
    from PIL import Image

    picture = tmp_path / "picture.png"
    Image.new("RGB", (1800, 1200), (200, 40, 40)).save(picture)
    settings = CoverSettings(title="T", image=str(picture))
    pdf = cover_pdf(tmp_path / "cover.pdf", 100, settings=settings)
    pictures = [box for what, box in marks(PdfReader(str(pdf)).pages[0]) if what == "a picture"]
    front = CoverGeometry.of(SIX_BY_NINE, 100, "white").front
    assert len(pictures) == 1
    box = pictures[0]
    assert front.x0 < box.x0 < box.x1 < front.x1
    assert box.width / box.height == pytest.approx(1.5, rel=1e-3)
    report = preflight_cover(pdf, SIX_BY_NINE, 100, "white", "picture.png")
    assert report.ok, report.format()
    check = next(c for c in report.checks if c.name == "pictures")
    ppi = round(1800 / (box.width / INCH))
    assert check.detail == f"1 picture, {ppi} ppi or more" and ppi >= 300


@pytest.mark.parametrize("pixels, fatal", [((300, 200), True), ((1200, 800), False)])
def test_a_cover_picture_under_300_ppi_fails_preflight_naming_what_it_needs(tmp_path,
                                                                            pixels, fatal):
    """A picture of 300 x 200 px passed preflight, placed at 40 ppi on the front: under
    300 ppi the pictures check fails, naming the image, its pixels, its ppi and the pixels
    300 ppi needs; under 200 ppi the cover fails, from 200 it is a warning."""
    from PIL import Image

    picture = tmp_path / "small.png"
    Image.new("RGB", pixels, (200, 40, 40)).save(picture)
    pdf = cover_pdf(tmp_path / "cover.pdf", 100,
                    settings=CoverSettings(title="T", image=str(picture)))
    box = next(b for what, b in marks(PdfReader(str(pdf)).pages[0]) if what == "a picture")
    report = preflight_cover(pdf, SIX_BY_NINE, 100, "white", "small.png")
    check = next(c for c in report.checks if c.name == "pictures")
    w, h = box.width / INCH, box.height / INCH
    ppi = round(pixels[0] / w)
    assert not check.ok and check.fatal == fatal and report.ok == (not fatal)
    assert re.fullmatch(
        rf"small\.png, {pixels[0]} x {pixels[1]} px, is placed at {w:.3g} x [\d.]+ in on "
        rf"the front: {ppi} ppi, under the 300 ppi print needs \(.*\); give one of at "
        rf"least {round(w * 300)} x {round(h * 300)} px", check.detail), check.detail
    mark = "FAIL" if fatal else "WARN"
    assert f"  {mark}  pictures: small.png" in report.format()
    assert report.format().startswith(f"preflight {pdf}: {'FAILED' if fatal else 'passed'}")


def test_an_unreadable_image_is_one_clear_error(tmp_path):
    from nanpure.layouts.cover import CoverError

    bad = tmp_path / "bad.png"
    bad.write_text("not a picture")
    with pytest.raises(CoverError, match="cannot read the cover image"):
        cover_pdf(tmp_path / "c.pdf", 100, settings=CoverSettings(title="T", image=str(bad)))


def test_too_much_back_text_is_refused():
    from nanpure.layouts.cover import CoverError

    long = CoverSettings(title="T", back=("word " * 2000,))
    with pytest.raises(CoverError, match="barcode"):
        render_cover(long, load_fonts(), SIX_BY_NINE, 100, io.BytesIO())


LONG_AUTHOR = ("A. Very-Long-Author-Name-That-Goes-On-And-On "
               "Smith-Jones-Featherstonehaugh-Cholmondeley")


@pytest.mark.parametrize("author, lines", [
    ("nanpure", 1),
    ("Margaret Featherstonehaugh-Cholmondeley-Smythe", 1),  # shrunk on one line
    (LONG_AUTHOR, 2),
])
def test_a_long_author_shrinks_then_wraps_inside_the_front(tmp_path, author, lines):
    settings = CoverSettings(title="Nightly Sudoku", author=author)
    pdf = cover_pdf(tmp_path / "cover.pdf", 100, settings=settings)
    front = CoverGeometry.of(SIX_BY_NINE, 100, "white").front
    pieces = [(what, box) for what, box in marks(PdfReader(str(pdf)).pages[0])
              if what.startswith("text") and box.x0 > front.x0
              and what[6:-1] in author and what != "text 'Nightly Sudoku'"]
    assert " ".join(what[6:-1] for what, _ in pieces) == author
    assert len(pieces) == lines
    assert all(front.x0 + 9 <= box.x0 and box.x1 <= front.x1 - 9 for _, box in pieces)
    assert preflight_cover(pdf, SIX_BY_NINE, 100, "white").ok


def test_an_author_too_long_for_two_lines_names_the_key():
    from nanpure.layouts.cover import CoverError

    settings = CoverSettings(title="T", author=" ".join([LONG_AUTHOR] * 3))
    with pytest.raises(CoverError, match=r"^the cover author 'A. Very-Long-Author-[^']*…' "
                                         r"does not fit the front cover in 2 "
                                         r"lines of 8 pt; shorten book.cover.author \(or "
                                         r"book.author, its default\) to \d+ characters or "
                                         r"fewer$"):
        render_cover(settings, load_fonts(), SIX_BY_NINE, 100, io.BytesIO())


def test_same_cover_twice_gives_the_same_bytes(tmp_path):
    sample = "." * 40 + "123456789" + "." * 32
    first = cover_pdf(tmp_path / "a.pdf", 120, sample=sample).read_bytes()
    second = cover_pdf(tmp_path / "b.pdf", 120, sample=sample).read_bytes()
    assert first == second


# ----------------------------------------------------------------------------- bleed

def one_section(qqwing_rows) -> list[BookSection]:
    rows = [r["puzzle"] for r in qqwing_rows if r["difficulty"] == "simple"][:4]
    from nanpure.generator import format_line, solve
    from nanpure.generator.board import parse_line

    return [BookSection("Easy", tuple(
        PuzzleRecord(id=k, puzzle=p, solution=format_line(solve(parse_line(p))), tier="easy",
                     score=200 + k, hardest="", techniques="", symmetry="none",
                     blanks=p.count("."), seed=k) for k, p in enumerate(rows)))]


def test_bleed_pages_have_trim_and_bleed_boxes(tmp_path, qqwing_rows):
    pdf = tmp_path / "book.pdf"
    build_book(one_section(qqwing_rows), BookSettings(title="T", page_size="6x9in",
                                                      bleed=True), str(pdf))
    pages = PdfReader(str(pdf)).pages
    # 6.125 x 9.25 in; the trim against the binding: left on right-hand pages
    b = 0.125 * INCH
    for number in (1, 2, 3, 4):
        page = pages[number - 1]
        assert [float(v) for v in page.mediabox] == [0, 0, 441, 666]
        assert [float(v) for v in page.bleedbox] == [0, 0, 441, 666]
        x0 = 0 if number % 2 else b
        assert [float(v) for v in page.trimbox] == [x0, b, x0 + 432, b + 648]
    report = preflight(pdf, SIX_BY_NINE, bleed=True)
    assert report.ok, report.format()
    # without bleed the pages are the trim size, which the bleed check refuses
    plain = tmp_path / "plain.pdf"
    build_book(one_section(qqwing_rows), BookSettings(title="T", page_size="6x9in"),
               str(plain))
    assert not preflight(plain, SIX_BY_NINE, bleed=True).ok
    assert preflight(plain, SIX_BY_NINE).ok


# ----------------------------------------------------------------------------- spine

LONG_TITLE = ("The Complete and Unabridged Collection of Nightly Sudoku Puzzles for Patient "
              "Solvers, Gathered from a Year of Runs and Arranged from the Gentlest Warm-Up "
              "Grids to the Hardest Puzzles that Need Chains, Fish and Forcing Nets")


def spine_texts(pdf: Path, pages: int, trim=SIX_BY_NINE,
                paper: str = "white") -> list[tuple[str, float]]:
    """The spine's pieces of text and their sizes (the width of their boxes across the
    spine, the font's ascent to descent, is the size in Vera)."""
    spine = CoverGeometry.of(trim, pages, paper).spine_box
    return [(what[6:-1], box.width) for what, box in marks(PdfReader(str(pdf)).pages[0])
            if what.startswith("text") and spine.x0 <= box.x0 and box.x1 <= spine.x1]


def test_long_spine_text_shrinks_but_not_under_6_pt(tmp_path):
    from nanpure.layouts.cover import MIN_SPINE_SIZE

    settings = CoverSettings(title=LONG_TITLE[:110], author="nanpure")
    pdf = cover_pdf(tmp_path / "cover.pdf", 300, settings=settings)
    [(title, size), (author, size_too)] = spine_texts(pdf, 300)
    assert (title, author) == (LONG_TITLE[:110], "nanpure")
    assert MIN_SPINE_SIZE <= size < 14 and size == pytest.approx(size_too)
    assert preflight_cover(pdf, SIX_BY_NINE, 300, "white").ok


@pytest.mark.parametrize("title, author, key", [
    # a title that fits the back in two lines, but not the spine beside a long author
    (LONG_TITLE[:140], "Alexandra Margaret Featherstonehaugh-Cholmondeley",
     "book.cover.title"),
    # an author that fits the front in two lines, but not the spine beside the title
    ("Nightly Sudoku Puzzles for Patient Solvers", LONG_TITLE[:168], "book.cover.author"),
])
def test_spine_text_too_long_for_6_pt_names_the_key_and_what_fits(tmp_path, title, author,
                                                                   key):
    """Spine text shrank in proportion to its length without a floor: the title of three
    lines on the front went on the spine in 4.6 pt, with a long author in 5.5 pt."""
    from nanpure.layouts.cover import CoverError

    settings = CoverSettings(title=title, author=author)
    with pytest.raises(CoverError, match=r"^the spine text '[^']*' by "
                                         r"'[^']*' does not fit the spine in 6 pt; shorten "
                                         + key.replace(".", r"\.") + r" \(or book\.\w+, its "
                                         r"default\) to (\d+) characters or fewer$") as exc:
        render_cover(settings, load_fonts(), SIX_BY_NINE, 300, io.BytesIO())
    most = int(exc.value.args[0].rsplit(" to ", 1)[1].split()[0])
    part = "title" if key.endswith("title") else "author"
    text = getattr(settings, part)
    fits = CoverSettings(**{**settings.__dict__, part: text[:most].rstrip()})
    cover_pdf(tmp_path / "fits.pdf", 300, settings=fits)
    assert min(size for _, size in spine_texts(tmp_path / "fits.pdf", 300)) >= 6 - 0.01
    longer = CoverSettings(**{**settings.__dict__, part: text[:most + 8]})
    with pytest.raises(CoverError, match="does not fit the spine"):
        render_cover(longer, load_fonts(), SIX_BY_NINE, 300, io.BytesIO())


def test_a_thin_spine_keeps_its_size_and_refuses_what_does_not_fit_it(tmp_path):
    """At 80 pages the spine has room for about 4 pt: a title that fits is set in that,
    one that does not is refused at that size rather than shrunk further."""
    from nanpure.layouts.cover import CoverError

    pdf = cover_pdf(tmp_path / "cover.pdf", 80)
    assert [round(size, 1) for _, size in spine_texts(pdf, 80)] == [4.0, 4.0]
    # each fits its own place on the front and back, not the two together on the spine
    settings = CoverSettings(title=LONG_TITLE[:150], author=LONG_TITLE[:150])
    with pytest.raises(CoverError, match=r"does not fit the spine in 3\.97 pt; shorten "
                                         r"book\.cover\.title"):
        render_cover(settings, load_fonts(), SIX_BY_NINE, 80, io.BytesIO())



#: Long titles for the spine: Japanese (in the CJK font, whose glyphs reach further above
#: the baseline than the Latin font's), Japanese with Latin words (both fonts in one
#: line), and Latin.
SPINE_TITLES = {
    "japanese": "ナンプレ 毎晩の数独パズル集 やさしい問題からむずかしい問題まで "
                "解き方のヒントと答えつき 六十問",
    "mixed": "ナンプレ 60問 Nightly Sudoku Puzzles from Easy to Hard 毎晩の数独パズル集",
    "latin": LONG_TITLE[:120],
}


@pytest.mark.skipif(CJK_FONT is None, reason="no CJK TrueType font installed "
                    "(apt-get install fonts-ipafont-gothic)")
@pytest.mark.parametrize("pages", [80, 90, 100, 120, 150, 300])
@pytest.mark.parametrize("language", list(SPINE_TITLES))
def test_a_long_title_on_the_spine_passes_the_covers_preflight(tmp_path, language, pages):
    """The spine placed its text by the Latin bold font's ascent and descent: a Japanese
    title, whose font reaches 0.88 of the size above the baseline to Vera's 0.76, ran past
    the spine's safe area, so that an 80-page 6 x 9 in cover that the layout passed
    failed preflight (and so did thicker ones, up to 150 pages, whose text the spine's
    width sized)."""
    settings = CoverSettings(title=SPINE_TITLES[language], author="nanpure")
    pdf = tmp_path / "cover.pdf"
    render_cover(settings, load_fonts(CJK_FONT), SIX_BY_NINE, pages, str(pdf))
    report = preflight_cover(pdf, SIX_BY_NINE, pages, "white")
    assert report.ok, report.format()
    # the whole title and author, in one or more runs of its fonts
    assert "".join(text for text, _ in spine_texts(pdf, pages)) == settings.title + "nanpure"


@pytest.mark.skipif(CJK_FONT is None, reason="no CJK TrueType font installed "
                    "(apt-get install fonts-ipafont-gothic)")
@pytest.mark.parametrize("title, author", [("ナンプレ 60問", "山田 太郎"),
                                           ("ナンプレ 60問", "Jane Q. Publisher"),
                                           ("Number Place 60", "山田 太郎")])
def test_a_japanese_spine_on_a_large_print_a5_cover_passes_preflight(tmp_path, title, author):
    """An A5 cover of 132 pages on cream paper failed preflight with 'ナンプレ' on its
    spine, too near a fold; Japanese and Latin titles and authors pass now."""
    pdf = tmp_path / "cover.pdf"
    trim = PAGE_SIZES["A5"]
    settings = CoverSettings(title=title, subtitle="やさしい問題からむずかしい問題まで",
                             author=author, paper="cream",
                             back=("論理だけで解ける60問のナンプレです。",))
    render_cover(settings, load_fonts(CJK_FONT), trim, 132, str(pdf))
    report = preflight_cover(pdf, trim, 132, "cream")
    assert report.ok, report.format()
    assert "".join(text for text, _ in spine_texts(pdf, 132, trim, "cream")) == title + author


@pytest.mark.skipif(CJK_FONT is None, reason="no CJK TrueType font installed "
                    "(apt-get install fonts-ipafont-gothic)")
@pytest.mark.parametrize("pages", [100, 150, 300])
def test_a_japanese_spine_too_long_is_refused_in_one_line_before_drawing(tmp_path, pages):
    """What the spine cannot hold at its least size is refused by the layout, naming the
    title and the key to shorten, and the count it gives makes a cover preflight
    passes (a title and author that each fit the front and back fit the thinner spines
    of 80 to 90 pages, whose text is smaller than 6 pt)."""
    from nanpure.layouts.cover import CoverError

    fonts = load_fonts(CJK_FONT)
    # each fits its own place, the title the back in two lines, the author the front
    title = SPINE_TITLES["japanese"] + " 第二版 上級者のための特別な問題と詳しい解説つき"
    settings = CoverSettings(title=title, author=AUTHOR_300[:90])
    out = io.BytesIO()
    with pytest.raises(CoverError, match=r"^the spine text 'ナンプレ 毎晩[^']*' by '[^']*' "
                                         r"does not fit the spine in 6 pt; shorten "
                                         r"book\.cover\.title \(or book\.title, its "
                                         r"default\) to (\d+) characters or fewer$") as exc:
        render_cover(settings, fonts, SIX_BY_NINE, pages, out)
    assert out.getvalue() == b""
    most = int(str(exc.value).rsplit(" to ", 1)[1].split()[0])
    pdf = tmp_path / "fits.pdf"
    render_cover(replace(settings, title=title[:most].rstrip()), fonts, SIX_BY_NINE, pages,
                 str(pdf))
    assert preflight_cover(pdf, SIX_BY_NINE, pages, "white").ok


#: An author of 300 characters.
AUTHOR_300 = ("Professor Doctor Alexandra Margaret Featherstonehaugh-Cholmondeley-Smythe of "
              "the Royal Society for Recreational Mathematics and Logic Puzzles, with "
              "Contributions from the Members of the Nightly Sudoku Circle of Patient and "
              "Persistent Solvers, Edited and Arranged by the Committee of the Annual Puzzle")


def test_the_count_a_refusal_gives_fits_the_whole_cover(tmp_path):
    """Each refusal counted the characters that fit its own place: an author too long for
    the front was told to shorten to 257 characters, which the spine then refused."""
    from nanpure.layouts.cover import CoverError

    letter = PAGE_SIZES["8.5x11in"]
    author = AUTHOR_300
    settings = CoverSettings(title="Nightly Sudoku", author=author)
    with pytest.raises(CoverError, match=r"^the cover author '[^']*' does not fit the front "
                                         r"cover in 2 lines of 8 pt; shorten "
                                         r"book\.cover\.author \(or book\.author, its "
                                         r"default\) to (\d+) characters or fewer$") as exc:
        render_cover(settings, load_fonts(), letter, 120, io.BytesIO())
    most = int(exc.value.args[0].rsplit(" to ", 1)[1].split()[0])
    fits = CoverSettings(title="Nightly Sudoku", author=author[:most])
    render_cover(fits, load_fonts(), letter, 120, io.BytesIO())
    with pytest.raises(CoverError):
        render_cover(CoverSettings(title="Nightly Sudoku", author=author[:most + 8]),
                     load_fonts(), letter, 120, io.BytesIO())


@pytest.mark.parametrize("trim", ["6x9in", "8.5x11in"])
def test_the_back_title_takes_two_lines_at_most(tmp_path, trim):
    """The back's title shrank to fit two lines, but at 8 pt took as many as it needed: a
    232-character title took four lines on a 6 x 9 in back."""
    from nanpure.layouts.cover import CoverError

    title = " ".join([LONG_TITLE] * 2)
    with pytest.raises(CoverError, match=r"^the cover title 'The Complete and Unabridged "
                                         r"Collection…' does not fit the back cover in 2 "
                                         r"lines of 8 pt; shorten book\.cover\.title \(or "
                                         r"book\.title, its default\) to (\d+) characters "
                                         r"or fewer$") as exc:
        render_cover(CoverSettings(title=title), load_fonts(), PAGE_SIZES[trim], 60,
                     io.BytesIO())
    most = int(exc.value.args[0].rsplit(" to ", 1)[1].split()[0])
    fits = title[:most].rstrip()
    pdf = cover_pdf(tmp_path / "cover.pdf", 60, trim=PAGE_SIZES[trim],
                    settings=CoverSettings(title=fits))
    back = CoverGeometry.of(PAGE_SIZES[trim], 60, "white").back
    lines = [(what[6:-1], box) for what, box in marks(PdfReader(str(pdf)).pages[0])
             if what.startswith("text") and box.x1 <= back.x1]
    assert len(lines) == 2 and " ".join(text for text, _ in lines) == fits
    # a box runs from the font's descent to its ascent: in Vera, the size
    assert all(box.y1 - box.y0 >= 8 - 0.01 for _, box in lines)
    assert preflight_cover(pdf, PAGE_SIZES[trim], 60, "white").ok
    with pytest.raises(CoverError, match="does not fit the back cover"):
        render_cover(CoverSettings(title=title[:most + 8]), load_fonts(), PAGE_SIZES[trim],
                     60, io.BytesIO())


def test_a_long_subtitle_keeps_to_the_upper_half_of_the_front(tmp_path):
    """The subtitle took as many lines as it needed, at 15 pt, over the picture and the
    author: a picture's room was left with less than no height."""
    from nanpure.layouts.cover import CoverError

    subtitle = " ".join([LONG_TITLE] * 4)
    settings = dict(title="Nightly Sudoku", author="nanpure")
    sample = "." * 40 + "123456789" + "." * 32
    with pytest.raises(CoverError, match=r"^the cover title 'Nightly Sudoku' and subtitle "
                                         r"'The Complete and Unabridged Collection…' do not "
                                         r"fit the upper half of the front cover; shorten "
                                         r"book\.cover\.subtitle \(or book\.subtitle, its "
                                         r"default\) to (\d+) characters or fewer$") as exc:
        render_cover(CoverSettings(subtitle=subtitle, **settings), load_fonts(), SIX_BY_NINE,
                     100, io.BytesIO(), sample)
    most = int(exc.value.args[0].rsplit(" to ", 1)[1].split()[0])
    assert len(LONG_TITLE) < most < len(subtitle)
    pdf = cover_pdf(tmp_path / "cover.pdf", 100, sample=sample,
                    settings=CoverSettings(subtitle=subtitle[:most], **settings))
    front = CoverGeometry.of(SIX_BY_NINE, 100, "white").front
    found = marks(PdfReader(str(pdf)).pages[0])
    words = [box for what, box in found if what.startswith("text") and box.x0 > front.x0
             and what[6:-1] in subtitle]
    middle = (front.y0 + front.y1) / 2
    assert len(words) > 5 and min(box.y0 for box in words) > middle
    assert preflight_cover(pdf, SIX_BY_NINE, 100, "white").ok
    with pytest.raises(CoverError, match="upper half of the front cover"):
        render_cover(CoverSettings(subtitle=subtitle[:most + 12], **settings), load_fonts(),
                     SIX_BY_NINE, 100, io.BytesIO())


def test_a_title_too_long_for_the_front_is_counted_for_the_whole_cover():
    """A title far too long for the front is refused there, with the count that fits the
    back too."""
    from nanpure.layouts.cover import CoverError

    def refusal(title: str) -> str:
        with pytest.raises(CoverError) as exc:
            render_cover(CoverSettings(title=title), load_fonts(), SIX_BY_NINE, 60,
                         io.BytesIO())
        return exc.value.args[0]

    front = refusal(" ".join([LONG_TITLE] * 12))
    back = refusal(" ".join([LONG_TITLE] * 2))
    assert re.match(r"^the cover title 'The Complete and Unabridged Collection…' does not "
                    r"fit the upper half of the front cover; shorten book\.cover\.title", front)
    assert "does not fit the back cover" in back
    assert front.rsplit(" to ", 1)[1] == back.rsplit(" to ", 1)[1]


@pytest.mark.parametrize("trim", ["6x9in", "8.5x11in"])
@pytest.mark.parametrize("length", [14, 90, 150])
def test_the_cover_rules_keep_clear_of_a_small_title(tmp_path, trim, length):
    """The rules stood a fraction of the title's size below it: under a title of 8 pt,
    about 2 pt from its descenders (1.9 pt on the front of an 8.5 x 11 in cover)."""
    size = PAGE_SIZES[trim]
    unit = size[0] / (6 * INCH)
    pdf = cover_pdf(tmp_path / "cover.pdf", 60, trim=size,
                    settings=CoverSettings(title=LONG_TITLE[:length]))
    found = marks(PdfReader(str(pdf)).pages[0])
    g = CoverGeometry.of(size, 60, "white")
    for side, width in ((g.front, 2.5 * unit), (g.back, 1.5 * unit)):
        [rule] = [box for what, box in found if what == "a line" and side.x0 < box.x0 < side.x1]
        title = [box for what, box in found if what.startswith("text")
                 and side.x0 < box.x0 < side.x1 and box.y0 > rule.y0]
        assert title and min(box.y0 for box in title) - (rule.y1 + width / 2) >= 5 * unit - 0.01


@pytest.mark.parametrize("trim", ["6x9in", "8.5x11in"])
def test_the_front_subtitle_is_never_larger_than_a_shrunk_title(trim):
    """A long title shrank to fit three lines (to 8 pt) while its subtitle stayed 15 pt."""
    from nanpure.layouts.cover import SUBTITLE_SIZE, cover_layout

    size = PAGE_SIZES[trim]
    unit = size[0] / (6 * INCH)
    long = CoverSettings(title=LONG_TITLE[:150], subtitle="Three hundred and sixty puzzles "
                         "in large print", author="nanpure")
    layout = cover_layout(long, load_fonts(), size, 100)
    assert layout.title.size < SUBTITLE_SIZE * unit and layout.subtitle.lines
    assert layout.subtitle.size == layout.title.size
    # a title that keeps a size over the subtitle's leaves the subtitle as it was
    layout = cover_layout(SETTINGS, load_fonts(), size, 100)
    assert layout.subtitle.size == SUBTITLE_SIZE * unit < layout.title.size


@pytest.mark.skipif(CJK_FONT is None, reason="no CJK TrueType font installed "
                    "(apt-get install fonts-ipafont-gothic)")
def test_a_mixed_japanese_cover_title_is_set_in_one_weight():
    """The CJK font has no bold: front and back titles that need it are regular
    throughout, their Latin runs too; a Latin title stays bold."""
    from nanpure.layouts.cover import cover_layout

    fonts = load_fonts(CJK_FONT)
    mixed = cover_layout(CoverSettings(title="ナンプレ 60問 Nightly Sudoku Puzzles"), fonts,
                         SIX_BY_NINE, 100)
    assert not mixed.title.bold and not mixed.back_title.bold
    latin = cover_layout(SETTINGS, fonts, SIX_BY_NINE, 100)
    assert latin.title.bold and latin.back_title.bold


def sheet_texts(pdf: Path) -> list[tuple[str, tuple[float, ...]]]:
    """Each piece of text of a cover in the order drawn, with its matrix on the sheet (its
    text matrix times the current matrix): (1, 0, 0, 1, x, y) for upright text, (0, -1, 1,
    0, x, y) for text turned a quarter clockwise."""
    found = []

    def visit(text, cm, tm, font, size):
        if text.strip():
            a, b, c, d, e, f = tm
            p, q, r, s, t, u = cm
            found.append((text.strip(), (a * p + b * r, a * q + b * s, c * p + d * r,
                                         c * q + d * s, e * p + f * r + t, e * q + f * s + u)))

    PdfReader(str(pdf)).pages[0].extract_text(visitor_text=visit)
    return found


def on_spine(pdf: Path, pages: int, trim=SIX_BY_NINE) -> list[tuple[str, tuple[float, ...]]]:
    spine = CoverGeometry.of(trim, pages, "white").spine_box
    return [(text, m) for text, m in sheet_texts(pdf) if spine.x0 <= m[4] <= spine.x1]


UPRIGHT, QUARTER, HALF = (1, 0, 0, 1), (0, -1, 1, 0), (-1, 0, 0, -1)


def turn(matrix: tuple[float, ...]) -> tuple[int, ...]:
    return tuple(round(v) for v in matrix[:4])


needs_cjk = pytest.mark.skipif(CJK_FONT is None, reason="no CJK TrueType font installed "
                               "(apt-get install fonts-ipafont-gothic)")


@needs_cjk
@pytest.mark.parametrize("pages", [80, 100, 300])
def test_a_vertical_spine_stacks_upright_characters_from_the_top(tmp_path, pages):
    """A Japanese book's spine carried its title as one line turned a quarter: each
    character on its side. Vertical writing sets each CJK character upright, one under the
    other down the spine's middle, the title above the author; a run of Latin words turned
    a quarter clockwise, as a whole; a number of two digits upright, its digits side by
    side in one square, in the CJK font; preflight passes."""
    from nanpure.layouts.cover import cover_layout

    fonts = load_fonts(CJK_FONT)
    settings = CoverSettings(title="ナンプレ 60問 Nightly Sudoku 2026", author="山田 太郎",
                             vertical_spine=True)
    pdf = tmp_path / "cover.pdf"
    render_cover(settings, fonts, SIX_BY_NINE, pages, str(pdf))
    assert preflight_cover(pdf, SIX_BY_NINE, pages, "white").ok
    drawn = on_spine(pdf, pages)
    assert [text for text, _ in drawn] == [*"ナンプレ", "60", "問", "Nightly Sudoku 2026",
                                           *"山田太郎"]
    assert [turn(m) for _, m in drawn] == [UPRIGHT] * 6 + [QUARTER] + [UPRIGHT] * 4
    tops = [m[5] for _, m in drawn]
    assert tops == sorted(tops, reverse=True) and len(set(tops)) == len(tops)
    # each upright piece centred across the spine, in the layout's size
    spine = cover_layout(settings, fonts, SIX_BY_NINE, pages).spine
    assert spine is not None
    centre = sum(CoverGeometry.of(SIX_BY_NINE, pages, "white").folds) / 2
    for glyph in spine.glyphs:
        if glyph.turn == 0:
            width = pdfmetrics.stringWidth(glyph.text, glyph.font, glyph.size)
            assert glyph.x + width / 2 == pytest.approx(centre)
    sizes = {glyph.text: glyph.size for glyph in spine.glyphs}
    assert sizes["ナ"] == sizes["山"] == sizes["Nightly Sudoku 2026"] == spine.size
    # "60" in the CJK font, whose digits are half a square wide, as large as the kana
    sixty = next(glyph for glyph in spine.glyphs if glyph.text == "60")
    assert (sixty.font, sixty.size, sixty.condense) == (fonts.cjk, spine.size, 1)
    assert pdfmetrics.stringWidth("60", sixty.font, sixty.size) == pytest.approx(spine.size)
    # the squares follow each other a size apart
    assert tops[0] - tops[1] == pytest.approx(spine.size, abs=1e-3)


@needs_cjk
def test_vertical_punctuation_is_turned_as_its_vertical_form_is_drawn(monkeypatch):
    """IPAGothic maps no vertical forms (U+FE10..FE48): brackets, the long vowel mark and
    the wave dash are turned a quarter clockwise, 、 and 。 a half turn (their mark to the
    upper right of their square); a font that has a vertical form sets it upright."""
    import nanpure.layouts.cover as cover_module
    from nanpure.layouts.cover import cover_layout

    fonts = load_fonts(CJK_FONT)
    settings = CoverSettings(title="「ナンプレ」、スーパー〜。", vertical_spine=True)
    spine = cover_layout(settings, fonts, SIX_BY_NINE, 200).spine
    assert spine is not None
    turns = {glyph.text: glyph.turn for glyph in spine.glyphs}
    assert turns == {"「": 90, "ナ": 0, "ン": 0, "プ": 0, "レ": 0, "」": 90, "、": 180,
                     "ス": 0, "ー": 90, "パ": 0, "〜": 90, "。": 180}
    # a half turn about the middle of its square: its box stays where the upright one was
    half = next(g for g in spine.glyphs if g.text == "、")
    upright = next(g for g in spine.glyphs if g.text == "ス")
    assert half.x - fonts.width("、", half.size) == pytest.approx(upright.x)
    # a font with the vertical form of 「 (here: a character it has, in its place)
    monkeypatch.setattr(cover_module, "VERTICAL_FORMS", {"「": "ヿ"})
    spine = cover_layout(settings, fonts, SIX_BY_NINE, 200).spine
    assert spine is not None
    assert [(g.text, g.turn) for g in spine.glyphs[:2]] == [("ヿ", 0), ("ナ", 0)]


@needs_cjk
@pytest.mark.parametrize("number, upright", [("7", True), ("60", True), ("100", False),
                                             ("2026", False)])
def test_one_or_two_digits_stand_upright_and_longer_numbers_are_turned(number, upright):
    from nanpure.layouts.cover import cover_layout

    settings = CoverSettings(title=f"ナンプレ{number}問", vertical_spine=True)
    spine = cover_layout(settings, load_fonts(CJK_FONT), SIX_BY_NINE, 200).spine
    assert spine is not None
    turns = [(g.text, g.turn) for g in spine.glyphs]
    assert turns[4] == (number, 0 if upright else 90) and len(turns) == 6


@needs_cjk
@pytest.mark.parametrize("pages", [100, 300])
def test_a_vertical_spine_too_long_is_refused_and_shrinks_to_6_pt(tmp_path, pages):
    """Vertical writing keeps the spine's guarantees: a long title shrinks down to 6 pt,
    further is refused in one line that names the key and the characters that fit, and
    that many make a cover preflight passes, with its text in 6 pt or more."""
    from nanpure.layouts.cover import MIN_SPINE_SIZE, CoverError, cover_layout

    fonts = load_fonts(CJK_FONT)
    # each fits its own place, the title the back in two lines, the author the front
    title = "ナンプレ" + "毎晩の数独パズル集やさしい問題からむずかしい問題まで" * 3
    settings = CoverSettings(title=title, author=AUTHOR_300[:90], vertical_spine=True)
    with pytest.raises(CoverError, match=r"^the spine text 'ナンプレ毎晩[^']*' by '[^']*' "
                                         r"does not fit the spine in 6 pt; shorten "
                                         r"book\.cover\.title \(or book\.title, its "
                                         r"default\) to (\d+) characters or fewer$") as exc:
        render_cover(settings, fonts, SIX_BY_NINE, pages, io.BytesIO())
    most = int(str(exc.value).rsplit(" to ", 1)[1].split()[0])
    fits = replace(settings, title=title[:most])
    pdf = tmp_path / "fits.pdf"
    render_cover(fits, fonts, SIX_BY_NINE, pages, str(pdf))
    assert preflight_cover(pdf, SIX_BY_NINE, pages, "white").ok
    drawn = on_spine(pdf, pages)
    assert [text for text, _ in drawn] == [*title[:most], AUTHOR_300[:90].strip()]
    assert [turn(m) for _, m in drawn] == [UPRIGHT] * most + [QUARTER]
    spine = cover_layout(fits, fonts, SIX_BY_NINE, pages).spine
    assert spine is not None and MIN_SPINE_SIZE - 1e-9 <= spine.size < 7
    assert {glyph.size for glyph in spine.glyphs} == {spine.size}
    with pytest.raises(CoverError, match="does not fit the spine"):
        render_cover(replace(settings, title=title[:most + 4]), fonts, SIX_BY_NINE, pages,
                     io.BytesIO())


def test_a_spine_not_vertical_is_one_turned_line_per_part(tmp_path):
    """Without vertical writing (every book but a Japanese one) the spine is as it was: the
    title and the author each one line turned a quarter clockwise."""
    pdf = cover_pdf(tmp_path / "cover.pdf", 200)
    drawn = on_spine(pdf, 200)
    assert [(text, turn(m)) for text, m in drawn] == [("Nightly Sudoku", QUARTER),
                                                      ("nanpure", QUARTER)]


@pytest.mark.parametrize("title", ["", " ", "\u3000"])
def test_a_vertical_spine_of_spaces_alone_is_drawn_blank(title):
    """A title of spaces alone has no piece to size the column by: it takes a square's
    width rather than failing on an empty or zero width."""
    from nanpure.layouts.cover import cover_layout

    settings = CoverSettings(title=title, vertical_spine=True)
    spine = cover_layout(settings, load_fonts(CJK_FONT), SIX_BY_NINE, 200).spine
    assert spine is not None and spine.glyphs == () and spine.size == 14


@needs_cjk
def test_small_kana_are_moved_up_and_right_in_vertical_writing(tmp_path):
    """Small kana were drawn where horizontal writing sets them, low in their square;
    vertical writing sets them in its middle and right of it. IPAGothic has no vertical
    forms to draw, so they are moved up and right by as far as it sets them below the
    middle of the square, which brings their outline's middle to the square's."""
    from nanpure.layouts.cover import cover_layout, small_kana_shift
    from nanpure.layouts.pages import font_reach, ink_box

    fonts = load_fonts(CJK_FONT)
    assert fonts.cjk is not None
    shift = small_kana_shift(fonts.cjk)
    assert 0.05 < shift < 0.15 and small_kana_shift(fonts.regular) == 0
    ascent, descent = font_reach(fonts.cjk)
    middles = [(box.y0 + box.y1) / 2 + shift for box in map(lambda ch: ink_box(fonts.cjk, ch),
                                                            "ゃッョ") if box]
    assert len(middles) == 3
    assert all(abs(m - (ascent - descent) / 2) < 0.05 for m in middles)
    # ツ and ッ one under the other: the small one a square lower, less the shift, and
    # the shift right of it (at 200 pages the column has room for it in the middle)
    settings = CoverSettings(title="ナンプレ ショッキング ツッ", vertical_spine=True)
    spine = cover_layout(settings, fonts, SIX_BY_NINE, 200).spine
    assert spine is not None
    big, small = spine.glyphs[-2:]
    assert (big.text, small.text) == ("ツ", "ッ")
    assert small.x - big.x == pytest.approx(shift * spine.size)
    assert big.y - small.y == pytest.approx((1 - shift) * spine.size)
    centre = sum(CoverGeometry.of(SIX_BY_NINE, 200, "white").folds) / 2
    assert big.x + spine.size / 2 == pytest.approx(centre)
    pdf = tmp_path / "cover.pdf"
    render_cover(settings, fonts, SIX_BY_NINE, 200, str(pdf))
    assert preflight_cover(pdf, SIX_BY_NINE, 200, "white").ok


#: A title that fills a 300-page spine's length, a small kana at its top.
SMALL_FIRST = "ッ" * 4 + "ナンプレ" * 21


@needs_cjk
@pytest.mark.parametrize("title, pages", [("ナンプレ ショッキング 60問", 80),
                                          ("ナンプレ ショッキング 60問", 100),
                                          ("ナンプレ ショッキング 60問", 130),
                                          ("ナンプレ ショッキング 60問", 300),
                                          (SMALL_FIRST, 100), (SMALL_FIRST, 300)],
                         ids=["80", "100", "130", "300", "small-first-100",
                              "small-first-300"])
def test_small_kana_moved_out_of_their_squares_keep_the_spines_clearance(tmp_path, pages,
                                                                          title):
    """A small kana's box, moved right, and up out of the top square of a title that
    fills the spine's length, stays inside the spine's area: the column is narrowed and
    moved left for it on a spine its width limits, the title lowered by the rise."""
    from nanpure.layouts.cover import SAFE, SPINE_CLEAR, cover_layout, small_kana_shift
    from nanpure.layouts.pages import font_reach

    fonts = load_fonts(CJK_FONT)
    settings = CoverSettings(title=title, author="山田 太郎", vertical_spine=True)
    pdf = tmp_path / "cover.pdf"
    render_cover(settings, fonts, SIX_BY_NINE, pages, str(pdf))
    report = preflight_cover(pdf, SIX_BY_NINE, pages, "white")
    assert report.ok, [check.detail for check in report.checks if not check.ok]
    spine = cover_layout(settings, fonts, SIX_BY_NINE, pages).spine
    assert spine is not None
    area = CoverGeometry.of(SIX_BY_NINE, pages, "white").spine_box
    small = next(glyph for glyph in spine.glyphs if glyph.text == "ッ")
    assert fonts.cjk is not None
    shift = small_kana_shift(fonts.cjk)
    room = area.width - 2 * SPINE_CLEAR
    if pages < 300:  # the width limits the size: the moved kana's box at the clearance
        assert spine.size * (1 + shift) == pytest.approx(room)
        assert small.x + spine.size == pytest.approx(area.x1 - SPINE_CLEAR)
    else:  # in the middle of a spine with room for it
        assert spine.size * (1 + shift) < room
        assert small.x + spine.size / 2 == pytest.approx((area.x0 + area.x1) / 2
                                                         + shift * spine.size)
    if title == SMALL_FIRST and pages == 300:  # the length limits it: its top at the edge
        assert spine.size < 14
        top = small.y + font_reach(fonts.cjk)[0] * spine.size
        assert top == pytest.approx(area.y1 - SAFE)


@needs_cjk
def test_upright_digits_without_the_cjk_fonts_are_condensed_to_their_square(tmp_path,
                                                                            monkeypatch):
    """Digits the CJK font lacks are set in the Latin font, as tall as the square allows
    (Vera reaches 1.17 squares from its ascent to its descent) and condensed, not shrunk
    further, to its width: drawn narrowed, as preflight reads them."""
    from nanpure.layouts.cover import cover_layout
    from nanpure.layouts.pages import Fonts, font_reach

    fonts = load_fonts(CJK_FONT)
    covers = Fonts.cjk_covers
    monkeypatch.setattr(Fonts, "cjk_covers",
                        lambda self, text: not text.isdigit() and covers(self, text))
    settings = CoverSettings(title="ナンプレ60問", vertical_spine=True)
    spine = cover_layout(settings, fonts, SIX_BY_NINE, 200).spine
    assert spine is not None
    sixty = next(glyph for glyph in spine.glyphs if glyph.text == "60")
    ascent, descent = font_reach(fonts.regular)
    assert sixty.font == fonts.regular
    assert sixty.size == pytest.approx(spine.size / (ascent + descent))
    width = pdfmetrics.stringWidth("60", sixty.font, sixty.size)
    assert sixty.condense < 1 and width * sixty.condense == pytest.approx(spine.size)
    pdf = tmp_path / "cover.pdf"
    render_cover(settings, fonts, SIX_BY_NINE, 200, str(pdf))
    [matrix] = [m for text, m in on_spine(pdf, 200) if text == "60"]
    assert matrix[0] == pytest.approx(sixty.condense) and matrix[3] == pytest.approx(1)
