"""The rating loop as one kernel, driven by the ladder table.

:func:`nanpure.generator.ladder.rate` turns the rows of the ladder it may use (enabled and
within the tier limit) into an array with :func:`rungs`, one row per rung in ladder
order, and runs :func:`rate_puzzle` on it. The climb (:func:`climb`) solves like
a person: singles first, from HoDoKu's queues (:func:`.singles.run_singles`); when none is
left, the rungs in order (:func:`try_rungs`), and the first step found is checked against
the solution, logged and applied (:func:`take_step`); then from the bottom again, until
the grid is full, no rung applies or the steps taken score more than the caller's
limit. Staying in compiled code between steps saves a call from Python per finder and per
step.

Each rung names its finder's kernel id (:data:`KERNEL_OF`) and up to two arguments;
:func:`_run` switches on the kernel id. The row's ``units`` says how the finder searches
the grid, and so what the climb remembers between positions (:mod:`.memo`): a finder that
searches digit by digit, house by house or crossing by crossing is given only the units
that changed since it last found nothing there; XY-Chain and the Nice Loops are not
searched while their link graph holds no link that it did not hold when they last found
no loop (:func:`_chain`).

Consecutive rungs that one kernel can try together form a *group*, found by
:func:`rungs` from the kernel ids and the table: the Unique Rectangle types and the
Hidden Rectangle in one pass over the rectangles, the finned and sashimi fish of one size
in one pass over the base lines (both while in the order the pass reports them), and the
ALS techniques, which share one :func:`.als.als_structure` (the rows' ``prepare``),
built once per position. A group reports which of its rungs found the step, so the climb
takes the same steps as trying the rungs one by one.

Only :func:`rate_puzzle` (and :func:`check_step`, which the rater calls) is compiled as a
kernel of its own; the kernels between it and the finders are inlined into it
(``inline="always"``). numba links a copy of every callee into its caller and optimises
the whole again, so each level of calls between the climb and the finders would compile
every finder once more.

A technique whose finder has a kernel here is one row of the ladder; a new finder also
needs a kernel id (a line ``NAME = _kernel("finder")``) and a branch in :func:`_run` (an
id without one finds nothing; ``tests/test_ladder.py`` checks that every id has one).

The log has one row per step: ``(ladder index, variant, cell, digit)`` for a single,
``(ladder index, variant, -1, record)`` for any other step, where ``record`` is the row
of ``records`` holding a copy of the step (when ``records`` has room for it: the rater
keeps them only when asked for the solution path).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..board import CROSSING_CELLS, HOUSES
from .als import (
    als_chain_in,
    als_structure,
    als_xy_wing_in,
    als_xz_in,
    find_sue_de_coq,
)
from .chains import MODE_NICE, MODE_X, MODE_XY, new_links, search_chains, x_closes
from .coloring import find_multi_colors, find_simple_colors
from .fish import FINNED, SASHIMI, find_basic_fish, finned_fish
from .forcing import find_forcing_chain
from .intersections import find_locked_candidates, find_locked_subset
from .memo import (
    Memo,
    changed_digits,
    changed_units,
    digit_planes,
    remember_digits,
    remember_units,
)
from .single_digit import (
    find_empty_rectangle,
    find_skyscraper,
    find_turbot_fish,
    find_two_string_kite,
)
from .singles import apply_queued, run_singles, setup_kernel
from .step import ELIM_AT, N_ELIM, N_PLACE, PLACE_AT, STEP_SIZE, VARIANT, clear
from .subsets import find_hidden_subset, find_naked_subset
from .trial import find_brute_force
from .uniqueness import HIDDEN, find_bug_plus_one, find_unique_rectangles
from .wings import find_remote_pair, find_w_wing, find_xy_wing, find_xyz_wing

#: A ladder row's ``finder`` -> the id of its kernel, what :func:`_run` switches on. The
#: singles are not here: they run first, from HoDoKu's queues, and the ladder must start
#: with them.
KERNEL_OF: dict[str, int] = {}


def _kernel(finder: str) -> int:
    """A new kernel id, for ``finder``."""
    KERNEL_OF[finder] = len(KERNEL_OF)
    return KERNEL_OF[finder]


LOCKED_SUBSET = _kernel("find_locked_subset")
LOCKED_CANDIDATES = _kernel("find_locked_candidates")
NAKED_SUBSET = _kernel("find_naked_subset")
HIDDEN_SUBSET = _kernel("find_hidden_subset")
BASIC_FISH = _kernel("find_basic_fish")
REMOTE_PAIR = _kernel("find_remote_pair")
BUG_PLUS_ONE = _kernel("find_bug_plus_one")
SKYSCRAPER = _kernel("find_skyscraper")
TWO_STRING_KITE = _kernel("find_two_string_kite")
TURBOT_FISH = _kernel("find_turbot_fish")
EMPTY_RECTANGLE = _kernel("find_empty_rectangle")
W_WING = _kernel("find_w_wing")
XY_WING = _kernel("find_xy_wing")
XYZ_WING = _kernel("find_xyz_wing")
UNIQUE_RECTANGLE = _kernel("find_unique_rectangle")
HIDDEN_RECTANGLE = _kernel("find_hidden_rectangle")
FINNED_FISH = _kernel("find_finned_fish")
SUE_DE_COQ = _kernel("find_sue_de_coq")
SIMPLE_COLORS = _kernel("find_simple_colors")
MULTI_COLORS = _kernel("find_multi_colors")
X_CHAIN = _kernel("find_x_chain")
XY_CHAIN = _kernel("find_xy_chain")
NICE_LOOP = _kernel("find_nice_loop")
ALS_XZ = _kernel("als_xz_in")
ALS_XY_WING = _kernel("als_xy_wing_in")
ALS_CHAIN = _kernel("als_chain_in")
FORCING_CHAIN = _kernel("find_forcing_chain")
BRUTE_FORCE = _kernel("find_brute_force")

#: How a finder goes through the grid (a ladder row's ``units``, see :mod:`.memo`): all
#: at once; digit by digit (a mask of digits), and "digit order" when the digits are its
#: outermost loop, so that a step for one digit means that the digits before it held
#: nothing; house by house; line/box crossing by crossing.
WHOLE, BY_DIGIT, DIGIT_ORDER, BY_HOUSE, BY_CROSSING = range(5)
UNIT_KINDS = {"": WHOLE, "digit": BY_DIGIT, "digit order": DIGIT_ORDER, "house": BY_HOUSE,
              "crossing": BY_CROSSING}
_EVERY_UNIT = -1  # the unit mask of a finder searching everything

SOLVED = 0  # the grid is full
STUCK = 1  # no rung applies
FALSE_STEP = 2  # the last logged step contradicts the solution (a technique bug)
OVER = 3  # the steps taken score more than the limit the climb was given

#: More rows than any solution path has: each step places a digit or removes a candidate.
MAX_LOG = 81 + 729


# The columns of the climb's array of rungs (see :func:`rungs`), one row per rung in order:
INDEX = 0  # the rung's ladder index (what the log holds)
KERNEL = 1  # its kernel id
ARG = 2  # its arguments (two, zero-padded)
UNITS = 4  # how its finder searches: WHOLE, BY_DIGIT, ...
SLOT = 5  # its row in the memo's snapshots of those units
END = 6  # for the first rung of a group: one past its last rung; 0 for the others
KIND = 7  # what the group's kernel reports when this rung finds the step
KINDS = 8  # for the first rung of a group: the kinds its pass looks for (a mask)
N_COLUMNS = 9


_ON_ALS = (ALS_XZ, ALS_XY_WING, ALS_CHAIN)  # the kernels on one .als.als_structure


def _group_key(tech, kernel: int):
    """``(key, kind, bit)`` for a rung one kernel can try together with its neighbours of
    the same key: the kind the kernel reports for it (the kinds of a pass must increase
    along the group) and its bit in the pass's mask of kinds; None for any other rung."""
    if kernel == UNIQUE_RECTANGLE:
        return ("rectangles", tech.units), tech.args[0], 1 << tech.args[0]
    if kernel == HIDDEN_RECTANGLE:
        return ("rectangles", tech.units), HIDDEN, 1 << HIDDEN
    if kernel == FINNED_FISH:
        kind = SASHIMI if tech.args[1] else FINNED
        return ("finned", tech.args[0], tech.units), kind, kind
    if kernel in _ON_ALS:
        return ("als", tech.units), 0, 0
    return None


def rungs(table) -> np.ndarray:
    """The climb's array of rungs (columns :data:`INDEX` to :data:`KINDS`) for ``table``:
    ``(ladder index, technique)`` pairs of the rungs to try, in order (the singles left
    out). A finder without a kernel raises ValueError."""
    unknown = [t.finder for _, t in table if t.finder not in KERNEL_OF]
    if unknown:
        raise ValueError(f"the climb has no kernel for {unknown[0]!r}: give it a "
                         "kernel id and a branch of _run in techniques/climb.py")
    out = np.zeros((len(table), N_COLUMNS), dtype=np.int64)
    for r, (index, tech) in enumerate(table):
        out[r, INDEX] = index
        out[r, KERNEL] = KERNEL_OF[tech.finder]
        out[r, ARG: ARG + len(tech.args)] = [int(a) for a in tech.args]
        out[r, UNITS] = UNIT_KINDS[tech.units]
        out[r, KIND] = 1
    snapshots = {BY_DIGIT: 0, DIGIT_ORDER: 0, BY_HOUSE: 1, BY_CROSSING: 2}
    slots = [0, 0, 0]
    r = 0
    while r < len(table):
        group = _group_key(table[r][1], out[r, KERNEL])
        stop = r + 1
        if group is not None:
            out[r, KINDS] = group[2]
            out[r, KIND] = group[1] or 1
            while stop < len(table):
                key = _group_key(table[stop][1], out[stop, KERNEL])
                if key is None or key[0] != group[0] or (key[1] and
                                                         key[1] <= out[stop - 1, KIND]):
                    break
                out[r, KINDS] |= key[2]
                out[stop, KIND] = key[1] or stop - r + 1  # a shared structure: the place
                stop += 1
        out[r, END] = stop
        if out[r, UNITS] in snapshots:  # the group's row of snapshots
            out[r, SLOT] = slots[snapshots[out[r, UNITS]]]
            slots[snapshots[out[r, UNITS]]] += 1
        r = stop
    return out


@njit(cache=True, inline="always")
def _run(grid, cand, step, solution, rungs, r: int, units: int, memo, planes) -> int:
    """Run the kernel of rung ``r`` (of a group: the group's) on the units of the mask
    ``units``; the kind of the step found (the :data:`KIND` of the rung), or 0."""
    kernel = rungs[r, KERNEL]
    a = rungs[r, ARG]
    if kernel == UNIQUE_RECTANGLE or kernel == HIDDEN_RECTANGLE:
        return find_unique_rectangles(grid, cand, step, rungs[r, KINDS])
    if kernel == FINNED_FISH:
        return finned_fish(cand, step, a, rungs[r, KINDS], units)
    if kernel == ALS_XZ or kernel == ALS_XY_WING or kernel == ALS_CHAIN:
        als = als_structure(grid, cand)
        for j in range(r, rungs[r, END]):
            k = rungs[j, KERNEL]
            if ((k == ALS_XZ and als_xz_in(grid, cand, step, als))
                    or (k == ALS_XY_WING and als_xy_wing_in(grid, cand, step, als))
                    or (k == ALS_CHAIN and als_chain_in(grid, cand, step, als))):
                return rungs[j, KIND]
        return 0
    if kernel == LOCKED_SUBSET:
        found = find_locked_subset(grid, cand, step, a, units)
    elif kernel == LOCKED_CANDIDATES:
        found = find_locked_candidates(grid, cand, step, units)
    elif kernel == NAKED_SUBSET:
        found = find_naked_subset(grid, cand, step, a, units)
    elif kernel == HIDDEN_SUBSET:
        found = find_hidden_subset(grid, cand, step, a, units)
    elif kernel == BASIC_FISH:
        found = find_basic_fish(grid, cand, step, a, units)
    elif kernel == REMOTE_PAIR:
        found = find_remote_pair(grid, cand, step)
    elif kernel == BUG_PLUS_ONE:
        found = find_bug_plus_one(grid, cand, step)
    elif kernel == SKYSCRAPER:
        found = find_skyscraper(grid, cand, step, units)
    elif kernel == TWO_STRING_KITE:
        found = find_two_string_kite(grid, cand, step, units)
    elif kernel == TURBOT_FISH:
        found = find_turbot_fish(grid, cand, step, units)
    elif kernel == EMPTY_RECTANGLE:
        found = find_empty_rectangle(grid, cand, step, units)
    elif kernel == W_WING:
        found = find_w_wing(grid, cand, step)
    elif kernel == XY_WING:
        found = find_xy_wing(grid, cand, step)
    elif kernel == XYZ_WING:
        found = find_xyz_wing(grid, cand, step)
    elif kernel == SUE_DE_COQ:
        found = find_sue_de_coq(grid, cand, step, units)
    elif kernel == SIMPLE_COLORS:
        found = find_simple_colors(grid, cand, step, units)
    elif kernel == MULTI_COLORS:
        found = find_multi_colors(grid, cand, step, units)
    elif kernel == X_CHAIN:
        found = _x_chain(grid, cand, step, memo.loops, planes)
    elif kernel == XY_CHAIN or kernel == NICE_LOOP:
        found = _chain(cand, step, memo.chains, kernel == NICE_LOOP, a != 0)
    elif kernel == FORCING_CHAIN:
        found = find_forcing_chain(grid, cand, step, a != 0)
    elif kernel == BRUTE_FORCE:
        found = find_brute_force(grid, cand, step, solution)
    else:  # a kernel id without a branch finds nothing, rather than acting as another
        clear(step)
        found = False
    return 1 if found else 0


@njit(cache=True, inline="always")
def _x_chain(grid: np.ndarray, cand: np.ndarray, step: np.ndarray, seen: np.ndarray,
             planes: np.ndarray) -> bool:
    """X-Chain, not searched when no digit that changed since it last came up empty
    starts a loop: its links join candidates of one digit, so a digit whose candidates
    are as they were still starts none (``seen`` holds those digits, see :mod:`.memo`)."""
    digits = changed_digits(seen, planes)
    if digits == 0:
        return False
    # the search itself, not find_x_chain, which would be compiled as one more level
    if x_closes(cand & np.uint16(digits)):
        return search_chains(cand, step, MODE_X, False)[0]
    remember_digits(seen, planes, digits)
    return False


@njit(cache=True, inline="always")
def _chain(cand: np.ndarray, step: np.ndarray, seen: np.ndarray, nice: bool,
           grouped: bool) -> bool:
    """XY-Chain (``nice`` False) or Nice Loop/AIC, not searched when the link graph holds
    no link that it did not hold when the search last found no loop, completely: every
    loop now was one then (see :func:`.chains.new_links`).
    ``seen[0]``, ``seen[1]`` and ``seen[2]`` hold those candidates for XY-Chain, Nice Loop
    and Grouped Nice Loop (see :mod:`.memo`)."""
    then = seen[np.int64(nice) + np.int64(grouped)]
    mode = MODE_NICE if nice else MODE_XY
    if not new_links(then, cand, mode, grouped):
        clear(step)  # as the search clears it when it finds nothing
        return False
    found, no_loop = search_chains(cand, step, mode, grouped)
    if no_loop:
        for cell in range(81):
            then[cell] = cand[cell]
    return found


@njit(cache=True, inline="always")
def _search(grid, cand, step, solution, rungs, r: int, memo: Memo, planes: np.ndarray) -> int:
    """:func:`_run` rung ``r`` on the units that changed since it last searched them in
    vain, and remember those it searches in vain now. ``memo`` is the puzzle's
    :func:`new_memo`, ``planes`` the position's :func:`.memo.digit_planes`."""
    by = rungs[r, UNITS]
    # _run is inlined: called from one place, so that it is typed and compiled only once
    seen = memo.loops  # unused for WHOLE
    cells = HOUSES
    if by == WHOLE:
        units = _EVERY_UNIT
    elif by == BY_DIGIT or by == DIGIT_ORDER:
        seen = memo.digits[rungs[r, SLOT]]
        units = changed_digits(seen, planes)
    else:
        if by == BY_HOUSE:
            seen = memo.houses[rungs[r, SLOT]]
        else:
            seen = memo.crossings[rungs[r, SLOT]]
            cells = CROSSING_CELLS
        units = changed_units(seen, cand, cells)
    kind = _run(grid, cand, step, solution, rungs, r, units, memo, planes) if units else 0
    if by == WHOLE:
        return kind
    if by == BY_DIGIT or by == DIGIT_ORDER:
        if kind == 0:
            remember_digits(seen, planes, units)
        elif by == DIGIT_ORDER:
            code = step[ELIM_AT] if step[N_ELIM] else step[PLACE_AT]
            remember_digits(seen, planes, units & ((1 << code % 9) - 1))
        return kind
    if kind == 0:
        remember_units(seen, cand, cells, units)
    return kind


@njit(cache=True, inline="always")
def try_rungs(grid: np.ndarray, cand: np.ndarray, step: np.ndarray, solution: np.ndarray,
              rungs: np.ndarray, memo: Memo) -> int:
    """Try the rungs in order, a group at a time; the first rung that finds a step (its
    index in ``rungs``), or -1."""
    planes = digit_planes(cand)
    r = 0
    while r < rungs.shape[0]:
        kind = _search(grid, cand, step, solution, rungs, r, memo, planes)
        if kind:
            for j in range(r, rungs[r, END]):
                if rungs[j, KIND] == kind:
                    return j
        r = rungs[r, END]
    return -1


@njit(cache=True, inline="always")
def new_memo(rungs: np.ndarray) -> Memo:
    """What the rungs that search unit by unit have searched in vain (see :mod:`.memo`),
    nothing yet: one per puzzle, a row of snapshots per group of rungs."""
    digits = houses = crossings = 0
    r = 0
    while r < rungs.shape[0]:
        by = rungs[r, UNITS]
        digits += by == BY_DIGIT or by == DIGIT_ORDER
        houses += by == BY_HOUSE
        crossings += by == BY_CROSSING
        r = rungs[r, END]
    return Memo(np.full((digits, 9, 2), -1, dtype=np.int64),
                np.full((houses, HOUSES.shape[0], HOUSES.shape[1]), -1, dtype=np.int64),
                np.full((crossings, CROSSING_CELLS.shape[0], CROSSING_CELLS.shape[1]), -1,
                        dtype=np.int64),
                np.full((9, 2), -1, dtype=np.int64),
                np.full((3, 81), -1, dtype=np.int64))


@njit(cache=True, inline="always")
def check_step(step: np.ndarray, solution: np.ndarray) -> tuple[int, int, int]:
    """``(0, 0, 0)`` for a true step; ``(1, 0, 0)`` if it changes nothing; ``(2, cell,
    digit)`` for a placement and ``(3, cell, digit)`` for an elimination that contradicts
    the solution."""
    if step[N_PLACE] == 0 and step[N_ELIM] == 0:
        return 1, 0, 0
    for k in range(step[N_PLACE]):
        code = step[PLACE_AT + k]
        if solution[code // 9] != code % 9 + 1:
            return 2, code // 9, code % 9 + 1
    for k in range(step[N_ELIM]):
        code = step[ELIM_AT + k]
        if solution[code // 9] == code % 9 + 1:
            return 3, code // 9, code % 9 + 1
    return 0, 0, 0


@njit(cache=True, inline="always")
def take_step(grid, cand, queues, solution, index, step, log, records, n_log) -> int:
    """Log the found ``step`` of ladder technique ``index`` and apply it; returns the new
    log length, negated if the step is false (it is logged but not applied)."""
    row = n_log
    log[row, 0] = index
    log[row, 1] = step[VARIANT]
    log[row, 2] = -1
    log[row, 3] = -1
    if row < records.shape[0]:
        for k in range(STEP_SIZE):  # not a row copy, which compiles a shape check
            records[row, k] = step[k]
        log[row, 3] = row
    if check_step(step, solution)[0] != 0:
        return -(row + 1)
    apply_queued(grid, cand, queues, step)
    return row + 1


@njit(cache=True)
def rate_puzzle(board: np.ndarray, solution: np.ndarray, rungs: np.ndarray, path: bool,
                scores: np.ndarray, limit: int):
    """:func:`climb` from the puzzle ``board`` as HoDoKu loads it (see
    :func:`.singles.setup`). Returns ``(n_log, status, log, records, step, used)``: the log
    (see the module text), with a record of every step when ``path`` is set, the last step
    found and the :func:`tally` of the log. ``scores`` holds the score of each ladder
    index, ``limit`` the score past which the climb stops."""
    grid, cand, queues = setup_kernel(board)
    step = np.zeros(STEP_SIZE, dtype=np.int32)
    log = np.zeros((MAX_LOG, 4), dtype=np.int32)
    records = np.zeros((MAX_LOG if path else 0, STEP_SIZE), dtype=np.int32)
    n_log, status = climb(grid, cand, queues, solution, rungs, step, log, records,
                          new_memo(rungs), scores, limit)
    return n_log, status, log, records, step, tally(log, n_log, scores.shape[0])


@njit(cache=True, inline="always")
def tally(log: np.ndarray, n_log: int, n_index: int) -> np.ndarray:
    """How many steps of the first ``n_log`` rows of ``log`` each (ladder index, variant)
    took: rows ``(index * 4 + variant, steps)`` of those taken, ascending, for a ladder of
    ``n_index`` rows."""
    counts = np.zeros(4 * n_index, dtype=np.int64)
    for r in range(n_log):
        counts[log[r, 0] * 4 + log[r, 1]] += 1
    used = np.zeros((np.count_nonzero(counts), 2), dtype=np.int64)
    n = 0
    for key in range(counts.shape[0]):
        if counts[key]:
            used[n, 0] = key
            used[n, 1] = counts[key]
            n += 1
    return used


@njit(cache=True, inline="always")
def climb(grid, cand, queues, solution, rungs, step, log, records, memo, scores,
          limit) -> tuple[int, int]:
    """Rate from the current position on: singles, then ``rungs``, from the bottom again
    after every step. Returns the log length and :data:`SOLVED`, :data:`STUCK`,
    :data:`FALSE_STEP` (the last logged step contradicts the solution) or :data:`OVER`
    (the grid is not full and the steps taken, scored by ladder index from ``scores``,
    score more than ``limit``: a caller that only asks whether a puzzle stays within a
    score need not climb on). ``memo`` is the puzzle's :func:`new_memo`."""
    counts = np.zeros(3, dtype=np.int64)
    n_log = 0
    score = 0
    while True:
        start = n_log
        n_log = run_singles(grid, cand, queues, counts, log, n_log)
        for row in range(start, n_log):
            score += scores[log[row, 0]]
        full = True
        for cell in range(81):
            if grid[cell] == 0:
                full = False
                break
        if full:
            return n_log, SOLVED
        if score > limit:
            return n_log, OVER
        r = try_rungs(grid, cand, step, solution, rungs, memo)
        if r < 0:
            return n_log, STUCK
        n_log = take_step(grid, cand, queues, solution, rungs[r, INDEX], step, log, records,
                          n_log)
        if n_log < 0:
            return -n_log, FALSE_STEP
        score += scores[rungs[r, INDEX]]
