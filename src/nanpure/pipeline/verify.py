"""Re-checking stored puzzles: ``nanpure verify``, and the check a book makes before it
prints a puzzle (one code path for both).

Each puzzle is checked by its kind (:mod:`nanpure.generator.kinds`):

- it has exactly one solution, and that is the stored one;
- its pattern has the symmetry recorded for it (Sudoku: the givens; nonograms: the
  picture), and a Sudoku's blank count is the stored one;
- ``nanpure verify`` only: its canonical form (a Sudoku's, a nonogram's) is the stored
  one (which ``dedup = "equivalent"`` compares);
- rated again, it gets the stored rating (tier, score, hardest technique and the
  techniques used), when the run that made it recorded the fingerprint of the ladder it
  was rated with and that is today's ladder. Otherwise the rating is not re-checked
  (older runs, or a ladder changed since), and the check says how many were not; with
  ``rerate`` (``nanpure verify --rerate``) it is, with today's ladder: its tier, score and
  hardest technique must be the stored ones (older code sometimes stored others).

>>> record = PuzzleRecord(
...     puzzle="..65.71........8....1.3..2.194.2.....6.375....5..1...27.......6........4.459.....",
...   solution="926587143473192865581634729194826537862375491357419682718243956639758214245961378",
...     tier="easy", score=400, hardest="x", techniques="", symmetry="none", blanks=56, seed=1)
>>> check_puzzles([record, record._replace(symmetry="dihedral")]).problems
[None, 'is not symmetric as recorded (dihedral)']
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TextIO

from ..generator.kinds import KINDS, kind_of, ladder_fingerprint
from ..output.datasets import chunks
from ..record import PuzzleRecord, techniques_text
from ..words import counted
from .batch import BatchJob, Progress, Segment, batch_workers
from .store import Store


def ladder_fingerprints() -> dict[str, str]:
    """The fingerprint of each kind's ladder today (:func:`.kinds.ladder_fingerprint`):
    ``{kind: 16 hex digits}``. Sudoku's is the one every export records.

    >>> sorted(ladder_fingerprints())
    ['nonogram', 'sudoku']
    """
    return {kind: ladder_fingerprint(kind) for kind in KINDS}


@dataclass
class Checked:
    """What :func:`check_puzzles` found: per puzzle None or what is wrong (the end of a
    sentence about the puzzle), and how many ratings were re-checked."""

    problems: list[str | None]
    rated: int = 0
    not_rated: dict[str, int] = field(default_factory=dict)  # why -> how many
    #: of the ``rated``, how many were rated without their run's ladder (``rerate``)
    rerated: int = 0
    #: per puzzle, why its rating was not re-checked (a key of ``not_rated``), else None
    skipped: list[str | None] = field(default_factory=list)


def check_puzzles(records: Sequence[PuzzleRecord],
                  ladders: Mapping[tuple[str, str], str | None] | None = None,
                  *, rerate: bool = False) -> Checked:
    """Check every record (see the module docstring). ``ladders`` maps (run name, kind)
    to the fingerprint of the ladder that rated the run's puzzles of that kind (see
    :meth:`~nanpure.pipeline.store.RunRecord.ladder`); ratings are re-checked only where
    it equals today's, or with ``rerate`` everywhere (the others by tier, score and
    hardest technique, :func:`_rating_problem`)."""
    today = ladder_fingerprints()
    checked = Checked([None] * len(records), skipped=[None] * len(records))
    by_kind: dict[str, list[int]] = {}
    for k, record in enumerate(records):
        by_kind.setdefault(record.kind, []).append(k)
    for kind, places in by_kind.items():
        if kind not in KINDS:  # a damaged row: failed as a puzzle that cannot be read
            for k in places:
                checked.problems[k] = (f"its kind {kind!r} is no puzzle kind nanpure knows "
                                       f"({', '.join(sorted(KINDS))}); the store's row is "
                                       "damaged")
            continue
        found = kind_of(kind).verify([records[k] for k in places])
        for k, problem in zip(places, found, strict=True):
            record = records[k]
            problem = problem or _symmetry_problem(record)
            if problem is None:
                stored = (ladders or {}).get((record.run or "", kind))
                if stored == today[kind]:
                    problem = _rating_problem(record)
                    checked.rated += 1
                else:
                    why = ("the run recorded no ladder" if stored is None else
                           "the ladder changed since the run")
                    if rerate:
                        problem = _rating_problem(record, why)
                        checked.rated += 1
                        checked.rerated += 1
                    else:
                        checked.not_rated[why] = checked.not_rated.get(why, 0) + 1
                        checked.skipped[k] = why
            checked.problems[k] = problem
    return checked


def run_ladders(store: Store) -> dict[tuple[str, str], str | None]:
    """``{(run name, kind): fingerprint}`` for every run of the store and every kind, the
    ``ladders`` argument of :func:`check_puzzles`."""
    return {(run.name, kind): run.ladder(kind)
            for run in store.runs() for kind in ladder_fingerprints()}


def _symmetry_problem(record: PuzzleRecord) -> str | None:
    """None when the puzzle has the recorded symmetry (and a Sudoku its blank count)."""
    if record.kind == "sudoku":
        from ..generator.board import parse_line
        from ..generator.symmetry import SYMMETRIES, is_symmetric

        if record.symmetry not in SYMMETRIES:
            return f"records an unknown symmetry {record.symmetry!r}"
        if record.puzzle.count(".") != record.blanks:
            return (f"has {record.puzzle.count('.')} blanks, but the store says "
                    f"{record.blanks}")
        symmetric = is_symmetric(parse_line(record.puzzle), record.symmetry)
    else:
        from ..generator.nonogram import parse_line
        from ..generator.nonogram.generate import SYMMETRIES, is_symmetric

        if record.symmetry not in SYMMETRIES:
            return f"records an unknown symmetry {record.symmetry!r}"
        puzzle = parse_line(record.puzzle)
        symmetric = is_symmetric(record.solution, puzzle.width, puzzle.height,
                                 record.symmetry)
    return None if symmetric else f"is not symmetric as recorded ({record.symmetry})"


def _rating_problem(record: PuzzleRecord, other_ladder: str | None = None) -> str | None:
    """None when rating the puzzle again gives its stored rating. ``other_ladder`` says
    why the run's ladder is not known to be today's: only the tier, score and hardest
    technique are then compared (the technique counts follow the ladder's details)."""
    if record.kind == "sudoku":
        from ..generator.board import parse_line
        from ..generator.ladder import rate

        rating = rate(parse_line(record.puzzle))
        again = (rating.tier, rating.score, rating.hardest, rating.techniques)
    else:
        from ..generator.nonogram import parse_line
        from ..generator.nonogram import rate as rate_nonogram

        found = rate_nonogram(parse_line(record.puzzle))
        again = (found.tier, found.score, found.hardest, techniques_text(found.counts))
    stored = (record.tier, record.score, record.hardest, record.techniques)
    if other_ladder is not None:
        if again[:3] == stored[:3]:
            return None
        return (f"rates {_rating(again)} today, but the store says {_rating(stored)}; "
                f"{other_ladder}")
    if again == stored:
        return None
    # the techniques only when the rest agrees: what differs is then shown
    whole = again[:3] == stored[:3]
    return (f"rates {_rating(again, whole)} today, but the store says "
            f"{_rating(stored, whole)} with the same ladder")


def _check_canons(records: Sequence[PuzzleRecord], canons: Mapping[int, str],
                  problems: list[str | None]) -> None:
    """Fill in ``problems`` (where still None) for the records whose stored canonical
    form (``canons`` by id; what ``dedup = "equivalent"`` compares) is not the puzzle's."""
    from .store import canonical_forms

    places = [k for k, r in enumerate(records) if problems[k] is None and r.id in canons]
    forms = canonical_forms([records[k].kind for k in places],
                            [records[k].puzzle for k in places])
    for k, form in zip(places, forms, strict=True):
        if form != canons[records[k].id]:
            problems[k] = (f"has the canonical form {form}, but the store says "
                           f"{canons[records[k].id]}")


def _rating(rating: tuple, techniques: bool = False) -> str:
    """``tier score (hardest)``, with ``techniques`` the technique counts too."""
    tier, score, hardest, counts = rating
    return f"{tier} {score} ({hardest}{', ' + counts if techniques else ''})"


#: Puzzles ``nanpure verify`` reads and checks at a time: its memory is that of a chunk,
#: however many puzzles the store holds.
VERIFY_CHUNK = 4096
#: Puzzles a worker of ``verify --workers`` checks at a time (some 0.1 s of work).
VERIFY_BATCH = 1024


@dataclass
class VerifyBatch:
    """Puzzles for a worker to check (:func:`verify_batch`): the records, their stored
    canonical forms by id, and :func:`check_puzzles`' ``ladders`` and ``rerate``.
    ``quota`` and ``first`` are what a worker pool notes of the batch it runs: here the
    batch's number."""

    first: int
    records: list[PuzzleRecord]
    canons: dict[int, str]
    ladders: Mapping[tuple[str, str], str | None]
    rerate: bool
    quota: int = 0

    @property
    def size(self) -> int:
        return len(self.records)


def verify_batch(batch: VerifyBatch) -> Checked:
    """What ``nanpure verify`` finds of the puzzles of ``batch`` (in a worker, or here)."""
    checked = check_puzzles(batch.records, batch.ladders, rerate=batch.rerate)
    _check_canons(batch.records, batch.canons, checked.problems)
    return checked


@dataclass
class _VerifyJob(BatchJob):
    """``verify_command``'s checks, a batch at a time (anywhere), and what it prints of
    them, in the order the puzzles were read."""

    ladders: Mapping[tuple[str, str], str | None] = field(default_factory=dict)
    rerate: bool = False
    n: int = 0
    failed: int = 0
    rated: int = 0
    rerated: int = 0
    runs: set[str | None] = field(default_factory=set)
    not_rated: dict[str, int] = field(default_factory=dict)
    # check_puzzles counts a kind's puzzles after those of the kinds seen before it, so
    # the reasons are said in the order of their first puzzle by (its kind's first
    # appearance, its place), as one call for all of them says them
    kinds: dict[str, int] = field(default_factory=dict)
    first: dict[str, tuple[int, int]] = field(default_factory=dict)

    def _segments(self, chunks: Iterator[list[tuple[PuzzleRecord, str | None]]],
                  bar: Progress) -> Iterator[Segment]:
        for chunk in chunks:
            for at in range(0, len(chunk), self.batch):
                part = chunk[at : at + self.batch]
                records = [record for record, _ in part]
                canons = {record.id: canon for record, canon in part if canon is not None}
                yield Segment([record.id for record in records], [], True,
                              VerifyBatch(self.batches, records, canons, self.ladders,
                                          self.rerate))
                self.batches += 1

    doing, does = "checking", "check"

    def _span(self, places: list[int]) -> str:
        return (f"puzzle {places[0]}" if len(places) == 1
                else f"puzzles {places[0]}-{places[-1]}")

    def _stopped_at(self, place: int) -> str:
        return f"; stopped at puzzle {place}, the puzzles before it were checked"

    def _answer(self, segment: Segment, answers: Checked) -> None:
        records = segment.batch.records
        for k, (record, problem) in enumerate(zip(records, answers.problems, strict=True)):
            place = (self.kinds.setdefault(record.kind, len(self.kinds)), self.n + k)
            why = answers.skipped[k]
            if why is not None:
                self.first[why] = min(self.first.get(why, place), place)
            if problem is not None:
                self.failed += 1
                print(f"puzzle {record.id} (run {record.run}, quota {record.quota}): "
                      f"{problem}", file=self.err)
            self.runs.add(record.run)
        for why, count in answers.not_rated.items():
            self.not_rated[why] = self.not_rated.get(why, 0) + count
        self.n += len(records)
        self.rated += answers.rated
        self.rerated += answers.rerated

    def summary(self) -> str:
        """The last line: how many were checked, passed, failed and re-rated."""
        not_rated, n = self.not_rated, self.n
        skipped = "".join(f"; {counted(not_rated[why], 'rating')} not re-checked ({why})"
                          for why in sorted(not_rated, key=self.first.__getitem__))
        if skipped:
            skipped += "; --rerate re-checks them with today's ladder"
        rerated_text = (f" ({self.rerated} of them rated before with another ladder or an "
                        "unrecorded one)" if self.rerated else "")
        return (f"{self.name}: {counted(n, 'puzzle')} of {counted(len(self.runs), 'run')} "
                f"checked: {n - self.failed} passed, {self.failed} failed; "
                f"{counted(self.rated, 'rating')} re-checked{rerated_text}{skipped}")


def verify_command(store_path: str, run: str | None = None,
                   out: TextIO | None = None, err: TextIO | None = None,
                   rerate: bool = False, *, workers: int | None = 1,
                   batch: int = VERIFY_BATCH,
                   progress: bool | None = None) -> int:
    """``nanpure verify``: check every stored puzzle (of the runs ``run`` names or
    matches as a glob pattern, or all; :meth:`Store.check_runs`), with ``rerate`` also
    the ratings of runs that recorded no ladder or another (:func:`check_puzzles`); print
    each problem as ``puzzle ID (run R, quota Q): problem`` on ``err`` and a summary on
    ``out``. Returns 0 when all pass, 1 when any fails.

    The puzzles are read :data:`VERIFY_CHUNK` at a time (those stored when the check
    began, :meth:`Store.iter_puzzles_with_canon`) and checked ``batch`` at a time, with
    ``workers`` above 1 in that many processes, a few batches each in flight (None: this
    process, then the idle cores once the work left looks large,
    :data:`~nanpure.pipeline.batch.AUTO_SECONDS`); what is
    printed is what checking them all at once in one process prints. A worker that dies
    is replaced and the puzzles not checked go to the new workers (a line on ``err`` says
    so); puzzles whose workers died three times stop the command
    (:class:`~nanpure.pipeline.batch.WorkerDied`, its message naming them and the first
    puzzle not checked; no summary). ``progress`` shows a bar on ``err``
    (default: when it is a terminal), its total counted first."""
    out, err = out or sys.stdout, err or sys.stderr
    with Store(store_path, create=False, writes=False) as store:
        store.check_runs(run)
        from .compiling import compile_before_use, kind_groups

        compile_before_use(kind_groups(store.puzzle_kinds(run), "rater", "solver", "canon"),
                           err)
        ladders = run_ladders(store)
        pairs = store.iter_puzzles_with_canon(unused_only=False, run_globs=run,
                                              batch=VERIFY_CHUNK)
        with (Progress(err, show=progress, total=lambda: store.count_puzzles(run)) as bar,
              batch_workers(workers, verify_batch) as done_by):
            job = _VerifyJob(store_path, out, bar.messages, batch, ladders=ladders,
                             rerate=rerate)
            job.run(chunks(pairs, VERIFY_CHUNK), done_by, bar)
    print(job.summary(), file=out)
    return 1 if job.failed else 0
