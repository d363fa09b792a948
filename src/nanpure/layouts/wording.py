"""Every fixed word a book prints, in each language it can be printed in (``book.language``):
one table a language, :class:`Wording`, looked up by key by the one layout code of both.

The words a user gives (title, subtitle, author, imprint lines, section titles, the
cover's) are printed as given; page numbers, puzzle numbers and cell names (r5c2) stay
digits in every language. A Japanese book uses the terms Japanese puzzle books use: the
tiers 初級 to 最上級, 第12問 for puzzle 12, and the techniques' katakana names.

>>> words = WORDINGS["ja"]
>>> words.contents, words.tier("hard"), words.numbers(7, 10)
('目次', '上級', '第7〜10問')
>>> ENGLISH.numbers(7, 7), ENGLISH.range("easy", "hard")
('puzzle 7', 'easy to hard')
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, fields
from typing import Any

#: The languages a book's words can be printed in, by their ``book.language`` code.
LANGUAGES = ("en", "ja")
#: The languages whose books' cover spines are set in vertical writing (layouts/cover.py).
VERTICAL_SPINES = frozenset({"ja"})
#: What else people write for a language code, for the "did you mean" of a config.
LANGUAGE_ALIASES = {"english": "en", "eng": "en", "en-us": "en", "en-gb": "en",
                    "japanese": "ja", "jp": "ja", "jpn": "ja", "ja-jp": "ja",
                    "ja_jp": "ja", "日本語": "ja"}


@dataclass(frozen=True)
class Wording:
    """The fixed words of a book in one language. Fields holding ``{...}`` are templates
    for :meth:`str.format`; the tables of tiers and techniques leave out what is printed
    as the ladder names it."""

    contents: str
    how_to_play: str  # the page's heading in a book of one kind
    how_to_play_kind: str  # {kind}: in a book of both kinds
    continued: str  # {heading}: a page the how-to-play text runs on to
    hints: str
    answers: str
    notes: str
    kinds: Mapping[str, str]  # a kind of puzzle as the book names it
    tiers: Mapping[str, str]
    number_span: str  # {first}, {last}: puzzle numbers
    range_: str  # {low}, {high}: tiers or sizes
    puzzle_number: str  # {numbers}: one puzzle, in a running head
    puzzle_numbers: str  # {numbers}: several, in a running head
    section_numbers: str  # {numbers}: a section's puzzles, in the contents
    kind_numbers: str  # {kind}, {numbers}: the same in a book of both kinds
    detail_joint: str  # between the parts of a contents row's detail
    section_joint: str  # the same on a section's title page
    page_of: str  # {page}: an answer's or a hint's puzzle page
    tier_indent: str  # as wide as the how-to-play page's widest tier label, and a space
    title_subtitle: str  # {title}, {subtitle}: the imprint's first line
    imprint_puzzles: tuple[str, str]  # {n}: one puzzle, several
    imprint_rating: str
    imprint_made: str  # {version}
    imprint_imported: str  # {version}: a book with puzzles nanpure did not make
    answer_notes: Mapping[str, str]  # by kind, on the answers' title page
    kind_note: str  # {kind}, {note}: the same in a book of both kinds
    sudoku_rules: tuple[str, ...]  # the how-to-play page's paragraphs before the tiers
    nonogram_rules: tuple[str, ...]
    tier_help: Mapping[str, str]  # what a reader needs for each tier
    tier_needs: Mapping[str, str]  # the same, for a tier the book skips
    nonogram_tier_help: Mapping[str, str]
    nonogram_tier_needs: Mapping[str, str]
    needs_item: str  # {need}: a skipped tier's needs
    needs_joint: str  # between them
    needs_one: str  # {listed}, {own}: one skipped tier, then the tier's own line
    needs_many: str  # the same, for more than one
    needs_prefix: str  # what the tier's own line loses after them
    stars_note: str  # how-to-play: what the stars beside a tier mean (``stars = true``)
    answered_sudoku: str  # {page}: where the answers start
    answered_nonogram: str
    hints_intro: str
    techniques: Mapping[str, str]  # the ladder's technique names
    hint_words: Mapping[str, str]  # the hint sentences' templates (none: the hint's own)

    def tier(self, tier: str) -> str:
        """A tier as the book prints it."""
        return self.tiers.get(tier, tier)

    def technique(self, name: str) -> str:
        """A technique of the ladder as the book prints it."""
        return self.techniques.get(name, name)

    def range(self, low: str, high: str) -> str:
        """From ``low`` to ``high``: "easy to hard"."""
        return self.range_.format(low=low, high=high)

    def span(self, first: int, last: int) -> str:
        """Puzzle numbers from ``first`` to ``last``: "7" or "7–10"."""
        return f"{first}" if first == last else self.number_span.format(first=first,
                                                                        last=last)

    def numbers(self, first: int, last: int) -> str:
        """A running head's puzzle numbers: "puzzle 7" or "puzzles 7–10"."""
        template = self.puzzle_number if first == last else self.puzzle_numbers
        return template.format(numbers=self.span(first, last))

    def hint(self, hint: Any) -> str:
        """The sentence of a :class:`~nanpure.output.hints.Hint` that says where to look:
        the hint's own (English) without :attr:`hint_words`."""
        if not self.hint_words:
            return hint.text()
        w = self.hint_words
        spot = hint.spot
        digits = self.listed(list(spot.digits))
        if spot.chain:
            place = w["chain"].format(cell=spot.cells[0], count=len(spot.cells))
        elif spot.houses:
            place = self.listed([w[spot.house].format(n=n) for n in spot.houses])
        elif spot.cells:
            place = self.listed(list(spot.cells))
        elif digits:
            place = w["anywhere_digits"].format(digits=digits)
            digits = ""
        else:
            return w["anywhere"]
        where = w["of"].format(place=place, digits=digits) if digits else place
        return w["look_at"].format(where=where)

    def listed(self, items: list[str]) -> str:
        """``items`` as a list in a sentence: "a", "aとb", "a、bとc"."""
        w = self.hint_words
        if len(items) < 2:
            return "".join(items)
        return w["comma"].join(items[:-1]) + w["and"] + items[-1]

    def texts(self) -> Iterator[str]:
        """Every word of the table, for the font that must have their characters."""
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, str):
                yield value
            elif isinstance(value, tuple):
                yield from value
            else:
                yield from value.values()


ENGLISH = Wording(
    contents="Contents",
    how_to_play="How to play",
    how_to_play_kind="How to play {kind}",
    continued="{heading} (continued)",
    hints="Hints",
    answers="Answers",
    notes="Notes",
    kinds={"sudoku": "Sudoku", "nonogram": "nonograms"},
    tiers={},
    number_span="{first}\u2013{last}",
    range_="{low} to {high}",
    puzzle_number="puzzle {numbers}",
    puzzle_numbers="puzzles {numbers}",
    section_numbers="puzzles {numbers}",
    kind_numbers="{kind} {numbers}",
    detail_joint=" \u00b7 ",
    section_joint="  \u00b7  ",
    page_of="page {page}",
    tier_indent="extreme  ",
    title_subtitle="{title}: {subtitle}",
    imprint_puzzles=("{n} puzzle. Every puzzle has exactly one solution.",
                     "{n} puzzles. Every puzzle has exactly one solution."),
    imprint_rating="Difficulty follows the technique ladder: the hardest technique a "
                   "puzzle needs sets its tier.",
    imprint_made="Made with nanpure {version}. The book's manifest lists every puzzle "
                 "with its seed, so any page can be made again.",
    imprint_imported="Made with nanpure {version}. The book's manifest lists every puzzle "
                     "with the run it was stored in.",
    answer_notes={"sudoku": "Bold digits were given; light digits complete the grid.",
                  "nonogram": "Each picture shows the finished grid."},
    kind_note="{kind}: {note}",
    sudoku_rules=(
        "Fill every empty cell with a digit from 1 to 9 so that each row, each column "
        "and each of the nine 3\u00d73 boxes holds every digit exactly once.",
        "The printed digits are the givens; they never change. Each puzzle has exactly "
        "one solution, and you can reach it by reasoning: look for the only place a "
        "digit can go in a row, column or box, or the only digit a cell can hold.",
        "Puzzles get harder through the book. Each shows its number and its tier:",
    ),
    nonogram_rules=(
        "Shade cells of the grid to find a hidden picture. The numbers left of each row "
        "and above each column are the lengths of its runs of shaded cells, in order; "
        "runs are separated by at least one blank cell. A 0 marks a line with no shaded "
        "cell.",
        "Mark the cells you know stay blank with a dot or a cross: they matter as much as "
        "the shaded ones. The heavier lines every five cells help you count.",
        "Each puzzle has exactly one solution, found by reasoning alone, never by "
        "guessing. Puzzles get harder through the book. Each shows its number and its "
        "tier:",
    ),
    tier_help={
        "easy": "singles only: a cell with one possible digit, or a digit with one place "
                "left in a row, column or box.",
        "medium": "adds locked candidates and naked or hidden pairs and triples.",
        "hard": "adds quads, X-Wings and other fish, wings, single-digit patterns, "
                "colouring and uniqueness arguments.",
        "unfair": "adds larger and finned fish, chains and almost locked sets.",
        "extreme": "needs forcing chains or nets: following a choice to a contradiction.",
    },
    tier_needs={
        "easy": "singles (a cell with one possible digit, or a digit with one place left "
                "in a row, column or box)",
        "medium": "locked candidates and naked or hidden pairs and triples",
        "hard": "quads, X-Wings and other fish, wings, single-digit patterns, colouring "
                "and uniqueness arguments",
        "unfair": "larger and finned fish, chains and almost locked sets",
    },
    nonogram_tier_help={
        "easy": "simple boxes and spaces: cells that every placement of a run covers are "
                "shaded, cells that no run can reach stay blank.",
        "medium": "complete line logic: every cell on which all placements of a line's "
                  "clue agree.",
        "hard": "adds a probe: suppose a cell filled, then empty, and follow the lines; a "
                "contradiction settles the cell.",
        "extreme": "probes inside probes: a supposition whose consequences need further "
                   "suppositions.",
    },
    nonogram_tier_needs={
        "easy": "simple boxes and spaces (cells that every placement of a run covers are "
                "shaded, cells that no run can reach stay blank)",
        "medium": "complete line logic (every cell on which all placements of a line's "
                  "clue agree)",
        "hard": "a probe (suppose a cell filled, then empty, and follow the lines: a "
                "contradiction settles the cell)",
    },
    needs_item="{need}",
    needs_joint="; ",
    needs_one="needs {listed}, and {own}",
    needs_many="needs {listed}; and {own}",
    needs_prefix="needs ",
    stars_note="The stars after the tier grade each puzzle more finely, from its score: "
               "the more of the five are filled, the harder the puzzle. The scale is "
               "fixed, so a puzzle has the same stars in every book.",
    answered_sudoku="The answers start on page {page}. Each answer gives its puzzle's "
                    "number and page; the digits printed in bold were given, the light "
                    "ones are yours to find.",
    answered_nonogram="The answers start on page {page}. Each answer gives its puzzle's "
                      "number and page and shows the finished picture.",
    hints_intro="Each hint is for a puzzle that singles alone do not solve: it names the "
                "first technique beyond singles that the puzzle needs, and where to look. "
                "What that step removes or places is yours to find. Cells are named by row "
                "and column, counted from the top and from the left: r5c2 is row 5, "
                "column 2; boxes are numbered 1 to 9, left to right and top to bottom.",
    techniques={},
    hint_words={},
)

#: The ladder's techniques (and their variants, which hints name) as Japanese puzzle
#: books name them: in katakana, with the ladder's Latin letters and digits.
_JAPANESE_TECHNIQUES = {
    "Full House": "フルハウス",
    "Naked Single": "ネイキッドシングル",
    "Hidden Single": "ヒドゥンシングル",
    "Locked Pair": "ロックドペア",
    "Locked Triple": "ロックドトリプル",
    "Locked Candidates": "ロックドキャンディデート",
    "Locked Candidates Type 1 (Pointing)": "ロックドキャンディデート（ポインティング）",
    "Locked Candidates Type 2 (Claiming)": "ロックドキャンディデート（クレーミング）",
    "Naked Pair": "ネイキッドペア",
    "Naked Triple": "ネイキッドトリプル",
    "Hidden Pair": "ヒドゥンペア",
    "Hidden Triple": "ヒドゥントリプル",
    "Naked Quadruple": "ネイキッドクアッド",
    "Hidden Quadruple": "ヒドゥンクアッド",
    "X-Wing": "X-ウィング",
    "Swordfish": "ソードフィッシュ",
    "Jellyfish": "ジェリーフィッシュ",
    "Remote Pair": "リモートペア",
    "Bivalue Universal Grave + 1": "BUG+1",
    "Skyscraper": "スカイスクレイパー",
    "2-String Kite": "2-ストリングカイト",
    "Turbot Fish": "ターボットフィッシュ",
    "Empty Rectangle": "エンプティレクタングル",
    "W-Wing": "W-ウィング",
    "XY-Wing": "XY-ウィング",
    "XYZ-Wing": "XYZ-ウィング",
    **{f"Uniqueness Test {k}": f"ユニークネステスト{k}" for k in range(1, 7)},
    "Hidden Rectangle": "ヒドゥンレクタングル",
    "Finned X-Wing": "フィン付きX-ウィング",
    "Sashimi X-Wing": "サシミX-ウィング",
    "Finned Swordfish": "フィン付きソードフィッシュ",
    "Sashimi Swordfish": "サシミソードフィッシュ",
    "Finned Jellyfish": "フィン付きジェリーフィッシュ",
    "Sashimi Jellyfish": "サシミジェリーフィッシュ",
    "Sue de Coq": "スー・ド・コック",
    "Simple Colors": "シンプルカラー",
    "Simple Colors Trap": "シンプルカラー（トラップ）",
    "Simple Colors Wrap": "シンプルカラー（ラップ）",
    "Multi Colors": "マルチカラー",
    "Multi Colors 1": "マルチカラー1",
    "Multi Colors 2": "マルチカラー2",
    "X-Chain": "X-チェーン",
    "XY-Chain": "XY-チェーン",
    "Nice Loop/AIC": "ナイスループ／AIC",
    "Continuous Nice Loop": "連続ナイスループ",
    "Discontinuous Nice Loop": "不連続ナイスループ",
    "AIC": "AIC",
    "Grouped Nice Loop/AIC": "グループ化ナイスループ／AIC",
    "Grouped Continuous Nice Loop": "グループ化連続ナイスループ",
    "Grouped Discontinuous Nice Loop": "グループ化不連続ナイスループ",
    "Grouped AIC": "グループ化AIC",
    "Almost Locked Set XZ-Rule": "ALS-XZ",
    "Almost Locked Set XY-Wing": "ALS-XY-ウィング",
    "Almost Locked Set Chain": "ALSチェーン",
    "Forcing Chain": "フォーシングチェーン",
    "Forcing Chain Contradiction": "フォーシングチェーン（矛盾）",
    "Forcing Chain Verity": "フォーシングチェーン（確定）",
    "Forcing Net": "フォーシングネット",
    "Forcing Net Contradiction": "フォーシングネット（矛盾）",
    "Forcing Net Verity": "フォーシングネット（確定）",
    "Squirmbag": "スクァームバッグ",
    "Whale": "ホエール",
    "Leviathan": "リヴァイアサン",
    "Brute Force": "総当たり",
}

JAPANESE = Wording(
    contents="目次",
    how_to_play="遊び方",
    how_to_play_kind="{kind}の遊び方",
    continued="{heading}（続き）",
    hints="ヒント",
    answers="解答",
    notes="メモ",
    kinds={"sudoku": "ナンプレ", "nonogram": "ノノグラム"},
    tiers={"easy": "初級", "medium": "中級", "hard": "上級", "unfair": "超上級",
           "extreme": "最上級"},
    number_span="{first}〜{last}",
    range_="{low}〜{high}",
    puzzle_number="第{numbers}問",
    puzzle_numbers="第{numbers}問",
    section_numbers="第{numbers}問",
    kind_numbers="{kind} 第{numbers}問",
    detail_joint="／",
    section_joint="　／　",
    page_of="{page}ページ",
    tier_indent="最上級　",
    title_subtitle="{title}　{subtitle}",
    imprint_puzzles=("全{n}問。どの問題も答えはただ一つです。",) * 2,
    imprint_rating="難易度は解き方の段階で決まります。問題を解くのに必要な最も難しい解法が、"
                   "その問題の難易度です。",
    imprint_made="nanpure {version} で作成しました。本書のマニフェストには全問題がシード値と"
                 "ともに記録されており、どのページも同じように作り直せます。",
    imprint_imported="nanpure {version} で作成しました。本書のマニフェストには全問題が"
                     "保存された実行名とともに記録されています。",
    answer_notes={"sudoku": "太字の数字は最初から書かれている数字、細い数字が答えです。",
                  "nonogram": "どの解答も完成した絵を示しています。"},
    kind_note="{kind}：{note}",
    sudoku_rules=(
        "空いているマスに1から9までの数字を入れます。どの行にも、どの列にも、太線で囲まれた"
        "3×3のブロックにも、1から9の数字が1つずつ入ります。",
        "最初から書かれている数字は動きません。どの問題も答えはただ一つで、推理だけで解けます。"
        "行・列・ブロックの中でその数字が入る場所が一か所しかないところや、入る数字が一つしか"
        "ないマスを探しましょう。",
        "後の問題ほど難しくなります。各問題には番号と難易度が付いています。",
    ),
    nonogram_rules=(
        "マスを塗りつぶして、隠れた絵を描きます。各行の左と各列の上の数字は、その行（列）で"
        "続けて塗るマスの数を順に表します。塗るマスのかたまりの間は1マス以上空きます。0は"
        "塗るマスがない行（列）です。",
        "塗らないと分かったマスには点か×を付けましょう。塗るマスと同じくらい大切です。"
        "5マスごとの太線は数えるときの目安です。",
        "どの問題も答えはただ一つで、当て推量をせず推理だけで解けます。後の問題ほど難しく"
        "なります。各問題には番号と難易度が付いています。",
    ),
    tier_help={
        "easy": "シングルだけで解けます。入る数字が一つしかないマスや、行・列・ブロックの中で"
                "入る場所が一か所しかない数字を探します。",
        "medium": "ロックドキャンディデートと、ネイキッド／ヒドゥンのペア・トリプルが"
                  "加わります。",
        "hard": "クアッド、X-ウィングなどのフィッシュ、ウィング、一つの数字のパターン、"
                "カラーリング、唯一解を使う推理が加わります。",
        "unfair": "より大きなフィッシュ、フィン付きのフィッシュ、チェーン、ALSが加わります。",
        "extreme": "フォーシングチェーンやフォーシングネットが必要です。ある仮定をたどって"
                   "矛盾を見つけます。",
    },
    tier_needs={
        "easy": "シングル（入る数字が一つしかないマスや、行・列・ブロックの中で入る場所が"
                "一か所しかない数字）",
        "medium": "ロックドキャンディデートと、ネイキッド／ヒドゥンのペア・トリプル",
        "hard": "クアッド、X-ウィングなどのフィッシュ、ウィング、一つの数字のパターン、"
                "カラーリング、唯一解を使う推理",
        "unfair": "より大きなフィッシュ、フィン付きのフィッシュ、チェーン、ALS",
    },
    nonogram_tier_help={
        "easy": "簡単な塗りと空白だけで解けます。かたまりのどの置き方でも塗られるマスを塗り、"
                "どのかたまりも届かないマスは空白のままにします。",
        "medium": "一列ごとの完全な推理：数字のどの置き方でも同じになるマスをすべて"
                  "決めます。",
        "hard": "仮定が加わります。あるマスを塗った場合と塗らない場合を考えて行と列を"
                "たどり、矛盾が出ればそのマスが決まります。",
        "extreme": "仮定の中の仮定：その先を調べるのに、さらに仮定が必要になります。",
    },
    nonogram_tier_needs={
        "easy": "簡単な塗りと空白（かたまりのどの置き方でも塗られるマスを塗り、どのかたまり"
                "も届かないマスは空白のまま）",
        "medium": "一列ごとの完全な推理（数字のどの置き方でも同じになるマス）",
        "hard": "仮定（あるマスを塗った場合と塗らない場合を考えて行と列をたどり、矛盾が"
                "出ればそのマスが決まる）",
    },
    needs_item="{need}も使います。",
    needs_joint="",
    needs_one="{listed}さらに、{own}",
    needs_many="{listed}さらに、{own}",
    needs_prefix="",
    stars_note="難易度の後の星は、スコアから問題の難しさをさらに細かく示します。5つの星のうち"
               "塗られた星が多いほど難しい問題です。基準は決まっているので、同じ問題はどの本"
               "でも同じ数の星になります。",
    answered_sudoku="解答は{page}ページからです。各解答には問題の番号とページがあり、太字の"
                    "数字は最初から書かれていた数字、細い数字があなたが見つける数字です。",
    answered_nonogram="解答は{page}ページからです。各解答には問題の番号とページがあり、"
                      "完成した絵を示しています。",
    hints_intro="ここのヒントは、シングルだけでは解けない問題のためのものです。シングルの次に"
                "必要になる解法の名前と、注目する場所を示します。その一手で何が消え、何が"
                "決まるかは、自分で見つけてください。マスは行と列で表し、行は上から、列は左"
                "から数えます。r5c2は5行目・2列目のマスです。ブロックには左から右、上から"
                "下へ1から9の番号が付いています。",
    techniques=_JAPANESE_TECHNIQUES,
    hint_words={
        "look_at": "{where}に注目しましょう。",
        "anywhere": "盤面全体から探しましょう。",
        "anywhere_digits": "盤面全体の{digits}",
        "of": "{place}の{digits}",
        "chain": "{cell}から始まるチェーン（{count}マス）",
        "r": "{n}行目",
        "c": "{n}列目",
        "b": "ブロック{n}",
        "comma": "、",
        "and": "と",
    },
)

#: The table of each language, by its ``book.language`` code.
WORDINGS = {"en": ENGLISH, "ja": JAPANESE}
