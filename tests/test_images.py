"""Single puzzles as pictures: ``nanpure export --format svg|png``, drawn by the book's
grid and nonogram code through :class:`~nanpure.layouts.shapes.ShapesCanvas`."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest
from PIL import Image

from nanpure.cli import main
from nanpure.generator.nonogram.formats import format_line, nonogram_from_picture
from nanpure.layouts.grid import GridStyle
from nanpure.layouts.images import GRID_SIDE, MARGIN, puzzle_drawing, write_puzzle_images
from nanpure.layouts.raster import to_image
from nanpure.output.datasets import ExportError
from nanpure.pipeline.reports import export_command
from nanpure.pipeline.store import Store
from nanpure.record import PuzzleRecord

SVG = "{http://www.w3.org/2000/svg}"
PUZZLE = "8...6.2...5.8....323.5.......74...12....5....52...78.......9.361....3.8...6.8...9"
SOLUTION = "879364251651872943234591678967438512418256397523917864785129436192643785346785129"
SUDOKU = PuzzleRecord(puzzle=PUZZLE, solution=SOLUTION, tier="easy", score=334,
                      hardest="Hidden Single", techniques="", symmetry="none",
                      blanks=PUZZLE.count("."), seed=3, id=12)
# a 12x10 picture: a frame with a cross in it
PICTURE = "".join("1" if x in (0, 11) or y in (0, 9) or x == y + 1 else "0"
                  for y in range(10) for x in range(12))
NONOGRAM = PuzzleRecord(puzzle=format_line(nonogram_from_picture(PICTURE, 12, 10), goal=False),
                        solution=PICTURE, tier="easy", score=10, hardest="", techniques="",
                        symmetry="none", blanks=0, seed=4, kind="nonogram", id=13)


def _svg_cells(path) -> tuple[list[float], list[float], list[str]]:
    """The x of the grid's vertical lines, the y of its horizontal ones, and its digits."""
    root = ET.parse(path).getroot()
    xs, ys = set(), set()
    for element in root.iter(f"{SVG}path"):
        for x0, y0, x1, _ in re.findall(r"M ([\d.]+) ([\d.]+) L ([\d.]+) ([\d.]+)",
                                         element.get("d")):
            if x0 == x1:
                xs.add(float(x0))
            else:
                ys.add(float(y0))
    for rect in root.iter(f"{SVG}rect"):
        if "stroke:" in (rect.get("style") or ""):  # the border (not the clip path)
            x, y = float(rect.get("x")), float(rect.get("y"))
            xs |= {x, x + float(rect.get("width"))}
            ys |= {y, y + float(rect.get("height"))}
    digits = [t.text for t in root.iter(f"{SVG}text")]
    return sorted(xs), sorted(ys), digits


def test_svg_has_81_cells_and_the_givens(tmp_path):
    files = write_puzzle_images([SUDOKU], "svg", tmp_path, answers=True)
    assert [f.name for f in files] == ["12.svg", "12-answer.svg"]
    xs, ys, digits = _svg_cells(files[0])
    assert len(xs) == len(ys) == 10  # 9 x 9 cells
    # the border is drawn half its width in, so that its ink ends at the grid's edge
    assert xs[-1] - xs[0] == pytest.approx(GRID_SIDE - GridStyle.for_size(GRID_SIDE).thick)
    assert sorted(digits) == sorted(ch for ch in PUZZLE if ch != ".")
    _, _, answer = _svg_cells(files[1])
    assert len(answer) == 81 and sorted(answer) == sorted(SOLUTION)
    text = files[0].read_text()
    assert "<title>Sudoku 12, easy</title>" in text and "DejaVu Sans" in text


def _inked_cells(image: Image.Image) -> int:
    """How many of the 81 cells have ink in their middle (a digit)."""
    grey = image.convert("L")
    scale = grey.width / (GRID_SIDE + 2 * MARGIN)
    cell = GRID_SIDE / 9 * scale
    inked = 0
    for r in range(9):
        for c in range(9):
            x0 = MARGIN * scale + c * cell
            y0 = MARGIN * scale + r * cell
            box = (round(x0 + cell * 0.25), round(y0 + cell * 0.2), round(x0 + cell * 0.75),
                   round(y0 + cell * 0.8))
            inked += grey.crop(box).getextrema()[0] < 128
    return inked


def _lines_across(image: Image.Image, y: int) -> int:
    """How many dark lines a horizontal scan at pixel row ``y`` crosses."""
    grey = image.convert("L")
    dark = [grey.getpixel((x, y)) < 128 for x in range(grey.width)]
    return sum(1 for a, b in zip(dark, dark[1:], strict=False) if b and not a)


def test_png_opens_with_81_cells(tmp_path):
    files = write_puzzle_images([SUDOKU], "png", tmp_path, answers=True, dpi=100)
    puzzle, answer = (Image.open(f) for f in files)
    assert puzzle.format == "PNG" and puzzle.size == answer.size
    assert puzzle.width == round((GRID_SIDE + 2 * MARGIN) / 72 * 100)
    # a scan through a row's top edge zone crosses the 10 vertical lines
    assert _lines_across(puzzle, round(puzzle.height * 0.5 - puzzle.height * 0.04)) >= 10
    assert _inked_cells(puzzle) == 81 - PUZZLE.count(".")
    assert _inked_cells(answer) == 81


def test_shapes_canvas_draws_what_the_book_draws():
    drawing = puzzle_drawing(SUDOKU)
    kinds = [type(s).__name__ for s in drawing.contents]
    assert kinds[:3] == ["Path", "Path", "Rect"] and kinds.count("String") == 81 - PUZZLE.count(".")
    image = to_image(drawing, dpi=72)
    assert image.size == (round(GRID_SIDE + 2 * MARGIN),) * 2


def test_nonogram_pictures(tmp_path):
    files = write_puzzle_images([NONOGRAM], "svg", tmp_path, answers=True)
    root = ET.parse(files[0]).getroot()
    numbers = [t.text for t in root.iter(f"{SVG}text")]
    clues = nonogram_from_picture(PICTURE, 12, 10)
    assert len(numbers) == sum(max(1, len(c)) for c in clues.rows + clues.columns)
    pngs = write_puzzle_images([NONOGRAM], "png", tmp_path, answers=True)
    answer = Image.open(pngs[1]).convert("L")
    assert answer.getextrema() == (answer.getextrema()[0], 255) and answer.getextrema()[0] < 64


@pytest.fixture
def store(tmp_path):
    path = tmp_path / "s.db"
    with Store(path) as s:
        run = s.begin_run("nightly", 1, "{}")
        s.add_puzzle(run.id, "easy", 0, SUDOKU._replace(id=None))
        s.add_puzzle(run.id, "pictures", 1, NONOGRAM._replace(id=None))
    return path


def test_export_pictures_cli(store, tmp_path, capsys):
    out = tmp_path / "pictures"
    args = ["export", "--store", str(store), "--out", str(out)]
    assert main(args + ["--kind", "sudoku", "--format", "svg", "--answers"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["1-answer.svg", "1.svg"]
    assert "wrote 2 pictures of 1 puzzle to" in capsys.readouterr().err
    assert main(args + ["--kind", "nonogram", "--format", "png", "--dpi", "72"]) == 0
    assert "wrote 1 picture of 1 puzzle to" in capsys.readouterr().err
    assert Image.open(out / "2.png").format == "PNG"
    assert main(["export", "--store", str(store), "--kind", "sudoku", "--format", "png"]) == 2
    assert "give a directory with --out DIR" in capsys.readouterr().err
    assert main(args + ["--kind", "sudoku", "--answers"]) == 2
    assert "--answers is for the pictures" in capsys.readouterr().err


@pytest.mark.parametrize("fmt", ["svg", "png"])
def test_pictures_into_a_directory_of_pictures_of_their_format_are_refused(store, tmp_path,
                                                                          capsys, fmt):
    """An export of pictures into a directory that held an older one overwrote the
    pictures of the same ids and left the others beside them, and an empty one left the
    old pictures as they were: two batches mixed, as ``--format non`` already refused."""
    out = tmp_path / "pictures"
    out.mkdir()
    (out / f"99999.{fmt}").write_text("old\n")
    (out / "notes.txt").write_text("mine\n")
    args = ["export", "--store", str(store), "--kind", "sudoku", "--format", fmt,
            "--out", str(out)]
    assert main(args) == 2
    assert capsys.readouterr().err == (
        f"nanpure: --out: cannot write {out}: it already holds .{fmt} files (99999.{fmt}), "
        "which this batch would mix with; choose an empty or new directory\n")
    assert sorted(p.name for p in out.iterdir()) == ["99999." + fmt, "notes.txt"]
    other = "png" if fmt == "svg" else "svg"
    (out / f"99999.{fmt}").rename(out / f"99999.{other}")  # the other format's: not mixed
    assert main(args) == 0
    assert sorted(p.name for p in out.iterdir()) == [f"1.{fmt}", f"99999.{other}", "notes.txt"]


def test_pictures_are_the_same_bytes_every_time(tmp_path):
    first = write_puzzle_images([SUDOKU, NONOGRAM], "png", tmp_path / "a", answers=True)
    again = write_puzzle_images([SUDOKU, NONOGRAM], "png", tmp_path / "b", answers=True)
    svgs = write_puzzle_images([SUDOKU, NONOGRAM], "svg", tmp_path / "a", answers=True)
    svgs_again = write_puzzle_images([SUDOKU, NONOGRAM], "svg", tmp_path / "b", answers=True)
    for a, b in zip(first + svgs, again + svgs_again, strict=True):
        assert a.read_bytes() == b.read_bytes(), a.name


@pytest.mark.parametrize("dpi, said", [
    ("72.5", "expected a whole number above 0, got '72.5'"),
    ("0", "expected a whole number above 0, got '0'"),
    ("abc", "expected a whole number above 0, got 'abc'"),
    ("5000", "expected a whole number from 1 to 1200, got '5000'"),
    ("1201", "expected a whole number from 1 to 1200, got '1201'")])
def test_dpi_must_be_a_whole_number_up_to_1200(store, tmp_path, capsys, dpi, said):
    out = tmp_path / "pictures"
    with pytest.raises(SystemExit) as stopped:
        main(["export", "--store", str(store), "--kind", "sudoku", "--format", "png",
              "--out", str(out), "--dpi", dpi])
    err = capsys.readouterr().err.splitlines()[-1]
    assert stopped.value.code == 2 and err.endswith(f"argument --dpi: {said}")
    assert "_positive_int" not in err and not out.exists()
    # from Python, the export's own check
    with pytest.raises(ExportError, match="--dpi 5000: give a whole number from 1 to 1200"):
        export_command(str(store), None, "png", str(out), "sudoku", dpi=5000)


def test_workers_must_be_a_whole_number(tmp_path, capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["run", "--workers", "1.5"])
    assert stopped.value.code == 2
    err = capsys.readouterr().err.splitlines()[-1]
    assert err.endswith("argument --workers: expected a whole number above 0, got '1.5'")


def test_export_help_says_where_pictures_go_and_their_size(capsys):
    with pytest.raises(SystemExit):
        main(["export", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "a directory for hf, non, svg and png" in text
    assert ("1 to 1200 (default: 150; a Sudoku picture is its 3.75 in grid and a 1/12 in "
            "margin each side, 3.92 in square)") in text
    # what the help says is what is drawn: 3.75 in and 6 pt a side, 282 points
    assert GRID_SIDE == 3.75 * 72 and MARGIN == 6
    assert puzzle_drawing(SUDOKU).width == 3.75 * 72 + 12 == round(3.92 * 72)


def test_a_refused_format_lists_the_pictures_too(store, capsys):
    assert main(["export", "--store", str(store), "--kind", "nonogram", "--format",
                 "kaggle"]) == 2
    err = capsys.readouterr().err
    assert err.strip().endswith("nonogram exports are csv, jsonl, parquet, lines, non, hf, "
                                "svg, png")


def test_picture_exports_write_each_puzzle_before_reading_the_next(tmp_path, monkeypatch,
                                                                   capsys):
    """export --format svg|png writes a puzzle's pictures as it is read, so it never
    holds its selection; the files are those of drawing the whole list at once."""
    path = tmp_path / "s.db"
    givens = [k for k, ch in enumerate(PUZZLE) if ch != "."]
    records = [SUDOKU._replace(id=None, blanks=SUDOKU.blanks + 1,
                               puzzle=PUZZLE[:k] + "." + PUZZLE[k + 1:]) for k in givens[:3]]
    with Store(path) as s:
        run = s.begin_run("nightly", 1, "{}")
        for task, record in enumerate(records):
            s.add_puzzle(run.id, "easy", task, record)
        stored = s.select_puzzles(unused_only=False)
    seen: list[list[str]] = []  # the files written as each puzzle is read
    read = Store.iter_puzzles_with_canon

    def watched(self, *args, **kwargs):
        for pair in read(self, *args, **kwargs):
            seen.append(sorted(p.name for p in out.iterdir()) if out.exists() else [])
            yield pair

    monkeypatch.setattr(Store, "iter_puzzles_with_canon", watched)
    for fmt in ("svg", "png"):
        out = tmp_path / fmt
        seen.clear()
        assert export_command(str(path), None, fmt, str(out), answers=True) == 0
        assert f"wrote 6 pictures of 3 puzzles to {out}" in capsys.readouterr().err
        names = [f"{n}{a}.{fmt}" for n in (1, 2) for a in ("", "-answer")]
        assert seen == [[], sorted(names[:2]), sorted(names)]
        whole = write_puzzle_images(stored, fmt, tmp_path / f"whole-{fmt}", answers=True)
        assert sorted(p.name for p in out.iterdir()) == sorted(f.name for f in whole)
        for file in whole:
            assert (out / file.name).read_bytes() == file.read_bytes(), file.name
