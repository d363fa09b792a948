"""Rater benchmark: throughput and agreement with HoDoKu on the rated reference puzzles.

Prints:

1. puzzles rated per CPU second (one process, one core), per HoDoKu level and overall,
   the median of ``--runs`` timed passes after a warm-up pass; ``rate()`` is timed whole,
   uniqueness check included, as ``nanpure rate`` runs it;
2. the confusion matrix of our tier against HoDoKu's level, the share of puzzles with the
   same tier overall and per level, and the median of our score over HoDoKu's per level;
3. the worst disagreements: tier furthest apart first, then the score ratio furthest
   from 1, with the hardest technique each rater used.

``--by-technique`` prints instead where the CPU time goes, per HoDoKu level and overall, in
milliseconds per puzzle, all of it timed inside compiled code (a call from Python would add
a few microseconds to each of the hundreds of rung calls an extreme puzzle makes):

- each group of rungs: every call the climb made to it, recorded by climbing each puzzle
  once from Python (the position and the group's part of what the climb remembers), then
  made again back to back in one compiled loop;
- "rungs back to back": all those calls, group after group, in one loop; "rungs in climb
  order": the same calls in the order the climb made them. The difference is what the
  rungs lose to running among each other (most likely to the caches, which then hold the
  other rungs' code and data);
- the climb kernel, whole (the rungs in climb order, the singles, the steps taken and the
  set-up). These three are timed in turns, so that they are taken in the same minutes;
- the uniqueness check, and the total: the uniqueness check and the climb kernel.

Run from the repository root: ``.venv/bin/python benchmarks/rater.py`` (``--quick`` rates
every fourth puzzle, once).
"""

from __future__ import annotations

import csv
import math
import statistics
import time

import numpy as np
from numba import njit

from nanpure.generator.board import parse
from nanpure.generator.ladder import LADDER, NO_LIMIT, Rating, rate, rungs_of
from nanpure.generator.solver import count_solutions_batch
from nanpure.generator.techniques import climb
from nanpure.generator.techniques.memo import digit_planes
from nanpure.generator.techniques.singles import run_singles, setup_kernel
from nanpure.generator.techniques.step import STEP_SIZE
from nanpure.generator.tiers import TIERS

from _common import REFERENCE, argument_parser, require_reference

RATINGS = REFERENCE / "ratings.csv"
LEVELS = [t.capitalize() for t in TIERS]  # HoDoKu's level names: Easy .. Extreme


def load(step: int) -> list[dict]:
    with RATINGS.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    for row in rows[::step]:
        row["board"] = parse(row["puzzle"])
    return rows[::step]


def timed_pass(rows: list[dict]) -> tuple[dict[str, float], list[Rating]]:
    """CPU seconds spent rating the puzzles of each level, and the ratings."""
    spent = dict.fromkeys(LEVELS, 0.0)
    ratings = []
    for row in rows:
        t = time.process_time()
        ratings.append(rate(row["board"]))
        spent[row["hodoku_level"]] += time.process_time() - t
    return spent, ratings


def throughput(rows: list[dict], runs: int) -> list[Rating]:
    _, ratings = timed_pass(rows)  # warm-up: numba kernels loaded or compiled
    passes = [timed_pass(rows)[0] for _ in range(runs)]
    count = {lv: sum(r["hodoku_level"] == lv for r in rows) for lv in LEVELS}
    print(f"Puzzles rated per CPU second (median of {runs} after a warm-up, "
          f"{len(rows)} puzzles of {RATINGS.name})")
    print(f"  {'level':<8} {'puzzles':>7} {'per s':>9} {'ms each':>9}")
    for lv in LEVELS:
        if count[lv]:
            secs = statistics.median(p[lv] for p in passes)
            print(f"  {lv:<8} {count[lv]:>7} {count[lv] / secs:>9.0f} "
                  f"{1000 * secs / count[lv]:>9.2f}")
    total = statistics.median(sum(p.values()) for p in passes)
    print(f"  {'overall':<8} {len(rows):>7} {len(rows) / total:>9.0f} "
          f"{1000 * total / len(rows):>9.2f}")
    return ratings


@njit
def _memo_part(rungs: np.ndarray, r: int, memo: climb.Memo) -> np.ndarray:
    """The part of ``memo`` that rung group ``r``'s finder reads and remembers into, as a
    flat view (empty for a finder that remembers nothing)."""
    by = rungs[r, climb.UNITS]
    kernel = rungs[r, climb.KERNEL]
    slot = rungs[r, climb.SLOT]
    if by == climb.BY_DIGIT or by == climb.DIGIT_ORDER:
        return memo.digits[slot].reshape(-1)
    if by == climb.BY_HOUSE:
        return memo.houses[slot].reshape(-1)
    if by == climb.BY_CROSSING:
        return memo.crossings[slot].reshape(-1)
    if kernel == climb.X_CHAIN:
        return memo.loops.reshape(-1)
    if kernel == climb.XY_CHAIN or kernel == climb.NICE_LOOP:
        return memo.chains.reshape(-1)
    return memo.loops.reshape(-1)[:0]  # a view: no allocation inside the timed loops


@njit
def _rerun(rungs, calls: np.ndarray, grids: np.ndarray, cands: np.ndarray,
           solutions: np.ndarray, planes: np.ndarray, parts: np.ndarray,
           memo: climb.Memo) -> int:
    """Make the recorded rung calls again, in the order given: call i runs rung group
    ``calls[i, 0]`` (:func:`climb._search`) on position ``calls[i, 1]`` (``grids``,
    ``cands`` and ``planes`` of it), its part of the memo (:func:`_memo_part`) first set to
    ``parts[i]``. Returns the kinds found, summed."""
    step = np.zeros(STEP_SIZE, dtype=np.int32)
    found = 0
    for i in range(calls.shape[0]):
        r = calls[i, 0]
        p = calls[i, 1]
        part = _memo_part(rungs, r, memo)
        for k in range(part.shape[0]):
            part[k] = parts[i, k]
        found += climb._search(grids[p], cands[p], step, solutions[calls[i, 2]], rungs, r,
                               memo, planes[p])
    return found


@njit
def _climb_all(boards, solutions, rungs, scores) -> int:
    """The climb kernel on every board; the log rows, summed."""
    rows = 0
    for i in range(boards.shape[0]):
        rows += climb.rate_puzzle(boards[i], solutions[i], rungs, False, scores,
                                  NO_LIMIT)[0]
    return rows


class Recording:
    """Every rung call a climb made, in order, with its input (see :func:`record`):
    ``calls`` rows ``(rung group, position, puzzle)``; per position the grid, the
    candidates and the digit planes; per call the group's part of the memo, zero-padded
    (:meth:`arrays`, in the types the climb uses)."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, int, int]] = []
        self.grids: list[np.ndarray] = []
        self.cands: list[np.ndarray] = []
        self.planes: list[np.ndarray] = []
        self.parts: list[np.ndarray] = []

    def arrays(self) -> tuple[np.ndarray, ...]:
        parts = np.zeros((len(self.parts), max((len(x) for x in self.parts), default=0)),
                         dtype=np.int64)
        for i, part in enumerate(self.parts):
            parts[i, :len(part)] = part
        return (np.array(self.calls, dtype=np.int64).reshape(-1, 3),
                np.array(self.grids, dtype=np.uint8).reshape(-1, 81),
                np.array(self.cands, dtype=np.uint16).reshape(-1, 81),
                np.array(self.planes, dtype=np.int64).reshape(-1, 9, 2), parts)


def record(board: np.ndarray, solution: np.ndarray, puzzle: int, out: Recording) -> None:
    """Climb from ``board`` as :func:`climb.rate_puzzle` does, one kernel call at a time,
    adding every rung call and its input to ``out``."""
    rungs = rungs_of(LADDER)
    grid, cand, queues = setup_kernel(board)
    step = np.zeros(STEP_SIZE, dtype=np.int32)
    log = np.zeros((climb.MAX_LOG, 4), dtype=np.int32)
    records = np.zeros((0, STEP_SIZE), dtype=np.int32)
    counts = np.zeros(3, dtype=np.int64)
    memo = climb.new_memo(rungs)
    n_log = 0
    while True:
        n_log = run_singles(grid, cand, queues, counts, log, n_log)
        if grid.all():
            return
        planes = digit_planes(cand)
        out.grids.append(grid.copy())
        out.cands.append(cand.copy())
        out.planes.append(planes)
        r, found = 0, -1
        while r < rungs.shape[0] and found < 0:
            end = rungs[r, climb.END]
            out.calls.append((r, len(out.grids) - 1, puzzle))
            out.parts.append(_memo_part(rungs, r, memo).copy())
            kind = climb._search(grid, cand, step, solution, rungs, r, memo, planes)
            found = next((j for j in range(r, end) if kind and rungs[j, climb.KIND] == kind),
                         -1)
            r = end
        if found < 0:
            return
        n_log = climb.take_step(grid, cand, queues, solution, rungs[found, climb.INDEX],
                                step, log, records, n_log)


def _cpu(run, *args) -> float:
    """CPU seconds of ``run(*args)``, the least of three."""
    return _least_cpu([(run, args)], 3)[0]


def _least_cpu(runs: list[tuple], times: int) -> list[float]:
    """The least CPU seconds of each ``(run, args)`` of ``runs`` over ``times`` rounds, the
    runs taking turns (so that two timings compared are taken in the same minutes)."""
    best = [math.inf] * len(runs)
    for _ in range(times):
        for k, (run, args) in enumerate(runs):
            t = time.process_time()
            run(*args)
            best[k] = min(best[k], time.process_time() - t)
    return best


#: The summary rows of --by-technique, after the rung groups.
BACK_TO_BACK = "rungs back to back"
IN_ORDER = "rungs in climb order"
CLIMB = "climb kernel, whole"
UNIQUENESS = "uniqueness check"


def time_level(rows: list[dict]) -> tuple[dict[str, float], dict[str, int]]:
    """CPU seconds and calls, for the puzzles ``rows``, of each part of rating them (see
    the module text)."""
    rungs = rungs_of(LADDER)
    scores = np.array([t.score for t in LADDER], dtype=np.int64)
    names = [LADDER[int(i)].code for i in rungs[:, climb.INDEX]]
    boards = np.array([row["board"].reshape(81) for row in rows])
    _, solutions = count_solutions_batch(boards, 2)
    spent = {UNIQUENESS: _cpu(count_solutions_batch, boards, 2)}
    calls = {UNIQUENESS: len(rows)}
    recording = Recording()
    for k, (board, solution) in enumerate(zip(boards, solutions, strict=True)):
        record(board, solution, k, recording)
    order, grids, cands, planes, parts = recording.arrays()
    memo = climb.new_memo(rungs)
    grouped = np.argsort(order[:, 0], kind="stable")
    spent[CLIMB], spent[IN_ORDER], spent[BACK_TO_BACK] = _least_cpu(
        [(_climb_all, (boards, solutions, rungs, scores)),
         (_rerun, (rungs, order, grids, cands, solutions, planes, parts, memo)),
         (_rerun, (rungs, order[grouped], grids, cands, solutions, planes, parts[grouped],
                   memo))], 5)
    calls[CLIMB] = len(rows)
    calls[IN_ORDER] = calls[BACK_TO_BACK] = len(order)
    for r in np.unique(order[:, 0]):
        end = rungs[r, climb.END]
        part = "+".join(names[r:end]) if end - r < 4 else f"{names[r]}..{names[end - 1]}"
        mine = order[:, 0] == r
        spent[part] = _cpu(_rerun, rungs, order[mine], grids, cands, solutions, planes,
                           parts[mine], memo)
        calls[part] = int(mine.sum())
    return spent, calls


def by_technique(rows: list[dict]) -> None:
    """Print where the rater's time goes, per level (see the module text)."""
    time_level(rows[::20])  # warm-up: the timing loops compiled
    spent: dict[str, dict[str, float]] = {}
    calls: dict[str, dict[str, int]] = {}
    count = {}
    for lv in LEVELS:
        mine = [row for row in rows if row["hodoku_level"] == lv]
        if mine:
            spent[lv], calls[lv] = time_level(mine)
            count[lv] = len(mine)
    spent["overall"], calls["overall"] = {}, {}
    for lv in count:
        for part, secs in spent[lv].items():
            spent["overall"][part] = spent["overall"].get(part, 0.0) + secs
            calls["overall"][part] = calls["overall"].get(part, 0) + calls[lv][part]
    count["overall"] = len(rows)
    summary = [BACK_TO_BACK, IN_ORDER, CLIMB, UNIQUENESS]
    groups = sorted((p for p in spent["overall"] if p not in summary),
                    key=spent["overall"].get, reverse=True)
    print("CPU ms per puzzle by part of the rating, timed in compiled code "
          "(calls per puzzle in brackets)")
    print(f"  {'part':<22}" + "".join(f"{lv:>16}" for lv in count))
    for part in [*groups, *summary, "total"]:
        cells = []
        for lv, n in count.items():
            if part == "total":
                ms, k = 1000 * (spent[lv][UNIQUENESS] + spent[lv][CLIMB]) / n, 0.0
            else:
                ms, k = 1000 * spent[lv].get(part, 0.0) / n, calls[lv].get(part, 0) / n
            cells.append(f"{ms:>8.3f} ({k:>5.1f})")
        print(f"  {part:<22}" + "".join(cells))


def agreement(rows: list[dict], ratings: list[Rating], worst: int) -> None:
    ours = [r.tier.capitalize() for r in ratings]
    print("\nTier agreement: rows are HoDoKu's level, columns ours")
    print("  " + f"{'':<8}" + "".join(f"{lv:>8}" for lv in LEVELS) + f"{'same':>8}")
    for lv in LEVELS:
        mine = [o for o, row in zip(ours, rows, strict=True) if row["hodoku_level"] == lv]
        if not mine:
            continue
        cells = "".join(f"{mine.count(col):>8}" for col in LEVELS)
        print(f"  {lv:<8}{cells}{100 * mine.count(lv) / len(mine):>7.1f}%")
    same = sum(o == row["hodoku_level"] for o, row in zip(ours, rows, strict=True))
    print(f"  same tier overall: {same}/{len(rows)} = {100 * same / len(rows):.1f}%")
    hardest = sum(r.hardest == row["hodoku_hardest_technique"]
                  for r, row in zip(ratings, rows, strict=True))
    print(f"  same hardest technique: {hardest}/{len(rows)} = "
          f"{100 * hardest / len(rows):.1f}%")

    print("\nScore: median of ours / HoDoKu's")
    ratios = [r.score / int(row["hodoku_score"]) for r, row in zip(ratings, rows, strict=True)]
    for lv in LEVELS:
        sel = [x for x, row in zip(ratios, rows, strict=True) if row["hodoku_level"] == lv]
        if sel:
            print(f"  {lv:<8} {statistics.median(sel):.3f}")
    print(f"  {'overall':<8} {statistics.median(ratios):.3f}")

    def badness(k: int) -> tuple[int, float]:
        gap = abs(TIERS.index(ratings[k].tier) - LEVELS.index(rows[k]["hodoku_level"]))
        return gap, abs(math.log(ratios[k]))

    order = sorted(range(len(rows)), key=badness, reverse=True)[:worst]
    print(f"\nWorst {worst} disagreements (tier gap, then score ratio)")
    for k in order:
        row, r = rows[k], ratings[k]
        print(f"  {row['puzzle']}")
        print(f"      ours   {r.tier:<8} {r.score:>6}  {r.hardest}")
        print(f"      HoDoKu {row['hodoku_level'].lower():<8} {int(row['hodoku_score']):>6}  "
              f"{row['hodoku_hardest_technique']}")


def main() -> None:
    parser = argument_parser(__doc__)
    parser.add_argument("--quick", action="store_true", help="every fourth puzzle, one run")
    parser.add_argument("--runs", type=int, default=3, help="timed passes (median)")
    parser.add_argument("--worst", type=int, default=15, help="disagreements to list")
    parser.add_argument("--by-technique", action="store_true",
                        help="print instead where the CPU time goes, in ms per puzzle by "
                        "HoDoKu level: each group of rungs, the rungs back to back and in "
                        "climb order, the climb kernel, the uniqueness check (the parts are "
                        "described at the top of benchmarks/rater.py)")
    args = parser.parse_args()
    require_reference(RATINGS.name)
    rows = load(4 if args.quick else 1)
    if args.by_technique:
        by_technique(rows)
        return
    ratings = throughput(rows, 1 if args.quick else args.runs)
    agreement(rows, ratings, args.worst)


if __name__ == "__main__":
    main()
