"""Hints and solution paths: the first step beyond singles, the hints section of a book,
the manifest's hints and ``export --steps``."""

from __future__ import annotations

import csv
import io
import json
import re
from itertools import combinations
from pathlib import Path

import pytest
from pypdf import PdfReader

from nanpure.cli import main
from nanpure.generator import format_line
from nanpure.generator.board import parse
from nanpure.generator.ladder import BY_CODE, rate
from nanpure.layouts.book import (
    BookSection,
    BookSettings,
    LayoutError,
    Type,
    plan_book,
    render_book,
)
from nanpure.layouts.hint_pages import MIN_SIZE, HintEntry, hint_entry, hint_indent
from nanpure.layouts.pages import live_area, load_fonts
from nanpure.layouts.preflight import marks
from nanpure.output.hints import Hint, first_hint, hint_from, hints_for, solution_path
from nanpure.pipeline.batch import rate_file
from nanpure.pipeline.book_config import load_book_config
from nanpure.pipeline.publish import publish_book, summary
from nanpure.pipeline.store import Store
from nanpure.record import PuzzleRecord


def rated(puzzle: str, seed: int = 0) -> PuzzleRecord:
    """A record of ``puzzle`` with its real rating."""
    from nanpure.generator.solver import solve

    solution = solve(parse(puzzle))
    r = rate(parse(puzzle), solution=solution)
    return PuzzleRecord(puzzle=puzzle, solution=format_line(solution), tier=r.tier,
                        score=r.score, hardest=r.hardest, techniques=r.techniques,
                        symmetry="none", blanks=puzzle.count("."), seed=seed)


@pytest.fixture(scope="module")
def puzzles(ratings_rows) -> list[PuzzleRecord]:
    """Ten reference puzzles of each HoDoKu level up to Unfair, rated by nanpure."""
    chosen = []
    for level in ("Easy", "Medium", "Hard", "Unfair"):
        rows = [r for r in ratings_rows if r["hodoku_level"] == level][:10]
        chosen += [rated(r["puzzle"], seed=len(chosen) + k) for k, r in enumerate(rows)]
    return chosen


def test_hint_names_the_first_step_beyond_singles(puzzles):
    hinted = 0
    for record in puzzles:
        hint = first_hint(record.puzzle, record.solution)
        steps = rate(parse(record.puzzle), path=True).steps
        families = [BY_CODE[s.code].family for s in steps]
        if "singles" == families[0] and set(families) == {"singles"}:
            assert hint is None and record.tier in ("easy", "medium")
            continue
        hinted += 1
        assert hint is not None
        step = steps[hint.step - 1]
        # a real step of the path: its technique, the first that is not a single
        assert step.technique == hint.technique
        assert set(families[:hint.step - 1]) <= {"singles"}
        assert families[hint.step - 1] != "singles"
        # where to look, but not what the step removes
        assert hint.look_at and "<>" not in hint.look_at and "=>" not in hint.look_at
    assert hinted >= 25


def test_hint_texts():
    assert hint_from("Locked Candidates Type 1 (Pointing)", 9, "8 b4 c3").look_at == \
        "the 8s in box 4"
    assert hint_from("Naked Pair", 2, "3 7 r1c2,r1c5").look_at == \
        "the 3s and 7s in r1c2 and r1c5"
    chain = hint_from("XY-Chain", 23, "(8)r8c6=(2)r8c6-(2)r6c6=(1)r6c6-(1)r6c8=(6)r6c8-"
                      "(6)r9c8=(8)r9c8")
    assert chain.look_at == "the 1s, 2s, 6s and 8s in r8c6, r6c6, r6c8 and r9c8"
    longer = hint_from("X-Chain", 5, "(4)r1c1=(4)r1c5-(4)r3c4=(4)r7c4-(4)r8c6=(4)r8c9")
    assert longer.look_at == "the chain that starts at r1c1 (6 cells), with the 4s"
    assert hint_from("Bivalue Universal Grave + 1", 30, "r4c5").text() == "Look at r4c5."
    # a forcing step's other branches prove it; its hint is its chain's, as before them
    forcing = hint_from("Forcing Chain Contradiction", 40,
                        "(6)r9c7-(6)r9c2=(6)r6c2-(5)r6c2=(5)r5c2-(5)r5c9 | (6)r9c7-(4)r9c7="
                        "(4)r9c9-(4)r5c9 | (6)r9c7-(6)r7c9=(9)r7c9-(9)r5c9")
    assert forcing.look_at == "the chain that starts at r9c7 (5 cells), with the 5s and 6s"


def test_hints_for_skips_singles_and_nonograms(puzzles):
    easy = [p for p in puzzles if p.tier == "easy"]
    hints = hints_for(easy + [puzzles[-1]._replace(kind="nonogram")])
    assert hints == {}
    hints = hints_for(puzzles)
    assert hints and all(p.tier != "easy" for p in puzzles if p.puzzle in hints)


def test_solution_path_is_what_rate_steps_prints(puzzles):
    record = puzzles[-1]
    out = io.StringIO()
    rate_file(io.StringIO(record.puzzle + "\n"), "-", out, io.StringIO(), "csv", steps=True)
    printed = next(csv.DictReader(io.StringIO(out.getvalue())))["steps"]
    assert "; ".join(solution_path(record)) == printed


def make_store(path: Path, records: list[PuzzleRecord]) -> Path:
    with Store(path) as store:
        run = store.begin_run("nightly", 7, "{}")
        for task, record in enumerate(records):
            store.add_puzzle(run.id, record.tier, task, record)
    return path


def write_book(tmp_path: Path, store: Path, extra: str = "", name: str = "book") -> Path:
    config = tmp_path / f"{name}.toml"
    config.write_text(f"""
[book]
title = "Hints"
store = "{store}"
run = "nightly"
out = "{tmp_path / name}.pdf"
{extra}
[[book.section]]
title = "All"
tiers = ["easy", "medium", "hard", "unfair"]
""")
    return config


def test_book_with_hints(tmp_path, puzzles):
    store = make_store(tmp_path / "s.db", puzzles)
    plain = publish_book(load_book_config(write_book(tmp_path, store, name="plain")),
                         record=False)
    book = publish_book(load_book_config(write_book(tmp_path, store, "hints = true")),
                        record=False)
    pages = [p for p in book.plan.pages if p.kind == "hints"]
    hinted = [p for p in book.plan.placements if p.puzzle.puzzle in book.plan.hints]
    assert pages and [i for p in pages for i in p.items] == hinted
    # after the last puzzle page, before the answers; the answers move by as many pages
    assert pages[0].number == book.plan.first_page("answers-title") - len(pages)
    assert (book.plan.first_page("answers-title")
            == plain.plan.first_page("answers-title") + len(pages))
    text = PdfReader(book.pdf).pages[pages[0].number - 1].extract_text()
    first = hinted[0]
    hint = book.plan.hints[first.puzzle.puzzle]
    assert hint.technique in text and f"page {first.page}" in text
    contents = PdfReader(book.pdf).pages[2].extract_text()
    assert "Hints" in contents and "Hints" not in PdfReader(plain.pdf).pages[2].extract_text()
    manifest = json.loads(book.manifest.read_text())
    entries = {e["puzzle"]: e for e in manifest["puzzles"]}
    assert manifest["settings"]["layout"]["hints"] is True
    assert "hints" not in json.loads(plain.manifest.read_text())["settings"]["layout"]
    for placement in book.plan.placements:
        entry = entries[placement.puzzle.puzzle]
        if placement in hinted:
            assert entry["hint"] == book.plan.hints[placement.puzzle.puzzle].to_json()
        else:
            assert "hint" not in entry and placement.puzzle.tier in ("easy", "medium")
    # the same store and config give the same bytes
    again = publish_book(load_book_config(write_book(tmp_path, store, "hints = true")),
                         out=str(tmp_path / "again.pdf"), record=False)
    assert again.pdf.read_bytes() == book.pdf.read_bytes()
    n = len(book.plan.placements)
    assert (f"\nhints for {len(hinted)} of the {n} puzzles (the others need only singles)\n"
            in summary(book))
    assert "\nhints for" not in summary(plain) and "no hints" not in summary(plain)


#: The audit's hint that a 6 x 9 in large-print book set in 5.5 pt, cut short with "…".
LONG_HINT = Hint("XY-Chain", 12, "the chain that starts at r4c6 (8 cells), with the 1s, "
                 "2s, 3s, 4s, 6s, 7s, 8s and 9s")


def test_a_long_hint_keeps_the_large_print_size_and_wraps():
    """Large-print hints shrank to about 5.5 pt and were cut short with an ellipsis."""
    fonts = load_fonts()
    entry = hint_entry(fonts, LONG_HINT, 14, 200, large_print=True)
    assert entry.text_size == entry.technique_size == 14 and len(entry.text) > 1
    assert " ".join(entry.text) == LONG_HINT.text()
    assert all(fonts.width(line, 14) <= 200 for line in entry.text)
    # ordinary print shrinks a line a little first, as before, and wraps at 6.5 pt
    entry = hint_entry(fonts, LONG_HINT, 10, 200, large_print=False)
    assert entry.text_size == MIN_SIZE and " ".join(entry.text) == LONG_HINT.text()
    short = hint_entry(fonts, Hint("X-Wing", 3, "the 9s in rows 1 and 9"), 10, 200, False)
    assert short == HintEntry(("X-Wing",), 10, ("Look at the 9s in rows 1 and 9.",), 10)


@pytest.mark.parametrize("extra", ['large_print = true\npage_size = "6x9in"',
                                   'page_size = "A5"',
                                   'large_print = true\npage_size = "5x8in"'])
def test_every_hint_is_printed_whole_inside_its_page(tmp_path, puzzles, extra):
    """Each hint is on its page whole, at the book's size in large print, and the hints
    pages, paged by the entries' lines, keep every line inside the body, none overlapping,
    the explanation on the first page included, however many lines it wraps onto."""
    store = make_store(tmp_path / "s.db", puzzles)
    book = publish_book(load_book_config(write_book(tmp_path, store, "hints = true\n" + extra)),
                        record=False)
    reader = PdfReader(book.pdf)
    pages = [p for p in book.plan.pages if p.kind == "hints"]
    # the hints' "r5c2" and "box 3" were never explained
    first = " ".join(reader.pages[pages[0].number - 1].extract_text().split())
    assert ("Cells are named by row and column, counted from the top and from the left: "
            "r5c2 is row 5, column 2; boxes are numbered 1 to 9, left to right and top to "
            "bottom.") in first
    assert sum(len(p.items) for p in pages) == len(book.plan.hints)
    size = Type.for_settings(book.plan.settings).body
    for page in pages:
        text = " ".join(reader.pages[page.number - 1].extract_text().split())
        assert "\u2026" not in text
        text = re.sub(r" page \d+ ", " ", text)  # drawn under the number, by the hint
        for item in page.items:
            hint = book.plan.hints[item.puzzle.puzzle]
            assert hint.technique in text and hint.text() in text
        area = live_area(page.number, book.plan.size, book.plan.margins)
        found = [(what, b) for what, b in marks(reader.pages[page.number - 1])
                 if what.startswith("text")]
        folio = min((b for what, b in found if what == f"text '{page.number}'"),
                    key=lambda b: b.y0)  # not a puzzle of the same number
        found = [b for what, b in found if b != folio]
        # the entries above the folio, inside the live area
        assert all(folio.y1 <= b.y0 and area.x0 - 0.01 <= b.x0 and b.x1 <= area.x1 + 0.01
                   and b.y1 <= area.y1 + 0.01 for b in found)
        assert not any(a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 - 0.01 and b.y0 < a.y1 - 0.01
                       for a, b in combinations(found, 2))
        if book.plan.settings.large_print:
            sizes = {float(s) for s in re.findall(
                rb"/F\d+\+?\d* ([\d.]+) Tf", reader.pages[page.number - 1].get_contents()
                .get_data())}
            assert min(sizes) >= Type.for_settings(book.plan.settings).small - 0.01
    # some hints of the large-print book take more than their two lines
    width = area.width - hint_indent(load_fonts(), size, Type.for_settings(
        book.plan.settings).small)
    wrapped = [h for h in book.plan.hints.values()
               if len(hint_entry(load_fonts(), h, size, width, True).text) > 1]
    assert wrapped or not book.plan.settings.large_print


def test_a_hints_page_of_one_puzzle_heads_it_puzzle_not_puzzles(puzzles):
    """A hints page holding one puzzle's hint was headed "puzzles 1"."""
    record = next(p for p in puzzles if p.tier == "hard")
    plan = plan_book([BookSection("Hard", (record,))], BookSettings(title="T", hints=True),
                     {record.puzzle: Hint("X-Wing", 3, "the 9s in rows 1 and 9")})
    out = io.BytesIO()
    render_book(plan, out)
    page = plan.first_page("hints")
    text = PdfReader(io.BytesIO(out.getvalue())).pages[page - 1].extract_text()
    assert "puzzle 1" in text and "puzzles" not in text


def test_a_hint_taller_than_a_page_is_refused(puzzles):
    record = next(p for p in puzzles if p.tier == "hard")
    settings = BookSettings(title="T", hints=True, large_print=True, page_size="6x9in")
    huge = Hint("XY-Chain", 3, ", ".join(["the chain that starts at r4c6"] * 60))
    with pytest.raises(LayoutError, match=r"^the hint for puzzle 1 takes \d+ lines, more "
                                          r"than a hints page of a 6x9in book holds; choose "
                                          r"a larger page_size or set hints = false$"):
        plan_book([BookSection("Hard", (record,))], settings, {record.puzzle: huge})


def test_a_book_whose_puzzles_need_only_singles_says_it_has_no_hints(tmp_path, puzzles):
    """hints = true with only singles puzzles gave no hints section and said nothing."""
    easy = [p for p in puzzles if p.tier == "easy"]
    store = make_store(tmp_path / "s.db", easy)
    book = publish_book(load_book_config(write_book(tmp_path, store, "hints = true")),
                        record=False)
    assert not book.plan.hints and not [p for p in book.plan.pages if p.kind == "hints"]
    assert "\nno hints section: every puzzle needs only singles\n" in summary(book)


def test_export_steps(tmp_path, puzzles, capsys):
    store = make_store(tmp_path / "s.db", puzzles[-3:])
    out = tmp_path / "p.csv"
    assert main(["export", "--store", str(store), "--steps", "--out", str(out)]) == 0
    rows = list(csv.DictReader(out.open()))
    assert list(rows[0])[-1] == "steps"
    assert [r["steps"] for r in rows] == ["; ".join(solution_path(p)) for p in puzzles[-3:]]
    assert main(["export", "--store", str(store), "--steps", "--format", "jsonl"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert json.loads(lines[0])["steps"] == solution_path(puzzles[-3])
    assert main(["export", "--store", str(store), "--steps", "--format", "sdk"]) == 2
    assert "--steps adds a column to csv and jsonl" in capsys.readouterr().err
    # without --steps, no steps column
    assert main(["export", "--store", str(store)]) == 0
    assert "steps" not in capsys.readouterr().out.splitlines()[0]


def test_export_steps_of_nonograms(tmp_path, capsys):
    from nanpure.generator.nonogram.formats import format_line as nonogram_line
    from nanpure.generator.nonogram.formats import nonogram_from_picture

    picture = "0110" "1111" "1001" "0110"
    record = PuzzleRecord(puzzle=nonogram_line(nonogram_from_picture(picture, 4, 4),
                                               goal=False),
                          solution=picture, tier="easy", score=4, hardest="", techniques="",
                          symmetry="none", blanks=0, seed=1, kind="nonogram")
    store = make_store(tmp_path / "n.db", [record])
    assert main(["export", "--store", str(store), "--steps", "--format", "jsonl"]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["steps"] == solution_path(record) and len(row["steps"]) > 0
    assert all(isinstance(step, str) for step in row["steps"])


def nonogram_record(picture: str, width: int, height: int) -> PuzzleRecord:
    """A stored-like nonogram record of ``picture`` (its rating is not checked here)."""
    from nanpure.generator.nonogram.formats import format_line as nonogram_line
    from nanpure.generator.nonogram.formats import nonogram_from_picture

    return PuzzleRecord(puzzle=nonogram_line(nonogram_from_picture(picture, width, height),
                                             goal=False),
                        solution=picture, tier="easy", score=4, hardest="", techniques="",
                        symmetry="none", blanks=0, seed=1, kind="nonogram")


#: Hard and extreme puzzles (``nanpure generate`` seeds 5 and 11), whose paths hold
#: chains, wings and the like, not only singles.
HARD = ["...4.7.91.5.89.....79.3.6..6.8.....7.9.....4.7.....8.9..7.4.35.....65.1.56.7.3...",
        "192..7.4...6.1..9.....4.1..2...71...5.7...3.8...35...4..4.6.....2..8.5...8.7..421",
        "6...2....9.54.12....15....7.9.7..13...........12..3.7.8....59....32.97.6....4...1",
        "..9...4..46..8......827.....74.9.....153.798.....4.57.....386......2..95..1...8.."]


def test_csv_steps_split_back_into_the_jsonl_steps(tmp_path, capsys):
    """CSV joins a puzzle's steps with "; ", so no step's own text may hold it: split on
    it, the cell gives exactly the JSON lines list, for both kinds."""
    picture = "110011" "111111" "001100" "101101" "111111" "010010"
    sudoku = [rated(p, seed=k) for k, p in enumerate(HARD)]
    stores = {"sudoku": make_store(tmp_path / "s.db", sudoku),
              "nonogram": make_store(tmp_path / "n.db", [nonogram_record(picture, 6, 6)])}
    for kind, store in stores.items():
        assert main(["export", "--store", str(store), "--steps", "--format", "csv"]) == 0
        cells = [r["steps"] for r in csv.DictReader(io.StringIO(capsys.readouterr().out))]
        assert main(["export", "--store", str(store), "--steps", "--format", "jsonl"]) == 0
        lists = [json.loads(line)["steps"] for line in capsys.readouterr().out.splitlines()]
        assert len(cells) == len(lists) > 0
        for cell, steps in zip(cells, lists, strict=True):
            assert cell.split("; ") == steps, kind
        if kind == "nonogram":
            # a step fixing both filled and empty cells, the case that split wrongly
            assert any("filled" in s and "empty" in s for s in lists[0])
            assert "simple boxes and spaces, column 2: filled r6c2, empty r3c2" in lists[0]
