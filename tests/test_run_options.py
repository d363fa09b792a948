"""`nanpure run`'s options that replace config keys are checked as the keys are: a bad value
is one line and exit status 2 before anything starts."""

from __future__ import annotations

import pytest

from nanpure.cli import main
from nanpure.pipeline.config import ConfigError, parse_toml, run_config_from_toml

CONFIG = """
[run]
seed = 3
store = "{store}"
{more}
[[quota]]
name = "easy"
tier = "easy"
count = 1
"""


def refused(capsys, tmp_path, *argv: str) -> str:
    """The error line of ``nanpure run CONFIG ARGV``, which must stop before the store."""
    config = tmp_path / "small.toml"
    config.write_text(CONFIG.format(store=tmp_path / "s.db", more=""))
    with pytest.raises(SystemExit) as stopped:
        main(["run", str(config), *argv])
    assert stopped.value.code == 2 and not (tmp_path / "s.db").exists()
    return capsys.readouterr().err.splitlines()[-1]


def config_error(tmp_path, more: str) -> str:
    text = CONFIG.format(store=tmp_path / "s.db", more=more)
    with pytest.raises(ConfigError) as exc:
        run_config_from_toml(parse_toml(text, "r.toml"), "r.toml")
    return exc.value.message


@pytest.mark.parametrize("text, shown", [("-1", "-1"), ("0", "0"), ("-0.5", "-0.5"),
                                         ("nan", "nan"), ("soon", "'soon'")])
def test_max_seconds_must_be_a_number_above_0(capsys, tmp_path, text, shown):
    message = f"expected a number > 0, got {shown}"
    assert refused(capsys, tmp_path, "--max-seconds", text) == (
        f"nanpure run: error: argument --max-seconds: {message}")
    if text not in ("nan", "soon"):  # not TOML values
        assert config_error(tmp_path, f"max_seconds = {text}") == message


@pytest.mark.parametrize("name", ["", "  "])
def test_name_must_not_be_empty(capsys, tmp_path, name):
    assert refused(capsys, tmp_path, "--name", name) == (
        "nanpure run: error: argument --name: expected a non-empty string")
    assert config_error(tmp_path, f'name = "{name}"') == "expected a non-empty string"


@pytest.mark.parametrize("address", ["", "  "])
def test_scheduler_must_not_be_empty(capsys, tmp_path, address):
    """An empty --scheduler (an unset $SCHED) started a Dask cluster in the run process."""
    assert refused(capsys, tmp_path, "--scheduler", address) == (
        "nanpure run: error: argument --scheduler: expected a non-empty string")
    assert config_error(tmp_path, f'scheduler = "{address}"') == "expected a non-empty string"


def test_a_scheduler_that_cannot_be_used_is_named(capsys, tmp_path, monkeypatch):
    """Dask's own message (a wrong scheme, say) did not say it was about --scheduler."""
    from nanpure.pipeline import run

    def refuse(*args, **kwargs):
        raise ValueError("unknown address scheme 'http'")

    monkeypatch.setattr(run, "make_executor", refuse)
    config = tmp_path / "small.toml"
    config.write_text(CONFIG.format(store=tmp_path / "s.db", more=""))
    assert main(["run", str(config), "--scheduler", "http://h:1"]) == 2
    assert capsys.readouterr().err == (
        "nanpure: Dask scheduler http://h:1: unknown address scheme 'http'\n")


def test_a_store_that_is_a_directory_names_what_gives_the_runs_store(capsys, tmp_path):
    """A directory as the store said "cannot read: Is a directory", neither that it was
    the store nor which key or option to change: run.store in the config, or --store."""
    config = tmp_path / "small.toml"
    config.write_text(CONFIG.format(store=tmp_path, more=""))
    assert main(["run", str(config), "--no-progress"]) == 2
    assert capsys.readouterr().err == (
        f"nanpure: {tmp_path}: the store is a directory, not a file; set run.store to "
        "another store file or give another --store path\n")
    # given by --store: that is what to change
    assert main(["run", str(config), "--store", str(tmp_path), "--no-progress"]) == 2
    assert capsys.readouterr().err == (
        f"nanpure: {tmp_path}: the store is a directory, not a file; give another --store "
        "path\n")
