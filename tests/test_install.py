"""How the package installs: what a user's own scripts import."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import nanpure


def test_a_script_beside_a_folder_named_nanpure_imports_the_package(tmp_path):
    """A script or notebook in the folder that holds a clone (named ``nanpure``, as
    ``git clone`` names it) imports the installed package. With the package at the
    clone's top, that folder came first on the path and was imported as an empty
    namespace package: ``nanpure/__init__.py`` never ran, so kernels were compiled
    again into the source tree and ``__version__`` was missing."""
    (tmp_path / "nanpure").mkdir()
    script = tmp_path / "analysis.py"
    script.write_text("import nanpure\nprint(nanpure.__version__, nanpure.__file__)\n")
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    version, path = done.stdout.split()
    assert version == nanpure.__version__
    assert Path(path).name == "__init__.py" and Path(path).parent.name == "nanpure"
