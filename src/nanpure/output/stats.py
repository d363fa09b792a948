"""Statistics over generated puzzles: blank counts per tier, technique usage, acceptance
rate and throughput, as aligned text tables or JSON.

The functions take *records*: :class:`~nanpure.record.PuzzleRecord` objects (fresh from
the generator or read from the store) or plain mappings with ``tier``, ``blanks`` and
``techniques`` (a ``{name: count}`` dict or the ``name:count;name:count`` text the exports
write), so rows read back from an export work as well.

>>> rows = [{"tier": "easy", "blanks": 50, "techniques": "Full House:9;Hidden Single:20"},
...         {"tier": "easy", "blanks": 52, "techniques": {"Hidden Single": 30}},
...         {"tier": "hard", "blanks": 52, "techniques": {"X-Wing": 1}}]
>>> blank_distribution(rows)["easy"]
{50: 1, 52: 1}
>>> technique_usage(rows)["Hidden Single"]
{'puzzles': 2, 'steps': 50}
>>> print(format_tables(summarize(rows, tasks=4, seconds=2.0)))  # doctest: +ELLIPSIS
run
  puzzles  tasks  accepted  puzzles/s
        3      4     75.0%       1.50
<BLANKLINE>
blank counts by tier
  blanks  easy  hard  total
      50     1            1  ###############
      52     1     1      2  ##############################
     all     2     1      3
...
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from ..generator.kinds import KINDS
from ..generator.ladder import LADDER
from ..generator.tiers import tier_rank


def _tier(rec: Any) -> str:
    return rec["tier"] if isinstance(rec, Mapping) else rec.tier


def _blanks(rec: Any) -> int:
    return int(rec["blanks"] if isinstance(rec, Mapping) else rec.blanks)


class BadField(ValueError):
    """A record's field that cannot be counted (a damaged store row): ``column`` names
    the field, ``value`` is what it holds."""

    def __init__(self, column: str, value: object):
        super().__init__(f"its {column} {value!r} cannot be read")
        self.column = column
        self.value = value


def _techniques(rec: Any) -> dict[str, int]:
    if not isinstance(rec, Mapping):
        try:
            return rec.technique_counts
        except ValueError as exc:
            raise BadField("techniques", rec.techniques) from exc
    used = rec.get("techniques") or {}
    if isinstance(used, str):
        pairs = (item.rsplit(":", 1) for item in used.split(";") if item)
        try:
            return {name: int(n) for name, n in pairs}
        except ValueError as exc:  # a pair without a count, or a count not a number
            raise BadField("techniques", used) from exc
    return dict(used)


def blank_distribution(records: Iterable[Any]) -> dict[str, dict[int, int]]:
    """For each tier present, how many puzzles have each blank count (ascending)."""
    found: dict[str, dict[int, int]] = {}
    for rec in records:
        _count(found.setdefault(_tier(rec), {}), _blanks(rec))
    return _by_tier(found)


def technique_usage(records: Iterable[Any],
                    rank: dict[str, int] | None = None) -> dict[str, dict[str, int]]:
    """For each technique used, how many puzzles used it and how many steps in all, in
    the order of the ladder (``rank``: technique name to place, Sudoku's by default)."""
    usage: dict[str, dict[str, int]] = {}
    for rec in records:
        _count_techniques(usage, _techniques(rec))
    return _in_ladder_order(usage, rank)


class Tally:
    """The counts :func:`summarize` reports, gathered a record (or a group of like
    records) at a time, so that any number of records takes the same little memory.

    >>> tally = Tally()
    >>> tally.add("sudoku", "easy", 50, "Hidden Single:20", n=2)
    >>> tally.add("nonogram", "easy", 0, "Line:4", size="10x10")
    >>> s = tally.summary()
    >>> s["puzzles"], s["blanks"], s["nonograms"]["sizes"]
    (3, {'easy': {'50': 2}}, {'easy': {'10x10': 1}})
    """

    def __init__(self) -> None:
        self.puzzles = 0
        self.blanks: dict[str, dict[int, int]] = {}  # Sudoku: tier -> blanks -> puzzles
        self.usage: dict[str, dict[str, int]] = {}  # Sudoku techniques
        self.nonograms = 0
        self.sizes: dict[str, dict[str, int]] = {}  # nonograms: tier -> WxH -> puzzles
        self.nonogram_usage: dict[str, dict[str, int]] = {}

    def add(self, kind: str, tier: str, blanks: int, techniques: str | Mapping[str, int],
            size: str | None = None, n: int = 1) -> None:
        """Count ``n`` puzzles of ``kind`` alike in ``tier``, ``blanks``, ``techniques``
        (``name:count;...`` or ``{name: count}``) and, for nonograms, ``size`` (WxH);
        :class:`BadField` for a kind nanpure does not know, techniques, blanks or a size
        that cannot be read."""
        if kind not in KINDS:
            raise BadField("kind", kind)
        used = _techniques({"techniques": techniques})
        if kind == "nonogram":
            _area(str(size))  # read here, where the puzzle is known, not in summary()
        else:
            try:
                blanks = int(blanks)
            except ValueError as exc:
                raise BadField("blanks", blanks) from exc
        self.puzzles += n
        if kind == "nonogram":
            self.nonograms += n
            _count(self.sizes.setdefault(tier, {}), str(size), n)
            _count_techniques(self.nonogram_usage, used, n)
        else:
            _count(self.blanks.setdefault(tier, {}), blanks, n)
            _count_techniques(self.usage, used, n)

    def add_record(self, rec: Any) -> None:
        """Count one record (see the module's docstring for what a record may be)."""
        kind = _kind(rec)
        nonogram = kind == "nonogram"
        self.add(kind, _tier(rec), 0 if nonogram else _blanks(rec), _techniques(rec),
                 _size(rec) if nonogram else None)

    def summary(self, *, tasks: int | None = None, grids: int | None = None,
                seconds: float | None = None) -> dict[str, Any]:
        """What :func:`summarize` returns for the records counted."""
        n = self.puzzles
        tiers = _by_tier(self.blanks)
        summary = {
            "puzzles": n,
            "tasks": tasks,
            "acceptance": n / tasks if tasks else None,
            "grids": grids,
            "grids_per_puzzle": grids / n if grids is not None and n else None,
            "seconds": seconds,
            "puzzles_per_second": n / seconds if seconds else None,
            "tiers": {t: sum(d.values()) for t, d in tiers.items()},
            "blanks": {t: {str(k): v for k, v in d.items()} for t, d in tiers.items()},
            "techniques": _in_ladder_order(self.usage),
        }
        if self.nonograms:
            summary["nonograms"] = self._nonogram_summary()
        return summary

    def _nonogram_summary(self) -> dict[str, Any]:
        from ..generator.nonogram import TECHNIQUES
        from ..generator.nonogram import TIERS as NONOGRAM_TIERS

        sizes = self.sizes
        order = sorted(sizes, key=lambda t: (NONOGRAM_TIERS.index(t) if t in NONOGRAM_TIERS
                                             else len(NONOGRAM_TIERS), t))
        rank = {t.name: k for k, t in enumerate(TECHNIQUES)}
        return {
            "puzzles": self.nonograms,
            "tiers": {t: sum(sizes[t].values()) for t in order},
            "sizes": {t: dict(sorted(sizes[t].items(), key=lambda kv: _area(kv[0])))
                      for t in order},
            "techniques": _in_ladder_order(self.nonogram_usage, rank),
        }


def summarize(
    records: Iterable[Any],
    *,
    tasks: int | None = None,
    grids: int | None = None,
    seconds: float | None = None,
) -> dict[str, Any]:
    """Everything the tables show, as one JSON-ready dict, in one pass over ``records``
    (:class:`Tally`).

    ``tasks`` is how many candidates were asked for (a task that failed all its attempts
    counts as rejected), ``grids`` how many full grids were drawn and ``seconds`` the
    wall time; any left out is reported as unknown (None). Nonograms among the records
    count in ``puzzles`` and are summarised apart, under ``nonograms``
    (:class:`Tally`); blank counts and techniques are then the Sudoku ones.
    """
    tally = Tally()
    for rec in records:
        tally.add_record(rec)
    return tally.summary(tasks=tasks, grids=grids, seconds=seconds)


def _count(counts: dict[Any, int], key: Any, n: int = 1) -> None:
    counts[key] = counts.get(key, 0) + n


def _count_techniques(usage: dict[str, dict[str, int]], used: Mapping[str, int],
                      n: int = 1) -> None:
    """Add ``n`` puzzles that each used the techniques ``used`` (name: steps)."""
    for name, steps in used.items():
        entry = usage.setdefault(name, {"puzzles": 0, "steps": 0})
        entry["puzzles"] += n
        entry["steps"] += int(steps) * n


def _in_ladder_order(usage: dict[str, dict[str, int]],
                     rank: dict[str, int] | None = None) -> dict[str, dict[str, int]]:
    rank = _ladder_rank() if rank is None else rank
    return dict(sorted(usage.items(), key=lambda kv: (rank.get(kv[0], len(rank)), kv[0])))


def _by_tier(found: dict[str, dict[int, int]]) -> dict[str, dict[int, int]]:
    """Each tier's counts in ascending order, the tiers easiest first."""
    return {t: dict(sorted(found[t].items())) for t in _tier_order(found)}


def _kind(rec: Any) -> str:
    return (rec.get("kind") if isinstance(rec, Mapping) else rec.kind) or "sudoku"


def _size(rec: Any) -> str:
    """``WxH`` of a nonogram record (its one-line puzzle starts with it) or export row."""
    if isinstance(rec, Mapping) and "width" in rec:
        return f"{rec['width']}x{rec['height']}"
    puzzle = rec["puzzle"] if isinstance(rec, Mapping) else rec.puzzle
    return puzzle.split(" ", 1)[0]


def _area(size: str) -> tuple[int, int, int]:
    """(cells, width, height) of a nonogram's ``WxH``; :class:`BadField` (its puzzle,
    which starts with it) when it is not one."""
    try:
        width, height = map(int, size.split("x"))
    except ValueError as exc:
        raise BadField("puzzle", size) from exc
    return width * height, width, height


def to_json(summary: dict[str, Any]) -> str:
    """The summary as indented JSON."""
    return json.dumps(summary, indent=2)


def format_tables(summary: dict[str, Any]) -> str:
    """The summary as aligned text tables: the run, blank counts by tier, techniques."""
    parts = [_run_table(summary), _blank_table(summary), _technique_table(summary),
             _se_tables(summary)]
    if "nonograms" in summary:
        parts += [_size_table(summary["nonograms"]),
                  _technique_table(summary["nonograms"], "nonogram technique usage")]
    return "\n\n".join(p for p in parts if p)


def percent(n: int, d: int) -> str:
    """``n`` of ``d`` as a percentage, or ``-`` when ``d`` is 0.

    >>> percent(1, 3), percent(0, 0)
    ('33.3%', '-')
    """
    return f"{100 * n / d:.1f}%" if d else "-"


def table(header: list[str], rows: list[list[str]], align: str = "", indent: str = "  ") -> str:
    """Aligned columns; ``align`` holds ``l`` or ``r`` per column (default: all right).

    >>> print(table(["tier", "n"], [["easy", "3"], ["medium", "12"]], align="lr"))
      tier     n
      easy     3
      medium  12
    """
    align = align.ljust(len(header), "r")
    widths = [max(len(r[k]) for r in [header, *rows]) for k in range(len(header))]
    lines = []
    for r in [header, *rows]:
        cells = [
            cell.ljust(w) if a == "l" else cell.rjust(w)
            for cell, w, a in zip(r, widths, align, strict=True)
        ]
        lines.append(indent + "  ".join(cells).rstrip())
    return "\n".join(lines)


# --- the three tables -------------------------------------------------------------------------


def _run_table(s: dict[str, Any]) -> str:
    header = ["puzzles", "tasks", "accepted", "puzzles/s"]
    row = [
        str(s["puzzles"]),
        "?" if s["tasks"] is None else str(s["tasks"]),
        "?" if s["acceptance"] is None else f"{100 * s['acceptance']:.1f}%",
        "?" if s["puzzles_per_second"] is None else f"{s['puzzles_per_second']:.2f}",
    ]
    if s["grids"] is not None:
        # what a task draws before it keeps one: a full grid, or a nonogram's picture
        only_nonograms = s["puzzles"] and s.get("nonograms", {}).get("puzzles") == s["puzzles"]
        header.append("pictures/puzzle" if only_nonograms else "grids/puzzle")
        row.append("?" if s["grids_per_puzzle"] is None else f"{s['grids_per_puzzle']:.2f}")
    return "run\n" + table(header, [row])


def _blank_table(s: dict[str, Any]) -> str:
    counts = sorted({int(k) for d in s["blanks"].values() for k in d})
    return _tier_histogram("blank counts by tier", "blanks", s["blanks"],
                           [str(n) for n in counts])


def _tier_histogram(title: str, column: str, by_tier: dict[str, dict[str, int]],
                    keys: list[str]) -> str:
    """A table of how many puzzles of each tier (columns) have each of ``keys`` (rows,
    named in ``column``), with totals and a bar a row; empty without tiers."""
    tiers = list(by_tier)
    if not tiers:
        return ""
    rows = []
    totals = {k: sum(by_tier[t].get(k, 0) for t in tiers) for k in keys}
    peak = max(totals.values())
    for k in keys:
        bar = "#" * max(1, round(30 * totals[k] / peak)) if totals[k] else ""
        rows.append([k] + [str(by_tier[t].get(k, "")) for t in tiers] + [str(totals[k]), bar])
    # the tiers' sums, not s["puzzles"]: a store of both kinds counts nonograms there too
    sums = [sum(by_tier[t].values()) for t in tiers]
    rows.append(["all"] + [str(n) for n in sums] + [str(sum(sums)), ""])
    return f"{title}\n" + table([column, *tiers, "total", ""], rows,
                                align="r" * (len(tiers) + 2) + "l")


# --- Sudoku Explainer's ratings ----------------------------------------------------------------


def se_summary(groups: Iterable[tuple[str, float, int]]) -> dict[str, Any]:
    """The Sudoku Explainer rating ER of the puzzles that have one, from ``(tier, ER,
    puzzles)`` groups: per tier (easiest first) and for ``all``, how many are rated and the
    lowest, median and highest ER; and per tier how many fall in each band of a whole
    point of SE's scale (``1.0-1.9``, ..., ``9.0-9.9``; nanpure's ER stops at 9.5). Empty
    when no puzzle has one.

    >>> s = se_summary([("easy", 1.2, 3), ("easy", 2.3, 1), ("hard", 4.2, 1), ("hard", 7.1, 1)])
    >>> s["tiers"]["hard"], s["all"]["median"]
    ({'rated': 2, 'min': 4.2, 'median': 5.65, 'max': 7.1}, 1.75)
    >>> s["bands"]
    {'easy': {'1.0-1.9': 3, '2.0-2.9': 1}, 'hard': {'4.0-4.9': 1, '7.0-7.9': 1}}
    >>> se_summary([])
    {}
    """
    tenths: dict[str, dict[int, int]] = {}  # tier -> ER in tenths -> puzzles
    for tier, er, n in groups:
        _count(tenths.setdefault(tier, {}), round(er * 10), n)
    if not tenths:
        return {}
    tenths = _by_tier(tenths)
    every: dict[int, int] = {}
    for counts in tenths.values():
        for er, n in counts.items():
            _count(every, er, n)
    bands: dict[str, dict[str, int]] = {}
    for tier, counts in tenths.items():
        for er, n in counts.items():
            _count(bands.setdefault(tier, {}), _se_band(er // 10), n)
    return {"tiers": {t: _se_spread(counts) for t, counts in tenths.items()},
            "all": _se_spread(dict(sorted(every.items()))),
            "bands": bands}


def _se_band(point: int) -> str:
    """The band of the whole point ``point`` of SE's scale.

    >>> _se_band(7)
    '7.0-7.9'
    """
    return f"{point}.0-{point}.9"


def _se_spread(counts: dict[int, int]) -> dict[str, Any]:
    """How many ratings ``counts`` (ER in tenths, ascending, -> puzzles) holds, and their
    lowest, median (of an even number, the mean of the middle two) and highest ER."""
    n = sum(counts.values())
    values = list(counts)

    def at(k: int) -> int:  # the k-th rating from 0, in order
        for value, m in counts.items():
            if k < m:
                return value
            k -= m
        raise IndexError(k)

    median = (at((n - 1) // 2) + at(n // 2)) / 20
    return {"rated": n, "min": values[0] / 10, "median": round(median, 2),
            "max": values[-1] / 10}


def _se_tables(s: dict[str, Any]) -> str:
    """The SE ratings' tables: the spread per tier, and the puzzles per band and tier."""
    se = s.get("se")
    if not se:
        return ""
    rows = [[tier, str(spread["rated"]), str(s["tiers"].get(tier, "")),
             f"{spread['min']:.1f}", _median(spread["median"]), f"{spread['max']:.1f}"]
            for tier, spread in [*se["tiers"].items(), ("all", se["all"])]]
    rows[-1][2] = str(sum(s["tiers"].values()))
    spread = "SE ratings (ER) by tier\n" + table(
        ["tier", "rated", "puzzles", "min", "median", "max"], rows, align="lrrrrr")
    return spread + "\n\n" + _tier_histogram("SE ratings (ER) by band", "ER", se["bands"],
                                              se_bands(se))


def se_bands(se: dict[str, Any]) -> list[str]:
    """The bands of :func:`se_summary`'s ``se`` from its lowest to its highest, those
    between without ratings too.

    >>> se_bands(se_summary([("easy", 1.2, 1), ("hard", 4.5, 1)]))
    ['1.0-1.9', '2.0-2.9', '3.0-3.9', '4.0-4.9']
    """
    points = [int(band.split(".", 1)[0]) for d in se["bands"].values() for band in d]
    return [_se_band(p) for p in range(min(points), max(points) + 1)]


def _median(value: float) -> str:
    """A median as the ratings are written, with a second decimal where it has one.

    >>> _median(2.0), _median(5.65)
    ('2.0', '5.65')
    """
    return f"{value:.1f}" if round(value, 1) == value else f"{value:.2f}"


def _technique_table(s: dict[str, Any], title: str = "technique usage") -> str:
    if not s["techniques"]:
        return ""
    n = max(sum(s["tiers"].values()), 1)  # the puzzles of this kind
    rows = [[name, str(u["puzzles"]), f"{100 * u['puzzles'] / n:.1f}%", str(u["steps"])]
            for name, u in s["techniques"].items()]
    return f"{title}\n" + table(["technique", "puzzles", "share", "steps"], rows,
                                       align="lrrr")


def _size_table(s: dict[str, Any]) -> str:
    """Nonograms per size (rows) and tier (columns), with totals."""
    tiers = list(s["sizes"])
    if not tiers:
        return ""
    sizes = sorted({size for d in s["sizes"].values() for size in d}, key=_area)
    rows = [[size] + [str(s["sizes"][t].get(size, "")) for t in tiers]
            + [str(sum(s["sizes"][t].get(size, 0) for t in tiers))] for size in sizes]
    rows.append(["all"] + [str(s["tiers"][t]) for t in tiers] + [str(s["puzzles"])])
    return "nonogram sizes by tier\n" + table(["size", *tiers, "total"], rows,
                                              align="l" + "r" * (len(tiers) + 1))


def _tier_order(found: Iterable[str]) -> list[str]:
    return sorted(found, key=lambda t: (tier_rank(t), t))


def _ladder_rank() -> dict[str, int]:
    rank: dict[str, int] = {}
    for k, tech in enumerate(LADDER):
        for name in (tech.name, *tech.variants):
            rank.setdefault(name, k)
    return rank
