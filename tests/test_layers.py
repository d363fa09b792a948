"""The layers of the README's Design map: what each package may import, anywhere in its code
(imports inside functions too)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from nanpure.kernel_cache import PACKAGE, module_name

#: The modules beside the layers that the generator uses (files.py, the third, writes).
_BESIDE = {"nanpure.record", "nanpure.words"}

#: What starts processes or locks files: the pipeline's.
_PROCESSES = {"multiprocessing", "concurrent", "subprocess", "fcntl"}


def _imports(path: Path) -> set[str]:
    """The absolute names of the modules ``path`` imports, relative imports resolved."""
    name = module_name(path)
    here = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = here.rsplit(".", node.level - 1)[0] if node.level > 1 else here
            found.add(".".join(filter(None, (base if node.level else "", node.module or ""))))
    return found


def _layer(name: str) -> list[Path]:
    """The source files of package ``name`` of nanpure."""
    return sorted((PACKAGE / name).rglob("*.py"))


def _id(path: Path) -> str:
    """A test id naming ``path`` under the package (two modules are named solver.py)."""
    return path.relative_to(PACKAGE).as_posix()


@pytest.mark.parametrize("path", _layer("generator"), ids=_id)
def test_the_generator_imports_nothing_of_the_other_layers_and_starts_no_process(path):
    # a library a person could use alone: it computes, and pipeline compiles its kernels
    # ahead of use (pipeline/compiling.py), marking them in the kernel cache
    outside = sorted(n for n in _imports(path)
                     if (n.startswith("nanpure.") and not n.startswith("nanpure.generator")
                         and n not in _BESIDE)
                     or n.split(".")[0] in _PROCESSES)
    assert outside == [], path


@pytest.mark.parametrize("path", _layer("layouts") + _layer("output"), ids=_id)
def test_layouts_and_output_never_import_the_pipeline_or_the_cli(path):
    # they import each other (one level: images.py the output's picture formats, plots.py
    # the page fonts and the rasteriser), but nothing above them
    above = ("nanpure.pipeline", "nanpure.cli")
    assert not [n for n in _imports(path) if n.startswith(above)], path


@pytest.mark.parametrize("path", _layer("pipeline"), ids=_id)
def test_the_pipeline_never_imports_the_cli(path):
    assert "nanpure.cli" not in _imports(path), path
