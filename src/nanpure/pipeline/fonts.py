"""Finding an installed font, through fontconfig, for text the built-in font lacks.

A book's fonts are embedded TrueType; the built-in Bitstream Vera has Latin letters only.
For a title in Japanese (or Chinese, or Korean) the book takes the font fontconfig prefers
among the installed TrueType fonts that have every character, unless the config names one
(``cjk_font``). Fonts with PostScript (CFF) outlines, such as Noto CJK, cannot be embedded
by the PDF library and are passed over.

When no one font has every character, :func:`no_font` says why: the characters no
installed font has (which cannot be printed), or two that no one font has together.
"""

from __future__ import annotations

import subprocess
from bisect import bisect_right
from collections.abc import Iterable, Sequence

from ..layouts.pages import CJK_PACKAGE, FontError, Fonts, load_fonts
from ..words import joined

#: The family of the font :data:`CJK_PACKAGE` installs, as fontconfig names it.
CJK_FAMILY = "IPAGothic"
#: Code points of Japanese text (CJK punctuation, kana, ideographs, full-width forms):
#: the characters that installing :data:`CJK_PACKAGE` gives a font for.
_JAPANESE = ((0x3000, 0x30FF), (0x31F0, 0x31FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF),
             (0xF900, 0xFAFF), (0xFF00, 0xFFEF), (0x20000, 0x2FFFF))


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


def font_coverage(chars: Iterable[str]) -> dict[str, set[str]]:
    """For each of ``chars``, the installed TrueType font files that have it as
    :func:`find_font` asks (fontconfig says so, and the font loads and has its glyph), so
    that ``find_font(s)`` finds a font exactly when the sets of the characters of ``s``
    meet. One fontconfig query for all the fonts' character sets, each font loaded once:
    a blurb of hundreds of characters asked character by character took seconds."""
    chars = list(dict.fromkeys(chars))
    found: dict[str, set[str]] = {ch: set() for ch in chars}
    for line in _lines(["fc-list", "--format", "%{file}\t%{charset}\n"]):
        path, _, charset = line.partition("\t")
        if not path.lower().endswith((".ttf", ".ttc")):
            continue
        starts, ends = [], []
        for span in charset.split():  # ascending hexadecimal ranges: 20-7e a0-17f 2c7
            low, _, high = span.partition("-")
            starts.append(int(low, 16))
            ends.append(int(high or low, 16))
        has = [ch for ch in chars if (k := bisect_right(starts, ord(ch)) - 1) >= 0
               and ord(ch) <= ends[k]]
        if not has:
            continue
        try:
            fonts = load_fonts(path)
        except FontError:  # PostScript outlines, or not a font after all
            continue
        for ch in has:
            if fonts.covers(ch) or fonts.cjk_covers(ch):
                found[ch].add(path)
    return found


def cjk_package_installed() -> bool:
    """True when fontconfig knows the font :data:`CJK_PACKAGE` installs."""
    return bool(_lines(["fc-list", f":family={CJK_FAMILY}", "file"]))


def _japanese(ch: str) -> bool:
    return any(low <= ord(ch) <= high for low, high in _JAPANESE)


#: At most this many characters are named in one message; the others are counted.
NAMED_CHARACTERS = 8


def _listed(chars: Iterable[str]) -> str:
    """'a', 'a' and 'b', or 'a', 'b' and 'c'; beyond :data:`NAMED_CHARACTERS`, the first
    ones and how many more (a Japanese blurb may lack hundreds).

    >>> _listed("ab"), _listed("abcdefghijk")
    ("'a' and 'b'", "'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h' and 3 more")
    """
    quoted = [repr(ch) for ch in chars]
    if len(quoted) > NAMED_CHARACTERS:
        quoted[NAMED_CHARACTERS:] = [f"{len(quoted) - NAMED_CHARACTERS} more"]
    return joined(quoted)


def no_font(texts: Sequence[tuple[str, str]], missing: str) -> str:
    """Why no font has every one of ``missing`` (the characters of ``texts``, given as
    (what, text), that the built-in font lacks), and what to do, as one line.

    Either some characters are in no installed font: those are named, with the text
    they are in; the Debian package is suggested only for Japanese characters, and only
    when it is not installed. Or each is in some font but no one font has all, and a
    book takes one font beside the built-in one: two that no font has together are
    named. The fonts are looked up once, for all the characters (:func:`font_coverage`)."""
    coverage = font_coverage(missing)

    def together(chars: str) -> bool:  # as find_font(chars) is not None
        return bool(set.intersection(*(coverage[ch] for ch in chars)))

    gone = [ch for ch in missing if not together(ch)]
    if gone:
        what, text = next((w, t) for w, t in texts if any(ch in t for ch in gone))
        chars = [ch for ch in gone if ch in text]
        them = "it" if len(chars) == 1 else "them"
        if not cjk_package_installed() and any(_japanese(ch) for ch in chars):
            return (f"the {what} {text!r} has {_listed(chars)}, which the built-in font "
                    f"lacks, and no installed TrueType font has {them}: install one "
                    f"(Debian: apt-get install {CJK_PACKAGE}) or name a .ttf file that has "
                    f"{them} in book.cjk_font")
        return (f"the {what} {text!r} has {_listed(chars)}, which no installed TrueType "
                f"font has, so {'it' if len(chars) == 1 else 'they'} cannot be printed: "
                f"remove {them}, or name a .ttf file that has {them} in book.cjk_font")
    # the first character that no font has together with those before it, and one of
    # those it clashes with
    held = missing[:1]
    for ch in missing[1:]:
        if not together(held + ch):
            other = next((h for h in held if not together(h + ch)), held)
            break
        held += ch
    else:  # pragma: no cover - find_font(missing) failed, so some character clashes
        return f"no installed TrueType font has all of {_listed(missing)}"
    where = [f"{_listed(chars)} in the {w} {t!r}" for w, t in texts
             if (chars := [c for c in dict.fromkeys(t) if c in other + ch])]
    return (f"{' and '.join(where)}: no installed TrueType font has {_listed(other + ch)} "
            "together, and a book takes one font beside the built-in one: remove one of "
            "them, or name a .ttf file that has them all in book.cjk_font")
