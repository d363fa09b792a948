"""Books with nonogram sections: selection by kind, pages that fit, answers, manifest,
preflight and byte-identical rebuilds."""

from __future__ import annotations

import io
import json
import random
import re
from collections import Counter
from pathlib import Path

import pytest
from pypdf import PdfReader
from test_book import counting_records, make_store

from nanpure.generator.kinds import kind_of
from nanpure.generator.nonogram import Spec, format_line, nonogram_from_picture, parse_line
from nanpure.layouts.book import (
    LARGE_PRINT_DIGITS,
    BookSection,
    BookSettings,
    LayoutError,
    nonogram_of,
    page_count,
    plan_book,
)
from nanpure.layouts.nonogram import MIN_CLUE_SIZE, clue_lines, smallest_box
from nanpure.layouts.pages import PAGE_SIZES, live_area, load_fonts
from nanpure.pipeline.book_config import book_config_from_toml, load_book_config
from nanpure.pipeline.config import ConfigError, parse_toml
from nanpure.pipeline.publish import PublishError, manifest_path, publish_book, select_sections
from nanpure.pipeline.store import Store
from nanpure.record import PuzzleRecord

#: quota -> (spec, how many) of the nonograms in the test store
NONOGRAMS = {
    "small": (Spec(width=10, height=10, max_tier="easy", symmetry="mirror"), 5),
    "medium": (Spec(width=15, height=15, min_tier="medium", max_tier="medium",
                    symmetry="mirror"), 5),
    "large": (Spec(width=20, height=20, max_tier="hard", symmetry="flip"), 3),
}
N_NONOGRAMS = sum(n for _, n in NONOGRAMS.values())


def add_nonograms(path: Path, run_name: str = "nonograms") -> Path:
    """Add run ``run_name`` of generated nonograms (see :data:`NONOGRAMS`) to a store."""
    kind = kind_of("nonogram")
    with Store(path) as store:
        run = store.begin_run(run_name, 11, "{}")
        for quota, (spec, count) in NONOGRAMS.items():
            seed = 0
            for task in range(count):
                record = None
                while record is None:
                    seed += 1
                    record = kind.make_candidate(spec, 1000 * len(quota) + seed)
                store.add_puzzle(run.id, quota, task, record)
    return path


@pytest.fixture(scope="module")
def mixed_store(tmp_path_factory, qqwing_rows) -> Path:
    """Sudoku run "nightly" (quotas easy, medium, hard) and nonogram run "nonograms"."""
    path = tmp_path_factory.mktemp("mixed") / "nanpure.db"
    return add_nonograms(make_store(path, qqwing_rows))


MIXED = """
[[book.section]]
title = "Pictures"
run = "nonograms"
kind = "nonogram"
[[book.section]]
title = "Sudoku"
run = "nightly"
quota = "easy"
count = 8
"""


def write_config(tmp_path: Path, store: Path, body: str = "", sections: str = MIXED,
                 out: str = "book.pdf") -> Path:
    path = tmp_path / "book.toml"
    path.write_text(f'[book]\ntitle = "Puzzles"\nstore = "{store}"\nout = "{tmp_path / out}"\n'
                    f'reuse = true\n{body}\n{sections}')
    return path


def clue_numbers(record_puzzle: str) -> list[str]:
    p = parse_line(record_puzzle)
    return [n for line in clue_lines(p.rows) + clue_lines(p.columns) for n in line]


@pytest.mark.parametrize("size", ["6x9in", "8.5x11in"])
def test_a_mixed_book_renders_passes_preflight_and_rebuilds_identically(tmp_path, mixed_store,
                                                                         size):
    config = load_book_config(write_config(tmp_path, mixed_store, f'page_size = "{size}"'))
    book = publish_book(config, record=False)
    assert book.report.ok
    again = publish_book(config, out=str(tmp_path / "again.pdf"), record=False)
    assert again.pdf.read_bytes() == book.pdf.read_bytes()
    assert manifest_path(again.pdf).read_text().replace("again.pdf", "book.pdf") == \
        manifest_path(book.pdf).read_text()

    plan = book.plan
    kinds = [p.kind for p in plan.pages]
    # a how-to-play page for each kind, the easy Sudoku first, numbers through the book
    assert kinds[:5] == ["title", "imprint", "contents", "how-to-play", "how-to-play"]
    assert [p.heading for p in plan.pages[3:5]] == ["How to play Sudoku",
                                                   "How to play nonograms"]
    assert [p.number for p in plan.placements] == list(range(1, 9 + N_NONOGRAMS))
    assert {p.puzzle.kind for p in plan.placements[:8]} == {"sudoku"}
    # nonograms: one or two a page, as they fit; 20x20 never share a 6x9 page
    pages = [p for p in plan.pages if p.kind == "puzzles" and p.puzzle_kind == "nonogram"]
    assert {len(p.items) for p in pages} <= {1, 2}
    assert all(p.per_page == len(p.items) for p in pages)
    if size == "6x9in":
        assert all(len(p.items) == 1 for p in pages
                   if any(i.puzzle.puzzle.startswith("20x20") for i in p.items))
    # answers: one kind a page
    answers = [p for p in plan.pages if p.kind == "answers"]
    assert all(len({i.puzzle.kind for i in p.items}) == 1 for p in answers)

    reader = PdfReader(str(book.pdf))
    assert len(reader.pages) == plan.page_count
    text = [page.extract_text() for page in reader.pages]
    assert "How to play nonograms" in text[4] and "shaded" in text[4]
    contents = text[2]
    assert "nonograms 9\u2013" in contents and "10\u00d710 to 20\u00d720" in contents
    for page in pages:
        assert all(str(item.number) in text[page.number - 1] for item in page.items)
    for item in plan.placements:
        assert f"page {item.page}" in text[item.answer_page - 1]


def test_clue_numbers_are_readable_text_at_seven_points_or_more(tmp_path, mixed_store):
    config = load_book_config(write_config(tmp_path, mixed_store))
    book = publish_book(config, record=False)
    reader = PdfReader(str(book.pdf))
    pages = [p for p in book.plan.pages if p.kind == "puzzles" and p.puzzle_kind == "nonogram"]
    assert {len(p.items) for p in pages} == {1, 2}
    for page in pages:
        chunks: list[tuple[str, float]] = []
        reader.pages[page.number - 1].extract_text(
            visitor_text=lambda text, cm, tm, font, size, chunks=chunks:
            chunks.append((text, size * tm[0])))
        numbers = [(text.split(), size) for text, size in chunks
                   if text.strip() and all(w.isdigit() for w in text.split())]
        # every clue number is on the page as text, and no number there is under 7 pt
        found = Counter(w for words, _ in numbers for w in words)
        want = Counter(n for item in page.items for n in clue_numbers(item.puzzle.puzzle))
        assert want <= found and sum(want.values()) > 10
        assert min(size for _, size in numbers) >= MIN_CLUE_SIZE


def test_the_manifest_says_each_puzzles_kind_and_a_nonograms_size(tmp_path, mixed_store):
    config = load_book_config(write_config(tmp_path, mixed_store))
    book = publish_book(config)
    data = json.loads(manifest_path(book.pdf).read_text())
    assert [(s["title"], s["kind"]) for s in data["sections"]] == [("Sudoku", "sudoku"),
                                                                  ("Pictures", "nonogram")]
    assert data["settings"]["sections"][0]["kind"] == "nonogram"
    assert "puzzles_per_page" not in data["settings"]["sections"][0]
    with Store(mixed_store) as store:
        stored = {r.id: r for r in store.select_puzzles(unused_only=False)}
        placed = store.db.execute("SELECT puzzle_id FROM book_puzzles WHERE book_id = ?",
                                  (book.book_id,)).fetchall()
    assert len(placed) == len(data["puzzles"]) == 8 + N_NONOGRAMS
    for entry in data["puzzles"]:
        record = stored[entry["id"]]
        assert entry["kind"] == record.kind
        assert (entry["puzzle"], entry["solution"]) == (record.puzzle, record.solution)
        if record.kind == "nonogram":
            width, height = map(int, record.puzzle.split()[0].split("x"))
            assert (entry["width"], entry["height"]) == (width, height)
            assert len(entry["solution"]) == width * height
        else:
            assert "width" not in entry


def test_a_section_without_kind_takes_the_kind_it_finds(tmp_path, mixed_store):
    sections = '[[book.section]]\ntitle = "All pictures"\nrun = "nonograms"\n'
    book = publish_book(load_book_config(write_config(tmp_path, mixed_store,
                                                      sections=sections)), record=False)
    assert {p.puzzle.kind for p in book.plan.placements} == {"nonogram"}
    assert [p.heading for p in book.plan.pages if p.kind == "how-to-play"] == ["How to play"]


def test_a_section_mixing_kinds_is_refused_by_name(tmp_path, mixed_store):
    sections = '[[book.section]]\ntitle = "Everything"\ntier = "easy"\n'
    config = load_book_config(write_config(tmp_path, mixed_store, sections=sections))
    with pytest.raises(PublishError, match=r"section 1 \('Everything'\) finds puzzles of more "
                                           r"than one kind \(nonogram, sudoku\).*set kind ="):
        publish_book(config)
    sections += 'kind = "sudoku"\n'
    book = publish_book(load_book_config(write_config(tmp_path, mixed_store,
                                                      sections=sections)), record=False)
    assert {p.puzzle.kind for p in book.plan.placements} == {"sudoku"}


def test_a_section_mixing_kinds_is_refused_before_its_puzzles_are_read(tmp_path, mixed_store,
                                                                      monkeypatch):
    sections = '[[book.section]]\ntitle = "Everything"\ntier = "easy"\ncount = 2\n'
    config = load_book_config(write_config(tmp_path, mixed_store, sections=sections))
    built = counting_records(monkeypatch)
    with pytest.raises(PublishError, match=r"more than one kind \(nonogram, sudoku\)"):
        publish_book(config, record=False)
    assert built == []


@pytest.mark.parametrize(("count", "mixes"), [("", False), ("count = 1", True)])
def test_a_section_without_kind_counts_the_kinds_an_earlier_section_left(tmp_path, mixed_store,
                                                                        count, mixes):
    # the first section takes every easy nonogram, or only one
    sections = ('[[book.section]]\ntitle = "Pictures"\ntier = "easy"\nkind = "nonogram"\n'
                f'{count}\n[[book.section]]\ntitle = "Rest"\ntier = "easy"\ncount = 3\n')
    config = load_book_config(write_config(tmp_path, mixed_store, sections=sections))
    with Store(mixed_store) as store:
        if mixes:
            with pytest.raises(PublishError, match=r"section 2 \('Rest'\) finds puzzles of "
                                                   r"more than one kind \(nonogram, sudoku\)"):
                select_sections(store, config)
        else:
            rest = next(s for s in select_sections(store, config) if s.title == "Rest")
            assert {p.kind for p in rest.puzzles} == {"sudoku"}


def test_a_kind_with_no_puzzles_says_what_it_looked_for(tmp_path, mixed_store):
    sections = '[[book.section]]\ntitle = "P"\nrun = "nightly"\nkind = "nonogram"\n'
    config = load_book_config(write_config(tmp_path, mixed_store, sections=sections))
    with pytest.raises(PublishError, match=r"section 1 \('P'\) has no puzzles.*kind nonogram"):
        publish_book(config)


def test_a_puzzle_too_large_for_the_page_is_refused_with_what_to_do(tmp_path, mixed_store):
    two = MIXED.replace('kind = "nonogram"', 'kind = "nonogram"\npuzzles_per_page = 2')
    config = load_book_config(write_config(tmp_path, mixed_store, 'page_size = "6x9in"',
                                           sections=two))
    with pytest.raises(PublishError, match=r"section 'Pictures': puzzle id \d+, a 20x20 "
                       r"nonogram, does not fit 2 to a 6x9in page with clues of 7 pt or more"
                       r".*set a smaller puzzles_per_page for the section or choose a larger "
                       r"page_size"):
        publish_book(config)
    # on a larger page two 20x20 share a page
    config = load_book_config(write_config(tmp_path, mixed_store, 'page_size = "8.5x11in"',
                                           sections=two))
    assert publish_book(config, record=False).report.ok


def random_nonogram(width: int, height: int, seed: int = 5, quota: str | None = None,
                    number: int = 77) -> PuzzleRecord:
    rng = random.Random(seed)
    picture = "".join(rng.choice("01") for _ in range(width * height))
    return PuzzleRecord(puzzle=format_line(nonogram_from_picture(picture, width, height),
                                           goal=False),
                        solution=picture, tier="hard", score=1, hardest="", techniques="",
                        symmetry="none", blanks=width * height, seed=1, kind="nonogram",
                        id=number, quota=quota)


def test_a_puzzle_too_large_alone_names_the_page_sizes_it_fits():
    big = random_nonogram(30, 30)
    with pytest.raises(LayoutError, match=r"section 'Big': puzzle id 77, a 30x30 nonogram, "
                                          r"does not fit alone on a 6x9in page with clues of "
                                          r"7 pt or more \(it needs \d+ x \d+ pt, there is "
                                          r"\d+ x \d+\); choose a larger page_size: "
                                          r'"7x10in" or "8.5x8.5in" or "JIS-B5" or "8x10in" '
                                          r'or "8.25x11in" or "8.5x11in" or "letter" or "A4"$'):
        plan_book([BookSection("Big", (big,))], BookSettings(title="T", page_size="6x9in"))
    assert plan_book([BookSection("Big", (big,))], BookSettings(title="T", page_size="A4"))


@pytest.mark.parametrize("size, roomiest", [("6x9in", " \\(the roomiest is 8.5x11in, "
                                                       "549 x 652 pt\\)"),
                                             ("8.5x11in", "")])
def test_a_puzzle_too_large_for_every_page_size_says_how_large_one_fits(size, roomiest):
    huge = random_nonogram(60, 60, quota="n60")
    with pytest.raises(LayoutError, match=r"a 60x60 nonogram, does not fit alone on an? "
                       rf"{size} page .*; no page_size has room for it{roomiest}: make the "
                       r"nonograms of quota 'n60' smaller \(with clues like its, an 8.5x11in "
                       r"page takes at most (\d+) columns and (\d+) rows\) or leave them out "
                       r"of the book$") as exc:
        plan_book([BookSection("Huge", (huge,))], BookSettings(title="T", page_size=size))
    columns, rows = map(int, re.search(r"(\d+) columns and (\d+) rows", str(exc.value)).groups())
    assert 20 < columns < 60 and 20 < rows < 60
    # a piece of the picture that size fits: its clue stacks are no deeper than the whole's
    settings = BookSettings(title="T", page_size="8.5x11in")
    crop = "".join(huge.solution[r * 60:r * 60 + columns] for r in range(rows))
    fits = huge._replace(puzzle=format_line(nonogram_from_picture(crop, columns, rows),
                                            goal=False), solution=crop)
    assert plan_book([BookSection("Huge", (fits,))], settings)


def test_a_wide_strip_too_large_for_every_page_size_gives_the_columns_that_fit():
    wide = random_nonogram(60, 5)
    with pytest.raises(LayoutError, match=r"make the nonograms of the section smaller "
                                          r"\(with clues like its, an 8.5x11in page takes at "
                                          r"most \d+ columns\)"):
        plan_book([BookSection("Wide", (wide,))], BookSettings(title="T", page_size="A5"))


def test_two_a_page_too_large_even_alone_here_asks_for_one_a_page_on_a_larger_page():
    big = random_nonogram(30, 30)
    section = BookSection("Big", (big, random_nonogram(30, 30, seed=6, number=78)),
                          puzzles_per_page=2)
    with pytest.raises(LayoutError, match=r"does not fit 2 to a 6x9in page .*; set "
                                          r"puzzles_per_page = 1 for the section and a larger "
                                          r'page_size: "7x10in" or "8.5x8.5in" or'):
        plan_book([section], BookSettings(title="T", page_size="6x9in"))


def test_a_section_of_mixed_records_is_refused_by_the_layout(mixed_store):
    with Store(mixed_store) as store:
        both = store.select_puzzles(tiers=["easy"], unused_only=False)
    with pytest.raises(LayoutError, match="section 'Both' mixes puzzle kinds"):
        plan_book([BookSection("Both", tuple(both))], BookSettings(title="T"))


def test_a_sudoku_only_config_keeps_its_json():
    text = '[book]\ntitle = "T"\n[[book.section]]\ntitle = "E"\ntier = "easy"\n'
    config = book_config_from_toml(parse_toml(text, "b.toml"), "b.toml")
    assert json.loads(config.to_json())["sections"] == [
        {"title": "E", "quotas": None, "tiers": ["easy"], "run": None, "count": None}]


SECTION_ERRORS = [
    ('kind = "kakuro"\n', 'book.section[1].kind: expected one of "nonogram", "sudoku"'),
    ('kind = "nonogram"\npuzzles_per_page = 3\n',
     "book.section[1].puzzles_per_page: expected one of 1, 2, 4, 6; got 3"),
]


@pytest.mark.parametrize("extra, message", SECTION_ERRORS)
def test_section_kind_errors_name_the_key(extra, message):
    text = f'[book]\ntitle = "T"\n[[book.section]]\ntitle = "E"\n{extra}'
    with pytest.raises(ConfigError) as exc:
        book_config_from_toml(parse_toml(text, "b.toml"), "b.toml")
    assert message in str(exc.value)


def test_large_print_refuses_a_section_of_several_a_page():
    text = ('[book]\ntitle = "T"\nlarge_print = true\n[[book.section]]\ntitle = "E"\n'
            'tier = "easy"\npuzzles_per_page = 2\n')
    with pytest.raises(ConfigError, match=r"book.section\[1\].puzzles_per_page: large_print"):
        book_config_from_toml(parse_toml(text, "b.toml"), "b.toml")


def test_the_example_mixed_book_config_reads():
    root = Path(__file__).resolve().parent.parent
    config = load_book_config(root / "examples" / "nonogram-book.toml")
    assert {s.kind for s in config.sections} == {"sudoku", "nonogram"}
    assert {s.run for s in config.sections} >= {"nonograms"}


def test_large_print_puts_one_nonogram_a_page_with_large_clues(mixed_store):
    with Store(mixed_store) as store:
        small = store.select_puzzles(run="nonograms", quotas=["small", "medium"],
                                     unused_only=False)
        large = store.select_puzzles(quotas=["large"], unused_only=False)
    settings = BookSettings(title="T", page_size="letter", large_print=True,
                            puzzles_per_page=1, answers_per_page=4)
    plan = plan_book([BookSection("Pictures", tuple(small))], settings)
    pages = [p for p in plan.pages if p.kind == "puzzles"]
    assert len(pages) == len(small) and all(p.per_page == 1 for p in pages)
    fonts = load_fonts()
    for page in pages:
        box = live_area(page.number, plan.size, plan.margins)
        need_w, need_h = smallest_box(nonogram_of(page.items[0].puzzle), fonts,
                                      LARGE_PRINT_DIGITS)
        assert need_w <= box.width and need_h <= box.height
    with pytest.raises(LayoutError, match=r"20x20 nonogram, does not fit alone on a letter "
                                          r"page with clues of 16 pt or more"):
        plan_book([BookSection("Big", tuple(large))], settings)


@pytest.mark.parametrize("settings", [
    BookSettings(title="T"), BookSettings(title="T", page_size="6x9in"),
    BookSettings(title="T", large_print=True, hints=True),
    BookSettings(title="T", page_size="letter", puzzles_per_page=6, answers_per_page=12)])
def test_the_page_count_is_the_plans_without_placing_a_puzzle(mixed_store, settings):
    """page_count, which refuses a book too long for its preflight before its puzzles are
    checked, counts what plan_book lays out: the gutter of its own length (wider from 150
    and 700 pages), nonograms two a page when both fit half of it, answers a page per kind."""
    with Store(mixed_store) as s:
        records = s.select_puzzles(unused_only=False)
    sudoku = tuple(r for r in records if r.kind == "sudoku")
    # of the nonograms the page holds at all, sizes around what fits half a page, with a
    # narrow gutter or a wide one
    nonograms = tuple(r for r in records if r.kind == "nonogram" and _fits_alone(r, settings))
    sizes = [random_nonogram(w, h, seed=w * h) for w in (8, 12, 15, 18, 22)
             for h in (10, 15, 22)]
    sizes = [r for r in sizes if _fits_alone(r, settings)]
    assert len(sizes) > 2
    books = [
        [BookSection("Few", sudoku[:3])],
        [BookSection("Easy", sudoku * 20), BookSection("Pictures", nonograms * 10),
         BookSection("Two a page", sudoku[:7], puzzles_per_page=2)],
        [BookSection("Sizes", tuple(sizes) * 30),
         BookSection("A section whose title is long enough to take two lines of the "
                     "contents page", sudoku * 30),
         BookSection("More pictures", nonograms * 30)],
    ]
    for sections in books:
        assert page_count(sections, settings) == plan_book(sections, settings).page_count


def _fits_alone(record: PuzzleRecord, settings: BookSettings) -> bool:
    """Whether ``record`` fits a page of its own with the widest gutter (over 700 pages)."""
    try:
        plan_book([BookSection("One", (record,) * 1500)], settings)
    except LayoutError:
        return False
    return True


def picture_nonogram(width: int, height: int, number: int, quota: str | None = None
                     ) -> PuzzleRecord:
    """A nonogram of blocks (checks of 3 x 6 cells), whose clues stay short: tall and
    narrow pictures of it fit a page."""
    picture = "".join("1" if (r // 6 + c // 3 + number) % 2 == 0 else "0"
                      for r in range(height) for c in range(width))
    return PuzzleRecord(puzzle=format_line(nonogram_from_picture(picture, width, height),
                                           goal=False),
                        solution=picture, tier="medium", score=1, hardest="", techniques="",
                        symmetry="none", blanks=width * height, seed=number,
                        kind="nonogram", id=number, quota=quota)


def _text_marks(pdf: bytes, page: int) -> list:
    from nanpure.layouts.preflight import marks

    return [(what, box) for what, box in marks(PdfReader(io.BytesIO(pdf)).pages[page - 1])
            if what.startswith("text")]


@pytest.mark.parametrize("size", ["6x9in", "8.5x11in"])
@pytest.mark.parametrize("shape", [(10, 40), (5, 30), (25, 5)])
def test_answer_labels_of_narrow_pictures_never_overprint(size, shape):
    """A tall nonogram's answer, 12 a page, was narrower than its labels: its number
    overprinted "page N" ("11page 13")."""
    from nanpure.layouts.book import render_book
    from nanpure.layouts.preflight import overlapping

    records = tuple(picture_nonogram(*shape, number=k) for k in range(1, 13))
    settings = BookSettings(title="T", page_size=size, answers_per_page=12)
    plan = plan_book([BookSection("Tall", records)], settings)
    out = io.BytesIO()
    render_book(plan, out)
    answers = [p for p in plan.pages if p.kind == "answers"]
    assert len(answers) == 1
    texts = _text_marks(out.getvalue(), answers[0].number)
    assert overlapping(texts) is None
    # each number before its "page N" (drawn one after the other), on one baseline
    pairs = [(a, b) for a, b in zip(texts, texts[1:], strict=False)
             if b[0].startswith("text 'page ")]
    assert [a[0] for a, _ in pairs] == [f"text '{k}'" for k in range(1, 13)]
    for (_, number), (_, page) in pairs:
        assert number.x1 < page.x0 and number.y0 == pytest.approx(page.y0, abs=0.5)


def test_words_that_would_overprint_are_refused_when_the_book_is_drawn(monkeypatch):
    """The drawer checks the words it sets on each page; nothing did, so overprinted
    labels reached the PDF and passed preflight."""
    from nanpure.layouts import book as layout
    from nanpure.layouts.book import render_book

    def folio_twice(self, page):
        for _ in range(2):
            self.text(100, 30, str(page.number), 9)

    monkeypatch.setattr(layout._Drawer, "folio", folio_twice)
    plan = plan_book([BookSection("S", (picture_nonogram(10, 10, 1),))],
                     BookSettings(title="T", page_size="6x9in"))
    with pytest.raises(LayoutError, match=r"^page 3: '3' overprints '3': try another "
                                          r"page_size$"):
        render_book(plan, io.BytesIO())


def test_a_nonogram_book_without_a_cover_image_shows_a_nonogram_on_the_front(tmp_path,
                                                                              mixed_store):
    """A nonogram-only book's front had only the title and author."""
    sections = ('[[book.section]]\ntitle = "Pictures"\nrun = "nonograms"\n'
                'kind = "nonogram"\n')
    config = load_book_config(write_config(tmp_path, mixed_store, 'page_size = "6x9in"\n'
                                           'author = "A"\n[book.cover]\n', sections))
    book = publish_book(config, record=False)
    assert book.cover_report is not None and book.cover_report.ok
    from nanpure.layouts.preflight import marks

    words = [what for what, _ in marks(PdfReader(str(book.cover)).pages[0])
             if what.startswith("text")]
    # the clues of a nonogram of the book, the largest the front draws at 7 pt or more
    clues = sorted(w[6:-1] for w in words if w[6:-1].isdigit())
    shown = [p.puzzle for p in book.plan.placements
             if sorted(clue_numbers(p.puzzle.puzzle)) == clues]
    assert shown and shown[0].puzzle.startswith("20x20")


def test_the_front_shows_the_largest_nonogram_with_readable_clues_else_the_most_readable():
    from nanpure.layouts.cover import cover_nonogram
    from nanpure.layouts.pages import Box

    small, tall, big = (picture_nonogram(10, 10, 1), picture_nonogram(10, 40, 2),
                        random_nonogram(30, 30, number=3))
    fonts = load_fonts()
    room = Box(0, 0, 300, 250)
    assert cover_nonogram(room, [small, big], fonts)[0] == nonogram_of(small)
    roomy = Box(0, 0, 1000, 1000)  # both readable there: the larger
    assert cover_nonogram(roomy, [small, big], fonts)[0] == nonogram_of(big)
    # none readable: the one drawn largest
    tiny = Box(0, 0, 60, 60)
    assert cover_nonogram(tiny, [big, tall, small], fonts)[0] == nonogram_of(small)
    _, figure = cover_nonogram(room, [small], fonts)
    # centred, clues included
    assert figure.left - room.x0 == pytest.approx(room.x1 - figure.right)



def test_the_fronts_nonogram_is_laid_out_once_for_its_box(monkeypatch):
    """The front laid out the nonogram it chose three times over: for the choice, again
    for its card and once more to draw it. Now once per candidate, to choose, and once
    in the box it is drawn in; the cover is the same."""
    import nanpure.layouts.cover as cover
    import nanpure.layouts.nonogram as nonogram_layout
    from nanpure.layouts.cover import CoverSettings, render_cover

    records = [picture_nonogram(10, 10, 1), random_nonogram(15, 15, number=2)]
    args = (CoverSettings(title="Pictures"), load_fonts(), PAGE_SIZES["6x9in"], 100)
    before = io.BytesIO()
    render_cover(*args, before, nonograms=records)
    chosen = cover.cover_nonogram(cover.cover_layout(*args).picture, records, args[1])[0]
    real = nonogram_layout.puzzle_layout
    calls = []

    def counted(*call, **named):
        calls.append(call[4])  # the nonogram laid out
        return real(*call, **named)

    monkeypatch.setattr(cover, "puzzle_layout", counted)
    monkeypatch.setattr(nonogram_layout, "puzzle_layout", counted)
    after = io.BytesIO()
    render_cover(*args, after, nonograms=records)
    assert calls == [nonogram_of(r) for r in records] + [chosen]
    assert after.getvalue() == before.getvalue()


def test_a_mixed_book_front_shows_the_kind_of_its_first_section(tmp_path, mixed_store):
    from nanpure.pipeline.publish import _cover_puzzles

    def book(pictures: str, sudoku: str):
        sections = (f'[[book.section]]\ntitle = "Pictures"\nrun = "nonograms"\n'
                    f'quota = "{pictures}"\n[[book.section]]\ntitle = "Sudoku"\n'
                    f'run = "nightly"\nquota = "{sudoku}"\n')
        config = write_config(tmp_path, mixed_store, 'page_size = "8.5x11in"', sections)
        with Store(mixed_store, create=False) as store:
            sections = select_sections(store, load_book_config(config))
        return plan_book(sections, BookSettings(title="T", page_size="8.5x11in"))

    plan = book("small", "hard")  # the easy nonograms come first
    assert plan.placements[0].puzzle.kind == "nonogram"
    sample, nonograms = _cover_puzzles(plan)
    assert sample is None and nonograms == [p.puzzle for p in plan.placements[:5]]
    plan = book("large", "easy")  # the easy Sudoku first
    assert _cover_puzzles(plan) == (plan.placements[0].puzzle.puzzle, [])
    assert plan.placements[0].puzzle.kind == "sudoku"


def test_the_larger_page_advice_fits_every_nonogram_of_the_book():
    """On A5 a 10x40 was told 6x9in, on which the 30x30 of the same section fails."""
    tall, big = picture_nonogram(10, 40, 1), random_nonogram(30, 30, number=2)
    section = BookSection("Pictures", (tall, big))
    with pytest.raises(LayoutError) as refused:
        plan_book([section], BookSettings(title="T", page_size="A5"))
    message = str(refused.value)
    assert "a 10x40 nonogram, does not fit alone on an A5 page" in message
    advised = re.findall(r'"([^"]+)"', message.split("choose a larger page_size: ")[1])
    assert advised and "6x9in" not in advised
    areas = [PAGE_SIZES[size][0] * PAGE_SIZES[size][1] for size in advised]
    assert areas == sorted(areas)  # the smallest first
    for size in advised:  # every page size advised takes the whole book
        assert plan_book([section], BookSettings(title="T", page_size=size))
    assert plan_book([BookSection("Tall", (tall,))], BookSettings(title="T", page_size="6x9in"))
    # a nonogram in another section counts too
    with pytest.raises(LayoutError, match=f'choose a larger page_size: "{advised[0]}" or'):
        plan_book([BookSection("Tall", (tall,)), BookSection("Big", (big,))],
                  BookSettings(title="T", page_size="A5"))


def test_when_no_page_size_takes_every_nonogram_the_advice_says_which_fits_none():
    tall, huge = picture_nonogram(10, 40, 1), random_nonogram(60, 60, number=2, quota="n60")
    with pytest.raises(LayoutError, match=r"a 10x40 nonogram, does not fit alone on an A5 "
                       r"page .*; no page_size has room for every nonogram of the book: "
                       r"puzzle id 2, a 60x60 nonogram, fits none; no page_size has room "
                       r"for it \(the roomiest is .*\): make the nonograms of quota 'n60' "
                       r"smaller .* or leave them out of the book$"):
        plan_book([BookSection("Tall", (tall,)), BookSection("Huge", (huge,))],
                  BookSettings(title="T", page_size="A5"))



@pytest.mark.parametrize("sections, advice", [
    # a 4x55 fits only A4's height, a 42x4 only the width of 8.5x8.5in, 8.5x11in and letter
    ([("Tall", [(4, 55)], None), ("Wide", [(42, 4)], None)],
     'no page_size has room for every nonogram of the book: puzzle id 2, a 42x4 nonogram, '
     'fits only "8.5x8.5in" or "8.5x11in" or "letter", the others before it only "A4": put '
     'them in separate books'),
    # each 30x30 fits a page of its own from B5 up, but not two to a page
    ([("Alone", [(30, 30)], None), ("Pairs", [(30, 30), (30, 30)], 2)],
     "no page_size has room for every nonogram of the book as their sections' "
     "puzzles_per_page place them: set puzzles_per_page = 1 for those sections and a "
     'larger page_size ("B5" or "7x10in" or "8.5x8.5in" or "JIS-B5" or "8x10in" or '
     '"8.25x11in" or "8.5x11in" or "letter" or "A4")'),
])
def test_the_page_size_advice_names_the_sizes_each_nonogram_fits(sections, advice):
    """The page sizes of these refusals are quoted and joined by "or", the smallest
    first, as the other advice's are."""
    book = [BookSection(title, tuple(picture_nonogram(w, h, number)
                                     for number, (w, h) in enumerate(sizes, start=k)),
                        puzzles_per_page=per_page)
            for k, (title, sizes, per_page) in enumerate(sections, start=1)]
    with pytest.raises(LayoutError) as refused:
        plan_book(book, BookSettings(title="T", page_size="A5"))
    assert str(refused.value).split("; ", 1)[1] == advice


def test_hints_in_a_book_with_nonograms_say_they_are_for_sudoku(tmp_path, mixed_store):
    """hints = true in a book of nonograms said "every puzzle needs only singles"."""
    from nanpure.pipeline.publish import summary

    pictures = '[[book.section]]\ntitle = "Pictures"\nrun = "nonograms"\nkind = "nonogram"\n'
    config = load_book_config(write_config(tmp_path, mixed_store, "hints = true", pictures))
    book = publish_book(config, record=False)
    assert not [p for p in book.plan.pages if p.kind == "hints"]
    assert ("\nno hints section: hints are made for Sudoku puzzles only, and the book has "
            "none\n") in summary(book)
    config = load_book_config(write_config(tmp_path, mixed_store, "hints = true"))
    book = publish_book(config, record=False)
    assert summary(book).splitlines()[1] == ("no hints section: every Sudoku puzzle needs "
                                             "only singles (nonograms get none)")
