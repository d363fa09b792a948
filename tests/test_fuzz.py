"""Fuzzing every parser a user feeds: Sudoku puzzle lines and the 9-line grid form, the
import formats (csv, sdm, sdk, opensudoku, parquet), nonogram ``.non`` files, one-line
puzzles and tables (csv, jsonl, parquet), run and book configs.

Each input must be read or rejected as a person expects: no exception but the parser's
own error, and every rejection one line. The default suite tries a few inputs of each;
``make fuzz`` (marker ``fuzz``) tries FUZZ_EXAMPLES of each and prints how many were
accepted and rejected.
"""

from __future__ import annotations

import csv
import io
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nanpure.generator.board import BoardError, parse
from nanpure.output.datasets import ExportError
from nanpure.pipeline.batch import read_puzzle_lines
from nanpure.pipeline.book_config import load_book_config
from nanpure.pipeline.config import ConfigError, load_run_config
from nanpure.pipeline.nonogram_jobs import read_puzzles

FAST_EXAMPLES = 25
FUZZ_EXAMPLES = int(os.environ.get("NANPURE_FUZZ_EXAMPLES", "100000"))

SCRATCH = Path(tempfile.mkdtemp(prefix="nanpure-fuzz-"))


def _one_line(message: str) -> None:
    assert message and message.splitlines() == [message], repr(message)


def _mutants(valid: list[str]) -> st.SearchStrategy[str]:
    """Valid inputs, and valid inputs with a stretch replaced by random text."""
    return st.one_of(
        st.sampled_from(valid),
        st.builds(
            lambda text, at, cut, junk: text[:at] + junk + text[at + cut :],
            st.sampled_from(valid),
            st.integers(0, 400),
            st.integers(0, 8),
            st.text(max_size=6),
        ),
    )


PUZZLE = "..65.71........8....1.3..2.194.2.....6.375....5..1...27.......6........4.459....."


# --- what each parser gets --------------------------------------------------------------------

DIGITS = "0123456789."
_noise = st.text(alphabet=DIGITS + "x#,;\"' \t\n\r|-+\x00é", max_size=200)
_lines = st.lists(
    st.one_of(
        st.text(alphabet=DIGITS, min_size=79, max_size=83),
        _noise,
        st.sampled_from(["", "# a comment", "   "]),
    ),
    max_size=6,
).map("\n".join)
PUZZLE_TEXT = st.one_of(_lines, _noise, st.text(max_size=200))


def _encoded(text: st.SearchStrategy[str]) -> st.SearchStrategy[bytes]:
    return st.one_of(
        text.map(lambda t: t.encode("utf-8", "surrogatepass")), st.binary(max_size=300)
    )


GRID_FORM = "\n".join(" ".join(PUZZLE[r * 9 : r * 9 + 9]) for r in range(9))
GRID_BOXED = "\n".join(
    ("------+-------+------\n" if r in (3, 6) else "")
    + " | ".join(" ".join(PUZZLE[r * 9 + c : r * 9 + c + 3]) for c in (0, 3, 6))
    for r in range(9)
)
GRID = st.one_of(
    _mutants([GRID_FORM, GRID_BOXED]),
    st.lists(
        st.one_of(
            st.text(alphabet=DIGITS + "|+- ", min_size=9, max_size=16),
            st.text(alphabet="-+|", max_size=22),
            _noise,
        ),
        min_size=1,
        max_size=12,
    ).map("\n".join),
)

CSV = st.tuples(
    st.sampled_from(
        [
            "quizzes,solutions",
            "puzzle",
            "id,puzzle,tier",
            "quiz",
            "x,y",
            "",
            "puzzle,puzzle",
            '"quizzes"',
        ]
    ),
    st.lists(st.one_of(_lines, st.text(alphabet=DIGITS + ',"\n', max_size=170)), max_size=5),
).map(lambda t: "\n".join([t[0], *t[1]]))
SDM = _lines
SDK = st.lists(
    st.one_of(
        st.sampled_from(["#Lhard", "#Cscore 12", "#Sme", "#", "", "#D"]),
        st.text(alphabet=DIGITS + " ", min_size=8, max_size=10),
        _noise,
    ),
    max_size=24,
).map("\n".join)
_XML_PIECES = [
    '<?xml version="1.0"?>',
    "<opensudoku>",
    "</opensudoku>",
    '<game data="',
    '"/>',
    "<folder>",
    "</folder>",
    "<game/>",
    ' data="',
    '"',
    ">",
    "<",
    "&amp;",
    "&bogus;",
    "\n",
]
OPENSUDOKU = st.one_of(
    _mutants(
        [
            f'<?xml version="1.0"?>\n<opensudoku version="2">\n<folder name="f">\n'
            f'<game data="{PUZZLE.replace(".", "0")}" />\n<game data="{PUZZLE}"/>\n'
            "</folder>\n</opensudoku>\n"
        ]
    ),
    st.lists(
        st.one_of(st.sampled_from(_XML_PIECES), st.text(alphabet=DIGITS, min_size=1, max_size=81)),
        max_size=20,
    ).map("".join),
)


def _parquet_of(columns: dict[str, list]) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    size = min(map(len, columns.values()), default=0)
    table = pa.table({name: values[:size] for name, values in columns.items()})
    out = io.BytesIO()
    pq.write_table(table, out)
    return out.getvalue()


_cell = st.one_of(
    st.text(alphabet=DIGITS, min_size=79, max_size=82), st.text(max_size=20), st.none()
)
_column = st.one_of(
    st.lists(_cell, max_size=4),
    st.lists(st.integers(-5, 2**63 - 1), max_size=4),
    st.lists(st.floats(), max_size=4),
    st.lists(st.booleans(), max_size=4),
)
PARQUET = st.one_of(
    st.dictionaries(
        st.sampled_from(["quizzes", "puzzle", "puzzles", "quiz", "solutions", "other"]),
        _column,
        max_size=3,
    ).map(_parquet_of),
    st.builds(
        lambda data, at, junk: data[:at] + junk + data[at + len(junk) :],
        st.just(_parquet_of({"puzzle": ["." * 81]})),
        st.integers(0, 600),
        st.binary(min_size=1, max_size=8),
    ),
    st.binary(max_size=300),
)

NON_LINES = [
    "width 5",
    "height 5",
    "width x",
    "height -1",
    "width 99999999",
    "rows",
    "columns",
    "goal 1010",
    'goal "0101"',
    'title "t"',
    "1,1",
    "2",
    "0",
    "0,1",
    "5",
    "1 2",
    "a",
    "",
    "# c",
    "catalogue x",
    "width 0",
    "height 3",
]
NON_FILE = 'title "A"\nwidth 3\nheight 2\n\nrows\n1,1\n3\n\ncolumns\n2\n1\n2\n\ngoal "101111"\n'
NON = st.one_of(
    _mutants([NON_FILE, NON_FILE.replace("width 3\nheight 2\n", "")]),
    st.lists(st.one_of(st.sampled_from(NON_LINES), st.text(max_size=12)), max_size=30).map(
        "\n".join
    ),
)
_clue = st.lists(st.integers(0, 12), max_size=3).map(lambda runs: ".".join(map(str, runs)))
NONOGRAM_LINE = st.lists(
    st.one_of(
        _mutants(["3x2 1.1,3/2,1,2", "3x2 1.1,3/2,1,2 101111", "1x1 1/1", "2x2 0,0/0,0"]),
        st.builds(
            lambda w, h, rows, cols, goal: f"{w}x{h} {','.join(rows)}/{','.join(cols)}{goal}",
            st.integers(0, 70),
            st.integers(0, 70),
            st.lists(_clue, max_size=8),
            st.lists(_clue, max_size=8),
            st.one_of(st.just(""), st.text(alphabet="01x ", max_size=30).map(" ".__add__)),
        ),
        st.text(alphabet="0123456789x/,. \t", max_size=40),
        st.text(max_size=30),
    ),
    max_size=5,
).map("\n".join)

# nonogram tables, as export writes them (width, height, rows, columns, solution; the clues
# as JSON) or as generate does (a puzzle column of one-line puzzles)
_NONOGRAM_COLUMNS = ["width", "height", "rows", "columns", "solution", "puzzle", "id", "x"]
_json = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-5, 2**64), st.floats(), st.text(max_size=8)),
    lambda inner: st.lists(inner, max_size=3),
    max_leaves=8,
)


def _csv_line(fields: list) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="").writerow(fields)
    return out.getvalue()


NONOGRAM_CSV = st.one_of(
    _mutants(['width,height,rows,columns,solution\n3,2,"[[1,1],[3]]","[[2],[1],[2]]",101111\n',
              'puzzle,tier\n"3x2 1.1,3/2,1,2",easy\n']),
    st.tuples(
        st.lists(st.sampled_from(_NONOGRAM_COLUMNS), min_size=1, max_size=6).map(_csv_line),
        st.lists(st.lists(_json.map(json.dumps), max_size=6).map(_csv_line), max_size=4),
    ).map(lambda t: "\n".join([t[0], *t[1]])),
)
NONOGRAM_JSONL = st.lists(
    st.one_of(
        _mutants(['{"width": 3, "height": 2, "rows": [[1, 1], [3]], "columns": [[2], [1], [2]], '
                  '"solution": "101111"}', '{"puzzle": "3x2 1.1,3/2,1,2"}']),
        st.dictionaries(st.sampled_from(_NONOGRAM_COLUMNS), _json, max_size=6).map(json.dumps),
        _json.map(json.dumps),
    ),
    max_size=4,
).map("\n".join)
_clues = st.lists(st.lists(st.lists(st.integers(-2, 70), max_size=3), max_size=4), max_size=4)
NONOGRAM_PARQUET = st.one_of(
    st.dictionaries(
        st.sampled_from(_NONOGRAM_COLUMNS), st.one_of(_clues, _column), max_size=6
    ).map(_parquet_of),
    st.builds(
        lambda data, at, junk: data[:at] + junk + data[at + len(junk) :],
        st.just(_parquet_of({"width": [3], "height": [2], "rows": [[[1, 1], [3]]],
                             "columns": [[[2], [1], [2]]]})),
        st.integers(0, 900),
        st.binary(min_size=1, max_size=8),
    ),
)


# --- TOML configs -----------------------------------------------------------------------------


def _toml_value(value) -> str:
    """TOML for a scalar, list or table built by :data:`_values` (floats as repr: nan, inf)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return {"nan": "nan", "inf": "inf", "-inf": "-inf"}.get(repr(value), repr(value))
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(map(_toml_value, value)) + "]"
    return "{" + ", ".join(f"{json.dumps(k)} = {_toml_value(v)}" for k, v in value.items()) + "}"


_scalars = st.one_of(
    st.integers(-(2**63), 2**63 - 1),
    st.floats(),
    st.booleans(),
    st.text(max_size=12),
    st.sampled_from(
        [
            "easy",
            "hard",
            "rot180",
            "none",
            "nonogram",
            "sudoku",
            "target",
            "equivalent",
            "6x9in",
            "a4",
            "letter",
        ]
    ),
)
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)
RUN_KEYS = [
    "name",
    "seed",
    "store",
    "workers",
    "executor",
    "scheduler",
    "max_seconds",
    "dedup",
    "tier",
    "min_tier",
    "max_tier",
    "count",
    "symmetry",
    "blanks",
    "dig",
    "score",
    "attempts",
    "kind",
    "size",
    "density",
    "smoothing",
    "x",
]
BOOK_KEYS = [
    "title",
    "subtitle",
    "author",
    "store",
    "run",
    "out",
    "page_size",
    "puzzles_per_page",
    "answers_per_page",
    "reuse",
    "quota",
    "quotas",
    "tiers",
    "count",
    "kind",
    "large_print",
    "cjk_font",
    "language",
    "bleed",
    "x",
]


def _tables(keys: list[str], names: list[str]) -> st.SearchStrategy[str]:
    table = st.dictionaries(
        st.one_of(st.sampled_from(keys), st.text(max_size=6)), _values, max_size=8
    )
    header = st.sampled_from(names)
    return st.lists(st.tuples(header, table), max_size=4).map(
        lambda parts: "\n".join(
            f"{name}\n" + "".join(f"{json.dumps(k)} = {_toml_value(v)}\n" for k, v in t.items())
            for name, t in parts
        )
    )


RUN_TOML = st.one_of(
    _mutants(
        [
            '[run]\nname = "n"\nseed = 1\n[[quota]]\nname = "e"\ntier = "easy"\ncount = 5\n'
            "blanks = [40, 50]\n",
            '[run]\nseed = 2\n[[quota]]\nname = "p"\nkind = "nonogram"\n'
            "count = 2\nsize = [10, 8]\n",
        ]
    ),
    _tables(RUN_KEYS, ["[run]", "[[quota]]", "[quota]", "[[run]]", "[other]"]),
    st.text(max_size=120),
)
BOOK_TOML = st.one_of(
    _mutants(
        [
            '[book]\ntitle = "T"\nstore = "s.db"\nrun = "n"\nout = "b.pdf"\n'
            '[[book.section]]\ntitle = "Easy"\nquota = "easy"\ncount = 4\n'
        ]
    ),
    _tables(
        BOOK_KEYS, ["[book]", "[[book.section]]", "[book.layout]", "[[section]]", "[book.section]"]
    ),
    st.text(max_size=120),
)


# --- the parsers, and what a rejection is -----------------------------------------------------


def _sudoku(fmt: str) -> Callable[[bytes], str]:
    """Read ``data`` as ``nanpure solve --input-format fmt`` does; returns how it went."""

    def read(data: bytes) -> str:
        try:
            found = read_puzzle_lines(io.BytesIO(data), fmt)
        except ExportError as exc:  # the whole file is unusable: one line, exit 2
            _one_line(str(exc))
            return "rejected"
        for number, message in found.problems:
            assert isinstance(number, int)
            _one_line(message)
        assert len(found.boards) == len(found.line_numbers) == len(found.texts)
        return "rejected" if found.problems and not len(found.boards) else "accepted"

    return read


def _grid(text: str) -> str:
    try:
        parse(text)
    except BoardError as exc:
        _one_line(str(exc))
        return "rejected"
    return "accepted"


def _file(data: str | bytes, suffix: str) -> Path:
    path = SCRATCH / f"input{suffix}"
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    path.write_bytes(data)
    return path


def _nonogram(fmt: str) -> Callable[[bytes], str]:
    """Read ``data`` as ``nanpure solve --kind nonogram`` does: problems on stderr, one
    line each, naming the file."""

    def read(data: bytes) -> str:
        path = _file(data, ".non" if fmt == "non" else ".txt")
        err = io.StringIO()
        found = read_puzzles([str(path)], err, fmt)
        lines = err.getvalue().splitlines()
        assert len(lines) == found.problems, err.getvalue()
        assert all(line.startswith(f"{path}") for line in lines), err.getvalue()
        return "accepted" if found.puzzles else "rejected"

    return read


def _config(load: Callable[[Path], object]) -> Callable[[bytes], str]:
    def read(data: bytes) -> str:
        try:
            load(_file(data, ".toml"))
        except ConfigError as exc:
            _one_line(str(exc))
            return "rejected"
        return "accepted"

    return read


#: name -> (inputs, parser)
TARGETS: dict[str, tuple[st.SearchStrategy, Callable]] = {
    "lines": (_encoded(PUZZLE_TEXT), _sudoku("lines")),
    "grid": (st.one_of(GRID, st.text(max_size=120)), _grid),
    "csv": (_encoded(CSV), _sudoku("csv")),
    "sdm": (_encoded(SDM), _sudoku("sdm")),
    "sdk": (_encoded(SDK), _sudoku("sdk")),
    "opensudoku": (_encoded(OPENSUDOKU), _sudoku("opensudoku")),
    "parquet": (PARQUET, _sudoku("parquet")),
    "non": (_encoded(NON), _nonogram("non")),
    "nonogram-line": (_encoded(NONOGRAM_LINE), _nonogram("line")),
    "nonogram-csv": (_encoded(NONOGRAM_CSV), _nonogram("csv")),
    "nonogram-jsonl": (_encoded(NONOGRAM_JSONL), _nonogram("jsonl")),
    "nonogram-parquet": (NONOGRAM_PARQUET, _nonogram("parquet")),
    "run-toml": (_encoded(RUN_TOML), _config(load_run_config)),
    "book-toml": (_encoded(BOOK_TOML), _config(load_book_config)),
}


def _fuzz(name: str, examples: int, derandomize: bool) -> dict[str, int]:
    inputs, parser = TARGETS[name]
    seen = {"accepted": 0, "rejected": 0}

    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        derandomize=derandomize,
        suppress_health_check=list(HealthCheck),
    )
    @given(inputs)
    def check(data) -> None:
        seen[parser(data)] += 1

    check()
    return seen


@pytest.mark.parametrize("name", TARGETS)
def test_parser_reads_or_rejects_in_one_line(name):
    seen = _fuzz(name, FAST_EXAMPLES, derandomize=True)
    assert sum(seen.values()) >= FAST_EXAMPLES


@pytest.mark.fuzz
@pytest.mark.parametrize("name", TARGETS)
def test_fuzz(name):
    seen = _fuzz(name, FUZZ_EXAMPLES, derandomize=False)
    print(
        f"\nfuzz {name}: {sum(seen.values())} inputs, {seen['accepted']} read, "
        f"{seen['rejected']} rejected in one line, 0 tracebacks"
    )
    assert sum(seen.values()) >= FUZZ_EXAMPLES
