"""Pictures of the statistics (``nanpure stats --plot``): reportlab charts of what
:func:`~nanpure.output.stats.summarize` tables, one below the other on one page.

- blank counts by tier: a histogram, the tiers stacked;
- scores by tier: a histogram of the ladder's scores, the tiers stacked;
- technique usage: the share of puzzles that needed each technique, in ladder order;
- acceptance per quota, when the summary has it (the store's quota tallies): the share of
  the tasks judged that a quota kept;
- nonogram technique usage, when there are nonograms.

A chart with nothing to show is left out. The page is written as PDF (reportlab, invariant,
so the same store gives the same bytes) or PNG (:mod:`nanpure.layouts.raster`).

>>> rows = [{"tier": "easy", "blanks": 50, "score": 300, "techniques": "Hidden Single:30"},
...         {"tier": "hard", "blanks": 54, "score": 1200, "techniques": "X-Wing:1"}]
>>> from nanpure.output.stats import summarize
>>> [title for title, _ in charts(summarize(rows), score_distribution(rows), load_fonts())]
['Blank counts by tier', 'Scores by tier', 'Technique usage (share of puzzles)']
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from reportlab.graphics.charts.barcharts import HorizontalBarChart, VerticalBarChart
from reportlab.graphics.charts.legends import Legend
from reportlab.graphics.shapes import Drawing, Group, String
from reportlab.lib.colors import Color
from reportlab.pdfbase import pdfmetrics

from ..files import atomic_path, writing
from ..generator.tiers import tier_rank
from ..layouts.pages import Fonts, load_fonts
from .stats import se_bands

PLOT_FORMATS = (".pdf", ".png")
#: The page's width and its margin, in points.
WIDTH = 540.0
MARGIN = 24.0
#: A histogram's height; a bar chart's height per bar.
HISTOGRAM_HEIGHT = 170.0
BAR_HEIGHT = 13.0
TITLE_SIZE = 12.0
LABEL_SIZE = 7.5
#: Paper kept between neighbouring axis labels, as a fraction of their size.
LABEL_GAP = 0.5
#: Room kept left of a bar chart for its labels (technique and quota names).
NAME_WIDTH = 190.0
#: Histogram bins of scores: the smallest of these widths that gives at most MAX_BINS bins.
SCORE_BINS = (50, 100, 200, 250, 500, 1000, 2000, 5000, 10000)
MAX_BINS = 30
#: A colour per tier, easiest first (Sudoku's and the nonograms' tiers share names).
TIER_COLOURS = {
    "easy": Color(0.45, 0.70, 0.45),
    "medium": Color(0.35, 0.55, 0.80),
    "hard": Color(0.95, 0.65, 0.25),
    "unfair": Color(0.85, 0.35, 0.30),
    "extreme": Color(0.55, 0.35, 0.65),
}
OTHER_COLOUR = Color(0.6, 0.6, 0.6)
BAR_COLOUR = Color(0.35, 0.55, 0.80)


def _field(rec: Any, name: str) -> Any:
    return rec[name] if isinstance(rec, Mapping) else getattr(rec, name)


def score_distribution(records: Iterable[Any]) -> dict[str, dict[int, int]]:
    """How many Sudoku records have each score (ascending), by tier (easiest first): what
    :func:`charts` takes, and what :meth:`.Store.score_counts` reads from a store."""
    found: dict[str, dict[int, int]] = {}
    for rec in records:
        kind = (rec.get("kind") if isinstance(rec, Mapping) else rec.kind) or "sudoku"
        if kind == "sudoku":
            counts = found.setdefault(_field(rec, "tier"), {})
            score = int(_field(rec, "score"))
            counts[score] = counts.get(score, 0) + 1
    return {t: dict(sorted(found[t].items()))
            for t in sorted(found, key=lambda t: (tier_rank(t), t))}


def _score_bins(scores: dict[str, dict[int, int]]) -> tuple[int, list[int]]:
    """The bin width and the lower edges of the bins that cover every score."""
    lo = min(min(counts) for counts in scores.values())
    hi = max(max(counts) for counts in scores.values())
    width = next((w for w in SCORE_BINS if hi // w - lo // w < MAX_BINS), SCORE_BINS[-1])
    return width, list(range(lo // width * width, hi // width * width + 1, width))


def charts(summary: dict[str, Any], scores: dict[str, dict[int, int]],
           fonts: Fonts) -> list[tuple[str, Group]]:
    """The charts the summary has something for, each with its title."""
    found: list[tuple[str, Group]] = []
    if summary["blanks"]:
        counts = sorted({int(k) for d in summary["blanks"].values() for k in d})
        edges = list(range(counts[0], counts[-1] + 1))
        blanks = {t: [d.get(str(n), 0) for n in edges] for t, d in summary["blanks"].items()}
        found.append(("Blank counts by tier",
                      _histogram(fonts, [str(n) for n in edges], blanks, "blanks")))
    if scores:
        width, lows = _score_bins(scores)
        binned = {t: [sum(n for s, n in counts.items() if lo <= s < lo + width)
                      for lo in lows] for t, counts in scores.items()}
        found.append(("Scores by tier", _histogram(fonts, [str(lo) for lo in lows], binned,
                                                   f"score (bins of {width})")))
    if summary.get("se"):  # a store whose quotas had se
        bands = se_bands(summary["se"])
        by_band = {t: [d.get(band, 0) for band in bands]
                   for t, d in summary["se"]["bands"].items()}
        found.append(("SE ratings (ER) by tier", _histogram(fonts, bands, by_band,
                                                            "Sudoku Explainer rating ER")))
    for key, title in ((None, "Technique usage"), ("nonograms", "Nonogram technique usage")):
        part = summary if key is None else summary.get(key)
        if part and part["techniques"]:
            n = max(sum(part["tiers"].values()), 1)
            shares = {name: 100 * u["puzzles"] / n for name, u in part["techniques"].items()}
            found.append((f"{title} (share of puzzles)", _bars(fonts, shares, "% of puzzles")))
    quotas = [q for q in summary.get("quotas", []) if q["acceptance"] is not None]
    if quotas:
        runs = {q["run"] for q in quotas}
        accepted = {(q["quota"] if len(runs) == 1 else f"{q['run']}: {q['quota']}"):
                    100 * q["acceptance"] for q in quotas}
        found.append(("Acceptance per quota", _bars(fonts, accepted, "% of tasks kept")))
    return found


def stats_drawing(summary: dict[str, Any], scores: dict[str, dict[int, int]]) -> Drawing:
    """Every chart of :func:`charts`, stacked on one page, each under its title."""
    fonts = load_fonts()
    groups = []
    for title, chart in charts(summary, scores, fonts):
        _, y0, _, y1 = chart.getBounds()
        groups.append((title, chart, y1 - y0, y0))
    height = MARGIN * 2 + sum(h + TITLE_SIZE * 3 for _, _, h, _ in groups)
    drawing = Drawing(WIDTH, max(height, 2 * MARGIN + TITLE_SIZE * 2))
    y = drawing.height - MARGIN
    if not groups:
        drawing.add(String(MARGIN, y - TITLE_SIZE, "No puzzles to plot", fontName=fonts.bold,
                           fontSize=TITLE_SIZE))
    for title, chart, h, bottom in groups:
        y -= TITLE_SIZE
        drawing.add(String(MARGIN, y, title, fontName=fonts.bold, fontSize=TITLE_SIZE))
        y -= TITLE_SIZE + h
        chart.translate(0, y - bottom)
        drawing.add(chart)
        y -= TITLE_SIZE
    return drawing


def count_step(top: int) -> int:
    """A whole step between the count axis's ticks: 1, 2 or 5 times a power of ten, at most
    eight ticks up to ``top``.

    >>> count_step(1), count_step(7), count_step(16), count_step(120)
    (1, 1, 2, 20)
    """
    return next(step for step in _round_steps() if top / step <= 8)


def _round_steps() -> Iterator[int]:
    """1, 2, 5, 10, 20, 50, ...: the steps an axis counts in."""
    step = 1
    while True:
        yield step
        step = step * 5 // 2 if str(step)[0] == "2" else step * 2


def label_step(categories: list[str], length: float, font: str, size: float) -> int:
    """Label every this many categories of an axis ``length`` points long: the smallest of
    1, 2, 5, 10, 20, 50, ... whose labels, centred on their categories, keep
    :data:`LABEL_GAP` of the size between them.

    >>> label_step([str(n) for n in range(1000, 2000, 50)], 382, "Helvetica", 7.5)
    2
    """
    pitch = length / max(len(categories), 1)
    widest = max((pdfmetrics.stringWidth(c, font, size) for c in categories), default=0.0)
    return next(step for step in _round_steps()
                if step * pitch >= widest + LABEL_GAP * size or step >= len(categories))


def shown_labels(categories: list[str], step: int) -> list[str]:
    """Every ``step``-th label, the others blank: on an evenly spaced numeric axis the
    round ones (multiples of ``step`` bins, e.g. 1000, 1100 rather than 1050, 1150),
    otherwise every ``step``-th from the first.

    >>> shown_labels(["1050", "1100", "1150", "1200"], 2)
    ['', '1100', '', '1200']
    """
    if step == 1:
        return list(categories)
    try:
        values = [int(c) for c in categories]
    except ValueError:
        values = []
    bin_width = values[1] - values[0] if len(values) > 1 else 0
    if bin_width > 0 and all(v % bin_width == 0 for v in values):
        return [c if v // bin_width % step == 0 else "" for c, v in zip(categories, values,
                                                                      strict=True)]
    return [c if k % step == 0 else "" for k, c in enumerate(categories)]


def _histogram(fonts: Fonts, categories: list[str], series: dict[str, list[int]],
               axis: str) -> Group:
    """Stacked bars, one colour per tier, with a legend and the axis named below."""
    chart = VerticalBarChart()
    chart.x, chart.y = MARGIN + 30, 30
    chart.width, chart.height = WIDTH - 2 * MARGIN - 30 - 80, HISTOGRAM_HEIGHT
    chart.data = list(series.values())
    chart.categoryAxis.categoryNames = categories
    chart.categoryAxis.style = "stacked"
    chart.categoryAxis.labels.fontName = fonts.regular
    chart.categoryAxis.labels.fontSize = LABEL_SIZE
    # every label would crowd a long axis: as many as fit side by side with a gap
    step = label_step(categories, chart.width, fonts.regular, LABEL_SIZE)
    chart.categoryAxis.categoryNames = shown_labels(categories, step)
    chart.valueAxis.labels.fontName = fonts.regular
    chart.valueAxis.labels.fontSize = LABEL_SIZE
    chart.valueAxis.valueMin = 0
    chart.valueAxis.valueStep = count_step(max(map(sum, zip(*series.values(), strict=True))))
    chart.valueAxis.visibleGrid = True
    chart.valueAxis.gridStrokeColor = Color(0.85, 0.85, 0.85)
    chart.valueAxis.gridStrokeWidth = 0.5
    chart.barSpacing = 0
    chart.groupSpacing = 1
    for k, tier in enumerate(series):
        chart.bars[k].fillColor = TIER_COLOURS.get(tier, OTHER_COLOUR)
        chart.bars[k].strokeColor = None
    group = Group(chart)
    legend = Legend()
    legend.x, legend.y = chart.x + chart.width + 14, chart.y + chart.height
    legend.fontName, legend.fontSize = fonts.regular, LABEL_SIZE + 1
    legend.colorNamePairs = [(TIER_COLOURS.get(t, OTHER_COLOUR), t) for t in series]
    legend.alignment = "right"
    legend.columnMaximum = len(series)
    legend.dx = legend.dy = 8
    legend.deltay = 12
    group.add(legend)
    group.add(String(chart.x + chart.width / 2, 4, axis, fontName=fonts.regular,
                     fontSize=LABEL_SIZE + 1, textAnchor="middle"))
    return group


def _bars(fonts: Fonts, values: dict[str, float], axis: str) -> Group:
    """One horizontal bar per name, top to bottom in the order given, 0-100 %."""
    chart = HorizontalBarChart()
    chart.x, chart.y = MARGIN + NAME_WIDTH, 30
    chart.width = WIDTH - 2 * MARGIN - NAME_WIDTH - 20
    chart.height = BAR_HEIGHT * len(values)
    chart.data = [list(values.values())[::-1]]  # the chart draws its first bar lowest
    chart.categoryAxis.categoryNames = list(values)[::-1]
    chart.categoryAxis.labels.fontName = fonts.regular
    chart.categoryAxis.labels.fontSize = LABEL_SIZE
    chart.categoryAxis.labels.boxAnchor = "e"
    chart.categoryAxis.visibleTicks = False
    chart.valueAxis.valueMin, chart.valueAxis.valueMax = 0, 100
    chart.valueAxis.valueStep = 10
    chart.valueAxis.labels.fontName = fonts.regular
    chart.valueAxis.labels.fontSize = LABEL_SIZE
    chart.valueAxis.visibleGrid = True
    chart.valueAxis.gridStrokeColor = Color(0.85, 0.85, 0.85)
    chart.valueAxis.gridStrokeWidth = 0.5
    chart.bars[0].fillColor = BAR_COLOUR
    chart.bars[0].strokeColor = None
    chart.barLabelFormat = "%.1f"
    chart.barLabels.fontName = fonts.regular
    chart.barLabels.fontSize = LABEL_SIZE - 0.5
    chart.barLabels.boxAnchor = "w"
    chart.barLabels.dx = 3
    group = Group(chart)
    group.add(String(chart.x + chart.width / 2, 4, axis, fontName=fonts.regular,
                     fontSize=LABEL_SIZE + 1, textAnchor="middle"))
    return group


def write_plot(summary: dict[str, Any], scores: dict[str, dict[int, int]],
               path: str | Path) -> Path:
    """Write the charts to ``path``: PDF or PNG, by its extension; returns the path. A
    file that cannot be written there is a :class:`~nanpure.files.WriteError`."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in PLOT_FORMATS:
        raise ValueError(f"a plot is written as {' or '.join(PLOT_FORMATS)}, not {path.name}")
    drawing = stats_drawing(summary, scores)
    with writing(path):
        if suffix == ".png":
            from ..layouts.raster import write_png

            write_png(drawing, path, dpi=150)
        else:
            from reportlab.graphics import renderPDF
            from reportlab.pdfgen.canvas import Canvas

            with atomic_path(path) as tmp:
                canvas = Canvas(str(tmp), pagesize=(drawing.width, drawing.height),
                                invariant=1, pageCompression=1)
                canvas.setTitle("nanpure statistics")
                renderPDF.draw(drawing, canvas, 0, 0)
                canvas.showPage()
                canvas.save()
    return path
