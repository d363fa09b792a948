"""Preflight: check a finished PDF the way a print-on-demand service will.

The checks read the file itself (with pypdf), not the plan that made it, so they catch
whatever went wrong between the two:

- page size: every page's media box (and trim box, if any) is the book's trim size; with
  bleed, the media box is 0.125 in wider and 0.25 in taller, the trim box is the trim size
  and lies against the binding edge, and the bleed box is the whole page;
- page count: even, and at least the service's minimum;
- fonts: every font on every page is embedded (a TrueType, CFF or Type 1 font file, or a
  Type 3 font, which is drawn by the PDF itself);
- text: no text runs past the margins print services ask for (the gutter of the page
  count at the binding, :data:`~.pages.MIN_OUTSIDE` on the other sides of the trim) and no
  two pieces of text overlap, on every page (the pages' content is read by a reader of
  its own, for speed, as pypdf reads it: a 256-page book's text in about 1.4 times the
  time it takes to draw it, where pypdf's ContentStream took 3.5 times);
- pictures: every raster image is placed at :data:`MIN_PPI` pixels an inch or more; one
  under :data:`REFUSE_PPI` fails the file (print services reject it), one between the two
  is a warning (services print it, soft, after a warning of their own).

A cover (:func:`preflight_cover`) is one page whose size follows the spine formula of
:mod:`.cover`, with embedded fonts, its pictures as above, and nothing but background
(filled shapes) within 0.125 in of the trim or the spine folds (spine text:
:data:`~.cover.SPINE_CLEAR` from a fold) or in the barcode's corner: every piece of text,
picture and stroked line, read from the page's content stream, must lie in a safe area.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pypdf import PdfReader
from pypdf.errors import PyPdfError
from pypdf.generic import create_string_object

from ..words import counted
from .cover import SAFE, SPINE_CLEAR, SPINE_TEXT_PAGES, CoverGeometry
from .pages import (  # overlapping: imported from here too
    INCH,
    MIN_OUTSIDE,
    Box,
    bleed_size,
    gutter_for,
    is_recto,
    overlapping,
    trim_box,
)

#: Points two sizes may differ by and still be the same trim size.
SIZE_TOLERANCE = 0.5
#: Pixels an inch print services ask of a picture; under it the check warns...
MIN_PPI = 300
#: ...and under this it fails: print services reject pictures under about 150-200 ppi.
REFUSE_PPI = 200
_FONT_FILES = ("/FontFile", "/FontFile2", "/FontFile3")


@dataclass(frozen=True)
class Check:
    """One preflight check: its name, whether it passed, and what was found; a check that
    did not pass but is not ``fatal`` is a warning, and the file still passes."""

    name: str
    ok: bool
    detail: str
    fatal: bool = True

    @property
    def mark(self) -> str:
        """How the report marks it: ok, WARN or FAIL."""
        return "ok  " if self.ok else "FAIL" if self.fatal else "WARN"


@dataclass
class PreflightReport:
    """The result of :func:`preflight`; ``ok`` when every check passed."""

    path: str
    pages: int
    checks: list[Check] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(c.ok or not c.fatal for c in self.checks)

    def format(self) -> str:
        """A short report, one line per check.

        >>> print(PreflightReport("b.pdf", 24, [Check("page count", True, "24, even")]).format())
        preflight b.pdf: passed
          ok    page count: 24, even
        """
        lines = [f"preflight {self.path}: {'passed' if self.ok else 'FAILED'}"]
        lines += [f"  {c.mark}  {c.name}: {c.detail}" for c in self.checks]
        return "\n".join(lines)


def _inches(points: float) -> str:
    """``points`` in inches without trailing zeros: to the thousandth, as print services'
    cover calculators give a cover's width, or to four significant digits if that is
    finer (a spine), but never beyond the millionth.

    >>> _inches(12.30405 * INCH), _inches(9.25 * INCH), _inches(0.2252 * INCH), _inches(432)
    ('12.304', '9.25', '0.2252', '6')
    >>> _inches(0.054048 * INCH), _inches(1e-9)
    ('0.05405', '0')
    """
    inches = points / INCH
    places = 3 if inches == 0 else min(6, max(3, 3 - math.floor(math.log10(abs(inches)))))
    # + 0.0 turns a rounded -0.0 into 0.0
    return f"{round(inches, places) + 0.0:.{places}f}".rstrip("0").rstrip(".")


def _read(path: str | Path) -> tuple[list, PreflightReport]:
    """The pages of the PDF at ``path`` and a report to fill (with a failed check and no
    pages when the file cannot be read)."""
    try:
        pages = list(PdfReader(str(path)).pages)
    except (OSError, PyPdfError) as exc:  # PdfReadError, or a limit of pypdf's reached
        report = PreflightReport(str(path), 0)
        report.checks.append(Check("readable", False, f"cannot read the PDF: {exc}"))
        return [], report
    return pages, PreflightReport(str(path), len(pages))


def max_pages() -> int | None:
    """The most pages :func:`preflight` can read (None: no limit): pypdf reads no array
    longer than its ``array_maximum_element_count`` (from version 6), and the PDFs made
    here list their pages in one array."""
    try:
        from pypdf import get_configuration
    except ImportError:  # an older pypdf, without the limit
        return None
    return get_configuration().array_maximum_element_count


def preflight(path: str | Path, size: tuple[float, float], min_pages: int = 24,
              bleed: bool = False) -> PreflightReport:
    """Check the PDF at ``path`` against a trim ``size`` (points) and a page minimum;
    ``bleed``: its pages carry bleed beyond the trim. Every page's text and pictures are
    checked."""
    pages, report = _read(path)
    if not pages:
        return report
    report.checks.append(_check_bleed(pages, size) if bleed else _check_size(pages, size))
    n = len(pages)
    parity = "even" if n % 2 == 0 else "odd; print services need an even count"
    minimum = f"at least {min_pages}" if n >= min_pages else f"below the minimum {min_pages}"
    report.checks.append(Check("page count", n % 2 == 0 and n >= min_pages,
                               f"{n}, {parity}, {minimum}"))
    report.checks.append(_check_fonts(pages))
    placed: list[tuple[str, Picture]] = []
    report.checks.append(_check_text(pages, size, bleed, range(1, n + 1), placed))
    if placed:
        report.checks.append(_check_pictures(placed))
    return report


def printable(number: int, pages: int, size: tuple[float, float], bleed: bool) -> Box:
    """Where page ``number`` of a book of ``pages`` pages may print text: its trim less
    the gutter print services ask for at the binding and :data:`~.pages.MIN_OUTSIDE` on the
    other sides."""
    trim = trim_box(number, size) if bleed else Box(0, 0, *size)
    gutter = gutter_for(pages)
    left, right = (gutter, MIN_OUTSIDE) if is_recto(number) else (MIN_OUTSIDE, gutter)
    return trim.shrink(top=MIN_OUTSIDE, bottom=MIN_OUTSIDE, left=left, right=right)


def _check_text(pages: list, size: tuple[float, float], bleed: bool,
                numbers: Sequence[int], placed: list[tuple[str, Picture]]) -> Check:
    """The text check of the pages ``numbers``; the raster pictures placed on them are
    added to ``placed``, each with its page (the page's content is read once)."""
    gutter = _inches(gutter_for(len(pages)))
    failure = None
    fonts: dict = {}  # read once for the whole book
    for number in numbers:
        found, pictures = _scan(pages[number - 1], fonts)
        placed += [(f"page {number}", picture) for picture in pictures]
        if failure is not None:
            continue
        texts = [(what, box) for what, box in found if what.startswith("text")]
        area = printable(number, len(pages), size, bleed)
        for what, box in texts:
            if not _inside(box, area):
                failure = Check("text", False,
                                f"page {number}: {what} at {_inches(box.x0)}..{_inches(box.x1)}"
                                f" x {_inches(box.y0)}..{_inches(box.y1)} in runs past the "
                                f"margins ({_inches(MIN_OUTSIDE)} in inside the trim, {gutter} "
                                "in at the binding)")
                break
        clash = overlapping(texts) if failure is None else None
        if clash is not None:
            failure = Check("text", False, f"page {number}: {clash[0]} overlaps {clash[1]}")
    if failure is not None:
        return failure
    where = ("every page" if len(numbers) == len(pages)
             else counted(len(numbers), "page"))
    return Check("text", True, f"inside the margins, nothing overlapping, on {where}")


def _check_pictures(placed: Sequence[tuple[str, Picture]], name: str | None = None) -> Check:
    """Whether the pictures ``placed`` (each with where it is) are sharp enough to print:
    :data:`MIN_PPI` or more passes, under :data:`REFUSE_PPI` fails, between is a warning.
    ``name``: the file the pictures came from, when there is one (a cover's image)."""
    where, worst = min(placed, key=lambda p: p[1].ppi)
    ppi = round(worst.ppi, 3)  # a picture of exactly 300 ppi passes
    if ppi >= MIN_PPI:
        return Check("pictures", True,
                     f"{counted(len(placed), 'picture')}, {math.floor(ppi)} ppi or more")
    w, h = worst.placed
    need = [math.ceil(round(v / INCH * MIN_PPI, 3)) for v in (w, h)]
    what = f"{name}, {worst.pixels[0]} x {worst.pixels[1]} px," if name else (
        f"a picture of {worst.pixels[0]} x {worst.pixels[1]} px")
    verdict = ("print services reject it" if ppi < REFUSE_PPI
               else f"it will print soft; under {REFUSE_PPI} ppi fails")
    return Check("pictures", False,
                 f"{what} is placed at {_inches(w)} x {_inches(h)} in on {where}: "
                 f"{math.floor(ppi)} ppi, under the {MIN_PPI} ppi print needs ({verdict}); "
                 f"give one of at least {need[0]} x {need[1]} px",
                 fatal=ppi < REFUSE_PPI)


def _check_size(pages: list, size: tuple[float, float]) -> Check:
    want_w, want_h = size
    for number, page in enumerate(pages, start=1):
        for name, box in (("media box", page.mediabox), ("trim box", page.trimbox)):
            w, h = float(box.width), float(box.height)
            if abs(w - want_w) > SIZE_TOLERANCE or abs(h - want_h) > SIZE_TOLERANCE:
                return Check("page size", False,
                             f"page {number} {name} is {_inches(w)} x {_inches(h)} in, "
                             f"expected {_inches(want_w)} x {_inches(want_h)} in")
    return Check("page size", True,
                 f"{_inches(want_w)} x {_inches(want_h)} in on every page")


def _same(box, want: tuple[float, float, float, float]) -> bool:
    return all(abs(float(v) - w) <= SIZE_TOLERANCE for v, w in zip(box, want, strict=True))


def _show_box(box) -> str:
    return "[" + " ".join(_inches(float(v)) for v in box) + "] in"


def _check_bleed(pages: list, size: tuple[float, float]) -> Check:
    media = bleed_size(size)
    for number, page in enumerate(pages, start=1):
        trim = trim_box(number, size)
        want = {"media box": (0, 0, *media), "bleed box": (0, 0, *media),
                "trim box": (trim.x0, trim.y0, trim.x1, trim.y1)}
        for name, box in (("media box", page.mediabox), ("bleed box", page.bleedbox),
                          ("trim box", page.trimbox)):
            if not _same(box, want[name]):
                return Check("page size", False,
                             f"page {number} {name} is {_show_box(box)}, expected "
                             f"{_show_box(want[name])}")
    return Check("page size", True,
                 f"{_inches(size[0])} x {_inches(size[1])} in trimmed, "
                 f"{_inches(media[0])} x {_inches(media[1])} in with bleed, on every page")


def preflight_cover(path: str | Path, trim: tuple[float, float], pages: int,
                    paper: str, image: str | None = None) -> PreflightReport:
    """Check a cover PDF for a book of ``pages`` interior pages of ``trim`` size on
    ``paper``: its size, its fonts, its pictures' resolution (``image``: the file of its
    front's picture, to name it) and that nothing but background lies outside the safe
    areas of :meth:`CoverGeometry.safe_areas` or in the barcode's corner."""
    sheets, report = _read(path)
    if not sheets:
        return report
    geometry = CoverGeometry.of(trim, pages, paper)
    want = (0, 0, geometry.width, geometry.height)
    box = sheets[0].mediabox
    ok = len(sheets) == 1 and _same(box, want)
    spine = (f"spine {_inches(geometry.spine)} in for {pages} pages on {paper} paper")
    report.checks.append(Check(
        "cover size", ok,
        f"{_inches(geometry.width)} x {_inches(geometry.height)} in, {spine}" if ok else
        f"{len(sheets)} page(s) of {_show_box(box)}, expected one of {_show_box(want)} "
        f"({spine})"))
    report.checks.append(_check_fonts(sheets))
    found, pictures = _scan(sheets[0])
    if pictures:
        placed = [(f"the {_part(p.box, geometry)[0]}", p) for p in pictures]
        report.checks.append(_check_pictures(placed, image if len(pictures) == 1 else None))
    report.checks.append(_check_clear(found, geometry))
    return report


def _check_clear(found: Sequence[tuple[str, Box]], geometry: CoverGeometry) -> Check:
    areas = geometry.safe_areas()
    barcode = geometry.barcode
    for what, box in found:
        where = (f"{what} at {_inches(box.x0)}..{_inches(box.x1)} x "
                 f"{_inches(box.y0)}..{_inches(box.y1)} in")
        if not any(_inside(box, area) for area in areas):
            return Check("safe areas", False, f"{where} {_too_near(box, geometry)}")
        if _overlap(box, barcode):
            return Check("safe areas", False, f"{where} is in the barcode's corner; move it "
                                              "or leave the corner to the background")
    return Check("safe areas", True, "text and pictures clear of the trim, the spine folds "
                                     "and the barcode's corner")


def _too_near(box: Box, geometry: CoverGeometry) -> str:
    """What a mark outside every safe area is too near (the part of the cover it lies on
    most: the back, the spine or the front), the distance that applies there and what to
    do: :data:`~.cover.SAFE` from the trim and, on the back and front, from a fold;
    :data:`~.cover.SPINE_CLEAR` from a fold on a spine with text."""
    part, area = _part(box, geometry)
    if part == "spine" and not geometry.spine_text:
        return (f"is on a spine of under {SPINE_TEXT_PAGES} pages, which carries nothing "
                "but background")
    fold = SPINE_CLEAR if part == "spine" else SAFE
    edges = [  # (how far inside the edge the mark keeps, the rule, the edge's name)
        (box.x0 - area.x0, SAFE if part == "back" else fold,
         "the trim" if part == "back" else "a spine fold"),
        (area.x1 - box.x1, SAFE if part == "front" else fold,
         "the trim" if part == "front" else "a spine fold"),
        (box.y0 - area.y0, SAFE, "the trim"), (area.y1 - box.y1, SAFE, "the trim")]
    gap, rule, edge = min(edges, key=lambda e: e[0] - e[1])
    near = "runs over" if gap <= 0 else f"is {_inches(gap)} in from"
    advice = ("give the spine a shorter title or author" if part == "spine"
              else "move it in or shorten it")
    return f"{near} {edge}, where the {part} keeps {_inches(rule)} in clear: {advice}"


def _part(box: Box, geometry: CoverGeometry) -> tuple[str, Box]:
    """The part of the cover ``box`` lies on most: "back", "spine" or "front", and its
    trimmed box."""
    parts = {"back": geometry.back, "spine": geometry.spine_box, "front": geometry.front}

    def shared(name: str) -> float:
        a, b = box, parts[name]
        return (max(0.0, min(a.x1, b.x1) - max(a.x0, b.x0))
                * max(0.0, min(a.y1, b.y1) - max(a.y0, b.y0)))

    name = max(parts, key=shared)
    return name, parts[name]


def _inside(box: Box, area: Box, tolerance: float = 0.01) -> bool:
    return (box.x0 >= area.x0 - tolerance and box.x1 <= area.x1 + tolerance
            and box.y0 >= area.y0 - tolerance and box.y1 <= area.y1 + tolerance)


def _overlap(a: Box, b: Box) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


# ----------------------------------------------------------------------------- marks

Matrix = tuple[float, float, float, float, float, float]
_IDENTITY: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)


def _times(m: Matrix, n: Matrix) -> Matrix:
    """The matrix product m x n (m applied first), as PDF writes matrices."""
    a, b, c, d, e, f = m
    p, q, r, s, t, u = n
    return (a * p + b * r, a * q + b * s, c * p + d * r, c * q + d * s,
            e * p + f * r + t, e * q + f * s + u)


def _bounds(points: list[tuple[float, float]], m: Matrix) -> Box:
    xs = [m[0] * x + m[2] * y + m[4] for x, y in points]
    ys = [m[1] * x + m[3] * y + m[5] for x, y in points]
    return Box(min(xs), min(ys), max(xs), max(ys))


@dataclass(frozen=True)
class Picture:
    """A raster image placed on a page: its ``pixels`` (width, height), the size it is
    ``placed`` at (points, along its own sides) and its ``box`` on the page."""

    pixels: tuple[int, int]
    placed: tuple[float, float]
    box: Box

    @property
    def ppi(self) -> float:
        """Its pixels an inch as placed: the lower of its two sides'."""
        return min(self.pixels[0] / max(self.placed[0] / INCH, 1e-9),
                   self.pixels[1] / max(self.placed[1] / INCH, 1e-9))


def marks(page) -> list[tuple[str, Box]]:
    """What ``page`` draws besides filled shapes, each as (what, box in page points):
    text ("text 'Nightly'"), pictures and stroked lines. Text boxes run from the font's
    descent to its ascent over the advance of the shown characters; the text is read
    through the font's ToUnicode map, as the character codes of an embedded subset (a
    Japanese title's, say) are not the characters.

    Filled shapes are background by this definition; a cover draws its pictures as images
    and its words as text, so that is where anything near an edge would be."""
    return _scan(page)[0]


def _scan(page, cache: dict | None = None) -> tuple[list[tuple[str, Box]], list[Picture]]:
    """:func:`marks` of ``page``, and its raster images as :class:`Picture` (read in the
    same pass over its content). ``cache``: the fonts read so far, by their object in the
    file, kept from page to page of one file (a book's pages share a few fonts)."""
    cache = {} if cache is None else cache
    resources = page.get("/Resources")
    resources = resources.get_object() if resources is not None else {}
    fonts = resources.get("/Font")
    fonts = fonts.get_object() if fonts is not None else {}
    xobjects = resources.get("/XObject")
    xobjects = xobjects.get_object() if xobjects is not None else {}
    found: list[tuple[str, Box]] = []
    pictures: list[Picture] = []
    faces: dict[str, _Face] = {}  # by the font's name on the page
    ctm, stack = _IDENTITY, []
    path: list[tuple[float, float]] = []
    tm = tlm = _IDENTITY
    font, name, size, leading = None, "", 0.0, 0.0

    def show(string) -> None:
        nonlocal tm
        if name not in faces:
            ref = fonts.raw_get(name) if hasattr(fonts, "raw_get") else None
            faces[name] = _face(font, ref, cache)
        face = faces[name]
        data = _bytes(string)
        advance = sum(face.width(code) for code in data) * size / 1000
        box = _bounds([(0, face.descent * size), (advance, face.descent * size),
                       (0, face.ascent * size), (advance, face.ascent * size)],
                      _times(tm, ctm))
        if face.unicode:
            text = "".join(face.unicode.get(code, chr(code)) for code in data)
        else:
            text = _text(string)
        found.append((f"text {text!r}", box))
        tm = _times((1, 0, 0, 1, advance, 0), tm)

    for operands, op in _operations(page):
        if op == b"q":
            stack.append(ctm)
        elif op == b"Q":
            ctm = stack.pop() if stack else _IDENTITY
        elif op == b"cm":
            ctm = _times(tuple(map(float, operands)), ctm)
        elif op in (b"m", b"l"):
            path.append((float(operands[0]), float(operands[1])))
        elif op in (b"c", b"v", b"y"):
            values = list(map(float, operands))
            path += list(zip(values[::2], values[1::2], strict=True))
        elif op == b"re":
            x, y, w, h = map(float, operands)
            path += [(x, y), (x + w, y + h)]
        elif op in (b"S", b"s", b"B", b"B*", b"b", b"b*"):
            if path:
                found.append(("a line", _bounds(path, ctm)))
            path = []
        elif op in (b"f", b"F", b"f*", b"n"):
            path = []
        elif op == b"Do":
            xobject = xobjects[operands[0]].get_object()
            if xobject.get("/Subtype") == "/Form":
                bbox = [float(v) for v in xobject["/BBox"]]
                matrix = tuple(map(float, xobject.get("/Matrix", _IDENTITY)))
                box = _bounds([(bbox[0], bbox[1]), (bbox[2], bbox[3]), (bbox[0], bbox[3]),
                               (bbox[2], bbox[1])], _times(matrix, ctm))
            else:
                box = _bounds([(0, 0), (1, 1), (0, 1), (1, 0)], ctm)
                if xobject.get("/Subtype") == "/Image":  # drawn on the unit square
                    pictures.append(Picture(
                        (int(xobject.get("/Width", 0)), int(xobject.get("/Height", 0))),
                        (math.hypot(ctm[0], ctm[1]), math.hypot(ctm[2], ctm[3])), box))
            found.append(("a picture", box))
        elif op == b"BT":
            tm = tlm = _IDENTITY
        elif op == b"Tm":
            tm = tlm = tuple(map(float, operands))
        elif op in (b"Td", b"TD"):
            tx, ty = map(float, operands)
            if op == b"TD":
                leading = -ty
            tm = tlm = _times((1, 0, 0, 1, tx, ty), tlm)
        elif op == b"TL":
            leading = float(operands[0])
        elif op == b"T*":
            tm = tlm = _times((1, 0, 0, 1, 0, -leading), tlm)
        elif op == b"Tf":
            name, size = str(operands[0]), float(operands[1])
            font = fonts[operands[0]].get_object()
        elif op == b"Tj":
            show(operands[0])
        elif op == b"TJ":
            for item in operands[0]:
                if isinstance(item, int | float) or hasattr(item, "as_numeric"):
                    tm = _times((1, 0, 0, 1, -float(item) * size / 1000, 0), tm)
                else:
                    show(item)
    return found, pictures


def _bytes(string) -> bytes:
    """The character codes of a PDF string, as written (pypdf may have decoded them)."""
    if type(string) is bytes:  # read by _fast_operations
        return string
    original = getattr(string, "original_bytes", None)
    return original if original is not None else bytes(string)


def _text(string) -> str:
    """A PDF string as pypdf reads it (for a font without a ToUnicode map)."""
    return str(create_string_object(string) if type(string) is bytes else string)


# A page's content, read here rather than by pypdf's ContentStream, which builds a Python
# object for every number and string and took two thirds of a book's preflight. The
# reading below gives the operations pypdf gives for the content reportlab writes (and
# any other that keeps to the plain subset of the syntax it accepts); on anything else (a
# comment, an inline image, a dictionary, an escape or name pypdf would decode its own
# way, a token pypdf would split otherwise) it gives None and pypdf reads the page.
_TOKEN = re.compile(rb"""
    [ \t\n\r\f]*  # white space before a token
    (?:(?P<end>\Z)
  | (?P<num>[+\-.0-9][+,\-.0-9]*)
  | (?P<name>/[^\s()<>\[\]{}/%]*)
  | (?P<op>[A-Za-z'"][^\s()<>\[\]{}/%]*)
  | (?P<str>\()
  | <(?P<hex>[0-9A-Fa-f \t\n\r\f]*)>
  | (?P<open>\[)
  | (?P<close>\]))
""", re.X)
_NUMBER = re.compile(rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)")
#: An operator after numbers and a string without escapes, or either, or neither (most of
#: a page: "1 0 0 1 72 72 Tm", "(7) Tj", "36 545 m"), read in one match; each number ends
#: at white space, so it is the whole token pypdf reads.
_PLAIN_OPERATION = re.compile(rb"""
    [ \t\n\r\f]*
    ((?:[+-]?(?:[0-9]{1,30}\.?[0-9]{0,30}|\.[0-9]{1,30})[ \t\n\r\f]+)*)  # under 64 long
    (?:\(([^()\\]*)\)[ \t\n\r\f]*)?
    ([A-Za-z'"][^\s()<>\[\]{}/%]*)
""", re.X)
_PLAIN_STRING = re.compile(rb"\(([^()\\]*)\)")
_ESCAPES = {ord(k): v for k, v in {  # as pypdf's __ESCAPE_DICT__
    "n": b"\n", "r": b"\r", "t": b"\t", "b": b"\b", "f": b"\f"}.items()}
_ESCAPES.update((c, bytes([c])) for c in b"()/\\ %<>[]#_&$")
_HEX_SPACE = re.compile(rb"[ \t\n\r\f]")


class _Unread(Exception):
    """Content :func:`_fast_operations` leaves to pypdf."""


def _operations(page) -> list:
    """The operations of ``page``'s content, each (operands, operator), as pypdf's
    ``ContentStream.operations`` gives them, but for strings as ``bytes``, names as
    ``str`` and numbers as ``float`` when :func:`_fast_operations` read them."""
    contents = page.get_contents()
    fast = _fast_operations(contents.get_data())
    return fast if fast is not None else contents.operations


def _fast_operations(data: bytes) -> list | None:
    """The operations of the content stream ``data``, or None when it holds anything
    beyond the plain syntax read here (see above)."""
    try:
        return _read_operations(data)
    except (_Unread, ValueError, IndexError):
        return None


def _read_operations(data: bytes) -> list:
    operations: list = []
    operands: list = []
    array: list | None = None
    tokens = 0
    match, operation = _TOKEN.match, _PLAIN_OPERATION.match
    pos, end = 0, len(data)
    while pos < end:
        if array is None:
            m = operation(data, pos)
            if m is not None:
                numbers, string, token = m.groups()
                numbers = numbers.split()
                operands += map(float, numbers)
                if string is not None:
                    operands.append(string)
                if token not in _OPERATORS:
                    _check_operator(token)
                operations.append((operands, token))
                operands = []
                tokens += len(numbers) + (string is not None) + 1
                pos = m.end()
                continue
        m = match(data, pos)
        if m is None:
            raise _Unread
        kind = m.lastgroup
        token = m.group(kind)
        pos = m.end()
        if kind == "end":
            break
        tokens += 1
        if kind == "num":
            if len(token) > 20 or not _NUMBER.fullmatch(token):
                raise _Unread
            value = float(token)
        elif kind == "str":
            value, pos = _read_string(data, m.start(kind))
        elif kind == "hex":
            digits = _HEX_SPACE.sub(b"", token)
            value = bytes.fromhex((digits + b"0" if len(digits) % 2 else digits).decode())
        elif kind == "name":
            if len(token) > 64 or b"#" in token or not token.isascii():
                raise _Unread
            value = token.decode()
        elif kind == "open":
            if array is not None:
                raise _Unread
            array = []
            continue
        elif kind == "close":
            if array is None:
                raise _Unread
            if 2 * len(array) > _limit("array_maximum_element_count"):
                raise _Unread  # pypdf refuses a longer array
            value, array = array, None
        else:  # an operator
            if array is not None:
                raise _Unread
            _check_operator(token)
            operations.append((operands, token))
            operands = []
            continue
        (operands if array is None else array).append(value)
    if array is not None:
        raise _Unread
    # pypdf refuses a stream of more tokens than its budget: leave such a one to it
    if 2 * tokens > _limit("stream_parsing_work_maximum_count"):
        raise _Unread
    return operations


#: The operators of PDF's content streams that pypdf reads as operators (all but BI).
_OPERATORS = frozenset(b"""b B b* B* BDC BMC BT BX c cm CS cs d d0 d1 Do DP EMC ET EX f F
    f* G g gs h i j J K k l m M MP n q Q re RG rg ri s S SC sc SCN scn sh T* Tc Td TD Tf Tj
    TJ TL Tm Tr Ts Tw Tz v w W W* y ' \"""".split())


def _check_operator(token: bytes) -> None:
    """Leave to pypdf an operator it reads otherwise: BI begins an inline image, R after
    two numbers and not followed by a letter is an indirect reference to pypdf."""
    if len(token) > 64 or token == b"BI" or (token[:1] == b"R"
                                             and not token[1:2].isalpha()):
        raise _Unread


def _read_string(data: bytes, start: int) -> tuple[bytes, int]:
    """The bytes of the literal string at ``start`` in ``data`` (escapes read as pypdf
    reads them) and where it ends."""
    plain = _PLAIN_STRING.match(data, start)
    if plain is not None:
        return plain.group(1), plain.end()
    out = bytearray()
    depth, pos = 1, start + 1
    while True:
        c = data[pos]  # an IndexError past the end: unterminated, left to pypdf
        pos += 1
        if c == 0x28:  # (
            depth += 1
        elif c == 0x29:  # )
            depth -= 1
            if depth == 0:
                return bytes(out), pos
        elif c == 0x5C:  # backslash
            c = data[pos]
            pos += 1
            if c in _ESCAPES:
                out += _ESCAPES[c]
                continue
            if 0x30 <= c <= 0x37:
                digits = 1
                while digits < 3 and 0x30 <= data[pos] <= 0x37:
                    pos += 1
                    digits += 1
                code = int(data[pos - digits:pos], 8)
                if code > 255:
                    raise _Unread
                out.append(code)
                continue
            raise _Unread  # a line break or an escape pypdf warns of
        out.append(c)


def _limit(name: str) -> float:
    """pypdf's configured limit ``name`` (infinite in an older pypdf, without limits)."""
    try:
        from pypdf import get_configuration
    except ImportError:
        return math.inf
    return getattr(get_configuration(), name, math.inf)


_BFCHAR = re.compile(rb"beginbfchar(.*?)endbfchar", re.S)
_HEX = re.compile(rb"<([0-9A-Fa-f]*)>")


def _unicode_map(font) -> dict[int, str]:
    """The characters a font's codes stand for, from the pairs of its ToUnicode CMap
    (reportlab writes each subset's as such pairs); empty without one."""
    stream = font.get("/ToUnicode")
    if stream is None:
        return {}
    found: dict[int, str] = {}
    for block in _BFCHAR.findall(stream.get_object().get_data()):
        codes = _HEX.findall(block)
        for code, text in zip(codes[::2], codes[1::2], strict=False):
            found[int(code, 16)] = bytes.fromhex(text.decode()).decode("utf-16-be", "replace")
    return found


@dataclass(frozen=True)
class _Face:
    """What the text check reads of a font: :func:`_metrics` and :func:`_unicode_map`."""

    width: object  # code -> width, 1000 units to the point size
    ascent: float
    descent: float
    unicode: dict[int, str]


def _face(font, ref, cache: dict) -> _Face:
    """The :class:`_Face` of ``font``, read once for each font object ``ref`` (an
    indirect reference; a font written inline is read each time)."""
    key = (ref.idnum, ref.generation) if hasattr(ref, "idnum") else None
    if key is not None and key in cache:
        return cache[key]
    face = _Face(*_metrics(font), _unicode_map(font))
    if key is not None:
        cache[key] = face
    return face


def _metrics(font):
    """A font's width of a character code (1000 units to the point size), ascent and
    descent (fractions of the size)."""
    first = int(font.get("/FirstChar", 0))
    table = [float(w) for w in font.get("/Widths", [])]
    descriptor = font.get("/FontDescriptor")
    descriptor = descriptor.get_object() if descriptor is not None else {}
    ascent = float(descriptor.get("/Ascent", 1000)) / 1000
    descent = float(descriptor.get("/Descent", -250)) / 1000

    def width(code: int) -> float:
        k = code - first
        return table[k] if 0 <= k < len(table) else 1000.0

    return width, ascent, descent


def _embedded(font) -> bool:
    subtype = font.get("/Subtype")
    if subtype == "/Type3":
        return True
    if subtype == "/Type0":
        return all(_embedded(d.get_object()) for d in font.get("/DescendantFonts", []))
    descriptor = font.get("/FontDescriptor")
    if descriptor is None:
        return False
    descriptor = descriptor.get_object()
    return any(key in descriptor for key in _FONT_FILES)


def _check_fonts(pages: list) -> Check:
    names: dict[str, bool] = {}
    seen: set = set()
    for number, page in enumerate(pages, start=1):
        resources = page.get("/Resources")
        fonts = resources.get_object().get("/Font") if resources is not None else None
        if fonts is None:
            continue
        for ref in fonts.get_object().values():
            key = getattr(ref, "idnum", None) or id(ref)
            if key in seen:
                continue
            seen.add(key)
            font = ref.get_object()
            name = str(font.get("/BaseFont", "?")).lstrip("/")
            name = name.split("+", 1)[-1]  # drop the subset tag
            ok = _embedded(font)
            names[name] = names.get(name, True) and ok
            if not ok:
                return Check("fonts embedded", False, f"{name} on page {number} is not "
                                                      "embedded")
    if not names:
        return Check("fonts embedded", True, "no fonts used")
    return Check("fonts embedded", True, ", ".join(sorted(names)))
