"""`nanpure book` for print: trim presets, order by score, stars, bleed, the cover, fonts
found through fontconfig, and byte-identical rebuilds with all of them on."""

from __future__ import annotations

import errno
import hashlib
import json
import sqlite3
from pathlib import Path

import pytest
import reportlab
from conftest import EXAMPLES, example_books
from pypdf import PdfReader
from test_book import make_store, write_config

import nanpure
from nanpure.cli import main
from nanpure.files import PART_SUFFIX
from nanpure.generator import count_solutions_batch, format_line
from nanpure.generator.board import parse_line
from nanpure.layouts.book import star_count
from nanpure.layouts.pages import INCH, PAGE_SIZES, load_fonts
from nanpure.layouts.preflight import Check
from nanpure.pipeline import fonts, publish
from nanpure.pipeline.book_config import (
    book_config_from_toml,
    default_book_config,
    load_book_config,
)
from nanpure.pipeline.config import ConfigError, parse_toml
from nanpure.pipeline.fonts import find_font
from nanpure.pipeline.publish import (
    PublishError,
    manifest_path,
    publish_book,
    select_sections,
)
from nanpure.pipeline.store import Store, StoreError
from nanpure.record import PuzzleRecord

EVERYTHING = """
page_size = "8.5x11in"
hints = true
order = "score"
stars = true
bleed = true
reuse = true
[book.cover]
back = ["Twenty-six puzzles.", "Each has one solution."]
paper = "cream"
background = "#203040"
"""
MIXED_TIERS = """
[[book.section]]
title = "Warm-up"
tiers = ["easy", "medium"]
"""


@pytest.fixture
def store(tmp_path, qqwing_rows) -> Path:
    return make_store(tmp_path / "nanpure.db", qqwing_rows)


def config_of(text: str):
    return book_config_from_toml(parse_toml(text, "b.toml"), "b.toml")


def test_a_book_without_a_size_is_8_5_by_11_with_four_puzzles_a_page():
    config = config_of('[book]\ntitle = "T"\n[[book.section]]\ntitle = "E"\ntier = "easy"\n')
    layout = config.layout
    assert (layout.page_size, layout.puzzles_per_page, layout.answers_per_page) == \
        ("8.5x11in", 4, 9)
    small = config_of('[book]\ntitle = "T"\npage_size = "6x9in"\n[[book.section]]\n'
                      'title = "E"\ntier = "easy"\n')
    assert (small.layout.puzzles_per_page, small.layout.answers_per_page) == (2, 6)


def test_the_packaged_book_stays_6_by_9_and_its_json_has_no_new_keys():
    config = default_book_config()
    assert config.layout.page_size == "6x9in"
    data = json.loads(config.to_json())
    assert not {"order", "cover"} & set(data)
    assert not {"bleed", "stars"} & set(data["layout"])


@pytest.mark.parametrize("text, message", [
    ('order = "random"', 'book.order: expected one of "tier", "score"'),
    ('stars = "yes"', "book.stars: expected true or false"),
    ('[book.cover]\npaper = "glossy"', 'book.cover.paper: expected one of "white", "cream"'),
    ('[book.cover]\nbackground = "blue"', 'book.cover.background: expected a colour as'),
    ('[book.cover]\nimage = "/no/such.png"', "book.cover.image: no such image file"),
    ('[book.cover]\nback = 3', "book.cover.back: expected a list of strings"),
    ('[book.cover]\nspine = "x"', "book.cover.spine: unknown key"),
])
def test_new_keys_are_checked_in_one_line(text, message):
    with pytest.raises(ConfigError) as exc:
        config_of(f'[book]\ntitle = "T"\n{text}\n[[book.section]]\ntitle = "E"\n'
                  'tier = "easy"\n')
    assert message in str(exc.value)
    assert "\n" not in str(exc.value)


@pytest.mark.parametrize("text, message", [
    ('page_sise = "6x9in"', "book.page_sise: unknown key; did you mean page_size? allowed "
                            "keys: title, "),
    ('Bleed = true', "book.Bleed: unknown key; did you mean bleed? allowed keys: "),
    ('[book.cover]\nbackround = "#000000"', "book.cover.backround: unknown key; did you "
                                            "mean background? allowed keys: "),
    ('page_size = "6x9"', '; got \'6x9\'; did you mean "6x9in"?'),
    ('page_size = "8.5 x 11 in"', '; did you mean "8.5x11in"?'),
    ('[book.cover]\npaper = "creme"', 'expected one of "white", "cream"; got \'creme\'; '
                                      'did you mean "cream"?'),
])
def test_a_misspelt_key_or_value_gets_a_did_you_mean(text, message):
    """Misspelt keys listed every allowed key and suggested none, as the .non reader
    does; a trim of "6x9" got no hint of "6x9in"."""
    with pytest.raises(ConfigError) as exc:
        config_of(f'[book]\ntitle = "T"\n{text}\n[[book.section]]\ntitle = "E"\n'
                  'tier = "easy"\n')
    assert message in str(exc.value)
    assert "\n" not in str(exc.value)


def test_a_misspelt_section_key_gets_a_did_you_mean():
    with pytest.raises(ConfigError, match=r"book.section\[1\].qouta: unknown key; did you "
                                          r"mean quota\? allowed keys: title, quotas, quota"):
        config_of('[book]\ntitle = "T"\n[[book.section]]\ntitle = "E"\nqouta = "easy"\n')
    with pytest.raises(ConfigError, match=r"book.section\[1\].tiers\[2\]: expected one of "
                                          r'.*; got \'hrad\'; did you mean "hard"\?$'):
        config_of('[book]\ntitle = "T"\n[[book.section]]\ntitle = "E"\n'
                  'tiers = ["easy", "hrad"]\n')


def test_two_sections_of_one_title_are_refused(tmp_path, store, capsys):
    """Two sections titled "Same" were one in the summary ("120 puzzles (Same 120)") while
    the contents listed two; the manifest and the store tell sections by title too."""
    sections = ('[[book.section]]\ntitle = "Same"\nquota = "easy"\n'
                '[[book.section]]\ntitle = "Other"\nquota = "hard"\n'
                '[[book.section]]\ntitle = "Same "\ntiers = ["medium"]\n')
    path = write_config(tmp_path, store, sections=sections)
    assert main(["book", str(path)]) == 2
    assert capsys.readouterr().err == (
        f"nanpure: {path}: book.section[3].title: 'Same ' is the title of section 1 too; "
        "give each section its own title\n")


def test_the_cover_takes_the_book_words_unless_given():
    config = config_of('[book]\ntitle = "T"\nsubtitle = "S"\n[book.cover]\nback = "B"\n'
                       'author = "A"\n[[book.section]]\ntitle = "E"\ntier = "easy"\n')
    cover = config.cover
    assert (cover.title, cover.subtitle, cover.author, cover.back, cover.paper) == \
        ("T", "S", "A", ("B",), "white")


def section_numbers(book) -> list[tuple[str, int]]:
    return [(p.puzzle.tier, p.puzzle.score) for p in book.plan.placements]


def test_order_score_sorts_a_section_by_score_alone(tmp_path, store):
    # an easy puzzle that scores above every medium one
    with sqlite3.connect(store) as db:
        db.execute("UPDATE puzzles SET score = 5000 WHERE quota = 'easy' AND task = 0")
    by_tier = publish_book(load_book_config(write_config(
        tmp_path, store, "reuse = true", sections=MIXED_TIERS)), record=False)
    by_score = publish_book(load_book_config(write_config(
        tmp_path, store, 'reuse = true\norder = "score"', sections=MIXED_TIERS)),
        record=False)
    tiers = section_numbers(by_tier)
    assert [t for t, _ in tiers] == ["easy"] * 16 + ["medium"] * 10
    assert tiers[15] == ("easy", 5000)
    scores = [s for _, s in section_numbers(by_score)]
    assert scores == sorted(scores) and scores[-1] == 5000


@pytest.mark.parametrize("order", ["tier", "score"])
def test_puzzles_of_equal_rank_keep_the_stores_order_not_their_ids(tmp_path, qqwing_rows,
                                                                   order):
    """Ids follow which worker's batch came back first: a book of the same run printed
    puzzles of the same tier and score in another order when the machine was busier."""
    db = tmp_path / "s.db"
    puzzles = [r["puzzle"] for r in qqwing_rows[:4]]
    _, solutions = count_solutions_batch([parse_line(p) for p in puzzles])
    with Store(db) as store:
        run = store.begin_run("nightly", 7, "{}")
        # quota b's batch came back before quota a's
        for (quota, task), p, s in zip([("b", 0), ("b", 1), ("a", 0), ("a", 1)], puzzles,
                                       solutions, strict=True):
            store.add_puzzle(run.id, quota, task, PuzzleRecord(
                puzzle=p, solution=format_line(s), tier="easy", score=100,
                hardest="Hidden Single", techniques="", symmetry="rot180",
                blanks=p.count("."), seed=task))
    config = load_book_config(write_config(tmp_path, db, body=f'order = "{order}"',
                                           sections='[[book.section]]\ntitle = "All"\n'))
    with Store(db) as store:
        (section,) = select_sections(store, config)
    assert [p.puzzle for p in section.puzzles] == puzzles[2:] + puzzles[:2]


def test_a_book_of_more_pages_than_the_preflight_reads_is_refused_before_drawing(
        tmp_path, store, monkeypatch):
    # the packaged book on a store of 300,000 puzzles: 200,000 pages drawn in minutes,
    # then a preflight that cannot read them
    monkeypatch.setattr(publish, "max_pages", lambda: 20)
    config = load_book_config(write_config(tmp_path, store))
    with pytest.raises(PublishError, match=r"book.toml: the book would have \d+ pages, more "
                                           r"than the 20 its preflight can read; give its "
                                           r"sections a smaller count \(sections without one "
                                           r"take every puzzle they find: 'Hard ones', "
                                           r"'Medium ones'\)$"):
        publish_book(config, record=False)
    assert not (tmp_path / "book.pdf").exists()
    monkeypatch.setattr(publish, "max_pages", lambda: None)
    assert publish_book(config, record=False).report.ok


def test_a_book_too_long_for_its_preflight_is_refused_before_its_puzzles_are_checked(
        tmp_path, store, monkeypatch):
    """The packaged book on a store of 300,000 puzzles re-checked every one (most of a
    minute) before its plan refused it: it is planned first now, without its hints (which
    are rated once the puzzles are checked, and only add pages)."""
    def not_yet(*args, **kwargs):
        raise AssertionError("re-checked or rated before the book was refused")

    real_verify = publish.verify_puzzles
    monkeypatch.setattr(publish, "verify_puzzles", not_yet)
    monkeypatch.setattr(publish, "hints_for", not_yet)
    monkeypatch.setattr(publish, "max_pages", lambda: 20)
    plain = load_book_config(write_config(tmp_path, store))
    with pytest.raises(PublishError, match=r"book.toml: the book would have \d+ pages, more "
                                           r"than the 20 its preflight can read; give"):
        publish_book(plain, record=False)
    hinted = load_book_config(write_config(tmp_path, store, "hints = true"))
    with pytest.raises(PublishError, match=r"book.toml: the book would have \d+ pages "
                                           r"before its hints, more than the 20 its "
                                           r"preflight can read; give its sections a "
                                           r"smaller count \(sections without one"):
        publish_book(hinted, record=False)
    assert not (tmp_path / "book.pdf").exists()
    # a book within the limit is checked, and is the same bytes, planned first or not
    monkeypatch.setattr(publish, "verify_puzzles", real_verify)
    monkeypatch.setattr(publish, "max_pages", lambda: None)
    whole = publish_book(plain, out=str(tmp_path / "whole.pdf"), record=False)
    checked = []
    monkeypatch.setattr(publish, "verify_puzzles",
                        lambda *args: checked.append(1) or real_verify(*args))
    monkeypatch.setattr(publish, "max_pages", lambda: whole.plan.page_count)
    again = publish_book(plain, out=str(tmp_path / "again.pdf"), record=False)
    assert checked == [1] and again.pdf.read_bytes() == whole.pdf.read_bytes()


@pytest.mark.parametrize("bleed", [False, True])
@pytest.mark.parametrize("name", sorted(PAGE_SIZES))
def test_every_trim_preset_makes_a_book_and_cover_that_pass_preflight(tmp_path, store, name,
                                                                       bleed):
    """KDP's 5x8in, 5.5x8.5in, 7x10in, 8x10in and 8.5x8.5in, and JIS B5, were missing;
    each preset lays out a book at its default density, hints and stars on, with its
    cover, and both pass preflight."""
    body = (f'page_size = "{name}"\nhints = true\nstars = true\nbleed = {str(bleed).lower()}'
            '\n[book.cover]\nback = ["A book of Sudoku."]\n')
    sections = ('[[book.section]]\ntitle = "Easy"\nquota = "easy"\ncount = 5\n'
                '[[book.section]]\ntitle = "Hard"\nquota = "hard"\ncount = 5\n')
    book = publish_book(load_book_config(write_config(tmp_path, store, body, sections)),
                        record=False)
    assert book.report.ok, book.report.format()
    assert book.cover_report is not None and book.cover_report.ok, book.cover_report.format()
    width, height = PAGE_SIZES[name]
    first = PdfReader(str(book.pdf)).pages[0].trimbox
    assert (float(first.width), float(first.height)) == pytest.approx((width, height), abs=0.01)


def test_b5_is_iso_and_jis_b5_is_japans():
    assert [round(v / INCH * 25.4) for v in PAGE_SIZES["B5"]] == [176, 250]
    assert [round(v / INCH * 25.4) for v in PAGE_SIZES["JIS-B5"]] == [182, 257]


@pytest.mark.parametrize("where, reason", [
    ("directory", "it is a directory; give a file name"),
    ("/sys/kernel/x.pdf", "/sys/kernel is not writable; give a path in a directory you can "
                          "write"),
    ("read-only", "is not writable; give a path in a directory you can write"),
])
def test_an_unwritable_out_is_refused_before_the_book_is_made(tmp_path, store, capsys,
                                                              monkeypatch, where, reason):
    """An out that is a directory, or in one that cannot be written, failed only once the
    whole book was drawn, and without naming book.out."""
    import os

    if where == "directory":
        out = tmp_path / "dir.pdf"
        out.mkdir()
    elif where == "read-only":
        if os.geteuid() == 0:
            pytest.skip("root writes in a read-only directory")
        (tmp_path / "ro").mkdir(mode=0o555)
        out = tmp_path / "ro" / "x.pdf"
    else:
        if not Path("/sys/kernel").is_dir():
            pytest.skip("no /sys/kernel")
        out = Path(where)

    def no_book(*args):
        raise AssertionError("the book was made before its output was checked")

    monkeypatch.setattr(publish, "select_sections", no_book)
    path = write_config(tmp_path, store, f'out = "{out}"', out="ignored.pdf")
    text = path.read_text().replace(f'out = "{tmp_path / "ignored.pdf"}"\n', "")
    path.write_text(text)
    assert main(["book", str(path)]) == 2
    err = capsys.readouterr().err
    assert err == f"nanpure: {path}: book.out: cannot write {out}: {reason}\n" or (
        where == "read-only" and reason in err and "book.out" in err), err
    assert main(["book", str(path), "--out", str(out)]) == 2
    assert f"nanpure: --out: cannot write {out}: " in capsys.readouterr().err


def test_stars_are_in_the_manifest_on_the_fixed_scale(tmp_path, store):
    book = publish_book(load_book_config(write_config(tmp_path, store, "stars = true")),
                        record=False)
    data = json.loads(manifest_path(book.pdf).read_text())
    assert [p["stars"] for p in data["puzzles"]] == \
        [star_count("sudoku", p["score"]) for p in data["puzzles"]]
    assert {p["stars"] for p in data["puzzles"]} >= {1, 2}  # scores run 0 .. 609


def test_a_book_with_everything_on_is_printable_and_rebuilds_byte_identical(tmp_path, store):
    from PIL import Image

    picture = tmp_path / "front.png"
    Image.new("RGB", (2400, 1800), (230, 180, 60)).save(picture)  # 320 ppi
    body = EVERYTHING + f'image = "{picture}"\n'
    config = load_book_config(write_config(tmp_path, store, body))
    one = tmp_path / "one"
    two = tmp_path / "two"
    first = publish_book(config, out=str(one / "book.pdf"), record=False)
    publish_book(config, out=str(two / "book.pdf"), record=False)
    assert first.report.ok and first.cover_report is not None and first.cover_report.ok
    assert first.cover == one / "book-cover.pdf"
    for name in ("book.pdf", "book-cover.pdf", "book.manifest.json"):
        assert (one / name).read_bytes() == (two / name).read_bytes(), name
    data = json.loads((one / "book.manifest.json").read_text())
    # what else a rebuild needs: the software, the picture's bytes, each puzzle's run
    assert data["made_with"] == {"nanpure": nanpure.__version__,
                                 "reportlab": reportlab.Version}
    assert data["cover"]["image"] == {"path": str(picture), "sha256": hashlib.sha256(
        picture.read_bytes()).hexdigest()}
    assert data["cjk_font"] is None
    with Store(store) as s:
        made = {r.puzzle: (r.run, r.quota) for r in s.iter_puzzles()}
    assert [(e["run"], e["quota"]) for e in data["puzzles"]] == \
        [made[e["puzzle"]] for e in data["puzzles"]]
    assert {e["run"] for e in data["puzzles"]} == {"nightly"}
    # added last: the keys manifests had before keep their order
    assert list(data)[-2:] == ["made_with", "cjk_font"]
    assert list(data["puzzles"][0])[-2:] == ["run", "quota"]
    pages = data["pages"]
    assert data["bleed_in"] == 0.125
    assert data["cover"]["spine_in"] == pytest.approx(pages * 0.0025, abs=1e-4)
    cover = PdfReader(str(one / "book-cover.pdf")).pages[0].mediabox
    assert float(cover.width) / INCH == pytest.approx(17 + 0.25 + pages * 0.0025, abs=1e-3)
    interior = PdfReader(str(one / "book.pdf")).pages[0]
    assert (float(interior.mediabox.width), float(interior.mediabox.height)) == \
        (8.625 * INCH, 11.25 * INCH)


def test_cli_reports_the_cover_and_its_preflight(tmp_path, store, capsys):
    path = write_config(tmp_path, store, EVERYTHING)
    assert main(["book", str(path), "--no-record"]) == 0
    out = capsys.readouterr().out
    assert f"wrote {tmp_path / 'book-cover.pdf'}" in out
    assert "cover size: 17.3" in out and "safe areas" in out


def test_the_books_preflight_checks_the_text_of_every_page(tmp_path, store, monkeypatch):
    """Preflight read the text of the pages with the book's own words only, so a divider
    page whose note ran into the gutter passed; it reads every page's now."""
    from nanpure.layouts import book as book_layout

    book = publish_book(load_book_config(write_config(tmp_path, store)), record=False)
    check = next(c for c in book.report.checks if c.name == "text")
    assert check.ok and check.detail == "inside the margins, nothing overlapping, on every page"

    def wide(self, page):  # the note as it was drawn: one line, whatever its width
        box = self.area(page)
        self.text((box.x0 + box.x1) / 2, box.y0 + box.height / 2, "Bold digits " * 12,
                  self.type.body, align="centre", grey=True)

    monkeypatch.setattr(book_layout._Drawer, "page_answers_title", wide)
    with pytest.raises(PublishError) as exc:
        publish_book(load_book_config(write_config(tmp_path, store)), record=False)
    divider = book.plan.first_page("answers-title")
    assert (f"  FAIL  text: page {divider}: text 'Bold digits Bold digits"
            in str(exc.value)) and "runs past the margins" in str(exc.value)


@pytest.mark.parametrize("pixels, fails", [((300, 200), True), ((1800, 1200), False)])
def test_a_low_resolution_cover_picture_fails_or_warns(tmp_path, store, capsys, pixels,
                                                       fails):
    """A 300 x 200 px cover picture was placed at 40 ppi and the book passed: under
    200 ppi the book fails (exit 2), from 200 to 300 ppi it is written with a warning."""
    from PIL import Image

    picture = tmp_path / "small.png"
    Image.new("RGB", pixels, (200, 60, 60)).save(picture)
    path = write_config(tmp_path, store, f'[book.cover]\nimage = "{picture}"')
    assert main(["book", str(path), "--no-record"]) == (2 if fails else 0)
    said = capsys.readouterr()
    line = next(line for line in (said.err if fails else said.out).splitlines()
                if "pictures:" in line)
    mark = "FAIL" if fails else "WARN"
    ppi = pixels[0] // 7.5
    verdict = "print services reject it" if fails else "it will print soft; under 200 ppi fails"
    assert line == (f"  {mark}  pictures: {picture}, {pixels[0]} x {pixels[1]} px, is placed "
                    f"at 7.5 x 5 in on the front: {ppi:.0f} ppi, under the 300 ppi print "
                    f"needs ({verdict}); give one of at least 2250 x 1500 px")
    assert (tmp_path / "book.pdf").exists() != fails


def test_the_running_head_gives_the_numbers_not_the_tier_again(tmp_path, store):
    sections = '[[book.section]]\ntitle = "Easy"\nquota = "easy"\n'
    book = publish_book(load_book_config(write_config(
        tmp_path, store, 'page_size = "6x9in"', sections=sections)), record=False)
    reader = PdfReader(str(book.pdf))
    first = next(p for p in book.plan.pages if p.kind == "puzzles")
    lines = reader.pages[first.number - 1].extract_text().splitlines()
    assert lines[:2] == ["Easy", "puzzles 1\u20132"] or lines[:2] == ["puzzles 1\u20132", "Easy"]


JAPANESE = '[book]\ntitle = "ナンプレ"\nstore = "{store}"\nrun = "nightly"\nout = "{out}"\n' \
           '[book.cover]\n[[book.section]]\ntitle = "やさしい"\nquota = "easy"\n'


def test_japanese_without_a_font_names_the_debian_package(tmp_path, store, monkeypatch):
    fake_fonts(monkeypatch, [], False)
    path = tmp_path / "ja.toml"
    path.write_text(JAPANESE.format(store=store, out=tmp_path / "ja.pdf"))
    with pytest.raises(PublishError, match=r"apt-get install fonts-ipafont-gothic") as exc:
        publish_book(load_book_config(path), record=False)
    assert "\n" not in str(exc.value)


def titled(tmp_path, store, title: str, section: str = "Easy") -> Path:
    """A book config of one section with ``title``."""
    path = tmp_path / "t.toml"
    path.write_text(f'[book]\ntitle = "{title}"\nstore = "{store}"\nrun = "nightly"\n'
                    f'out = "{tmp_path / "t.pdf"}"\n[[book.section]]\ntitle = "{section}"\n'
                    'quota = "easy"\n')
    return path


def refusal(path: Path) -> str:
    with pytest.raises(PublishError) as exc:
        publish_book(load_book_config(path), record=False)
    assert "\n" not in str(exc.value)
    return str(exc.value)


@pytest.mark.skipif(find_font("С数☃") is None, reason="no TrueType font with Cyrillic and "
                    "CJK installed (apt-get install fonts-ipafont-gothic)")
def test_the_character_no_font_has_is_named_not_the_first_the_built_in_font_lacks(
        tmp_path, store):
    """'С' is in installed fonts, and so are the ideographs and the snowman: the puzzle
    piece is what no font has, and installing the font that is installed cannot help."""
    message = refusal(titled(tmp_path, store, "Судоку 数独 ☃ 🧩"))
    assert "has '🧩', which no installed TrueType font has, so it cannot be printed: " \
           "remove it, or name a .ttf file that has it in book.cjk_font" in message
    assert "'С'" not in message and "apt-get" not in message
    publish_book(load_book_config(titled(tmp_path, store, "Судоку 数独 ☃")), record=False)


def fake_fonts(monkeypatch, installed: list[str], package: bool) -> None:
    """Installed fonts as the strings of characters each has (beyond the built-in font's),
    and whether the Debian package's font is among them."""
    def find(chars):
        return (("font.ttf", load_fonts(None)) if any(set(chars) <= set(font)
                                                       for font in installed) else None)

    def coverage(chars):
        return {ch: {f"font{k}.ttf" for k, font in enumerate(installed) if ch in font}
                for ch in chars}
    monkeypatch.setattr(publish, "find_font", find)
    monkeypatch.setattr(fonts, "find_font", find)
    monkeypatch.setattr(fonts, "font_coverage", coverage)
    monkeypatch.setattr(fonts, "cjk_package_installed", lambda: package, raising=False)


@pytest.mark.parametrize("title, installed, package, advice", [
    # Japanese no font has, the package not installed: installing it helps
    ("ナンプレ", [], False, "apt-get install fonts-ipafont-gothic"),
    # installed, and still no font has it: no advice to install it
    ("数独 \U0002a6d6", ["数独"], True, "cannot be printed"),
    # an emoji: the Japanese font would not help
    ("Sudoku 🧩", [], False, "cannot be printed"),
])
def test_install_advice_only_where_installing_could_help(tmp_path, store, monkeypatch,
                                                          title, installed, package, advice):
    fake_fonts(monkeypatch, installed, package)
    message = refusal(titled(tmp_path, store, title))
    assert advice in message
    assert ("apt-get" in message) == advice.startswith("apt-get")
    if "\U0002a6d6" in title:
        assert "has '\U0002a6d6'," in message  # the one no font has, not the first


def test_characters_no_one_font_has_together_are_named(tmp_path, store, monkeypatch):
    """Each is in a font, but a book takes one font beside the built-in one."""
    fake_fonts(monkeypatch, ["Судоку", "ナンプレ"], True)
    message = refusal(titled(tmp_path, store, "Судоку", section="ナンプレ"))
    assert "'С' in the title 'Судоку' and 'ナ' in the section title 'ナンプレ': no " \
           "installed TrueType font has 'С' and 'ナ' together" in message
    assert "book.cjk_font" in message and "apt-get" not in message


def test_a_text_of_many_missing_characters_asks_fontconfig_once(monkeypatch):
    """The message about characters no font has asked fontconfig twice for each one the
    built-in font lacks (and again as it looked for two no font has together): 4.4 s for
    a title of 300 of them. Now one query finds the fonts of all; the message is the
    same."""
    asked = []

    def lines(command):
        asked.append(command)
        return ["/usr/share/fonts/x/latin.ttf\t20-7e a0-ff"] if "--format" in command else []

    monkeypatch.setattr(fonts, "_lines", lines)
    title = "".join(chr(0x4E00 + k) for k in range(300))
    assert fonts.no_font([("title", title)], title) == (
        f"the title {title!r} has '一', '丁', '丂', '七', '丄', '丅', '丆', '万' and 292 "
        "more, which the built-in font lacks, and no installed TrueType font has them: "
        "install one (Debian: apt-get install fonts-ipafont-gothic) or name a .ttf file "
        "that has them in book.cjk_font")
    assert len(asked) == 2  # the fonts' characters, and whether the package is installed


@pytest.mark.skipif(not fonts._lines(["fc-list", ":", "file"]), reason="no fontconfig")
def test_font_coverage_finds_what_find_font_finds():
    """A character has a font in :func:`font_coverage` exactly when :func:`find_font`
    finds one for it, and two have a font in common exactly when it finds one for both."""
    chars = "Сa数☃🧩\U0002a6d6"
    coverage = fonts.font_coverage(chars)
    assert {ch: bool(coverage[ch]) for ch in chars} == {
        ch: find_font(ch) is not None for ch in chars}
    assert bool(coverage["С"] & coverage["数"]) == (find_font("С数") is not None)


@pytest.mark.skipif(find_font("ナ") is None, reason="no CJK TrueType font installed "
                    "(apt-get install fonts-ipafont-gothic)")
def test_japanese_title_works_with_the_font_fontconfig_finds(tmp_path, store):
    path = tmp_path / "ja.toml"
    path.write_text(JAPANESE.format(store=store, out=tmp_path / "ja.pdf"))
    book = publish_book(load_book_config(path), record=False)
    assert book.report.ok and book.cover_report.ok
    assert "ナンプレ" in PdfReader(str(book.pdf)).pages[0].extract_text()
    assert "ナンプレ" in PdfReader(str(book.cover)).pages[0].extract_text()
    # the manifest named no font: the config's cjk_font is null, the font found is not
    data = json.loads(book.manifest.read_text())
    found = book.plan.settings.cjk_font
    assert data["settings"]["layout"]["cjk_font"] is None and found is not None
    assert data["cjk_font"] == {"path": found, "sha256": hashlib.sha256(
        Path(found).read_bytes()).hexdigest()}



@pytest.mark.skipif(find_font("ナ") is None, reason="no CJK TrueType font installed "
                    "(apt-get install fonts-ipafont-gothic)")
def test_a_long_japanese_cover_title_on_a_thin_spine_passes_preflight(tmp_path, store,
                                                                      monkeypatch, capsys):
    """An 80-page 6 x 9 in book with a long Japanese cover title passed the cover's layout
    and failed its preflight: the spine's text ran past the spine's safe area."""
    import nanpure.layouts.cover as cover_module

    # the store's books are thin: their spine as wide as an 80-page book's on white paper
    monkeypatch.setattr(cover_module, "SPINE_TEXT_PAGES", 20)
    six_by_nine = 'page_size = "6x9in"\n'
    pages = publish_book(load_book_config(write_config(tmp_path, store, six_by_nine)),
                         record=False).plan.page_count
    per_page = 80 * cover_module.SPINE_PER_PAGE["white"] / pages
    monkeypatch.setattr(cover_module, "SPINE_PER_PAGE", {"white": per_page, "cream": 1.0})
    title = "ナンプレ 毎晩の数独パズル集 やさしい問題からむずかしい問題まで 六十問"
    path = write_config(tmp_path, store, f'{six_by_nine}[book.cover]\ntitle = "{title}"',
                        out="ja.pdf")
    assert main(["book", str(path), "--no-record"]) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert "safe areas" in out and "FAIL" not in out
    assert f"spine {80 * 0.002252:.4f} in for {pages} pages" in out
    spine = PdfReader(str(tmp_path / "ja-cover.pdf")).pages[0].extract_text()
    assert title.split()[1] in spine


def test_the_example_book_configs_are_valid():
    books = dict(example_books())
    assert EXAMPLES / "publish-book.toml" in books
    for book in books.values():
        assert book.sections
    publish = books[EXAMPLES / "publish-book.toml"]
    assert (publish.layout.page_size, publish.order, publish.layout.stars) == \
        ("8.5x11in", "score", True)
    assert publish.cover is not None and publish.layout.bleed


#: Numbers as the example books' back covers spell them.
NUMBER_WORDS = {"Sixty": 60, "Forty": 40, "Twenty": 20}


def test_an_example_book_that_promises_a_number_of_puzzles_prints_that_many():
    """publish-book.toml took every puzzle of every nightly run: 120 after two nights,
    under a title page that says 60. A book whose subtitle or back cover gives a count
    has a count in every section, and they add up to it."""
    import re

    checked = 0
    for path, book in example_books():
        words = [book.layout.subtitle, *(book.cover.back if book.cover else ())]
        promised = {int(m) for w in words for m in re.findall(r"^(\d+) puzzles", w)}
        promised |= {n for w in words for word, n in NUMBER_WORDS.items()
                     if w.startswith(f"{word} ")}
        if not promised:
            continue
        checked += 1
        counts = [s.count for s in book.sections]
        assert None not in counts, f"{path.name}: a section without a count grows"
        assert promised == {sum(counts)}, path.name
    assert checked >= 2


#: Words too long for a cover, each with the key its refusal names.
LONG_WORDS = ("Professor Doctor Alexandra Margaret Featherstonehaugh-Cholmondeley-Smythe of "
              "the Royal Society for Recreational Mathematics and Logic Puzzles, with "
              "Contributions from the Members of the Nightly Sudoku Circle ")


@pytest.mark.parametrize("cover, key", [
    (f'author = "{LONG_WORDS * 3}"', "book.cover.author"),
    (f'title = "{LONG_WORDS * 2}"', "book.cover.title"),
    (f'subtitle = "{LONG_WORDS * 4}"', "book.cover.subtitle"),
    (f'author = "{LONG_WORDS[:100]}"\ntitle = "{LONG_WORDS[:125]}"', "spine"),
    ('image = "IMAGE"', "cannot read the cover image"),
])
def test_a_refused_cover_leaves_the_output_as_it_was(tmp_path, store, capsys, monkeypatch,
                                                      cover, key):
    """The cover was drawn after the interior had been written: a cover refused for its
    words or picture left a new interior beside the old cover, or none."""
    from PIL import Image

    import nanpure.layouts.cover as cover_module

    if key == "spine":  # the store's books are thin: a spine with text on 24 pages
        monkeypatch.setattr(cover_module, "SPINE_TEXT_PAGES", 20)
        monkeypatch.setattr(cover_module, "SPINE_PER_PAGE", {"white": 0.02, "cream": 0.02})
        key = "does not fit the spine in 6 pt; shorten book.cover.title"
    picture = tmp_path / "picture.png"
    Image.new("RGB", (2400, 1600), (200, 60, 60)).save(picture)  # 320 ppi
    cut = tmp_path / "cut.png"
    cut.write_bytes(picture.read_bytes()[:200])  # its size, not its pixels
    out = tmp_path / "out"
    out.mkdir()
    before = {"book.pdf": b"the book before", "book-cover.pdf": b"its cover",
              "book.manifest.json": b"{}"}
    for name, data in before.items():
        (out / name).write_bytes(data)
    path = write_config(tmp_path, store, "[book.cover]\n" + cover.replace("IMAGE", str(cut)),
                        out="out/book.pdf")
    assert main(["book", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and key in err, err
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    # a cover that fits is made, with its book
    monkeypatch.undo()
    fits = write_config(tmp_path, store, f'[book.cover]\nimage = "{picture}"',
                        out="out/book.pdf")
    assert main(["book", str(fits), "--no-record"]) == 0
    assert (out / "book-cover.pdf").read_bytes().startswith(b"%PDF")


def _failing(check):
    """``check`` (a preflight) with a failed check added to each report it gives."""
    def failed(*args, **kwargs):
        report = check(*args, **kwargs)
        report.checks.append(Check("test", False, "failed on purpose"))
        return report
    return failed


def _cover_disk_full(*args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


def _ctrl_c(*args, **kwargs):
    raise KeyboardInterrupt


#: Faults in a book with a cover after its interior is drawn: (the name in publish to
#: replace, what replaces it, the exit status).
BOOK_FAULTS = {
    "full disk in the cover": ("render_cover", lambda real: _cover_disk_full, 2),
    "interior fails preflight": ("preflight", _failing, 2),
    "cover fails preflight": ("preflight_cover", _failing, 2),
    "ctrl-c in preflight": ("preflight", lambda real: _ctrl_c, 130),
}


@pytest.mark.parametrize("fault", BOOK_FAULTS)
def test_a_book_that_fails_leaves_the_files_of_the_last_one_as_they_were(
        tmp_path, store, monkeypatch, capsys, fault):
    """The interior, its cover and its manifest are one set. A full disk while the cover
    was written left the new interior beside the old cover and manifest (or none), and a
    failed preflight (or Ctrl-C during it) the whole new set, unrecorded. Now a book that
    fails leaves the earlier book's files as they were, or none, and nothing beside
    them; the store records no book."""
    name, make, status = BOOK_FAULTS[fault]
    monkeypatch.setattr(publish, name, make(getattr(publish, name)))
    config = write_config(tmp_path, store, EVERYTHING)
    outputs = [tmp_path / "book.pdf", tmp_path / "book-cover.pdf",
               manifest_path(tmp_path / "book.pdf")]
    for earlier in (False, True):
        if earlier:
            for path in outputs:
                path.write_bytes(f"the {path.name} of yesterday\n".encode())
        assert main(["book", str(config)]) == status
        assert capsys.readouterr().err.startswith("nanpure: ")
        assert not list(tmp_path.glob(f"*{PART_SUFFIX}"))
        for path in outputs:
            assert (path.read_bytes() == f"the {path.name} of yesterday\n".encode()
                    if earlier else not path.exists()), path
    with Store(store) as s:
        assert not s.db.execute("SELECT * FROM books").fetchall()


def test_a_directory_in_the_way_of_one_file_replaces_none_of_the_book(tmp_path, store,
                                                                      capsys):
    """A directory where the manifest goes failed its rename after the interior and the
    cover had replaced the earlier book's, which the message said nothing was written
    over. Now the set is checked before the first rename: the earlier files stay."""
    config = write_config(tmp_path, store, EVERYTHING)
    pdf, cover = tmp_path / "book.pdf", tmp_path / "book-cover.pdf"
    for path in (pdf, cover):
        path.write_bytes(f"the {path.name} of yesterday\n".encode())
    manifest_path(pdf).mkdir()
    assert main(["book", str(config)]) == 2
    err = capsys.readouterr().err
    # refused before the book is made, naming the key
    assert f"book.out: cannot write {manifest_path(pdf)}: it is a directory" in err, err
    for path in (pdf, cover):
        assert path.read_bytes() == f"the {path.name} of yesterday\n".encode(), path
    assert not list(tmp_path.glob(f"*{PART_SUFFIX}"))
    with Store(store) as s:
        assert not s.db.execute("SELECT * FROM books").fetchall()


def test_a_store_that_cannot_record_the_book_says_the_files_are_unrecorded(
        tmp_path, store, monkeypatch, capsys):
    """A full disk as the book was recorded said only the store's error, as if nothing
    had been written; the new book's files were there, whole, and their puzzles unused."""
    def disk_full(self, *args, **kwargs):
        raise StoreError(f"{self.path}: database or disk is full")

    monkeypatch.setattr(Store, "record_book", disk_full)
    config = write_config(tmp_path, store, "")
    assert main(["book", str(config)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert err.startswith(f"nanpure: {tmp_path / 'book.pdf'} was written but not recorded in "
                          "the store, so its puzzles stay unused"), err
    assert err.rstrip().endswith("database or disk is full"), err
    assert PdfReader(tmp_path / "book.pdf").pages
    with Store(store) as s:
        assert not s.db.execute("SELECT * FROM books").fetchall()
