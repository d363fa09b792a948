"""Config files: the generic TOML readers and the run config."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import EXAMPLES, example_books, is_book_config

from nanpure.pipeline.config import ConfigError, Section, load_toml, parse_toml


def _section(**data):
    return Section(data, "quota[2]", "nightly.toml")


def test_error_names_file_key_and_what_is_allowed():
    with pytest.raises(ConfigError) as info:
        _section(blanks=[50]).int_range("blanks", minimum=0, maximum=64)
    message = str(info.value)
    assert message.startswith("nightly.toml: quota[2].blanks: ")
    assert "[lo, hi]" in message and "0 to 64" in message
    assert info.value.key == "quota[2].blanks"


@pytest.mark.parametrize(
    ("reader", "value", "words"),
    [
        (lambda s: s.str("x"), 3, "expected a string"),
        (lambda s: s.int("x", minimum=1), True, "expected an integer >= 1"),
        (lambda s: s.int("x", minimum=1, maximum=9), 10, "from 1 to 9"),
        (lambda s: s.number("x", positive=True), 0, "a number > 0"),
        (lambda s: s.bool("x"), "yes", "true or false"),
        (lambda s: s.choice("x", ("a", "b")), "c", 'one of "a", "b"'),
        (lambda s: s.int_range("x"), [2, 1], "lo <= hi"),
        (lambda s: s.str_list("x"), ["a", 1], "list of strings"),
        (lambda s: s.table("x"), 1, "expected a table"),
        (lambda s: s.tables("x"), {"a": 1}, "array of tables"),
    ],
)
def test_readers_reject_wrong_types(reader, value, words):
    with pytest.raises(ConfigError, match="quota\\[2\\].x: ") as info:
        reader(_section(x=value))
    assert words in str(info.value)


def test_readers_return_values_and_defaults():
    s = _section(n=3, f=1.5, b=True, r=[1, 2], names=["a"], sub={"k": 1}, arr=[{"k": 1}])
    assert s.int("n") == 3
    assert s.number("f") == 1.5
    assert s.bool("b") is True
    assert s.int_range("r") == (1, 2)
    assert s.str_list("names", choices=("a", "b")) == ("a",)
    assert s.str("missing", None) is None
    sub = s.table("sub")
    assert sub.path == "quota[2].sub" and sub.int("k") == 1
    (item,) = s.tables("arr")
    assert item.path == "quota[2].arr[1]"
    s.finish()


def test_missing_required_key():
    with pytest.raises(ConfigError, match="quota\\[2\\].count: missing"):
        _section().int("count")


def test_unknown_key_lists_allowed_keys():
    s = _section(name="easy", cuont=4)
    s.str("name")
    s.int("count", 1)
    with pytest.raises(ConfigError, match=r"\].cuont: unknown key; did you mean count\? "
                                          r"allowed keys: name, count$"):
        s.finish()


@pytest.mark.parametrize("key", ["\n", "a b", "\u2028", "日本"])
def test_an_unknown_quoted_key_is_named_on_one_line(tmp_path, key):
    path = tmp_path / "r.toml"
    path.write_text(f"[run]\n{json.dumps(key)} = 0\n", encoding="utf-8")
    from nanpure.pipeline.config import load_run_config

    with pytest.raises(ConfigError) as caught:
        load_run_config(path)
    message = str(caught.value)
    assert message.splitlines() == [message]
    assert f"run.{json.dumps(key)}: unknown key" in message


def test_toml_syntax_and_missing_file(tmp_path):
    with pytest.raises(ConfigError, match="bad.toml: not valid TOML"):
        parse_toml("[run\n", "bad.toml")
    with pytest.raises(ConfigError, match="cannot read"):
        load_toml(tmp_path / "nope.toml")


# --- the run config -------------------------------------------------------------------------

ISSUE_EXAMPLE = """
[run]
name = "nightly"
seed = 20261122
store = "output/nanpure.db"
workers = 2            # default: all cores

[[quota]]
name = "easy"
tier = "easy"
count = 40
symmetry = "rot180"

[[quota]]
name = "hard"
tier = "hard"
count = 20
symmetry = "rot180"
blanks = [50, 60]
"""


def _run_config(text, source="nightly.toml"):
    from nanpure.pipeline.config import run_config_from_toml

    return run_config_from_toml(parse_toml(text, source), source, default_name="nightly")


def test_issue_example_reads_as_written():
    config = _run_config(ISSUE_EXAMPLE)
    assert (config.name, config.seed, config.store, config.workers) == (
        "nightly", 20261122, "output/nanpure.db", 2)
    easy, hard = config.quotas
    assert (easy.name, easy.count, easy.min_tier, easy.max_tier) == ("easy", 40, "easy", "easy")
    assert hard.blanks == (50, 60) and hard.symmetry == "rot180"
    spec = hard.spec()
    assert (spec.min_tier, spec.max_tier, spec.blanks) == ("hard", "hard", (50, 60))
    assert config.executor == "local" and config.max_seconds is None


def test_shipped_configs_are_valid():
    from nanpure.pipeline.config import default_run_config, load_run_config

    run_configs = [p for p in sorted(EXAMPLES.glob("*.toml")) if not is_book_config(p)]
    assert run_configs
    for path in run_configs:
        assert load_run_config(path).quotas
    default = default_run_config()
    assert sum(q.count for q in default.quotas) >= 20


def test_optional_quota_keys():
    config = _run_config("""
        [run]
        seed = 1
        max_seconds = 60
        scheduler = "tcp://127.0.0.1:8786"
        [[quota]]
        name = "x"
        min_tier = "medium"
        max_tier = "unfair"
        count = 3
        dig = "limit"
        score = [900, 1500]
        attempts = 10
        symmetry = "dihedral"
        """)
    q = config.quotas[0]
    assert (q.min_tier, q.max_tier, q.dig, q.score, q.attempts) == (
        "medium", "unfair", "limit", (900, 1500), 10)
    assert config.executor == "dask" and config.max_seconds == 60.0


def _quota_error(lines, run="seed = 1"):
    text = f"[run]\n{run}\n[[quota]]\nname = \"q\"\ncount = 1\n" + "\n".join(lines) + "\n"
    with pytest.raises(ConfigError) as info:
        _run_config(text, "bad.toml")
    return str(info.value)


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (["tier = \"fiendish\""], "bad.toml: quota[1].tier: expected one of \"easy\""),
        (["blanks = [50, 70]"], "quota[1].blanks: expected [lo, hi], two integers from 0 to 64"),
        (["blanks = 50"], "quota[1].blanks: expected [lo, hi]"),
        (["tier = \"hard\"", "min_tier = \"easy\""], "quota[1].min_tier: give either tier"),
        (["min_tier = \"hard\"", "max_tier = \"easy\""], "quota[1].min_tier: 'hard' is above"),
        (["symmetry = \"spiral\""], "quota[1].symmetry: expected one of \"none\", \"rot180\""),
        (["dig = \"deep\""], "quota[1].dig"),
        (["colour = \"red\""], "quota[1].colour: unknown key; allowed keys: name, count"),
        (["symmetry = \"dihedral\"", "blanks = [64, 64]"], "quota[1]: impossible quota 'q'"),
        (["tier = \"easy\"", "score = [2000, 3000]"], "quota[1]: impossible quota 'q'"),
        (["require = [\"X-Wing\", \"X-wing\"]"],
         "quota[1].require[2]: unknown technique 'X-wing'; did you mean 'X-Wing'"),
        (["exclude = \"Forcing Chain\""], "quota[1].exclude: expected a list of strings"),
        (["hardest = \"Swordfishh\""], "quota[1].hardest: unknown technique 'Swordfishh'"),
        (["tier = \"medium\"", "require = [\"X-Wing\"]"],
         "impossible quota 'q': require: X-Wing is a hard technique"),
        (["kind = \"nonogram\"", "require = [\"X-Wing\"]"],
         "quota[1].require: only sudoku quotas take this key"),
        (["se = [7.2, 6.6]"], "quota[1].se: expected [lo, hi], two numbers from 1 to 12 with"),
        (["se = \"hard\""], "quota[1].se: expected [lo, hi]"),
        (["tier = \"easy\"", "se = [9, 10]"],
         "quota[1]: impossible quota 'q': an easy puzzle has an SE rating (ER) of at most 2.3"),
        (["se = [9.6, 12.0]"], "bad.toml: quota[1].se: impossible quota 'q': SE rating range "
                               "9.6-12 starts above 9.5, the top of nanpure's SE scale"),
    ],
)
def test_bad_quotas_name_the_key(lines, expected):
    assert expected in _quota_error(lines)


@pytest.mark.parametrize(
    ("run", "expected"),
    [
        ("seed = -1", "run.seed: expected an integer from 0 to 9223372036854775807"),
        ("seed = 1\nworkers = 0", "run.workers: expected an integer >= 1"),
        ("seed = 1\nexecutor = \"slurm\"", "run.executor: expected one of \"local\", \"dask\""),
        ("seed = 1\nmax_seconds = 0", "run.max_seconds: expected a number > 0"),
        # kept as JSON Infinity, which SQLite's JSON reader calls damaged
        ("seed = 1\nmax_seconds = inf", "run.max_seconds: expected a finite number > 0, "
                                         "got inf"),
        ("seed = 1\nwrokers = 2", "run.wrokers: unknown key"),
        ("name = \"x-{day}\"", "run.name: unknown placeholder {day}; use {date}"),
        ("name = \"x-{date:%H}\"", "run.name: {date:%H} is the same for every date; use "
                                    "date codes such as %Y, %m, %d"),
        ("name = \"x-{date:}\"", "run.name: {date:} is the same for every date"),
        ("seed = 1\nreport = \"r/{nmae}.json\"", "run.report: unknown placeholder {nmae}; "
                                                 "use {name}, {date}"),
        ("seed = 1\nexecutor = \"local\"\nscheduler = \"tcp://h:1\"", "run.scheduler: a sched"),
    ],
)
def test_bad_run_tables_name_the_key(run, expected):
    assert expected in _quota_error([], run=run)


def test_quota_list_problems():
    with pytest.raises(ConfigError, match="bad.toml: quota: expected at least one"):
        _run_config("[run]\nseed = 1\n", "bad.toml")
    with pytest.raises(ConfigError, match=r"quota\[2\].name: 'a' is already the name of "
                                          r"quota\[1\]; quota names must be unique"):
        _run_config("[run]\nseed = 1\n[[quota]]\nname='a'\ncount=1\n[[quota]]\nname='a'\n"
                    "count=2\n", "bad.toml")
    with pytest.raises(ConfigError, match="bad.toml: runs: unknown key"):
        _run_config("[runs]\nseed = 1\n", "bad.toml")


def test_resume_identity_ignores_counts():
    config = _run_config(ISSUE_EXAMPLE)
    stored = config.to_json()
    bigger = config.replace(quotas=tuple(q.__class__(**{**q.__dict__, "count": 99})
                                         for q in config.quotas))
    assert bigger.puzzle_changes(stored) == []
    assert config.replace(seed=5).puzzle_changes(stored) != []
    assert _run_config(ISSUE_EXAMPLE.replace("[50, 60]", "[50, 58]")).puzzle_changes(stored) != []


def test_puzzle_changes_name_each_key_with_both_values():
    config = _run_config(ISSUE_EXAMPLE)
    stored = config.to_json()
    assert config.puzzle_changes(stored) == []
    narrower = _run_config(ISSUE_EXAMPLE.replace("[50, 60]", "[50, 58]"))
    assert narrower.puzzle_changes(stored) == ["quota[2].blanks = [50, 60] (now [50, 58])"]
    fewer = config.replace(seed=5, quotas=config.quotas[:1])
    assert fewer.puzzle_changes(stored) == ["seed = 20261122 (now 5)",
                                            "quotas easy, hard (now easy)"]


def test_technique_keys_reach_the_spec_and_old_stored_runs_still_resume():
    config = _run_config(ISSUE_EXAMPLE.replace(
        'tier = "hard"', 'tier = "hard"\nrequire = ["X-Wing"]\nexclude = ["Swordfish"]\n'
                         'hardest = "X-Wing"'))
    spec = config.quotas[1].spec()
    assert (spec.require, spec.exclude, spec.hardest) == (("X-Wing",), ("Swordfish",), "X-Wing")
    se = _run_config(ISSUE_EXAMPLE.replace('tier = "hard"', 'tier = "hard"\nse = [4.2, 5]'))
    assert se.quotas[1].spec().se == (4.2, 5.0)
    assert se.puzzle_changes(se.to_json()) == [] and config.puzzle_changes(se.to_json()) != []
    assert config.puzzle_changes(config.to_json()) == []
    assert _run_config(ISSUE_EXAMPLE).puzzle_changes(config.to_json()) != []
    # unset, the keys are left out of the stored config, as in runs stored before them
    old = _run_config(ISSUE_EXAMPLE)
    stored = json.loads(old.to_json())
    assert not any(key in quota for quota in stored["quotas"]
                   for key in ("require", "exclude", "hardest", "se"))
    assert old.puzzle_changes(old.to_json()) == []
    assert json.loads(config.to_json())["quotas"][1]["require"] == ["X-Wing"]


def test_example_books_take_runs_and_quotas_the_example_runs_make():
    """Each example book, run after the example runs its header names, finds its puzzles:
    every run pattern matches a run name an example config makes, and every quota a
    section asks for is one of that run's."""
    from datetime import date
    from fnmatch import fnmatchcase

    from nanpure.pipeline.config import expand_name, load_run_config
    from nanpure.pipeline.store import run_globs

    runs = {}
    for path in sorted(EXAMPLES.glob("*.toml")):
        if not is_book_config(path):
            config = load_run_config(path)
            runs[expand_name(config.name, date(2026, 11, 24))] = {q.name for q in config.quotas}
    books = example_books()
    assert books
    for path, book in books:
        imported = _imported_runs(path)  # runs its header makes with nanpure import
        for section in book.sections:
            globs = run_globs(section.run if section.run is not None else book.run)
            made = [name for name in {**runs, **imported}
                    if globs is None or any(fnmatchcase(name, g) for g in globs)]
            assert made, f"{path.name}: section {section.title!r} matches no example run"
            for quota in section.quotas or ():
                assert any(quota in {**runs, **imported}[name] for name in made), (
                    f"{path.name}: section {section.title!r}: no quota {quota!r}")


def _imported_runs(path: Path) -> dict[str, set[str]]:
    """The runs, with their quota, that the ``nanpure import`` lines of the header
    comment of the book config ``path`` make."""
    import shlex

    runs = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        command = line.lstrip("# ").partition("#")[0]
        if command.startswith("nanpure import "):
            words = shlex.split(command)
            given = dict(zip(words, words[1:], strict=False))
            runs[given["--run"]] = {given.get("--quota", "imported")}
    return runs


def test_a_missing_key_names_a_key_spelt_like_it():
    with pytest.raises(ConfigError, match=r"r.toml: quota\[1\].count: missing; give count .* "
                                          r"\(is cuont a misspelling of it\?\)$"):
        _run_config('[run]\nseed = 1\n[[quota]]\nname = "e"\ntier = "easy"\ncuont = 5\n',
                    "r.toml")
    with pytest.raises(ConfigError, match=r"quota\[1\].name: missing; this key is required "
                                          r"\(is nmae a misspelling of it\?\)$"):
        _run_config('[run]\nseed = 1\n[[quota]]\nnmae = "e"\ncount = 5\n', "r.toml")
    with pytest.raises(ConfigError, match=r"quota\[1\].name: missing; this key is required$"):
        _run_config('[run]\nseed = 1\n[[quota]]\ncount = 5\n', "r.toml")


def test_names_with_control_characters_are_refused():
    """A newline in a quota's or run's name broke the sdk export's `#` lines and the run
    summary's table; such names are refused, in the config and in --name."""
    with pytest.raises(ConfigError, match=r"bad.toml: quota\[1\].name: expected a name "
                                          r"without control characters, got 'q\\nline2: y'"):
        _run_config('[run]\nseed = 1\n[[quota]]\nname = "q\\nline2: y"\ncount = 1\n',
                    "bad.toml")
    with pytest.raises(ConfigError, match=r"run.name: expected a name without control"):
        _run_config('[run]\nname = "a\\tb"\nseed = 1\n[[quota]]\nname = "q"\ncount = 1\n',
                    "bad.toml")
    assert _run_config('[run]\nname = "a,b \\"c\\" <d>&"\nseed = 1\n[[quota]]\n'
                       'name = "ナンプレ 1"\ncount = 1\n', "ok.toml").quotas[0].name == "ナンプレ 1"


def test_a_run_name_option_with_a_newline_is_refused(capsys):
    from nanpure.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(["run", "examples/nightly.toml", "--name", "a\nb"])
    assert exit_.value.code == 2
    assert "--name: expected a name without control characters" in capsys.readouterr().err


def test_a_run_name_that_would_change_a_paths_directory_is_refused():
    """``report = "reports/{name}.json"`` with ``--name ../../x`` wrote the report outside
    reports/, and a name holding '/' made new directories. Such a name is still a name,
    stored as given, unless it fills ``{name}`` in a path."""
    from nanpure.pipeline.config import run_config_from_toml

    text = ('[run]\nname = "{name}"\nseed = 1\nreport = "out/reports/{{name}}.json"\n'
            'plot = "out/{{name}}/p.png"\n[[quota]]\nname = "q"\ncount = 1\n')
    for name, what in (("../../../pwned", "'../../../pwned' holds '/'"),
                       ("a/b", "'a/b' holds '/'"), ("..", "is '..'"), (".", "is '.'")):
        with pytest.raises(ConfigError) as refused:
            _run_config(text.format(name=name), "r.toml")
        assert str(refused.value) == (
            f"r.toml: run.plot: {{name}} would put the file in another directory: the run "
            f"name (run.name) {what}; give a name without '/' (nor . or ..) or take {{name}} "
            "out of run.plot")
    data = parse_toml(text.format(name="x").replace("plot = ", "# "), "r.toml")
    with pytest.raises(ConfigError, match=r"^r.toml: run.report: .* the run name \(--name\) "
                                          r"'a/b' holds '/'; .* out of run.report$"):
        run_config_from_toml(data, "r.toml", name="a/b")
    # without {name} in a path, or with a harmless name, it is taken as given
    assert _run_config(text.format(name="a/b").replace("{name}", "n"), "r.toml"
                       ).name == "a/b"
    assert _run_config(text.format(name="...x"), "r.toml").report == "out/reports/...x.json"
