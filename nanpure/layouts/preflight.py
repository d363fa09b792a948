"""Preflight: check a finished PDF the way a print-on-demand service will.

The checks read the file itself (with pypdf), not the plan that made it, so they catch
whatever went wrong between the two:

- page size: every page's media box (and trim box, if any) is the book's trim size;
- page count: even, and at least the service's minimum;
- fonts: every font on every page is embedded (a TrueType, CFF or Type 1 font file, or a
  Type 3 font, which is drawn by the PDF itself).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pypdf import PdfReader
from pypdf.errors import PdfReadError

from .pages import INCH

#: Points two sizes may differ by and still be the same trim size.
SIZE_TOLERANCE = 0.5
_FONT_FILES = ("/FontFile", "/FontFile2", "/FontFile3")


@dataclass(frozen=True)
class Check:
    """One preflight check: its name, whether it passed, and what was found."""

    name: str
    ok: bool
    detail: str


@dataclass
class PreflightReport:
    """The result of :func:`preflight`; ``ok`` when every check passed."""

    path: str
    pages: int
    checks: list[Check] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)

    def format(self) -> str:
        """A short report, one line per check.

        >>> print(PreflightReport("b.pdf", 24, [Check("page count", True, "24, even")]).format())
        preflight b.pdf: passed
          ok    page count: 24, even
        """
        lines = [f"preflight {self.path}: {'passed' if self.ok else 'FAILED'}"]
        lines += [f"  {'ok  ' if c.ok else 'FAIL'}  {c.name}: {c.detail}" for c in self.checks]
        return "\n".join(lines)


def _inches(points: float) -> str:
    return f"{points / INCH:.3g}"


def preflight(path: str | Path, size: tuple[float, float], min_pages: int = 24) -> PreflightReport:
    """Check the PDF at ``path`` against a trim ``size`` (points) and a page minimum."""
    try:
        reader = PdfReader(str(path))
        pages = list(reader.pages)
    except (OSError, PdfReadError) as exc:
        report = PreflightReport(str(path), 0)
        report.checks.append(Check("readable", False, f"cannot read the PDF: {exc}"))
        return report
    report = PreflightReport(str(path), len(pages))
    report.checks.append(_check_size(pages, size))
    n = len(pages)
    parity = "even" if n % 2 == 0 else "odd; print services need an even count"
    minimum = f"at least {min_pages}" if n >= min_pages else f"below the minimum {min_pages}"
    report.checks.append(Check("page count", n % 2 == 0 and n >= min_pages,
                               f"{n}, {parity}, {minimum}"))
    report.checks.append(_check_fonts(pages))
    return report


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
