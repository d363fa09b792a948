"""The library's public names as a user meets them: ``nanpure.generator`` and
``nanpure.generator.nonogram``, their lazily loaded names and their errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import nanpure.generator as generator
import nanpure.generator.nonogram as nonogram
from nanpure.generator import ladder
from nanpure.generator.nonogram import rating


@pytest.mark.parametrize("package", [generator, nonogram], ids=lambda p: p.__name__)
def test_every_lazily_loaded_name_is_exported(package):
    assert sorted(package._HOMES) == sorted(package.__all__)
    for name in package.__all__:
        assert getattr(package, name) is not None


def test_not_unique_error_is_exported_with_the_functions_that_raise_it():
    assert generator.NotUniqueError is ladder.NotUniqueError
    assert issubclass(generator.NotUniqueError, generator.BoardError)
    assert nonogram.NotUniqueError is rating.NotUniqueError
    assert issubclass(nonogram.NotUniqueError, nonogram.FormatError)


@pytest.mark.parametrize("package", ["nanpure.generator", "nanpure.generator.nonogram"])
def test_dir_lists_the_names_not_loaded_yet(package):
    # in a fresh process, where nothing has loaded them
    code = f"import json, {package} as p; print(json.dumps([dir(p), p.__all__]))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    listed, exported = json.loads(done.stdout)
    assert set(exported) <= set(listed)
    assert listed == sorted(listed)
