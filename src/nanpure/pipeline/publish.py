"""The ``book`` job: stored puzzles in, a checked, print-ready PDF and its manifest out.

1. select each section's puzzles from the store (skipping puzzles already in a book
   unless the config says ``reuse = true``), easiest first (``order``: by tier, then
   score; or by score alone);
2. refuse a book of more pages than its preflight can read, from its page count,
   before the re-check (most of a minute for 300,000 puzzles);
3. re-check every puzzle as ``nanpure verify`` does: exactly one solution, equal to the
   stored one, the recorded symmetry, the stored rating;
4. find a font for text the built-in font lacks (:mod:`.fonts`), plan the book
   (``layouts.book``) and lay out its cover if it has one (``layouts.cover``), so that
   what does not fit is refused before anything is written; draw both, then write the
   manifest beside them;
5. preflight the PDF, and the cover, as a print service would;
6. record in the store which puzzle went on which page.

The PDF, cover and manifest are one set (:func:`~nanpure.files.atomic_paths`): drawn and
preflighted under temporary names, and renamed to theirs only when all are whole and
passed. A problem anywhere stops the job with a :class:`PublishError` that says what to
change, leaving the files of the book made before (or none); the store records a book
only when its PDF passed preflight. A store that cannot record it (a full disk) leaves
the new files, whole, and says they are not recorded.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import statistics
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

import reportlab

from .. import __version__
from ..files import atomic_paths, check_regular, check_writable
from ..generator.kinds import KINDS
from ..generator.tiers import tier_rank
from ..layouts.book import (
    MIN_PAGES,
    BookPlan,
    BookSection,
    BookSettings,
    LayoutError,
    Placement,
    book_texts,
    check_text,
    fixed_texts,
    lacking,
    no_language_font,
    nonogram_of,
    page_count,
    plan_book,
    render_book,
    star_count,
)
from ..layouts.cover import (
    CoverError,
    CoverGeometry,
    CoverSettings,
    cover_layout,
    render_cover,
)
from ..layouts.pages import BLEED, CJK_PACKAGE, FontError, Fonts, load_fonts
from ..layouts.preflight import PreflightReport, max_pages, preflight, preflight_cover
from ..layouts.wording import VERTICAL_SPINES
from ..output.hints import Hint, hints_for
from ..record import PuzzleRecord, columns, row
from ..words import closest, counted
from .book_config import BookConfig, SectionSpec, cover_path
from .fonts import cjk_package_installed, find_font, no_font
from .stops import finishing
from .store import RUNNING, Runs, Store, StoreError, run_globs
from .verify import check_puzzles, run_ladders

log = logging.getLogger(__name__)

#: What the manifest says of each puzzle, besides where it went.
MANIFEST_COLUMNS = columns("id", "puzzle", "solution", "tier", "score", "seed")
#: And, last (added after the first manifests), the run and quota that made it.
PROVENANCE_COLUMNS = columns("run", "quota")


class PublishError(Exception):
    """The book cannot be made as configured; the message says why and what to change."""


@dataclass
class PublishedBook:
    """What :func:`publish_book` made."""

    pdf: Path
    manifest: Path
    plan: BookPlan
    report: PreflightReport
    book_id: int | None  # None when not recorded in the store
    cover: Path | None = None  # the cover's PDF, when the book has one
    cover_report: PreflightReport | None = None


def manifest_path(pdf: str | Path) -> Path:
    """The manifest beside a PDF: ``book.pdf`` -> ``book.manifest.json``.

    >>> manifest_path("output/nightly.pdf").as_posix()
    'output/nightly.manifest.json'
    """
    pdf = Path(pdf)
    return pdf.with_name(pdf.stem + ".manifest.json")


# ----------------------------------------------------------------------------- selecting

def _easiest_first(puzzle: PuzzleRecord) -> tuple[int, int]:
    return tier_rank(puzzle.tier), puzzle.score


def _lowest_score_first(puzzle: PuzzleRecord) -> int:
    return puzzle.score


#: How ``order`` sorts the puzzles of a section. The sort is stable: puzzles of equal
#: keys keep the store's order, by run, quota and task, which a run's seed fixes (not by
#: id, which follows when each worker's batch came back).
ORDER_KEYS = {"tier": _easiest_first, "score": _lowest_score_first}


def _difficulty(section: BookSection) -> tuple[float, float]:
    ranks = [tier_rank(p.tier) for p in section.puzzles]
    return statistics.median(ranks), statistics.median(p.score for p in section.puzzles)


def _describe(spec: SectionSpec, run: Runs) -> str:
    parts = [f"kind {spec.kind}"] if spec.kind else []
    if spec.quotas:
        parts.append("quota " + " or ".join(spec.quotas))
    if spec.tiers:
        parts.append("tier " + " or ".join(spec.tiers))
    return ", ".join([*parts, _describe_runs(run)])


def _describe_runs(run: Runs) -> str:
    """``run 'nightly-*'``, ``runs 'a', 'b'`` or ``any run``."""
    if isinstance(run, str):
        return f"run {run!r}"
    return "runs " + ", ".join(map(repr, run)) if run else "any run"


def runs_being_made(store: Store, config: BookConfig) -> list[str]:
    """The runs a book's sections read that another process is making right now (their
    puzzles so far are what the book can take), oldest first."""
    runs = [spec.run or config.run for spec in config.sections]
    globs = None if None in runs else tuple(g for r in runs for g in run_globs(r) or ())
    return [r.name for r in store.runs(globs)
            if r.status == RUNNING and store.run_being_made(r.name)]


def select_sections(store: Store, config: BookConfig) -> list[BookSection]:
    """Each section's puzzles from the store, easiest first as the config's ``order``
    says; sections ordered easiest first too (stably, so sections of equal difficulty
    keep the config's order).

    A puzzle goes in at most one section. A section that wants more puzzles than the store
    holds is a :class:`PublishError` naming the section and what was found.
    """
    taken: set[int] = set()
    sections = []
    for i, spec in enumerate(config.sections, start=1):  # users count sections from 1
        run = spec.run or config.run
        for glob in run_globs(run) or ():
            if not store.run_names(glob):
                raise PublishError(f"section {i} ({spec.title!r}): the store {config.store} "
                                   f"has no run {glob!r} ({store.named_runs()})")
        for quota in spec.quotas or ():
            # a typo, most likely: no puzzle ever had that quota
            if not store.has_quota(quota, run_globs(run)):
                known = store.quota_names(run_globs(run))
                near = closest(quota, known)
                hint = f"; did you mean {near!r}?" if near is not None else ""
                raise PublishError(f"section {i} ({spec.title!r}): the store {config.store} "
                                   f"has no puzzles of quota {quota!r} in "
                                   f"{_describe_runs(run)} "
                                   f"(quotas: {', '.join(known) or 'none'}){hint}")
        selection = {"quotas": spec.quotas, "tiers": spec.tiers,
                     "unused_only": not config.reuse,
                     "kinds": (spec.kind,) if spec.kind else None,
                     "run_globs": run_globs(run)}
        # a section with a kind selects only that kind; one without is checked before its
        # puzzles are read (the query stops once it has found every kind there is)
        kinds = [] if spec.kind else store.selected_kinds(**selection, skip=taken,
                                                          most=len(KINDS))
        if unknown := [k for k in kinds if k not in KINDS]:  # a damaged row
            raise store.damaged_puzzle("kind", {"kind": unknown[0]})
        if len(kinds) > 1:
            raise PublishError(f"section {i} ({spec.title!r}) finds puzzles of more than one "
                               f"kind ({', '.join(kinds)}) with {_describe(spec, run)}; a "
                               "section holds one kind: set kind = \"sudoku\" or kind = "
                               "\"nonogram\" in it")
        fresh = _fresh(store, selection, taken, spec.count)
        want = spec.count if spec.count is not None else len(fresh)
        if want == 0 or len(fresh) < want:
            unused = "" if config.reuse else " not yet in a book"
            # only when reuse would find more: used puzzles of this selection
            reusable = not config.reuse and len(_fresh(
                store, {**selection, "unused_only": False}, taken,
                len(fresh) + 1)) > len(fresh)
            hint = " (set book.reuse = true to print used puzzles again)" if reusable else ""
            need = (f"needs {counted(want, 'puzzle')} but the store "
                    f"{config.store} has only {len(fresh)}" if want else
                    f"has no puzzles: the store {config.store} has none")
            todo = f"make {'more' if fresh else 'some'} with nanpure run" + (
                f" or lower book.section[{i}].count to {len(fresh)}" if fresh else "")
            raise PublishError(f"section {i} ({spec.title!r}) {need}{unused} with "
                               f"{_describe(spec, run)}{hint}; {todo}")
        taken.update(r.id for r in fresh)  # all of them: _fresh stops at want
        puzzles = sorted(fresh, key=ORDER_KEYS[config.order])
        sections.append(BookSection(spec.title, tuple(puzzles), spec.puzzles_per_page))
    return sorted(sections, key=_difficulty)


def _fresh(store: Store, selection: dict, taken: set[int],
           count: int | None) -> list[PuzzleRecord]:
    """The first ``count`` puzzles (or all, for None) of the store's ``selection`` (the
    filters of :meth:`Store.iter_puzzles`) whose ids are not in ``taken``, in the store's
    order.

    Only as many are read as that takes: a section of 20 from a store of 300,000 builds
    20 records, not 300,000. Among the first ``count + len(taken)`` puzzles selected, at
    most ``len(taken)`` are skipped, so that many always give ``count`` puzzles when the
    store has them; when they give fewer, the store has no more.
    """
    limit = None if count is None else count + len(taken)
    fresh: list[PuzzleRecord] = []
    with contextlib.closing(store.iter_puzzles(**selection, limit=limit)) as records:
        for record in records:
            if record.id not in taken:
                fresh.append(record)
                if len(fresh) == count:
                    break
    return fresh


# ----------------------------------------------------------------------------- checking

def verify_puzzles(store: Store, puzzles: Sequence[PuzzleRecord]) -> None:
    """Raise :class:`PublishError` unless every puzzle passes the check ``nanpure verify``
    makes (:func:`nanpure.pipeline.verify.check_puzzles`): one solution, the stored one,
    the recorded symmetry, and the stored rating when the ladder is the same."""
    problems = check_puzzles(puzzles, run_ladders(store)).problems
    for puzzle, problem in zip(puzzles, problems, strict=True):
        if problem is not None:
            raise PublishError(f"puzzle id {puzzle.id} in the store {problem}; it cannot "
                               "be printed")


# ----------------------------------------------------------------------------- writing

def manifest(plan: BookPlan, config: BookConfig, pdf: Path,
             cover: Path | None = None) -> dict:
    """The manifest: the book's settings, and every puzzle with its pages and seed.

    A book with nonograms says each section's and puzzle's kind, and each nonogram's width
    and height; a manifest without kinds is all Sudoku (as manifests were before kinds).
    A book with stars gives each puzzle's, one with bleed the bleed, one with a cover its
    file, paper and spine width (and its picture's path and SHA-256). Then, added after the
    first manifests and so last, what else a rebuild needs: each puzzle's run and quota,
    the versions of nanpure and reportlab (``made_with``), the font found for text the
    built-in font lacks (``cjk_font``: path and SHA-256, or null), and the language of
    the book's fixed words when not English (``language``).
    """
    kinds = any(p.puzzle.kind != "sudoku" for p in plan.placements)
    sections: list[dict] = []
    for page in plan.pages:
        if page.kind == "section":
            sections.append({"title": page.heading, "page": page.number, "numbers": []})
            if kinds:
                sections[-1]["kind"] = page.puzzle_kind
        elif page.kind == "puzzles":
            sections[-1]["numbers"] += [p.number for p in page.items]
    for entry in sections:
        numbers = entry.pop("numbers")
        entry["first"], entry["last"] = numbers[0], numbers[-1]
    settings = json.loads(config.to_json())
    data = {
        "title": plan.settings.title,
        "pdf": pdf.name,
        "pages": plan.page_count,
        "page_size": plan.settings.page_size,
        "trim_in": [round(v / 72, 3) for v in plan.size],
        "gutter_in": round(plan.margins.inside / 72, 3),
        "settings": settings,
        "sections": sections,
        "puzzles": [_entry(p, kinds, plan.settings.stars, plan.hints.get(p.puzzle.puzzle))
                    for p in plan.placements],
    }
    if plan.settings.bleed:
        data["bleed_in"] = round(BLEED / 72, 3)
    if cover is not None and config.cover is not None:
        geometry = CoverGeometry.of(plan.size, plan.page_count, config.cover.paper)
        data["cover"] = {"pdf": cover.name, "paper": config.cover.paper,
                         "spine_in": round(geometry.spine / 72, 4),
                         "size_in": [round(geometry.width / 72, 4),
                                     round(geometry.height / 72, 4)]}
        if config.cover.image is not None:
            data["cover"]["image"] = _file(config.cover.image)
    # what else made these bytes: the software, and the font found for text the built-in
    # font lacks (the settings keep the config's cjk_font, null when fontconfig found it)
    data["made_with"] = {"nanpure": __version__, "reportlab": reportlab.Version}
    data["cjk_font"] = (_file(plan.settings.cjk_font) if plan.settings.cjk_font is not None
                        else None)
    if plan.settings.language != "en":  # English manifests stay as they were
        data["language"] = plan.settings.language
    if plan.settings.imported_runs:  # their puzzles' seed 0 makes nothing again
        data["imported_runs"] = list(plan.settings.imported_runs)
    return data


def _file(path: str) -> dict[str, str]:
    """A file a book was made from, as its manifest names it: its path and the SHA-256 of
    its bytes, which tell whether the file there now is the same."""
    digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
    return {"path": path, "sha256": digest}


def _entry(placement: Placement, kinds: bool, stars: bool = False,
           hint: Hint | None = None) -> dict:
    """A puzzle's manifest entry; with ``kinds`` its kind, and a nonogram's size; with
    ``stars`` its stars; its ``hint`` when the book has one for it."""
    p = placement
    entry = {"number": p.number, "section": p.section, "page": p.page,
             "answer_page": p.answer_page}
    if kinds:
        entry["kind"] = p.puzzle.kind
        if p.puzzle.kind == "nonogram":
            nonogram = nonogram_of(p.puzzle)
            entry["width"], entry["height"] = nonogram.width, nonogram.height
    entry.update(row(p.puzzle, MANIFEST_COLUMNS))
    if stars:
        entry["stars"] = star_count(p.puzzle.kind, p.puzzle.score)
    if hint is not None:
        entry["hint"] = hint.to_json()
    # where it came from in the store, which a book may take from many runs
    entry.update(row(p.puzzle, PROVENANCE_COLUMNS))
    return entry


@contextmanager
def _writing(path: Path | None = None) -> Iterator[None]:
    """Turn a failed write (full disk, I/O error) of ``path`` into a
    :class:`PublishError`; the file is written atomically, so nothing is left under its
    name. Without ``path``, the file is the one the error names: a failed sync's final
    path, or a rename's destination (``filename2``)."""
    try:
        yield
    except OSError as exc:
        where = path if path is not None else exc.filename2 or exc.filename
        raise PublishError(f"cannot write {where}: {exc.strerror or exc}; nothing was "
                           "written under that name and the store records no book") from exc


def publish_book(config: BookConfig, out: str | None = None,
                 record: bool = True) -> PublishedBook:
    """Make the book ``config`` describes; see the module docstring for the steps."""
    pdf = Path(out or config.out)
    if not Path(config.store).exists():
        raise PublishError(f"no store at {config.store}; make puzzles first "
                           "(nanpure run) or set book.store")
    cover = cover_path(pdf) if config.cover is not None else None
    # before anything is read or drawn: a book written over its store would lose it, one
    # that is a FIFO or a device could not be read back for its preflight, and one that
    # cannot be written at all would fail only once the whole book was drawn
    option = "--out" if out is not None else f"{config.source}: book.out"
    for path in (pdf, *([cover] if cover is not None else []), manifest_path(pdf)):
        check_writable(path, option, config.store)
        check_regular(path, option, "a book is read back for its preflight")
    steps: list[str] = []  # how far it got: "rendered", then "recorded"
    try:
        return _publish(config, pdf, cover, record, steps)
    except KeyboardInterrupt:
        if record and steps == ["rendered"]:  # Ctrl-C during the preflight, say
            raise KeyboardInterrupt(f"{pdf} was written but not recorded in the store, so "
                                    "its puzzles stay unused; run the command again") from None
        raise


def _publish(config: BookConfig, pdf: Path, cover: Path | None, record: bool,
             steps: list[str]) -> PublishedBook:
    """:func:`publish_book`'s work, noting in ``steps`` when the PDF is written and when
    the book is recorded."""
    # a proof copy (not recorded) only reads the store, so a read-only one will do
    with Store(config.store, create=False, writes=record, named_by=("book.store",)) as store:
        for name in runs_being_made(store, config):  # asked before the book lock is held
            log.warning("%s: run %r is still being made; the book takes the puzzles it has "
                        "stored so far", config.store, name)
        with store.book_lock() if record else contextlib.nullcontext():
            return _publish_locked(store, config, pdf, cover, record, steps)


def _publish_locked(store: Store, config: BookConfig, pdf: Path, cover: Path | None,
                    record: bool, steps: list[str]) -> PublishedBook:
    """:func:`_publish` once the store is open and, for a recorded book, its book lock
    held."""
    sections = select_sections(store, config)
    _refuse_too_long(config, sections)
    from .compiling import compile_before_use, kind_groups

    # each puzzle is rated and solved again before it is printed
    compile_before_use(kind_groups({p.kind for s in sections for p in s.puzzles},
                                   "rater", "solver"))
    verify_puzzles(store, [p for s in sections for p in s.puzzles])
    # the interior, its cover and its manifest are one set: written beside their names,
    # checked there, then renamed together, so that a book that fails (a full disk, a
    # failed preflight, Ctrl-C) leaves the set that was there before, or none
    outputs = [pdf, *([cover] if cover is not None else []), manifest_path(pdf)]
    try:
        settings, fonts, cover_settings, more = _layout_settings(
            config, sections, store.imported_runs({p.run for s in sections for p in s.puzzles
                                                   if p.run is not None}))
        check_text(settings, sections, fonts, more)
        hints = (hints_for(p for s in sections for p in s.puzzles)
                 if settings.hints else None)
        plan = plan_book(sections, settings, hints)
        _check_size(config, plan.page_count)
        if cover_settings is not None:
            # every refusal of the cover before anything is written: a book whose cover
            # cannot be made leaves no new interior beside an old cover, or none
            cover_layout(cover_settings, fonts, plan.size, plan.page_count)
        with _writing(), atomic_paths(outputs, through=False) as staged:
            with _writing(pdf), open(staged[0], "wb") as stream:
                render_book(plan, stream)
            if cover is not None and cover_settings is not None:
                sample, nonograms = _cover_puzzles(plan)
                with _writing(cover):
                    render_cover(cover_settings, fonts, plan.size, plan.page_count,
                                 str(staged[1]), sample, nonograms)
            report, cover_report = _checked(config, plan, pdf, cover, staged)
    except (LayoutError, FontError, CoverError) as exc:
        raise PublishError(f"{config.source}: {exc}") from exc
    steps.append("rendered")
    book_id = None
    if record:
        # once recorded, the book is made: a Ctrl-C or SIGTERM from then on (one during
        # the COMMIT held back till it is done) is let go, so that the command says which
        # book it recorded and exits 0; stopped then, it said nothing of the book, whose
        # puzzles are used, and a nightly script made the next over its PDF
        with finishing():
            try:
                # as printed: a run may have moved a picked puzzle since (Store.move_puzzle)
                book_id = store.record_book(
                    config.layout.title, str(pdf), config.to_json(),
                    [(p.puzzle.id, p.number, p.section, p.page, p.answer_page)
                     for p in plan.placements],
                    printed={p.puzzle.id: p.puzzle.puzzle for p in plan.placements})
            except StoreError as exc:  # a full disk, say: the book is whole, but unrecorded
                raise PublishError(f"{pdf} was written but not recorded in the store, so "
                                   f"its puzzles stay unused (the next book takes them "
                                   f"again): {exc}") from exc
            steps.append("recorded")
    return PublishedBook(pdf, manifest_path(pdf), plan, report, book_id, cover, cover_report)


def _layout_settings(config: BookConfig, sections: Sequence[BookSection],
                     imported_runs: Sequence[str] = ()
                     ) -> tuple[BookSettings, Fonts, CoverSettings | None, list[tuple[str, str]]]:
    """The book's settings and fonts (:func:`_fonts_for`, for the words of the book and
    its cover), its cover's settings (None without a cover) and the cover's words;
    ``imported_runs`` are the runs of its puzzles that ``nanpure import`` stored."""
    cover_settings = (CoverSettings.of(config.cover, vertical_spine=config.layout.language
                                       in VERTICAL_SPINES)
                      if config.cover is not None else None)
    more = cover_settings.texts() if cover_settings is not None else []
    settings = replace(BookSettings.of(config.layout), imported_runs=tuple(imported_runs))
    settings, fonts = _fonts_for(settings, book_texts(settings, sections) + more)
    return settings, fonts, cover_settings, more


def _refuse_too_long(config: BookConfig, sections: Sequence[BookSection]) -> None:
    """Refuse a book of more pages than its preflight can read (:func:`_check_size`)
    before its puzzles are re-checked, which takes most of a minute for the 300,000 a
    section without a ``count`` takes from a large store: its pages counted here without
    its hints (rated only once the puzzles are checked; they only add pages), when its
    puzzles could fill that many. What stops the count (a title too long for the
    contents, a nonogram too large for its page) is refused in its turn, after the
    re-check, as it was."""
    limit = max_pages()
    n = sum(len(s.puzzles) for s in sections)
    # at most every puzzle, its hint and its answer on a page of their own, a title page
    # and a contents row a section (and a kind), and the pages around them: a book that
    # cannot reach the limit is not counted twice
    if limit is None or max(MIN_PAGES, 3 * n + 4 * len(sections) + 8) <= limit:
        return
    try:
        settings = _layout_settings(config, sections)[0]
        pages = page_count(sections, settings)
    except (LayoutError, FontError, CoverError):
        return
    _check_size(config, pages, before_hints=settings.hints)


def _check_size(config: BookConfig, pages: int, before_hints: bool = False) -> None:
    """Refuse, before anything is drawn, a book of ``pages`` pages, more than its
    preflight can read (which would fail it after drawing them all: minutes and gigabytes
    for 300,000 puzzles); ``before_hints``: ``pages`` leaves out its hints section."""
    limit = max_pages()
    if limit is not None and pages > limit:
        every = [f"{s.title!r}" for s in config.sections if s.count is None]
        which = (f" (sections without one take every puzzle they find: {', '.join(every)})"
                 if every else "")
        hints = " before its hints" if before_hints else ""
        raise PublishError(f"{config.source}: the book would have {pages:,} pages"
                           f"{hints}, more than the {limit:,} its preflight can read; give "
                           f"its sections a smaller count{which}")


def _cover_puzzles(plan: BookPlan) -> tuple[str | None, list[PuzzleRecord]]:
    """What a front without a picture shows: a puzzle of the first section's kind, as
    (its first Sudoku's line, or None; else the section's nonograms, one of which
    :func:`~nanpure.layouts.cover.cover_nonogram` picks)."""
    if not plan.placements:
        return None, []
    first = plan.placements[0]
    if first.puzzle.kind != "nonogram":
        return first.puzzle.puzzle, []
    return None, [p.puzzle for p in plan.placements if p.section == first.section
                  and p.puzzle.kind == "nonogram"]


def _checked(config: BookConfig, plan: BookPlan, pdf: Path, cover: Path | None,
             staged: list[Path]) -> tuple[PreflightReport, PreflightReport | None]:
    """Write the manifest of the book drawn into ``staged`` (the temporary files of
    ``pdf``, its ``cover`` when it has one, and its manifest), then preflight the PDF and
    the cover there: their reports, named by their final paths, or a
    :class:`PublishError` when one fails."""
    data = manifest(plan, config, pdf, cover)
    text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
    with _writing(manifest_path(pdf)):
        staged[-1].write_text(text, encoding="utf-8")
    report = preflight(staged[0], plan.size, MIN_PAGES, bleed=plan.settings.bleed)
    report.path = str(pdf)
    if not report.ok:
        raise PublishError(f"{pdf} failed preflight; not recorded in the store\n"
                           + report.format())
    cover_report = None
    if cover is not None and config.cover is not None:
        cover_report = preflight_cover(staged[1], plan.size, plan.page_count,
                                       config.cover.paper, config.cover.image)
        cover_report.path = str(cover)
        if not cover_report.ok:
            raise PublishError(f"{cover} failed preflight; not recorded in the store\n"
                               + cover_report.format())
    return report, cover_report


def _fonts_for(settings: BookSettings,
               texts: Sequence[tuple[str, str]]) -> tuple[BookSettings, Fonts]:
    """The book's settings and fonts: with a font found through fontconfig when some
    text (or a fixed word of the book's language) needs more than the built-in font and
    the config names none; a :class:`LayoutError` saying which characters no font has
    when none is found."""
    fonts = load_fonts(settings.cjk_font)
    fixed = fixed_texts(settings)
    missing = lacking([*texts, *fixed], fonts)
    if missing and settings.cjk_font is None:
        found = find_font(missing)
        if found is None:
            words = lacking(fixed, fonts)
            if words and find_font(words) is None:
                install = ("" if cjk_package_installed()
                           else f"Debian: apt-get install {CJK_PACKAGE}")
                raise LayoutError(no_language_font(settings, fonts, words, install))
            raise LayoutError(no_font([*texts, *fixed], missing))
        path, fonts = found
        settings = replace(settings, cjk_font=path)
    return settings, fonts


def _hints_line(hinted: int, puzzles: int, sudoku: int) -> str:
    """What ``nanpure book`` says of a book's hints: ``hinted`` of its ``sudoku`` Sudoku
    puzzles (of ``puzzles`` in all) got one. Only Sudoku puzzles that need more than
    singles get a hint; a book with nonograms says so.

    >>> _hints_line(2, 6, 6)
    'hints for 2 of the 6 puzzles (the others need only singles)'
    >>> _hints_line(0, 5, 0)
    'no hints section: hints are made for Sudoku puzzles only, and the book has none'
    >>> _hints_line(3, 9, 4)
    'hints for 3 of the 4 Sudoku puzzles (the others need only singles; nonograms get none)'
    """
    if sudoku == 0:
        return "no hints section: hints are made for Sudoku puzzles only, and the book has none"
    if sudoku == puzzles:
        return ("no hints section: every puzzle needs only singles" if hinted == 0 else
                f"hints for all {puzzles} puzzles" if hinted == puzzles else
                f"hints for {hinted} of the {puzzles} puzzles (the others need only singles)")
    return ("no hints section: every Sudoku puzzle needs only singles (nonograms get none)"
            if hinted == 0 else f"hints for all {sudoku} Sudoku puzzles (nonograms get none)"
            if hinted == sudoku else f"hints for {hinted} of the {sudoku} Sudoku puzzles "
            "(the others need only singles; nonograms get none)")


def summary(book: PublishedBook) -> str:
    """What ``nanpure book`` prints: the files, the counts and the preflight report."""
    plan = book.plan
    sections = ", ".join(
        f"{title} {sum(1 for p in plan.placements if p.section == title)}"
        for title in dict.fromkeys(p.section for p in plan.placements))
    recorded = (f"recorded as book {book.book_id}" if book.book_id is not None
                else "not recorded in the store")
    n = len(plan.placements)
    lines = [f"wrote {book.pdf}: {counted(n, 'puzzle')} ({sections}), "
             f"{plan.page_count} pages, {plan.settings.page_size}; {recorded}"]
    if plan.settings.hints:
        lines.append(_hints_line(len(plan.hints), n,
                                 sum(p.puzzle.kind == "sudoku" for p in plan.placements)))
    if book.cover is not None:
        lines.append(f"wrote {book.cover}")
    lines += [f"wrote {book.manifest}", book.report.format()]
    if book.cover_report is not None:
        lines.append(book.cover_report.format())
    return "\n".join(lines)
