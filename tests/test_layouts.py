"""Drawing books from plain records: page geometry, the page plan, fonts, determinism."""

from __future__ import annotations

import io
import re
from dataclasses import replace
from itertools import pairwise

import pytest
from conftest import CJK_FONT
from ink import InkCanvas
from pypdf import PdfReader

from nanpure.generator import format_line, solve
from nanpure.generator.board import parse_line
from nanpure.layouts.book import (
    LARGE_PRINT_DIGITS,
    MIN_PAGES,
    BookSection,
    BookSettings,
    LayoutError,
    build_book,
    check_text,
    digit_sizes,
    plan_book,
    render_book,
    title_page,
)
from nanpure.layouts.grid import cell_digits
from nanpure.layouts.pages import (
    ANSWER_TEMPLATES,
    INCH,
    MIN_OUTSIDE,
    PAGE_SIZES,
    Box,
    Margins,
    gutter_for,
    live_area,
    load_fonts,
)
from nanpure.layouts.preflight import marks, preflight
from nanpure.record import PuzzleRecord


def records(rows: list[dict[str, str]], grade: str, n: int,
            first_id: int = 1) -> tuple[PuzzleRecord, ...]:
    """Book records of the first ``n`` QQWing reference puzzles (``rows``) of a grade."""
    puzzles = [r["puzzle"] for r in rows if r["difficulty"] == grade][:n]
    assert len(puzzles) == n
    out = []
    for k, text in enumerate(puzzles):
        solution = format_line(solve(parse_line(text)))
        out.append(PuzzleRecord(id=first_id + k, puzzle=text, solution=solution,
                                tier="easy" if grade == "simple" else "hard", score=100 + k,
                                hardest="", techniques="", symmetry="none",
                                blanks=text.count("."), seed=5000 + k))
    return tuple(out)


@pytest.fixture(scope="module")
def sections(qqwing_rows) -> list[BookSection]:
    return [BookSection("Easy", records(qqwing_rows, "simple", 9)),
            BookSection("Hard", records(qqwing_rows, "expert", 5, first_id=100))]


def pdf_of(sections, **settings) -> tuple[bytes, object]:
    out = io.BytesIO()
    plan = build_book(sections, BookSettings(title="Test Book", **settings), out)
    return out.getvalue(), plan


# ----------------------------------------------------------------------------- geometry

@pytest.mark.parametrize("pages, inches", [
    (24, 0.375), (150, 0.375), (151, 0.5), (300, 0.5), (301, 0.625), (500, 0.625),
    (501, 0.75), (700, 0.75), (701, 0.875), (2000, 0.875)])
def test_gutter_grows_with_the_page_count(pages, inches):
    assert gutter_for(pages) == pytest.approx(inches * INCH)


@pytest.mark.parametrize("name", sorted(PAGE_SIZES))
def test_margins_mirror_on_facing_pages(name):
    size = PAGE_SIZES[name]
    margins = Margins.for_pages(320)
    recto, verso = live_area(7, size, margins), live_area(8, size, margins)
    assert recto.x0 == pytest.approx(margins.inside)  # binding on the left of a right page
    assert size[0] - verso.x1 == pytest.approx(margins.inside)
    assert size[0] - recto.x1 >= MIN_OUTSIDE and verso.x0 >= MIN_OUTSIDE
    assert recto.width == pytest.approx(verso.width)


def test_cells_show_givens_and_light_filled_digits():
    puzzle = "1." + "." * 79
    solution = "12" + "3" * 79
    assert cell_digits(puzzle, None)[:2] == [(1, True), (0, False)]
    assert cell_digits(puzzle, solution)[:2] == [(1, True), (2, False)]


# ----------------------------------------------------------------------------- the plan

def test_plan_pads_to_an_even_count_of_at_least_24_with_notes(sections):
    plan = plan_book(sections, BookSettings(title="T"))
    kinds = [p.kind for p in plan.pages]
    assert plan.page_count >= MIN_PAGES and plan.page_count % 2 == 0
    assert kinds[:4] == ["title", "imprint", "contents", "how-to-play"]
    assert kinds[-1] == "notes"
    assert kinds.count("section") == 2 and kinds.count("answers-title") == 1


@pytest.mark.parametrize("per_page, answers", [(1, 4), (2, 6), (4, 9), (6, 12)])
def test_every_puzzle_and_answer_lands_on_its_page(sections, per_page, answers):
    plan = plan_book(sections, BookSettings(title="T", puzzles_per_page=per_page,
                                            answers_per_page=answers))
    by_number = {p.number: p for p in plan.pages}
    assert [p.number for p in plan.placements] == list(range(1, 15))
    for placed in plan.placements:
        assert placed in by_number[placed.page].items
        assert by_number[placed.page].kind == "puzzles"
        assert placed in by_number[placed.answer_page].items
        assert by_number[placed.answer_page].kind == "answers"
    assert all(len(p.items) <= per_page for p in plan.pages if p.kind == "puzzles")
    assert all(len(p.items) <= answers for p in plan.pages if p.kind == "answers")
    assert plan.page_count % 2 == 0


def test_a_long_book_needs_no_notes_pages_when_already_even(qqwing_rows):
    many = [BookSection("All", records(qqwing_rows, "simple", 60))]
    plan = plan_book(many, BookSettings(title="T", puzzles_per_page=1, answers_per_page=12))
    assert plan.page_count % 2 == 0 and plan.page_count > MIN_PAGES
    assert sum(p.kind == "notes" for p in plan.pages) <= 1


def test_settings_reject_unknown_densities_and_crowded_large_print():
    with pytest.raises(LayoutError, match="puzzles_per_page"):
        BookSettings(title="T", puzzles_per_page=3)
    with pytest.raises(LayoutError, match="answers_per_page"):
        BookSettings(title="T", answers_per_page=5)
    with pytest.raises(LayoutError, match="large_print"):
        BookSettings(title="T", large_print=True, puzzles_per_page=2)
    with pytest.raises(LayoutError, match="no puzzles"):
        plan_book([], BookSettings(title="T"))


#: Trims whose large-print answers a page, chosen for a book of any length (the widest
#: gutter), leave room for one more template in a thin book.
ROOM_FOR_MORE_ANSWERS_IN_A_THIN_BOOK = {"8x10in"}


@pytest.mark.parametrize("name", sorted(PAGE_SIZES))
def test_large_print_digits_are_at_least_16_points_in_puzzles_and_answers(sections, name):
    settings = BookSettings(title="T", page_size=name, large_print=True)
    assert settings.puzzles_per_page == 1
    assert min(digit_sizes(plan_book(sections, settings))) >= LARGE_PRINT_DIGITS
    # the most answers a page that keep large digits: one more template is too small
    larger = min((n for n in ANSWER_TEMPLATES if n > settings.answers_per_page), default=None)
    if larger is not None:
        crowded = BookSettings(title="T", page_size=name, large_print=True,
                               answers_per_page=larger)
        if name in ROOM_FOR_MORE_ANSWERS_IN_A_THIN_BOOK:
            # the default allows for the widest gutter: a thin book's holds one more
            assert digit_sizes(plan_book(sections, crowded))[1] >= LARGE_PRINT_DIGITS
            return
        assert digit_sizes(plan_book(sections, crowded))[1] < LARGE_PRINT_DIGITS
        with pytest.raises(LayoutError, match="answers too"):
            render_book(plan_book(sections, crowded), io.BytesIO())


def test_messages_put_an_before_a_size_read_with_a_vowel(sections):
    crowded = BookSettings(title="T", page_size="A5", large_print=True, answers_per_page=2)
    with pytest.raises(LayoutError, match=r"do not fit 2 to an A5 page; set answers_per_page"):
        render_book(plan_book(sections, crowded), io.BytesIO())


@pytest.mark.parametrize("name, density", [
    ("6x9in", (2, 6)), ("A5", (2, 6)), ("8.5x11in", (4, 9)), ("8.25x11in", (4, 9)),
    ("A4", (4, 9))])
def test_puzzles_and_answers_a_page_follow_the_page_size_unless_given(name, density):
    settings = BookSettings(title="T", page_size=name)
    assert (settings.puzzles_per_page, settings.answers_per_page) == density
    given = BookSettings(title="T", page_size=name, puzzles_per_page=6, answers_per_page=12)
    assert (given.puzzles_per_page, given.answers_per_page) == (6, 12)


# ----------------------------------------------------------------------------- the PDF

@pytest.mark.parametrize("name, per_page, answers", [
    ("6x9in", 2, 6), ("A4", 6, 9), ("A5", 1, 4), ("B5", 4, 12), ("letter", 6, 6),
    ("8.5x11in", 4, 9)])
def test_pdf_has_the_trim_size_an_even_page_count_and_embedded_fonts(
        tmp_path, sections, name, per_page, answers):
    pdf = tmp_path / "book.pdf"
    plan = build_book(sections, BookSettings(title="T", page_size=name,
                                             puzzles_per_page=per_page,
                                             answers_per_page=answers), str(pdf))
    report = preflight(pdf, PAGE_SIZES[name])
    assert report.ok, report.format()
    assert report.pages == plan.page_count


def test_pages_show_numbers_tiers_and_answer_references(sections):
    data, plan = pdf_of(sections)
    reader = PdfReader(io.BytesIO(data))
    for placed in plan.placements[::4]:
        page_text = reader.pages[placed.page - 1].extract_text()
        assert placed.section in page_text and placed.puzzle.tier in page_text
        assert str(placed.number) in page_text
        answer_text = reader.pages[placed.answer_page - 1].extract_text()
        assert f"page {placed.page}" in answer_text
    # folios: every page after the imprint carries its own number
    for number in range(3, plan.page_count + 1):
        assert str(number) in reader.pages[number - 1].extract_text().split()


def test_same_records_give_byte_identical_pdfs(sections):
    first, _ = pdf_of(sections, subtitle="s", author="a")
    second, _ = pdf_of(sections, subtitle="s", author="a")
    assert first == second


def test_text_the_font_lacks_needs_a_cjk_font(sections):
    settings = BookSettings(title="ナンプレ")
    with pytest.raises(LayoutError, match="cjk_font"):
        check_text(settings, sections, load_fonts(None))


@pytest.mark.skipif(CJK_FONT is None, reason="no CJK TrueType font installed "
                    "(apt-get install fonts-ipafont-gothic)")
def test_characters_the_named_font_lacks_are_all_named_with_what_to_do(sections):
    settings = BookSettings(title="数独 🧩 🎲", cjk_font=CJK_FONT)
    with pytest.raises(LayoutError) as exc:
        check_text(settings, sections, load_fonts(CJK_FONT))
    assert str(exc.value) == (f"the title '数独 🧩 🎲' has '🧩' and '🎲', which neither the "
                              f"built-in font nor {CJK_FONT} has: remove them, or name a "
                              ".ttf file that has them in book.cjk_font")


@pytest.mark.skipif(CJK_FONT is None, reason="no CJK TrueType font installed "
                    "(apt-get install fonts-ipafont-gothic)")
def test_japanese_title_renders_with_a_cjk_font(sections):
    data, _ = pdf_of(sections, subtitle="ナンプレ 100問", cjk_font=CJK_FONT)
    reader = PdfReader(io.BytesIO(data))
    assert "ナンプレ" in reader.pages[0].extract_text()
    report_fonts = {str(f.get_object()["/BaseFont"]).split("+")[-1]
                    for f in reader.pages[0]["/Resources"]["/Font"].values()}
    assert len(report_fonts) >= 2  # the CJK face alongside the Latin one


def test_render_refuses_large_print_that_cannot_fit(sections, monkeypatch):
    import nanpure.layouts.book as book

    monkeypatch.setattr(book, "LARGE_PRINT_DIGITS", 400.0)
    plan = plan_book(sections, BookSettings(title="T", large_print=True, puzzles_per_page=1))
    with pytest.raises(LayoutError, match="large print"):
        render_book(plan, io.BytesIO())


@pytest.mark.parametrize("n_sections", [15, 16, 17, 40])
def test_many_sections_spill_the_contents_onto_more_pages(sections, n_sections):
    puzzle = sections[0].puzzles[0]
    many = [BookSection(f"Part {k}", (puzzle,)) for k in range(n_sections)]
    plan = plan_book(many, BookSettings(title="T", puzzles_per_page=6))
    rows = [row for p in plan.pages if p.kind == "contents" for row in p.lines]
    assert [r[0] for r in rows if r[0].startswith("Part")] == [s.title for s in many]
    assert plan.page_count % 2 == 0
    by_number = {p.number: p for p in plan.pages}
    assert all(by_number[on].heading == title for title, _, on in rows)


def test_a_section_may_set_its_own_puzzles_per_page(sections):
    one_a_page = BookSection("Easy", sections[0].puzzles, puzzles_per_page=1)
    plan = plan_book([one_a_page, sections[1]], BookSettings(title="T", puzzles_per_page=4))
    pages = [p for p in plan.pages if p.kind == "puzzles"]
    assert [(p.heading, p.per_page, len(p.items)) for p in pages] == \
        [("Easy", 1, 1)] * 9 + [("Hard", 4, 4), ("Hard", 4, 1)]


# ----------------------------------------------------------------------------- long titles

LONG_SECTION = "Medium: Puzzles That Need Pairs, Pointing and Box/Line Reduction"  # 64


def text_boxes(data: bytes, number: int) -> list[tuple[str, Box]]:
    """The text marks of page ``number`` of a PDF, as (what, box)."""
    return [(what, box) for what, box in marks(PdfReader(io.BytesIO(data)).pages[number - 1])
            if what.startswith("text")]


def apart(a: Box, b: Box) -> bool:
    return a.x1 <= b.x0 or b.x1 <= a.x0 or a.y1 <= b.y0 or b.y1 <= a.y0


def test_a_long_section_title_wraps_in_the_contents_clear_of_its_page_number(sections):
    long = [BookSection(LONG_SECTION, sections[0].puzzles), sections[1]]
    data, plan = pdf_of(long, page_size="6x9in")
    contents = next(p for p in plan.pages if p.kind == "contents")
    area = live_area(contents.number, plan.size, plan.margins)
    boxes = text_boxes(data, contents.number)
    title = [box for what, box in boxes if "Pairs" in what or "Reduction" in what]
    assert len(title) == 2  # two lines
    on = str(next(p.number for p in plan.pages if p.heading == LONG_SECTION))
    number = next(box for what, box in boxes if what == f"text {on!r}")
    assert all(apart(box, number) for box in title)
    assert number.y0 == pytest.approx(min(box.y0 for box in title))  # on the last line
    assert all(area.x0 - 0.01 <= box.x0 and box.x1 <= area.x1 + 0.01 for _, box in boxes)
    # the rows after it move down by the extra line: none overlaps another
    assert all(apart(a, b) for k, (_, a) in enumerate(boxes) for _, b in boxes[k + 1:])


def test_a_long_section_title_is_cut_short_in_the_running_head(sections):
    long = [BookSection(LONG_SECTION, sections[0].puzzles)]
    data, plan = pdf_of(long, page_size="6x9in")
    reader = PdfReader(io.BytesIO(data))
    for page in [p for p in plan.pages if p.kind == "puzzles"][:2]:  # a verso and a recto
        head = reader.pages[page.number - 1].extract_text().splitlines()[:2]
        assert "Medium: Puzzles That Need Pairs, Pointing and Box/Line\u2026" in head
        boxes = text_boxes(data, page.number)
        title = next(box for what, box in boxes if "Medium" in what)
        numbers = next(box for what, box in boxes if "puzzles" in what)
        assert title.x1 <= numbers.x0 - 8 or numbers.x1 <= title.x0 - 8  # an em apart


def test_a_section_title_that_fits_keeps_its_words(sections):
    fits = "Gentle Warm-Up Puzzles for the Morning Commute Home"  # 51
    data, plan = pdf_of([BookSection(fits, sections[0].puzzles)], page_size="6x9in")
    reader = PdfReader(io.BytesIO(data))
    page = next(p for p in plan.pages if p.kind == "puzzles")
    assert fits in reader.pages[page.number - 1].extract_text().splitlines()[:2]
    contents = next(p for p in plan.pages if p.kind == "contents")
    assert fits in reader.pages[contents.number - 1].extract_text().splitlines()


def test_a_section_title_too_long_for_the_contents_is_refused_with_what_fits(sections):
    title = " ".join([LONG_SECTION] * 4)
    settings = BookSettings(title="T", page_size="6x9in")
    with pytest.raises(LayoutError, match=r"^section 'Medium: Puzzles That Need Pairs…': "
                                          r"its title needs more than 3 lines in the contents "
                                          r"of a 6x9in book; shorten the title to (\d+) "
                                          r"characters or fewer$") as exc:
        plan_book([BookSection(title, sections[0].puzzles)], settings)
    most = int(re.search(r"to (\d+) characters", str(exc.value)).group(1))
    assert 120 < most < len(title)
    plan_book([BookSection(title[:most], sections[0].puzzles)], settings)
    with pytest.raises(LayoutError, match="shorten the title"):
        plan_book([BookSection(title[:most + 12], sections[0].puzzles)], settings)


@pytest.mark.parametrize("name, bleed", [("A5", True), ("6x9in", False)])
def test_the_answers_divider_keeps_its_note_inside_the_text_column(sections, name, bleed,
                                                                    tmp_path):
    """In large print on a narrow trim the divider's note ("Bold digits were given; ...")
    was one line wider than the text column, into the gutter; it wraps now, and the
    book passes a preflight of every page's text."""
    pdf, plan = pdf_of(sections, page_size=name, large_print=True, bleed=bleed)
    number = plan.first_page("answers-title")
    page = PdfReader(io.BytesIO(pdf)).pages[number - 1]
    shift = 0.0 if not bleed or number % 2 else 0.125 * INCH  # the bleed left of a verso
    area = live_area(number, PAGE_SIZES[name], plan.margins)
    texts = [(what, b) for what, b in marks(page) if what.startswith("text")]
    assert len(texts) > 3  # the heading, the note's lines and the folio
    for what, box in texts:
        assert area.x0 + shift - 0.01 <= box.x0 and box.x1 <= area.x1 + shift + 0.01, what
    path = tmp_path / "book.pdf"
    path.write_bytes(pdf)
    report = preflight(path, PAGE_SIZES[name], bleed=bleed)
    assert report.ok, report.format()


@pytest.mark.parametrize("side", [120.0, 270.0, 432.0])
def test_a_grids_ink_stays_inside_its_square(side):
    """Margins (the gutter at the binding) are measured to the ink: the heavy border was
    centred on the grid's edge, so half its width, 1.28 pt on a large-print grid, lay in
    the margin."""
    from nanpure.layouts.grid import GridStyle, _draw_lines

    canvas = InkCanvas()
    _draw_lines(canvas, 50.0, 60.0, side, GridStyle.for_size(side))  # type: ignore[arg-type]
    x0, y0, x1, y1 = canvas.extent()
    assert (x0, y0) == pytest.approx((50.0, 60.0)) and (x1, y1) == pytest.approx(
        (50.0 + side, 60.0 + side))


#: A title of 260 characters: the title page sets it in 8 pt, in five lines on 6 x 9 in.
LONG_TITLE = ("The Complete and Unabridged Collection of Nightly Sudoku Puzzles for Patient "
              "Solvers, Gathered from a Year of Runs and Arranged from the Gentlest Warm-Up "
              "Grids to the Hardest Puzzles that Need Chains, Fish and Forcing Nets, with "
              "Hints and Answers")


def title_page_marks(data: bytes) -> tuple[list[Box], Box, list[Box]]:
    """The title page's title lines, rule and subtitle lines (the text under the rule,
    the author's at the foot left out), top to bottom."""
    found = marks(PdfReader(io.BytesIO(data)).pages[0])
    [rule] = [box for what, box in found if what == "a line"]
    texts = sorted((box for what, box in found if what.startswith("text")),
                   key=lambda box: -box.y1)
    above = [box for box in texts if box.y0 > rule.y0]
    below = [box for box in texts if box.y0 < rule.y0 and box.y0 > 200]
    return above, rule, below


@pytest.mark.parametrize("title", ["Test Book", LONG_TITLE[:120], LONG_TITLE])
@pytest.mark.parametrize("size", ["6x9in", "8.5x11in"])
def test_the_title_pages_rule_keeps_clear_of_the_title_and_the_subtitle(sections, title,
                                                                         size):
    """A title set small (8 pt) put the rule 1.5 pt above the subtitle's ascenders: the
    rule stood a fraction of the title's size below it, the subtitle a fixed step below
    that."""
    out = io.BytesIO()
    settings = BookSettings(title=title, subtitle="Sudoku puzzles, easy to hard",
                            author="nanpure", page_size=size)
    build_book(sections, settings, out)
    title_lines, rule, subtitle = title_page_marks(out.getvalue())
    assert len(subtitle) == 1 and title_lines
    half = 1.2 / 2  # the rule's width
    assert title_lines[-1].y0 - (rule.y1 + half) >= 5 - 0.01  # to the PDF's precision
    assert (rule.y0 - half) - subtitle[0].y1 >= 5 - 0.01


def test_a_title_too_long_for_the_title_page_is_refused_with_what_fits(sections):
    """The title shrinks to 8 pt and then takes as many lines as it needs: past some
    length it would run into the author."""
    title = " ".join([LONG_TITLE] * 12)
    settings = dict(subtitle="Sudoku puzzles", author="nanpure", page_size="6x9in")
    with pytest.raises(LayoutError, match=r"^book\.title 'The Complete and Unabridged "
                                          r"Collection…': the title and the subtitle do not "
                                          r"fit the title page of a 6x9in book above the "
                                          r"author, even in 8 pt; shorten book\.title to "
                                          r"(\d+) characters or fewer$") as exc:
        plan_book(sections, BookSettings(title=title, **settings))
    most = int(re.search(r"to (\d+) characters", str(exc.value)).group(1))
    assert len(LONG_TITLE) < most < len(title)
    out = io.BytesIO()
    build_book(sections, BookSettings(title=title[:most], **settings), out)
    with pytest.raises(LayoutError, match="shorten book.title"):
        plan_book(sections, BookSettings(title=title[:most + 12], **settings))


#: An author of 300 characters: seven lines on the title page of a 6 x 9 in book.
LONG_AUTHOR = ("Professor Doctor Alexandra Margaret Featherstonehaugh-Cholmondeley-Smythe of "
               "the Royal Society for Recreational Mathematics and Logic Puzzles, with "
               "Contributions from the Members of the Nightly Sudoku Circle of Patient and "
               "Persistent Solvers, Edited and Arranged by the Committee of the Annual Puzzle")


@pytest.mark.parametrize("size", ["6x9in", "8.5x11in", "A5"])
def test_a_long_author_stays_on_the_title_page(sections, size):
    """The author's lines went down from 12% up the page, as many as it took: a
    300-character author ran past the foot of the live area and off the page."""
    assert len(LONG_AUTHOR) == 300
    out = io.BytesIO()
    plan = build_book(sections, BookSettings(title="Test Book", subtitle="Sudoku puzzles",
                                             author=LONG_AUTHOR, page_size=size), out)
    box = live_area(1, PAGE_SIZES[size], plan.margins)
    texts = [b for what, b in marks(PdfReader(io.BytesIO(out.getvalue())).pages[0])
             if what.startswith("text")]
    assert len(texts) > 4  # the title, the subtitle and the author's lines
    assert all(box.y0 - 0.01 <= b.y0 and b.y1 <= box.y1 + 0.01 for b in texts)
    ordered = sorted(texts, key=lambda b: -b.y1)
    assert all(upper.y0 >= lower.y1 - 0.01 for upper, lower in pairwise(ordered))
    # an author that fits where it stood is placed as before, 12% up the page
    short = BookSettings(title="Test Book", author="nanpure", page_size=size)
    assert title_page(short, load_fonts(), box).author[0][1] == box.y0 + box.height * 0.12


def test_an_author_too_long_for_the_title_page_is_refused_with_what_fits(sections):
    author = " ".join([LONG_AUTHOR] * 3)
    settings = dict(title="Test Book", subtitle="Sudoku puzzles", page_size="6x9in")
    with pytest.raises(LayoutError, match=r"^book\.author 'Professor Doctor Alexandra "
                                          r"Margaret…': the author does not fit the title "
                                          r"page of a 6x9in book under the title and the "
                                          r"subtitle; shorten book\.author to (\d+) "
                                          r"characters or fewer$") as exc:
        plan_book(sections, BookSettings(author=author, **settings))
    most = int(re.search(r"to (\d+) characters", str(exc.value)).group(1))
    assert len(LONG_AUTHOR) < most < len(author)
    build_book(sections, BookSettings(author=author[:most], **settings), io.BytesIO())
    with pytest.raises(LayoutError, match="shorten book.author"):
        plan_book(sections, BookSettings(author=author[:most + 12], **settings))


@pytest.mark.parametrize("start, lines", [(30.0, 3), (34.5, 3), (20 * 8.5 / 6, 2)])
def test_a_fitted_title_is_not_set_under_8_pt(start, lines):
    """Sizes went down a point at a time while over 8 pt: 34.5 pt (an 8.5 x 11 in title
    page's title) went on to 7.5 pt, and the back cover's 28.3 pt to 7.3 pt."""
    from nanpure.layouts.book import MIN_TITLE_SIZE, fitted_size

    fonts = load_fonts()
    assert fitted_size(" ".join([LONG_TITLE] * 3), fonts, start, 300, lines) == MIN_TITLE_SIZE
    assert fitted_size("Test Book", fonts, start, 300, lines) == start
    # a title that fits in the lines at 9.5 pt but not 10.5 pt is set in 9.5 pt, as before
    size = fitted_size(LONG_TITLE, fonts, 34.5, 8.5 * INCH - 1.5 * INCH, 3)
    assert size == 9.5


#: The audit's author and title with long hyphenated words (a 6 x 9 in large-print book).
HYPHENATED_AUTHOR = "Maximilian Alexander Bartholomew Featherstonehaugh-Cholmondeley"
HYPHENATED_TITLE = ("Pneumonoultramicroscopicsilicovolcanoconiosis-Sudoku-Collection-"
                    "Extraordinaire-Edition")


def test_wrap_breaks_at_spaces_then_hyphens_then_inside_a_word_with_a_hyphen():
    """Lines were cut at whatever letter the width ran out at, hyphens ignored and none
    added: "Featherstonehaugh-Cholmondel" / "ey", "Sudoku-Colle" / "ction"."""
    from nanpure.layouts.book import wrap

    fonts = load_fonts()
    author = wrap(HYPHENATED_AUTHOR, fonts, 20.16, 4.5 * INCH)
    assert author == ["Maximilian Alexander", "Bartholomew", "Featherstonehaugh-",
                      "Cholmondeley"]
    title = wrap(HYPHENATED_TITLE, fonts, 30, 4.5 * INCH, bold=True)
    assert "".join(title) != HYPHENATED_TITLE  # its long first word takes added hyphens
    assert title[-4:] == ["canoconiosis-", "Sudoku-Collection-", "Extraordinaire-", "Edition"]
    assert title[0].endswith("-") and all(fonts.width(line, 30, True) <= 4.5 * INCH
                                          for line in title)
    # a hyphen is added where a word is cut between letters, and only there
    assert "".join(line.removesuffix("-") for line in title[:2]) + title[2] == \
        "Pneumonoultramicroscopicsilicovolcanoconiosis-"
    # a word that fits a line is never cut, even when it could be after its hyphen
    assert wrap("Smith Jones-Brown", fonts, 10, fonts.width("Smith Jones-", 10)) == \
        ["Smith", "Jones-Brown"]
    # digits and signs are cut without a hyphen
    assert wrap("1234567890", fonts, 10, fonts.width("12345", 10)) == ["12345", "67890"]


def fonts_of_words(data: bytes, number: int) -> dict[str, set[str]]:
    """Each word drawn on page ``number`` of a PDF, with the faces it is drawn in
    (without the subset prefix: "BitstreamVeraSans-Bold", "IPAGothic", ...)."""
    found: dict[str, set[str]] = {}

    def visit(text, cm, tm, font, size):
        if font is not None:
            face = str(font["/BaseFont"]).split("+")[-1]
            for word in text.split():
                found.setdefault(word, set()).add(face)

    PdfReader(io.BytesIO(data)).pages[number - 1].extract_text(visitor_text=visit)
    return found


BOLD_FACE, REGULAR_FACE = "BitstreamVeraSans-Bold", "BitstreamVeraSans-Roman"


@pytest.mark.skipif(CJK_FONT is None, reason="no CJK TrueType font installed "
                    "(apt-get install fonts-ipafont-gothic)")
def test_a_mixed_japanese_title_is_set_in_one_weight(sections):
    """The CJK font has no bold: the Latin runs of a title that needs it are set in the
    regular weight too (the digits of "ナンプレ 60問" were bold beside regular kana), on the
    title page, in the contents, on the section's page and in its running heads; a Latin
    title keeps its bold."""
    fonts = load_fonts(CJK_FONT)
    assert [font for _, font in fonts.runs("ナンプレ 60問", bold=True)] == \
        [fonts.cjk, fonts.regular, fonts.cjk]
    assert fonts.runs("Nightly 60", bold=True) == [("Nightly 60", fonts.bold)]
    mixed = [replace(sections[0], title="やさしい Easy"), sections[1]]
    out = io.BytesIO()
    plan = build_book(mixed, BookSettings(title="ナンプレ 60問", cjk_font=CJK_FONT), out)
    data = out.getvalue()
    words = fonts_of_words(data, 1)
    assert words["60"] == {REGULAR_FACE} and words["ナンプレ"] == {"IPAGothic"}
    page = {kind: next(p.number for p in plan.pages if p.kind == kind)
            for kind in ("contents", "section", "puzzles")}
    contents = fonts_of_words(data, page["contents"])
    assert contents["Easy"] == {REGULAR_FACE}
    assert contents["Hard"] == contents["Contents"] == {BOLD_FACE}  # Latin titles stay bold
    assert fonts_of_words(data, page["section"])["Easy"] == {REGULAR_FACE}
    assert fonts_of_words(data, page["puzzles"])["Easy"] == {REGULAR_FACE}


@pytest.mark.skipif(CJK_FONT is None, reason="no CJK TrueType font installed "
                    "(apt-get install fonts-ipafont-gothic)")
def test_every_line_of_a_wrapped_mixed_title_takes_its_weight(sections):
    """A line of only Latin words, of a title that needs the CJK font, is not bold."""
    title = "ナンプレ Nightly Sudoku for the Long Winter Evenings by the Fire"
    out = io.BytesIO()
    build_book(sections, BookSettings(title=title, page_size="6x9in", cjk_font=CJK_FONT),
               out)
    words = fonts_of_words(out.getvalue(), 1)
    assert len({face for w in title.split()[1:] for face in words[w]}) == 1
    assert words["Fire"] == {REGULAR_FACE}


def test_cjk_text_still_breaks_between_any_characters():
    from nanpure.layouts.book import wrap

    fonts = load_fonts(CJK_FONT)
    text = "とても難しいナンプレ問題集・上級者向けの論理パズル百二十問と解答付きの特別版"
    lines = wrap(text, fonts, 10, 100)
    assert len(lines) > 1 and "".join(lines) == text
    assert all(fonts.width(line, 10) <= 100 for line in lines)
    assert all(fonts.width(a + b[0], 10) > 100 for a, b in pairwise(lines))


def test_the_title_page_breaks_a_hyphenated_author_after_its_hyphen():
    """The audit's 756-page large-print 6 x 9 in book set "Featherstonehaugh-Cholmondel" /
    "ey" at the foot of its title page."""
    settings = BookSettings(title="Test Book", author=HYPHENATED_AUTHOR, page_size="6x9in",
                            large_print=True)
    box = live_area(1, PAGE_SIZES["6x9in"], Margins.for_pages(756))
    lines = [line for line, _ in title_page(settings, load_fonts(), box).author]
    assert lines[-2:] == ["Featherstonehaugh-", "Cholmondeley"]


def test_the_title_pages_subtitle_is_never_larger_than_a_shrunk_title():
    """The audit's long title shrank to 8 pt in three lines over a subtitle of 18.9 pt."""
    title = ("The Enormous Compendium of Extraordinarily Challenging Sudoku Puzzles for the "
             "Dedicated Solver Who Wants Nothing But Logic")
    subtitle = ("Three hundred and sixty puzzles in large print, ranging from easy warm-ups to "
                "the most extreme forcing chains")
    box = live_area(1, PAGE_SIZES["6x9in"], Margins.for_pages(756))
    page = title_page(BookSettings(title=title, subtitle=subtitle, page_size="6x9in",
                                   large_print=True), load_fonts(), box)
    assert page.size < 18.9 and page.subtitle_size == page.size
    short = title_page(BookSettings(title="Sudoku", subtitle=subtitle, page_size="6x9in",
                                    large_print=True), load_fonts(), box)
    assert short.subtitle_size == pytest.approx(18 * 1.4 * 0.75) and short.size > 18.9


def test_how_to_play_gives_each_tier_what_the_skipped_tiers_below_it_teach(sections):
    """A book of easy and hard puzzles explained easy and hard only: "hard adds quads,
    X-Wings...", never the locked candidates and pairs of medium that its puzzles need."""
    from nanpure.layouts.book import tier_help
    from nanpure.layouts.wording import ENGLISH

    help_, needs, nonogram_help = (ENGLISH.tier_help, ENGLISH.tier_needs,
                                   ENGLISH.nonogram_tier_help)

    pdf, plan = pdf_of(sections, page_size="8.5x11in")
    page = plan.first_page("how-to-play")
    text = " ".join(PdfReader(io.BytesIO(pdf)).pages[page - 1].extract_text().split())
    assert "hard needs locked candidates and naked or hidden pairs and triples, and adds " \
           "quads, X-Wings" in text
    assert "easy singles only" in text
    # each line takes in every tier skipped since the last included one, and no other
    ladder = list(help_)
    line = tier_help(help_, needs, "extreme", ["medium", "extreme"])
    assert line.startswith("needs " + needs["hard"] + "; " + needs["unfair"]
                           + "; and forcing chains")
    assert needs["medium"] not in line
    assert needs["easy"] in tier_help(help_, needs, "medium", ["medium"])
    # a book with every tier keeps the lines as they were
    assert all(tier_help(help_, needs, t, ladder) == help_[t] for t in ladder)
    nonograms = list(nonogram_help)
    assert all(tier_help(nonogram_help, {}, t, nonograms) == nonogram_help[t]
               for t in nonograms)


@pytest.mark.parametrize("stars", [False, True])
def test_how_to_play_says_what_the_stars_mean_in_a_book_that_prints_them(sections, stars):
    """A book with ``stars = true`` printed five stars beside every tier without a word
    of what they mean; its how-to-play text says so now, after the tiers, and a book
    without stars does not. In large print on 8.5 x 11 in the extra paragraph runs on to a
    second page, and page_count counts that page too."""
    from nanpure.layouts.book import page_count

    tiers = ["easy", "medium", "hard", "unfair", "extreme"]
    every = [BookSection(tier.title(), tuple(r._replace(tier=tier) for r in
                                             sections[0].puzzles[:2])) for tier in tiers]
    settings = BookSettings(title="Test Book", page_size="8.5x11in", large_print=True,
                            stars=stars)
    out = io.BytesIO()
    plan = build_book(every, settings, out)
    assert page_count(every, settings) == plan.page_count
    reader = PdfReader(io.BytesIO(out.getvalue()))
    text = " ".join(" ".join(reader.pages[p.number - 1].extract_text() for p in plan.pages
                             if p.kind == "how-to-play").split())
    said = "The stars after the tier grade each puzzle more finely" in text
    assert said == stars
    assert [p.part for p in plan.pages if p.kind == "how-to-play"] == \
        ([0, 1] if stars else [0])
    if stars:  # after the last tier's line, before where the answers start
        assert text.index("a choice to a contradiction") < text.index("The stars after") < \
            text.index("The answers start on page")


@pytest.mark.parametrize("size", ["6x9in", "A5"])
def test_how_to_play_runs_on_to_another_page_rather_than_off_its_own(sections, size):
    """In large print on 6 x 9 in or A5 the how-to-play text of a book of every tier ran
    past the folio and off the page (its last paragraph 49 pt too low on 6 x 9 in, 121 pt
    on A5); it goes on over the page now, and page_count counts that page. That page had
    no heading, its text starting at the top as if a page were missing: it is headed
    "How to play (continued)", inside the margins as every heading."""
    from nanpure.layouts.book import page_count

    tiers = ["easy", "medium", "hard", "unfair", "extreme"]
    every = [BookSection(tier.title(), tuple(r._replace(tier=tier) for r in
                                             sections[0].puzzles[:2])) for tier in tiers]
    settings = BookSettings(title="Test Book", page_size=size, large_print=True)
    out = io.BytesIO()
    plan = build_book(every, settings, out)
    how_to = [p for p in plan.pages if p.kind == "how-to-play"]
    assert [p.part for p in how_to] == [0, 1]
    assert page_count(every, settings) == plan.page_count
    assert plan.pages[2].lines[0][0] == "How to play" and plan.pages[2].lines[0][2] == 4
    reader = PdfReader(io.BytesIO(out.getvalue()))
    text = ""
    for page in how_to:
        found = [(what, b) for what, b in marks(reader.pages[page.number - 1])
                 if what.startswith("text")]
        folio = min((b for what, b in found if what == f"text '{page.number}'"),
                    key=lambda b: b.y0)
        area = live_area(page.number, plan.size, plan.margins)
        assert all(folio.y1 < b.y0 and b.y1 <= area.y1 and area.x0 - 0.01 <= b.x0
                   and b.x1 <= area.x1 + 0.01 for _, b in found if b != folio)
        text += reader.pages[page.number - 1].extract_text()
    headings = [reader.pages[p.number - 1].extract_text().splitlines()[0] for p in how_to]
    assert headings == ["How to play", "How to play (continued)"]
    text = " ".join(text.split())
    assert all(tier in text for tier in tiers)
    assert f"The answers start on page {plan.first_page('answers-title')}." in text


def test_each_kinds_how_to_play_heads_the_page_it_runs_on_to(sections):
    """A book of Sudoku and nonograms in large print on 6 x 9 in: each kind's text runs on
    to a page headed for its kind, "How to play nonograms (continued)" set as large as
    fits the line (at the heading's size it is 510 pt wide, the page's lines 369)."""
    from nanpure.layouts.book import page_count

    nonograms = [("3x2 1.1,3/2,1,2", "101111"), ("2x2 1,2/1,2", "0111")]
    tiers = ["easy", "medium", "hard", "unfair", "extreme"]
    book = [BookSection(tier.title(), tuple(r._replace(tier=tier) for r in
                                            sections[0].puzzles[:2])) for tier in tiers]
    book += [BookSection(f"Pictures {tier}", tuple(
        PuzzleRecord(id=100 + 10 * k + n, kind="nonogram", puzzle=puzzle, solution=solution,
                     tier=tier, score=4, hardest="", techniques="", symmetry="none",
                     blanks=len(solution), seed=n)
        for n, (puzzle, solution) in enumerate(nonograms)))
        for k, tier in enumerate(["easy", "medium", "hard", "extreme"])]
    settings = BookSettings(title="Test Book", page_size="6x9in", large_print=True)
    out = io.BytesIO()
    plan = build_book(book, settings, out)
    assert page_count(book, settings) == plan.page_count
    reader = PdfReader(io.BytesIO(out.getvalue()))
    how_to = [p for p in plan.pages if p.kind == "how-to-play"]
    assert [reader.pages[p.number - 1].extract_text().splitlines()[0] for p in how_to] == [
        "How to play Sudoku", "How to play Sudoku (continued)", "How to play nonograms",
        "How to play nonograms (continued)"]
    for page in how_to:
        area = live_area(page.number, plan.size, plan.margins)
        assert all(area.x0 - 0.01 <= b.x0 and b.x1 <= area.x1 + 0.01
                   for _, b in text_boxes(out.getvalue(), page.number))
