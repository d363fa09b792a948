"""Finding an installed font, through fontconfig, for text the built-in font lacks.

A book's fonts are embedded TrueType; the built-in Bitstream Vera has Latin letters only.
For a title in Japanese (or Chinese, or Korean) the book takes the font fontconfig prefers
among the installed TrueType fonts that have every character, unless the config names one
(``cjk_font``). Fonts with PostScript (CFF) outlines, such as Noto CJK, cannot be embedded
by the PDF library and are passed over.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterable

from ..layouts.pages import FontError, Fonts, load_fonts


def _lines(command: list[str]) -> list[str]:
    """The output lines of a fontconfig command; none when fontconfig is not installed."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=60,
                              check=False)
    except (OSError, subprocess.SubprocessError):
        return []
    return [line.strip() for line in done.stdout.splitlines() if line.strip()]


def font_candidates(chars: Iterable[str]) -> list[str]:
    """TrueType font files that fontconfig says have every one of ``chars``, in
    fontconfig's order of preference."""
    pattern = ":charset=" + " ".join(f"{ord(ch):x}" for ch in sorted(set(chars)))
    covering = {line.split(":")[0] for line in _lines(["fc-list", pattern, "file"])}
    preferred = _lines(["fc-match", "-s", "-f", "%{file}\n", pattern])
    ordered = [f for f in dict.fromkeys(preferred) if f in covering]
    ordered += sorted(covering - set(ordered))
    return [f for f in ordered if f.lower().endswith((".ttf", ".ttc"))]


def find_font(chars: Iterable[str]) -> tuple[str, Fonts] | None:
    """The first font of :func:`font_candidates` that loads and has every one of
    ``chars``, with the book fonts that use it; None when there is none."""
    chars = set(chars)
    for path in font_candidates(chars):
        try:
            fonts = load_fonts(path)
        except FontError:  # PostScript outlines, or not a font after all
            continue
        if all(fonts.covers(ch) or fonts.cjk_covers(ch) for ch in chars):
            return path, fonts
    return None
