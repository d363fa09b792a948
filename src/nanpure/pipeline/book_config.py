"""Book configs (TOML): what to print, from which store, and how it looks.

Read with the same typed readers as run configs, so every mistake is one line naming the
file and key::

    [book]
    title = "Nightly Sudoku"
    store = "output/nanpure.db"
    run = "nightly-*"            # optional: only puzzles of these runs (a glob or a list)
    out = "output/nightly.pdf"
    page_size = "6x9in"          # default 8.5x11in; 8.25x11in, A4, A5, letter, B5,
                             # JIS-B5, 5x8in, 5.5x8.5in, 7x10in, 8x10in, 8.5x8.5in
    puzzles_per_page = 2         # 1, 2, 4 or 6; default by page size
    answers_per_page = 6         # 1, 2, 4, 6, 9 or 12; default by page size
    hints = true                 # a hints section before the answers
    order = "score"              # within a section: "tier" (default) or "score"
    stars = true                 # 1-5 stars beside each puzzle
    bleed = true                 # pages 0.125 in larger on the cut edges
    language = "ja"              # the book's fixed words: "en" (default) or "ja"

    [book.cover]                 # a full-wrap cover: output/nightly-cover.pdf
    back = ["Sixty puzzles ..."]
    paper = "white"              # or "cream": the spine is wider

    [[book.section]]
    title = "Easy"
    quota = "easy"               # and/or tiers = ["easy"]; count = 40

    [[book.section]]
    title = "Pictures"
    kind = "nonogram"            # default: the kind of the puzzles the section finds
    run = "nonograms"            # puzzles_per_page: default one or two, as they fit

>>> c = book_config_from_toml(parse_toml('''
... [book]
... title = "Nightly"
... [[book.section]]
... title = "Easy"
... tier = "easy"
... count = 10
... ''', "b.toml"), "b.toml")
>>> c.layout.page_size, c.layout.puzzles_per_page, c.sections[0].tiers, c.out, c.cover
('8.5x11in', 4, ('easy',), 'output/book.pdf', None)
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from ..generator.kinds import KINDS
from ..generator.tiers import TIERS
from ..layouts.book import default_densities
from ..layouts.pages import ANSWER_TEMPLATES, PAGE_SIZES, PUZZLE_TEMPLATES
from ..layouts.wording import LANGUAGE_ALIASES, LANGUAGES
from ..words import closest
from .config import DEFAULT_STORE, ConfigError, Section, load_toml, parse_toml
from .store import Runs


@dataclass(frozen=True)
class LayoutSpec:
    """How the book looks, as the ``[book]`` table says it: plain values, checked here
    against what the renderer can do; the renderer takes them with
    ``layouts.book.BookSettings.of``."""

    title: str
    subtitle: str = ""
    author: str = ""
    page_size: str = "8.5x11in"
    puzzles_per_page: int | None = None  # None: the page size's
    answers_per_page: int | None = None
    large_print: bool = False
    cjk_font: str | None = None
    imprint: tuple[str, ...] = ()  # extra lines for the imprint page (copyright, ISBN)
    hints: bool = False  # a hints section: the first step beyond singles of each puzzle
    bleed: bool = False
    stars: bool = False
    language: str = "en"  # the fixed words': "en" or "ja" (layouts/wording.py)


#: How the puzzles of a section are ordered: tier first, then score; or score alone.
ORDERS = ("tier", "score")
#: Paper for the interior, which sets the cover's spine width.
PAPERS = ("white", "cream")


@dataclass(frozen=True)
class CoverSpec:
    """``[book.cover]``: the words, colours and picture of the full-wrap cover; the
    renderer takes them with ``layouts.cover.CoverSettings.of``. Colours are "#rrggbb"."""

    title: str
    subtitle: str = ""
    author: str = ""
    back: tuple[str, ...] = ()  # paragraphs of the back cover
    paper: str = "white"
    background: str = "#1d3557"
    text_colour: str = "#ffffff"
    accent: str = "#e9c46a"
    image: str | None = None  # a picture for the front (PNG, JPEG, ...)


@dataclass(frozen=True)
class SectionSpec:
    """One ``[[book.section]]``: a title and which stored puzzles fill it.

    ``kind`` None takes the kind of the puzzles found, which must then be one kind;
    ``puzzles_per_page`` None takes the book's for Sudoku and, for nonograms, one or two a
    page as they fit."""

    title: str
    quotas: tuple[str, ...] | None = None
    tiers: tuple[str, ...] | None = None
    run: Runs = None  # overrides the book's run
    count: int | None = None  # None: every matching puzzle
    kind: str | None = None
    puzzles_per_page: int | None = None


#: Keys added after the first books, with the value at which they are left out of the
#: config's JSON, so the JSON of a book without them (its manifest, its record in the
#: store) is unchanged: the section's, the layout's and the book's own.
_LATER_SECTION_KEYS = {"kind": None, "puzzles_per_page": None}
_LATER_LAYOUT_KEYS = {"hints": False, "bleed": False, "stars": False, "language": "en"}
_LATER_BOOK_KEYS = {"order": "tier", "cover": None}


def _drop_unset(data: dict[str, Any], later: dict[str, Any]) -> None:
    for key, unset in later.items():
        if data[key] == unset:
            del data[key]


@dataclass(frozen=True)
class BookConfig:
    """A validated book config."""

    layout: LayoutSpec
    sections: tuple[SectionSpec, ...]
    store: str = DEFAULT_STORE
    run: Runs = None
    out: str = "output/book.pdf"
    reuse: bool = False
    source: str = "<config>"
    order: str = "tier"
    cover: CoverSpec | None = None  # printed beside the book: cover_path(out)

    def to_json(self) -> str:
        """The config as JSON, as the store's ``books.config`` keeps it."""
        data = asdict(self)
        del data["source"]
        _drop_unset(data, _LATER_BOOK_KEYS)
        _drop_unset(data["layout"], _LATER_LAYOUT_KEYS)
        for section in data["sections"]:
            _drop_unset(section, _LATER_SECTION_KEYS)
        return json.dumps(data, sort_keys=True, ensure_ascii=False)


def cover_path(pdf: str | Path) -> Path:
    """The cover beside a book: ``book.pdf`` -> ``book-cover.pdf``.

    >>> cover_path("output/nightly.pdf").as_posix()
    'output/nightly-cover.pdf'
    """
    pdf = Path(pdf)
    return pdf.with_name(pdf.stem + "-cover.pdf")


def load_book_config(path: str | Path) -> BookConfig:
    """Read and validate a book config file."""
    path = Path(path)
    return book_config_from_toml(load_toml(path), str(path))


def default_book_config() -> BookConfig:
    """The book shipped with nanpure (``nanpure/data/default-book.toml``), printed from
    the default run."""
    text = resources.files("nanpure").joinpath("data/default-book.toml").read_text("utf-8")
    return book_config_from_toml(parse_toml(text, "default-book.toml"), "default-book.toml")


def _one_of(s: Section, key: str, allowed: dict, default: int | None) -> int | None:
    value = s.int(key, default)
    if value not in allowed and not (value is None and default is None):
        raise s.error(key, f"expected one of {', '.join(map(str, sorted(allowed)))}; "
                           f"got {value!r}")
    return value


def book_config_from_toml(data: dict[str, Any], source: str) -> BookConfig:
    """Validate parsed TOML into a :class:`BookConfig`."""
    top = Section(data, "", source)
    book = top.table("book", required=True)
    title = book.str("title")
    subtitle = book.str("subtitle", "", nonempty=False)
    author = book.str("author", "", nonempty=False)
    store = book.str("store", DEFAULT_STORE)
    run = _runs(book)
    out = book.str("out", "output/book.pdf")
    if not out.lower().endswith(".pdf"):
        raise book.error("out", f"expected a file name ending in .pdf, got {out!r}")
    names = {name.lower(): name for name in PAGE_SIZES}
    size = book.str("page_size", "8.5x11in")
    if size.lower() not in names:
        # "6x9" for "6x9in", "8.5 x 11 in" for "8.5x11in"
        near = closest(size.replace(" ", ""), PAGE_SIZES)
        hint = f'; did you mean "{near}"?' if near is not None else ""
        raise book.error("page_size", "expected one of "
                         + ", ".join(f'"{n}"' for n in PAGE_SIZES) + f"; got {size!r}{hint}")
    large_print = book.bool("large_print", False)
    puzzles, answers = default_densities(size, large_print)
    per_page = _one_of(book, "puzzles_per_page", PUZZLE_TEMPLATES, puzzles)
    if large_print and per_page != 1:
        raise book.error("puzzles_per_page", "large_print puts one puzzle on a page; "
                         "set puzzles_per_page = 1 or leave it out")
    answers = _one_of(book, "answers_per_page", ANSWER_TEMPLATES, answers)
    cjk_font = book.str("cjk_font", None)
    if cjk_font is not None and not Path(cjk_font).is_file():
        raise book.error("cjk_font", f"no such font file: {cjk_font}")
    imprint = book.str_list("imprint", ())
    hints = book.bool("hints", False)
    reuse = book.bool("reuse", False)
    bleed = book.bool("bleed", False)
    stars = book.bool("stars", False)
    language = book.choice("language", LANGUAGES, "en", aliases=LANGUAGE_ALIASES)
    order = book.choice("order", ORDERS, "tier")
    cover = _cover(book.table("cover"), title, subtitle, author) if book.has("cover") else None
    tables = book.tables("section")
    if not tables:
        # every other key of [book] is read by now: a misspelt [[book.sections]] is
        # named as the unknown key it is, with the keys allowed
        book.finish()
        raise book.error("section", "expected at least one [[book.section]] table")
    sections = tuple(_section(s) for s in tables)
    titles: dict[str, int] = {}
    for i, (table, section) in enumerate(zip(tables, sections, strict=True), start=1):
        # the manifest, the store's record and the summary tell sections by title
        first = titles.setdefault(section.title.strip(), i)
        if first != i:
            raise table.error("title", f"{section.title!r} is the title of section {first} "
                              "too; give each section its own title")
        if large_print and section.puzzles_per_page not in (None, 1):
            raise table.error("puzzles_per_page", "large_print puts one puzzle on a page; "
                              "set puzzles_per_page = 1 or leave it out")
        if run is None and section.run is None and not (section.quotas or section.tiers
                                                           or section.kind):
            raise ConfigError(source, table.path, "say which puzzles fill this section: "
                              "give quota, quotas, tier, tiers, kind or run (here or in "
                              "[book])")
    book.finish()
    top.finish()
    layout = LayoutSpec(title=title, subtitle=subtitle, author=author,
                        page_size=names[size.lower()], puzzles_per_page=per_page,
                        answers_per_page=answers, large_print=large_print,
                        cjk_font=cjk_font, imprint=imprint, hints=hints, bleed=bleed,
                        stars=stars, language=language)
    return BookConfig(layout=layout, sections=sections, store=store, run=run, out=out,
                      reuse=reuse, source=source, order=order, cover=cover)


def _cover(s: Section, title: str, subtitle: str, author: str) -> CoverSpec:
    """``[book.cover]``; its words default to the book's."""
    spec = CoverSpec(
        title=s.str("title", title),
        subtitle=s.str("subtitle", subtitle, nonempty=False),
        author=s.str("author", author, nonempty=False),
        back=(s.str_list("back", ()) if not isinstance(s.data.get("back"), str)
              else (s.str("back"),)),
        paper=s.choice("paper", PAPERS, "white"),
        background=_colour(s, "background", CoverSpec.background),
        text_colour=_colour(s, "text_colour", CoverSpec.text_colour),
        accent=_colour(s, "accent", CoverSpec.accent),
        image=s.str("image", None))
    if spec.image is not None and not Path(spec.image).is_file():
        raise s.error("image", f"no such image file: {spec.image}")
    s.finish()
    return spec


def _colour(s: Section, key: str, default: str) -> str:
    value = s.str(key, default)
    if not re.fullmatch(r"#[0-9a-fA-F]{6}", value):
        raise s.error(key, f'expected a colour as "#rrggbb", got {value!r}')
    return value.lower()


def _runs(s: Section) -> Runs:
    """``run``: a run name or glob pattern (``*``, ``?``, ``[...]``), or a list of them."""
    if isinstance(s.data.get("run"), list):
        runs = s.str_list("run")
        if not runs or not all(r.strip() for r in runs):
            raise s.error("run", "expected a run name or glob, or a non-empty list of them")
        return runs
    return s.str("run", None)


def _section(s: Section) -> SectionSpec:
    title = s.str("title")
    quotas = s.str_list("quotas", None)
    if s.has("quota"):
        if quotas is not None:
            raise s.error("quota", "give either quota or quotas, not both")
        quotas = (s.str("quota"),)
    tiers = s.str_list("tiers", None, choices=TIERS)
    if s.has("tier"):
        if tiers is not None:
            raise s.error("tier", "give either tier or tiers, not both")
        tiers = (s.choice("tier", TIERS),)
    run = _runs(s)
    count = s.int("count", None, minimum=1)
    kind = s.choice("kind", sorted(KINDS), None)
    if kind == "nonogram" and tiers is not None:
        from ..generator.nonogram import TIERS as NONOGRAM_TIERS

        other = [t for t in tiers if t not in NONOGRAM_TIERS]
        if other:  # else the section would only find no puzzles
            raise s.error("tier" if s.has("tier") else "tiers",
                          f"{other[0]!r} is not a nonogram tier; expected one of "
                          f"{', '.join(NONOGRAM_TIERS)}")
    per_page = _one_of(s, "puzzles_per_page", PUZZLE_TEMPLATES, None)
    s.finish()
    return SectionSpec(title=title, quotas=quotas, tiers=tiers, run=run, count=count,
                       kind=kind, puzzles_per_page=per_page)
