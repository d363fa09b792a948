"""`book.language`: a book whose fixed words are Japanese (layouts/wording.py), the font it
needs, the config's check of the key, and Japanese text wrapped inside the column."""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import pytest
import reportlab
from conftest import CJK_FONT
from pypdf import PdfReader
from test_book import make_store
from test_book_nonogram import add_nonograms

from nanpure.generator.ladder import LADDER
from nanpure.generator.nonogram import TIERS as NONOGRAM_TIERS
from nanpure.generator.tiers import TIERS
from nanpure.layouts.book import _wrap_wide
from nanpure.layouts.pages import load_fonts
from nanpure.layouts.wording import ENGLISH, JAPANESE, WORDINGS
from nanpure.output.hints import hint_from
from nanpure.pipeline import publish
from nanpure.pipeline.book_config import book_config_from_toml, load_book_config
from nanpure.pipeline.config import ConfigError, parse_toml
from nanpure.pipeline.publish import PublishError, manifest_path, publish_book

needs_cjk_font = pytest.mark.skipif(CJK_FONT is None, reason="no CJK TrueType font "
                                    "installed (apt-get install fonts-ipafont-gothic)")

#: The Latin words a Japanese book may print: the program's name in its imprint and the
#: techniques whose Japanese name keeps the ladder's letters (cell names, r5c2, are not
#: words of letters alone).
LATIN_WORDS = {"nanpure", "AIC", "ALS", "BUG", "XY", "XYZ", "XZ"}


def write_config(tmp_path: Path, store: Path, body: str) -> Path:
    path = tmp_path / "book.toml"
    path.write_text(f"""
[book]
title = "パズル集"
store = "{store}"
out = "{tmp_path / 'book.pdf'}"
reuse = true
{body}
[[book.section]]
title = "ナンプレ"
run = "nightly"
tiers = ["easy", "hard"]
[[book.section]]
title = "絵のパズル"
run = "nonograms"
kind = "nonogram"
""")
    return path


@pytest.fixture(scope="module")
def store(tmp_path_factory, qqwing_rows) -> Path:
    path = tmp_path_factory.mktemp("language") / "nanpure.db"
    return add_nonograms(make_store(path, qqwing_rows))


@needs_cjk_font
def test_a_japanese_book_prints_every_fixed_word_in_japanese(tmp_path, store):
    """Contents, how to play (both kinds), section pages, heads, labels, hints, answers and
    notes in Japanese; no English word on any page; preflight passes (fonts embedded,
    every line inside the margins); the manifest records the language, last."""
    body = f'language = "ja"\ncjk_font = "{CJK_FONT}"\nhints = true\nstars = true\n'
    book = publish_book(load_book_config(write_config(tmp_path, store, body)), record=False)
    assert book.report.ok, book.report.format()
    text = "\n".join(page.extract_text() for page in PdfReader(book.pdf).pages)
    joined = re.sub(r"\s+", "", text)  # the runs of each font come out as lines
    for word in ("目次", "ナンプレの遊び方", "ノノグラムの遊び方", "第1〜", "初級", "上級",
                 "ヒント", "に注目しましょう", "解答", "ページ", "メモ", "全", "で作成しました",
                 "10×10〜"):
        assert word in joined, word
    latin = set(re.findall(r"[A-Za-z]{2,}", text)) - LATIN_WORDS
    assert not latin, sorted(latin)
    data = json.loads(manifest_path(book.pdf).read_text(encoding="utf-8"))
    assert list(data)[-1] == "language" and data["language"] == "ja"
    assert data["settings"]["layout"]["language"] == "ja"
    # the same book in English keeps its manifest without the key
    english = publish_book(load_book_config(write_config(
        tmp_path, store, f'cjk_font = "{CJK_FONT}"\nhints = true')), record=False)
    data = json.loads(manifest_path(english.pdf).read_text(encoding="utf-8"))
    assert "language" not in data and "language" not in data["settings"]["layout"]


@pytest.mark.parametrize("value, message", [
    ('"japanese"', 'book.language: expected one of "en", "ja"; got \'japanese\'; did you '
                   'mean "ja"?'),
    ('"jp"', 'did you mean "ja"?'),
    ('"EN"', 'did you mean "en"?'),
    ('"fr"', 'book.language: expected one of "en", "ja"; got \'fr\''),
    ("1", "book.language: expected"),
])
def test_a_language_the_book_cannot_print_is_refused_with_a_did_you_mean(value, message):
    with pytest.raises(ConfigError) as exc:
        book_config_from_toml(parse_toml(f'[book]\ntitle = "T"\nlanguage = {value}\n'
                                         '[[book.section]]\ntitle = "E"\ntier = "easy"\n',
                                         "b.toml"), "b.toml")
    assert message in str(exc.value) and "\n" not in str(exc.value)
    if value == '"fr"':
        assert "did you mean" not in str(exc.value)


def test_japanese_without_a_japanese_font_is_one_line_naming_both_keys(tmp_path, store,
                                                                     monkeypatch):
    """No installed font has the Japanese words (a Latin title needs none): the message
    names book.language and book.cjk_font and the package to install; a cjk_font that
    lacks them is named with the characters it lacks."""
    monkeypatch.setattr(publish, "find_font", lambda chars: None)
    monkeypatch.setattr(publish, "cjk_package_installed", lambda: False)
    path = write_config(tmp_path, store, 'language = "ja"')
    path.write_text(path.read_text(encoding="utf-8").replace("パズル集", "Puzzles")
                    .replace("ナンプレ", "Sudoku").replace("絵のパズル", "Pictures"),
                    encoding="utf-8")
    with pytest.raises(PublishError) as exc:
        publish_book(load_book_config(path), record=False)
    message = str(exc.value)
    assert "\n" not in message
    assert 'book.language = "ja" prints the book\'s words in Japanese' in message
    assert "apt-get install fonts-ipafont-gothic" in message and "book.cjk_font" in message
    assert not (tmp_path / "book.pdf").exists()
    latin = str(Path(reportlab.__file__).parent / "fonts" / "Vera.ttf")
    path.write_text(path.read_text(encoding="utf-8").replace(
        'language = "ja"', f'language = "ja"\ncjk_font = "{latin}"'), encoding="utf-8")
    with pytest.raises(PublishError) as exc:
        publish_book(load_book_config(path), record=False)
    assert f"the font {latin} (book.cjk_font) lacks '目', '次'" in str(exc.value)
    assert "\n" not in str(exc.value)


def test_every_tier_and_technique_has_its_japanese_name():
    """Hints name any rung of the ladder, or a variant of it, and labels any tier."""
    names = {r.name for r in LADDER} | {v for r in LADDER for v in r.variants}
    assert names - set(JAPANESE.techniques) == set()
    assert set(TIERS) | set(NONOGRAM_TIERS) <= set(JAPANESE.tiers)
    assert set(JAPANESE.tier_help) == set(ENGLISH.tier_help)
    assert set(JAPANESE.nonogram_tier_help) == set(ENGLISH.nonogram_tier_help)
    assert set(JAPANESE.tier_needs) == set(ENGLISH.tier_needs)
    assert set(WORDINGS) == {"en", "ja"}


@pytest.mark.parametrize("technique, where, english, japanese", [
    ("X-Wing", "9 r1r9 c6c7", "Look at the 9s in rows 1 and 9.",
     "1行目と9行目の9に注目しましょう。"),
    ("Locked Candidates Type 1 (Pointing)", "8 b4 c3", "Look at the 8s in box 4.",
     "ブロック4の8に注目しましょう。"),
    ("XY-Wing", "4 8 r2c2 r2c7 r5c2", "Look at the 4s and 8s in r2c2, r2c7 and r5c2.",
     "r2c2、r2c7とr5c2の4と8に注目しましょう。"),
    ("X-Chain", "(4)r1c1=(4)r1c5-(4)r3c4=(4)r7c4-(4)r8c6=(4)r8c9",
     "Look at the chain that starts at r1c1 (6 cells), with the 4s.",
     "r1c1から始まるチェーン（6マス）の4に注目しましょう。"),
    ("Bivalue Universal Grave + 1", "r4c5", "Look at r4c5.", "r4c5に注目しましょう。"),
    ("Brute Force", "", "Look for it anywhere.", "盤面全体から探しましょう。"),
])
def test_a_hint_says_where_to_look_in_each_language(technique, where, english, japanese):
    hint = hint_from(technique, 3, where)
    assert ENGLISH.hint(hint) == hint.text() == english
    assert JAPANESE.hint(hint) == japanese


def test_japanese_text_wraps_between_characters_but_not_inside_latin_words():
    """A line of Japanese breaks anywhere, filled as far as it goes, but keeps Latin words
    and numbers whole and never starts with a comma or full stop."""
    text = "クアッド、X-ウィングなどのフィッシュ。nanpure 0.1.0で作成しました。"
    assert _wrap_wide(text, lambda line: len(line) <= 10) == [
        "クアッド、X-ウィン", "グなどのフィッシュ。", "nanpure", "0.1.0で作成しま", "した。"]
    # the full stop takes the character before it onto the next line
    assert _wrap_wide("あいう。えお", lambda line: len(line) <= 3) == ["あい", "う。え", "お"]


@needs_cjk_font
def test_an_ideographic_space_after_latin_text_is_set_in_the_cjk_font():
    """The Latin font has no glyph for U+3000: after "40" it printed a box."""
    fonts_ = load_fonts(CJK_FONT)
    assert fonts_.runs("Sudoku 40\u3000やさしい") == [
        ("Sudoku 40", fonts_.regular), ("\u3000やさしい", fonts_.cjk)]


@needs_cjk_font
def test_a_japanese_book_s_lines_keep_the_line_breaking_rules():
    """Every Japanese paragraph of the book, wrapped at several widths, keeps its text
    whole and breaks no line before closing punctuation, a small kana or the long-vowel
    mark, nor after an opening bracket; no line starts with a space."""
    from nanpure.layouts.book import _NO_LINE_END, _NO_LINE_START, wrap

    fonts_ = load_fonts(CJK_FONT)
    assert {"ょ", "ッ", "ー", "。", "」"} <= _NO_LINE_START
    texts = (*JAPANESE.sudoku_rules, JAPANESE.hints_intro, *JAPANESE.tier_help.values())
    for width in (90, 140, 200, 260):
        for text in texts:
            lines = wrap(text, fonts_, 14, width)
            assert "".join(lines).replace(" ", "") == text.replace(" ", "")
            for before, after in itertools.pairwise(lines):
                assert after[0] not in _NO_LINE_START and not after[0].isspace(), (before, after)
                assert before[-1] not in _NO_LINE_END, (before, after)


@needs_cjk_font
def test_a_japanese_book_s_spine_is_in_vertical_writing(tmp_path, store, monkeypatch):
    """The cover of a Japanese book sets its spine's title and author in vertical
    writing, each character upright under the one before; the same cover on an English
    book keeps one line turned a quarter; both pass the cover's preflight."""
    from test_cover import QUARTER, UPRIGHT, on_spine, turn

    import nanpure.layouts.cover as cover_module
    from nanpure.layouts.pages import PAGE_SIZES

    # the store's books are thin: a spine with text on 20 pages, as wide as 120 pages'
    monkeypatch.setattr(cover_module, "SPINE_TEXT_PAGES", 20)
    monkeypatch.setattr(cover_module, "SPINE_PER_PAGE", {"white": 0.01, "cream": 0.01})
    drawn = {}
    for language in ("ja", "en"):
        body = (f'language = "{language}"\ncjk_font = "{CJK_FONT}"\npage_size = "6x9in"\n'
                '[book.cover]\ntitle = "ナンプレ 60問"\nauthor = "山田 太郎"\n')
        book = publish_book(load_book_config(write_config(tmp_path, store, body)),
                            record=False)
        assert book.cover is not None and book.cover_report is not None
        assert book.cover_report.ok, book.cover_report.format()
        drawn[language] = [(text, turn(m), m[5]) for text, m in
                           on_spine(book.cover, book.plan.page_count, PAGE_SIZES["6x9in"])]
    assert [(text, turned) for text, turned, _ in drawn["ja"]] == [
        *((ch, UPRIGHT) for ch in "ナンプレ"), ("60", UPRIGHT), ("問", UPRIGHT),
        *((ch, UPRIGHT) for ch in "山田太郎")]
    tops = [y for *_, y in drawn["ja"]]
    assert tops == sorted(tops, reverse=True)
    assert {turned for _, turned, _ in drawn["en"]} == {QUARTER}
    assert "".join(text for text, *_ in drawn["en"]).replace(" ", "") == "ナンプレ60問山田太郎"
