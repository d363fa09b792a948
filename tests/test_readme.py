"""The README's examples print what the README shows.

The examples checked are those of the file commands and ``generate`` in ```` ```sh ````
blocks: a ``$ nanpure ...`` line followed by the lines it prints, whose input files ship
with the repository. Other examples (runs, books) print timings and paths of the day.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from nanpure.cli import main

ROOT = Path(__file__).resolve().parents[1]
CHECKED = {"solve", "rate", "canon", "generate"}


def shown_examples(text: str) -> list[tuple[str, list[str]]]:
    """``(command line, lines shown after it)`` for each example of :data:`CHECKED` that
    shows its output.

    >>> shown_examples("```sh\\n$ nanpure solve a.txt | head -1\\n123\\n$ ls\\n```\\n")
    [('nanpure solve a.txt | head -1', ['123'])]
    """
    examples: list[tuple[str, list[str]]] = []
    for block in re.findall(r"```sh\n(.*?)```", text, flags=re.S):
        command = None
        for line in block.splitlines():
            if line.startswith("$ "):
                command = line[2:].split("#")[0].strip()
                words = command.split()
                if words[:1] == ["nanpure"] and words[1:2] and words[1] in CHECKED:
                    examples.append((command, []))
                else:
                    command = None
            elif command is not None:
                examples[-1][1].append(line)
    return [(command, shown) for command, shown in examples if shown]


EXAMPLES = shown_examples((ROOT / "README.md").read_text(encoding="utf-8"))


def test_the_readme_shows_examples_of_each_file_command():
    assert {command.split()[1] for command, _ in EXAMPLES} == CHECKED


@pytest.mark.parametrize(("command", "shown"), EXAMPLES, ids=[c for c, _ in EXAMPLES])
def test_a_readme_example_prints_what_it_shows(command, shown, capsys, monkeypatch):
    words, _, pipe = command.partition("|")
    argv = shlex.split(words)[1:]
    files = [w for w in argv if re.fullmatch(r"[\w./-]+\.[a-z]+", w)]  # names with a suffix
    if not all((ROOT / f).is_file() for f in files):
        pytest.skip(f"needs files that do not ship: {files}")
    monkeypatch.chdir(ROOT)
    assert main(argv) == 0
    printed = capsys.readouterr().out.splitlines()
    if pipe.strip():
        head = re.fullmatch(r"head -(\d+)", pipe.strip())
        assert head, f"unexpected pipe in the example: {pipe}"
        printed = printed[: int(head.group(1))]
    assert printed == shown
