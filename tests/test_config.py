"""Config files: the generic TOML readers and the run config."""

from __future__ import annotations

import pytest

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
    assert item.path == "quota[2].arr[0]"
    s.finish()


def test_missing_required_key():
    with pytest.raises(ConfigError, match="quota\\[2\\].count: missing"):
        _section().int("count")


def test_unknown_key_lists_allowed_keys():
    s = _section(name="easy", cuont=4)
    s.str("name")
    s.int("count", 1)
    with pytest.raises(ConfigError, match=r"\].cuont: unknown key; allowed keys: name, count"):
        s.finish()


def test_toml_syntax_and_missing_file(tmp_path):
    with pytest.raises(ConfigError, match="bad.toml: not valid TOML"):
        parse_toml("[run\n", "bad.toml")
    with pytest.raises(ConfigError, match="cannot read"):
        load_toml(tmp_path / "nope.toml")
