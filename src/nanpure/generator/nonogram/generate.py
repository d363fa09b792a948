"""Nonogram candidates: from a spec and a seed to one unique, rated, symmetric puzzle.

>>> spec = Spec(width=10, height=10, max_tier="medium", symmetry="mirror")
>>> c = make_candidate(spec, seed=7)
>>> c.tier in ("easy", "medium"), c.puzzle.width, len(c.puzzle.goal)
(True, 10, 100)
>>> make_candidate(spec, seed=7) == c
True

Each attempt draws a random picture and asks the ladder about its clues:

- every cell is filled with probability ``density``, then copied from the first cell of
  its orbit under the symmetry, so the picture has the symmetry exactly;
- ``smoothing`` passes of a majority rule (a cell becomes filled when at least 5 of the 9
  cells of its 3x3 block are, cells outside the grid counting as empty) turn noise into
  shapes; the rule treats all eight directions alike, so it keeps every symmetry;
- a picture that fills less than a fifth or more than four fifths of its cells, or
  leaves more than a fifth of its rows and columns empty, is drawn again
  (:func:`is_picture_kernel`): a few specks make a dull puzzle;
- the ladder, limited to the spec's ceiling, must solve the clues (so the solution is
  unique: each step is forced) with a hardest technique at or above the floor.

Random pictures almost never need nested probing (none of 15,219 15x15 tasks did), so a
spec whose floor is ``extreme`` searches instead (:func:`search_kernel`): a picture that
rates ``hard`` starts a walk of at most :data:`SEARCH_MOVES` moves, each flipping one
cell's whole orbit (so the symmetry holds), each flipped cell keeping at least
:data:`MIN_ALIKE` of its 8 neighbours alike (shapes grow or get notched, no specks). A
move is kept while the clues stay solvable by probing and the fewest productive probes
at any point of the solution path (the *slack*) does not grow; four moves in five flip a
cell that was unknown where the slack was least. A move that leaves probing stuck is
checked for one solution, then rated: the first that the ladder solves is the
candidate. Other specs only draw pictures. On grids of fewer than
:data:`EXTREME_RARE_BELOW` cells the search rarely succeeds (:func:`extreme_rarity`
says so before the work starts).

Everything random is drawn from one SplitMix64 state seeded by ``seed``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
from numba import njit

from ..rng import new_state, next_u64, random_below
from ..tiers import tier_range_problem
from .formats import Nonogram, nonogram_from_picture
from .line import EMPTY, FILLED, UNKNOWN, new_workspace
from .rating import NESTED, TIERS, Rating, rate_kernel, rating_of
from .solver import assume, count_kernel, propagate

MIN_SIZE, MAX_SIZE = 5, 60
#: Moves of one walk from a hard picture towards an extreme one.
SEARCH_MOVES = 300
#: A flipped cell keeps at least this many of its 8 neighbours alike.
MIN_ALIKE = 2

# maps of (row, column): 0 identity, 1 mirror, 2 flip, 3 half turn, 4 quarter turn,
# 5 three-quarter turn, 6 diagonal transpose, 7 antidiagonal transpose
_GROUPS = {
    "none": (0,),
    "mirror": (0, 1),
    "flip": (0, 2),
    "rot180": (0, 3),
    "rot90": (0, 4, 3, 5),
    "diagonal": (0, 6),
    "antidiagonal": (0, 7),
}
SYMMETRIES = tuple(_GROUPS)
#: Symmetries that only exist on square grids.
SQUARE_ONLY = ("rot90", "diagonal", "antidiagonal")

#: The most majority-rule passes a spec may ask for (more change nothing more).
MAX_SMOOTHING = 10


class SpecError(ValueError):
    """A spec no puzzle can satisfy; the message says why."""


@dataclass(frozen=True)
class Spec:
    """What kind of nonogram to make."""

    width: int = 15
    height: int = 15
    min_tier: str = "easy"
    max_tier: str = "extreme"
    symmetry: str = "none"
    density: float = 0.5  # chance a cell starts filled, before smoothing
    smoothing: int = 2  # majority-rule passes
    attempts: int = 200  # bounded pictures drawn before make_candidate returns None


@dataclass(frozen=True)
class Candidate:
    """One generated nonogram (its goal is the picture) with its rating."""

    puzzle: Nonogram
    rating: Rating
    symmetry: str
    seed: int
    pictures: int  # pictures drawn

    @property
    def tier(self) -> str:
        return self.rating.tier


def check_spec(spec: Spec) -> None:
    """Raise :class:`SpecError` saying why no puzzle can satisfy ``spec``.

    >>> check_spec(Spec(width=10, height=12, symmetry="rot90"))
    Traceback (most recent call last):
    ...
    nanpure.generator.nonogram.generate.SpecError: symmetry 'rot90' needs a square grid, \
got 10x12
    """
    _check_spec(spec)


@cache
def _check_spec(spec: Spec) -> None:
    problem = tier_range_problem(spec.min_tier, spec.max_tier, TIERS)
    if problem:
        raise SpecError(problem)
    for size, what in ((spec.width, "width"), (spec.height, "height")):
        if not MIN_SIZE <= size <= MAX_SIZE:
            raise SpecError(f"{what} must be {MIN_SIZE}-{MAX_SIZE}, got {size}")
    if spec.symmetry not in _GROUPS:
        raise SpecError(f"unknown symmetry {spec.symmetry!r}; expected one of "
                        f"{', '.join(SYMMETRIES)}")
    if spec.symmetry in SQUARE_ONLY and spec.width != spec.height:
        raise SpecError(f"symmetry {spec.symmetry!r} needs a square grid, "
                        f"got {spec.width}x{spec.height}")
    if not 0.0 < spec.density < 1.0:
        raise SpecError(f"density must lie strictly between 0 and 1, got {spec.density}")
    if not 0 <= spec.smoothing <= MAX_SMOOTHING:
        raise SpecError(f"smoothing must be 0-{MAX_SMOOTHING} passes, got {spec.smoothing}")
    if spec.attempts < 1:
        raise SpecError(f"attempts must be at least 1, got {spec.attempts}")


#: An extreme spec on fewer cells than this is warned about. With one worker, 8x8 took
#: about 370 CPU s a puzzle (12x6 75 s, 10x5 150 s) and 7x7 and smaller found none in 300
#: s, where 8x10 took 33 s, 9x9 28 s and 10x10 13 s (README, Nonograms): on small grids
#: the search's walks nearly always end stuck with several solutions, and at 5x5 no drawn
#: picture is solved by probing, so no walk even starts.
EXTREME_RARE_BELOW = 80


def extreme_rarity(spec: Spec) -> str | None:
    """A one-line warning for a spec whose floor is ``extreme`` on a grid of fewer than
    :data:`EXTREME_RARE_BELOW` cells, where the search rarely finds a puzzle (said before
    any work starts, so that nobody waits without knowing why); None otherwise.

    >>> extreme_rarity(Spec(width=10, height=10, min_tier="extreme")) is None
    True
    >>> print(extreme_rarity(Spec(width=8, height=6, min_tier="extreme")))
    extreme nonograms are rarely found at 8x6, fewer than 80 cells: one worker took about \
370 CPU s a puzzle at 8x8 and found none in 300 s at 7x7 or smaller (9x9: 28 s, 10x10: 13 s)
    """
    if spec.min_tier != "extreme" or spec.width * spec.height >= EXTREME_RARE_BELOW:
        return None
    return (f"extreme nonograms are rarely found at {spec.width}x{spec.height}, fewer than "
            f"{EXTREME_RARE_BELOW} cells: one worker took about 370 CPU s a puzzle at 8x8 "
            "and found none in 300 s at 7x7 or smaller (9x9: 28 s, 10x10: 13 s)")


def stall_advice(spec: Spec | None) -> str:
    """What to change in a spec whose puzzles are not being found, as the end of a
    sentence (the run's warning about such a quota).

    Smoothing decides most of a drawn picture's tier (``scripts/nonogram_tiers.py``
    measures it): fewer passes leave busier pictures, which need harder techniques, and
    more passes calmer ones. At 5x5, none of 20,000 pictures was medium at 2 passes and
    22% at 0; at 15x15, 11% were easy at 2 passes and none at 0.

    >>> stall_advice(Spec(width=5, height=5, min_tier="medium", max_tier="hard"))[:23]
    'lower its smoothing (fe'
    >>> stall_advice(None)
    'change its tier, size, density or smoothing'
    """
    if spec is not None:
        floor, ceiling = TIERS.index(spec.min_tier), TIERS.index(spec.max_tier)
        if 0 < floor < NESTED and spec.smoothing > 0:
            return ("lower its smoothing (fewer passes draw busier pictures, which need "
                    "harder techniques), or change its tier, size or density")
        if ceiling == 0 and spec.smoothing < MAX_SMOOTHING:
            return ("raise its smoothing (more passes draw calmer pictures, which need "
                    "easier techniques), or change its tier, size or density")
    return "change its tier, size, density or smoothing"

# --- kernels ----------------------------------------------------------------------------------


@njit(cache=True)
def _image(r, c, m, height, width):
    """Where map ``m`` sends cell (r, c)."""
    if m == 1:
        return r, width - 1 - c
    if m == 2:
        return height - 1 - r, c
    if m == 3:
        return height - 1 - r, width - 1 - c
    if m == 4:
        return c, width - 1 - r
    if m == 5:
        return width - 1 - c, r
    if m == 6:
        return c, r
    if m == 7:
        return width - 1 - c, height - 1 - r
    return r, c


@njit(cache=True)
def random_picture_kernel(state, height, width, density, smoothing, group, picture) -> None:
    """Draw a symmetric, smoothed picture (1 filled, 0 empty) into ``picture``."""
    threshold = np.uint64(density * 2.0**53)
    for cell in range(height * width):
        picture[cell] = (next_u64(state) >> np.uint64(11)) < threshold
        r, c = divmod(cell, width)
        first = cell
        for m in group:
            rr, cc = _image(r, c, m, height, width)
            first = min(first, rr * width + cc)
        picture[cell] = picture[first]  # the orbit's first cell is already final
    before = picture.copy()
    for _ in range(smoothing):
        for cell in range(height * width):  # not a slice copy, which compiles a shape check
            before[cell] = picture[cell]
        for r in range(height):
            for c in range(width):
                filled = 0
                for rr in range(max(0, r - 1), min(height, r + 2)):
                    for cc in range(max(0, c - 1), min(width, c + 2)):
                        filled += before[rr * width + cc]
                picture[r * width + c] = filled >= 5


#: A picture a buyer accepts fills between these fractions of its cells ...
MIN_FILL, MAX_FILL = 0.2, 0.8
#: ... and leaves at most this fraction of its rows and columns empty.
MAX_EMPTY_LINES = 0.2


@njit(cache=True)
def is_picture_kernel(picture, height, width) -> bool:
    """Whether a 0/1 picture looks like one: filled between :data:`MIN_FILL` and
    :data:`MAX_FILL` of its cells, with at most :data:`MAX_EMPTY_LINES` of its lines
    empty (smoothing can erode noise to a few specks, which make a dull puzzle)."""
    cells = height * width
    filled = np.int64(0)  # not a uint8 like the cells (as plain Python would make it)
    for cell in range(cells):
        filled += picture[cell]
    if filled < MIN_FILL * cells or filled > MAX_FILL * cells:
        return False
    empty = 0
    for r in range(height):
        line = np.int64(0)
        for c in range(width):
            line += picture[r * width + c]
        empty += line == 0
    for c in range(width):
        line = np.int64(0)
        for r in range(height):
            line += picture[r * width + c]
        empty += line == 0
    return empty <= MAX_EMPTY_LINES * (height + width)


@njit(cache=True)
def clues_kernel(picture, height, width, runs, nruns) -> None:
    """Clues of a 0/1 picture into ``runs``/``nruns`` (rows, then columns)."""
    runs[:] = 0
    for line in range(height + width):
        if line < height:
            first, stride, n = line * width, 1, width
        else:
            first, stride, n = line - height, width, height
        k = 0
        length = 0
        for i in range(n + 1):
            if i < n and picture[first + i * stride]:
                length += 1
            elif length:
                runs[line, k] = length
                k += 1
                length = 0
        nruns[line] = k


@njit(cache=True)
def _rated_at_least(picture, height, width, floor, ceiling, runs, nruns, grid, cell_step,
                    steps) -> int:
    """Rate the clues of ``picture``: the step count when the ladder solves them with a
    hardest technique at or above ``floor``, else 0."""
    clues_kernel(picture, height, width, runs, nruns)
    grid[:] = UNKNOWN
    cell_step[:] = -1
    count = rate_kernel(runs, nruns, height, width, ceiling, grid, cell_step, steps)
    if count <= 0:
        return 0
    for cell in range(height * width):
        if grid[cell] == UNKNOWN:
            return 0
    hardest = 0  # steps[:count, 0].max(), in a loop: numpy's max compiles more
    for i in range(count):
        hardest = max(hardest, steps[i, 0])
    return count if hardest >= floor else 0


@njit(cache=True)
def generate_kernel(state, height, width, density, smoothing, group, floor, ceiling,
                    attempts, picture, grid, cell_step, steps):
    """Draw pictures until one's clues rate within ``floor..ceiling`` (technique codes):
    the 1-based attempt that succeeded and its rating's step count (its picture and rating
    outputs left in the arrays), or (0, 0) when all ``attempts`` failed."""
    runs = np.zeros((height + width, (max(height, width) + 1) // 2), dtype=np.int32)
    nruns = np.zeros(height + width, dtype=np.int32)
    for attempt in range(1, attempts + 1):
        random_picture_kernel(state, height, width, density, smoothing, group, picture)
        if not is_picture_kernel(picture, height, width):
            continue
        count = _rated_at_least(picture, height, width, floor, ceiling, runs, nruns, grid,
                                cell_step, steps)
        if count:
            return attempt, count
    return 0, 0


@njit(cache=True)
def flip_orbit(picture, cell, height, width, group) -> None:
    """Flip ``cell`` and every cell of its orbit under the symmetry ``group``."""
    value = 1 - picture[cell]
    r, c = divmod(cell, width)
    for m in group:
        rr, cc = _image(r, c, m, height, width)
        picture[rr * width + cc] = value


@njit(cache=True)
def _alike(picture, cell, height, width) -> int:
    """How many of the 8 cells around ``cell`` have its value (outside counts empty)."""
    r, c = divmod(cell, width)
    value = picture[cell]
    alike = 0
    for rr in range(r - 1, r + 2):
        for cc in range(c - 1, c + 2):
            if rr == r and cc == c:
                continue
            inside = 0 <= rr < height and 0 <= cc < width
            alike += (picture[rr * width + cc] if inside else 0) == value
    return alike


@njit(cache=True)
def _orbit_fits(picture, cell, height, width, group) -> bool:
    """Whether every cell of ``cell``'s orbit has at least :data:`MIN_ALIKE` neighbours of
    its value: a flip must grow or notch a shape, not leave a speck or a pinhole."""
    r, c = divmod(cell, width)
    for m in group:
        rr, cc = _image(r, c, m, height, width)
        if _alike(picture, rr * width + cc, height, width) < MIN_ALIKE:
            return False
    return True


@njit(cache=True)
def _productive(grid, cell, height, width, runs, nruns, dirty, buf, ws):
    """Probe ``cell``: (whether it fixes anything, grid after assuming it filled, whether
    that held, the same for empty)."""
    ok_f, filled = assume(grid, cell, FILLED, height, width, runs, nruns, dirty, buf, ws)
    ok_e, empty = assume(grid, cell, EMPTY, height, width, runs, nruns, dirty, buf, ws)
    if not ok_f or not ok_e:
        return True, filled, ok_f, empty, ok_e
    for other in range(height * width):
        if grid[other] == UNKNOWN and filled[other] == empty[other] != UNKNOWN:
            return True, filled, ok_f, empty, ok_e
    return False, filled, ok_f, empty, ok_e


@njit(cache=True)
def probe_slack_kernel(runs, nruns, height, width, cap, region):
    """Follow the ladder's path with line logic and probing (depth 1) only: at each point
    where line logic is stuck, count the cells whose probe fixes something, counting no
    further than ``cap + 1``, and take the first. Returns (status, slack, probe points):
    status 1 when the grid gets solved, 0 when no probe fixes anything (the clues need
    nested probing, or have no single solution), -1 on a contradiction; slack is the
    least count. ``region`` gets 1 on the cells unknown where the count was least."""
    cells = height * width
    lines = height + width
    ws = new_workspace(max(height, width), runs.shape[1])
    buf = np.zeros(max(height, width), dtype=np.uint8)
    dirty = np.ones(lines, dtype=np.uint8)
    trial_dirty = np.zeros(lines, dtype=np.uint8)
    grid = np.full(cells, UNKNOWN, dtype=np.uint8)
    if propagate(grid, height, width, runs, nruns, dirty, buf, ws) < 0:
        return -1, 0, 0
    slack = cells + 1
    points = 0
    while True:
        unknown = 0
        for cell in range(cells):
            unknown += grid[cell] == UNKNOWN
        if unknown == 0:
            return 1, slack, points
        points += 1
        count = 0
        first = -1
        for cell in range(cells):
            if grid[cell] != UNKNOWN:
                continue
            if _productive(grid, cell, height, width, runs, nruns, trial_dirty, buf, ws)[0]:
                count += 1
                if first < 0:
                    first = cell
                if count > cap:  # the move is refused whatever follows
                    break
        if count < slack:
            slack = count
            for cell in range(cells):
                region[cell] = grid[cell] == UNKNOWN
        if count == 0:
            return 0, 0, points
        _, filled, ok_f, empty, ok_e = _productive(grid, first, height, width, runs, nruns,
                                                   trial_dirty, buf, ws)
        if not ok_f and not ok_e:
            return -1, slack, points
        if not ok_f or not ok_e:  # the survivor is grid plus sound deductions
            survivor = empty if ok_e else filled
            for cell in range(cells):
                grid[cell] = survivor[cell]
            continue
        dirty[:] = 0
        for other in range(cells):
            if grid[other] == UNKNOWN and filled[other] == empty[other] != UNKNOWN:
                grid[other] = filled[other]
                dirty[other // width] = 1
                dirty[height + other % width] = 1
        if propagate(grid, height, width, runs, nruns, dirty, buf, ws) < 0:
            return -1, slack, points


@njit(cache=True)
def _listed(flags, cells) -> int:
    """Write the indices where ``flags`` is set into ``cells``; how many."""
    size = 0
    for i in range(flags.shape[0]):
        if flags[i]:
            cells[size] = i
            size += 1
    return size


@njit(cache=True)
def _unique_rated(picture, height, width, floor, ceiling, runs, nruns, solution, grid,
                  cell_step, steps) -> int:
    """For clues (of ``picture``, in ``runs``) that probing leaves stuck: their step count
    when they have one solution and rate at or above ``floor``, else 0."""
    if count_kernel(runs, nruns, height, width, 2, solution) != 1:
        return 0
    return _rated_at_least(picture, height, width, floor, ceiling, runs, nruns, grid,
                           cell_step, steps)


@njit(cache=True)
def search_kernel(state, height, width, density, smoothing, group, floor, ceiling, attempts,
                  moves, picture, grid, cell_step, steps):
    """:func:`generate_kernel` for a floor of nested probing: each picture that probing
    solves starts a walk of at most ``moves`` orbit flips that keeps the probe slack
    from growing, until a picture rates at or above ``floor``."""
    cells = height * width
    runs = np.zeros((height + width, (max(height, width) + 1) // 2), dtype=np.int32)
    nruns = np.zeros(height + width, dtype=np.int32)
    solution = np.zeros(cells, dtype=np.uint8)
    region = np.zeros(cells, dtype=np.uint8)
    trial_region = np.zeros(cells, dtype=np.uint8)
    chosen = np.zeros(cells, dtype=np.int64)  # the cells of the kept picture's region
    current = np.zeros(cells, dtype=np.uint8)
    for attempt in range(1, attempts + 1):
        random_picture_kernel(state, height, width, density, smoothing, group, picture)
        if not is_picture_kernel(picture, height, width):
            continue
        clues_kernel(picture, height, width, runs, nruns)
        status, best, points = probe_slack_kernel(runs, nruns, height, width, cells, region)
        if status == 0:
            count = _unique_rated(picture, height, width, floor, ceiling, runs, nruns,
                                  solution, grid, cell_step, steps)
            if count:
                return attempt, count
            continue
        if status != 1 or points == 0:  # line logic alone: too far from nested probing
            continue
        size = _listed(region, chosen)
        for cell in range(cells):
            current[cell] = picture[cell]
        for _ in range(moves):
            # random_below's value is unsigned in the kernel: cast before mixing types
            if size and random_below(state, 5) < 4:
                flip = chosen[np.int64(random_below(state, size))]
            else:
                flip = np.int64(random_below(state, cells))
            for i in range(cells):
                picture[i] = current[i]
            flip_orbit(picture, flip, height, width, group)
            if not (_orbit_fits(picture, flip, height, width, group)
                    and is_picture_kernel(picture, height, width)):
                continue
            clues_kernel(picture, height, width, runs, nruns)
            status, slack, points = probe_slack_kernel(runs, nruns, height, width, best,
                                                       trial_region)
            if status == 0:
                count = _unique_rated(picture, height, width, floor, ceiling, runs, nruns,
                                      solution, grid, cell_step, steps)
                if count:
                    return attempt, count
            elif status == 1 and points > 0 and slack <= best:
                best = slack
                size = _listed(trial_region, chosen)
                for i in range(cells):
                    current[i] = picture[i]
    return 0, 0


# --- Python edges -----------------------------------------------------------------------------


def _group(symmetry: str) -> np.ndarray:
    return np.array(_GROUPS[symmetry], dtype=np.int64)


def random_picture(spec: Spec, seed: int) -> str:
    """The first picture :func:`make_candidate` would draw for ``spec`` and ``seed``,
    row-major ``0``/``1``."""
    check_spec(spec)
    picture = np.zeros(spec.width * spec.height, dtype=np.uint8)
    random_picture_kernel(new_state(seed), spec.height, spec.width, spec.density,
                          spec.smoothing, _group(spec.symmetry), picture)
    return "".join(map(str, picture.tolist()))


def is_symmetric(picture: str, width: int, height: int, symmetry: str) -> bool:
    """Whether a row-major picture is unchanged by every map of ``symmetry``."""
    for m in _GROUPS[symmetry]:
        for cell in range(width * height):
            r, c = _image(*divmod(cell, width), m, height, width)
            if picture[cell] != picture[r * width + c]:
                return False
    return True


def make_candidate(spec: Spec, seed: int) -> Candidate | None:
    """A nonogram satisfying ``spec``, made from ``seed`` alone, or None when
    ``spec.attempts`` pictures all failed (for a floor of ``extreme``, with the walks
    that start from them). Raises :class:`SpecError` for an impossible spec.
    """
    check_spec(spec)
    cells = spec.width * spec.height
    picture = np.zeros(cells, dtype=np.uint8)
    grid = np.zeros(cells, dtype=np.uint8)
    cell_step = np.zeros(cells, dtype=np.int32)
    steps = np.zeros((cells + 1, 3), dtype=np.int32)
    floor, ceiling = TIERS.index(spec.min_tier), TIERS.index(spec.max_tier)
    args = (new_state(seed), spec.height, spec.width, spec.density, spec.smoothing,
            _group(spec.symmetry), floor, ceiling, spec.attempts)
    outputs = (picture, grid, cell_step, steps)
    if floor == NESTED:  # random pictures almost never need nested probing: search
        attempt, count = search_kernel(*args, SEARCH_MOVES, *outputs)
    else:
        attempt, count = generate_kernel(*args, *outputs)
    if attempt == 0:
        return None
    rating = rating_of(grid, cell_step, steps, count, spec.height, spec.width, False)
    puzzle = nonogram_from_picture("".join(map(str, picture.tolist())), spec.width, spec.height)
    # int(): run as plain Python (NUMBA_DISABLE_JIT) a kernel returns numpy integers
    return Candidate(puzzle, rating, spec.symmetry, seed, int(attempt))
