"""Plots of the statistics: ``nanpure stats --plot`` and a run's ``[run] plot``."""

from __future__ import annotations

import pytest
from PIL import Image
from pypdf import PdfReader

from nanpure.cli import main
from nanpure.layouts.pages import load_fonts
from nanpure.output.plots import charts, score_distribution, stats_drawing, write_plot
from nanpure.output.stats import summarize
from nanpure.pipeline.config import ConfigError, parse_toml, run_config_from_toml
from nanpure.pipeline.store import PUZZLE, SOLUTION, Store
from nanpure.record import PuzzleRecord

ROWS = [{"tier": tier, "blanks": blanks, "score": score, "techniques": techniques}
        for tier, blanks, score, techniques in [
            ("easy", 50, 300, "Full House:9;Hidden Single:20"),
            ("easy", 52, 420, "Hidden Single:30"),
            ("medium", 54, 900, "Hidden Single:30;Naked Pair:1"),
            ("hard", 56, 1400, "Hidden Single:30;X-Wing:1")]]


def test_charts_follow_the_summary():
    summary = summarize(ROWS)
    found = charts(summary, score_distribution(ROWS), load_fonts())
    assert [t for t, _ in found] == ["Blank counts by tier", "Scores by tier",
                                     "Technique usage (share of puzzles)"]
    summary["quotas"] = [{"run": "n", "quota": "easy", "puzzles": 2, "tasks": 4,
                          "acceptance": 0.5}]
    found = charts(summary, score_distribution(ROWS), load_fonts())
    assert found[-1][0] == "Acceptance per quota"
    # the blank histogram holds the blank counts, stacked by tier: 50..56, one bar each
    bars = found[0][1].contents[0]
    assert bars.categoryAxis.categoryNames == ["50", "51", "52", "53", "54", "55", "56"]
    assert bars.data == [[1, 0, 1, 0, 0, 0, 0], [0, 0, 0, 0, 1, 0, 0], [0, 0, 0, 0, 0, 0, 1]]
    assert charts(summarize([]), {}, load_fonts()) == []


@pytest.mark.parametrize("suffix", [".pdf", ".png"])
def test_plot_files_are_written(tmp_path, suffix):
    summary = summarize(ROWS)
    path = write_plot(summary, score_distribution(ROWS), tmp_path / f"stats{suffix}")
    assert path.stat().st_size > 1000
    height = stats_drawing(summary, score_distribution(ROWS)).height
    if suffix == ".pdf":
        page = PdfReader(path).pages[0]
        assert float(page.mediabox.height) == pytest.approx(height)
        assert "Blank counts by tier" in page.extract_text()
        again = write_plot(summary, score_distribution(ROWS), tmp_path / "again.pdf")
        assert again.read_bytes() == path.read_bytes()
    else:
        image = Image.open(path).convert("L")
        assert image.height == round(height / 72 * 150)
        lo, hi = image.getextrema()
        assert lo < 64 and hi == 255  # ink on white
    with pytest.raises(ValueError, match="as .pdf or .png"):
        write_plot(summary, {}, tmp_path / "stats.svg")


@pytest.fixture
def store(tmp_path):
    path = tmp_path / "s.db"
    with Store(path) as s:
        run = s.begin_run("nightly", 1, "{}")
        s.add_puzzle(run.id, "easy", 0, PuzzleRecord(
            puzzle=PUZZLE, solution=SOLUTION, tier="easy", score=412, hardest="Hidden Single",
            techniques="Full House:19;Hidden Single:20", symmetry="rot180",
            blanks=PUZZLE.count("."), seed=5))
    return path


def test_stats_plot_cli(store, tmp_path, capsys):
    out = tmp_path / "plots" / "stats.png"
    assert main(["stats", "--store", str(store), "--plot", str(out)]) == 0
    captured = capsys.readouterr()
    assert "blank counts by tier" in captured.out and f"wrote {out}" in captured.err
    assert Image.open(out).format == "PNG"
    assert main(["stats", "--store", str(store), "--plot", str(tmp_path / "s.txt")]) == 2
    assert "--plot: a plot is written as .pdf or .png" in capsys.readouterr().err


def test_a_ctrl_c_once_the_plot_is_in_place_lets_stats_finish(store, tmp_path, capsys,
                                                               monkeypatch):
    """Ctrl-C just after --plot's file took its name ended stats with 130 and no
    statistics; it is let go now, as export lets it go once its file is in place."""
    import os
    import signal

    replace = os.replace

    def replaced(tmp, final):
        replace(tmp, final)
        os.kill(os.getpid(), signal.SIGINT)  # Python's handler runs as the call returns

    monkeypatch.setattr(os, "replace", replaced)
    out = tmp_path / "stats.pdf"
    assert main(["stats", "--store", str(store), "--plot", str(out)]) == 0
    captured = capsys.readouterr()
    assert "blank counts by tier" in captured.out and captured.err == f"wrote {out}\n"
    assert PdfReader(out).pages


def test_stats_inventory_refuses_a_plot(store, tmp_path, capsys):
    """It wrote nothing and said nothing (exit 0), the plot being of the statistics."""
    out = tmp_path / "inv.png"
    assert main(["stats", "--store", str(store), "--inventory", "--plot", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--plot draws the statistics, not the inventory" in err
    assert not out.exists()


def test_run_config_plot_key():
    text = """
[run]
seed = 1
plot = "nightly.pdf"
[[quota]]
name = "easy"
tier = "easy"
count = 2
"""
    config = run_config_from_toml(parse_toml(text, "r.toml"), "r.toml")
    assert config.plot == "nightly.pdf"
    assert "plot" in config.to_json()
    plain = run_config_from_toml(parse_toml(text.replace('plot = "nightly.pdf"', ""),
                                            "r.toml"), "r.toml")
    assert "plot" not in plain.to_json()
    with pytest.raises(ConfigError, match=r"run.plot: expected a file name ending in \.pdf"):
        run_config_from_toml(parse_toml(text.replace(".pdf", ".svg"), "r.toml"), "r.toml")


def test_run_writes_its_plot_next_to_its_log(tmp_path, capsys):
    config = tmp_path / "r.toml"
    config.write_text(f"""
[run]
name = "small"
seed = 3
store = "{tmp_path / 's.db'}"
workers = 1
plot = "small.png"
[[quota]]
name = "easy"
tier = "easy"
count = 2
""")
    logs = tmp_path / "logs"
    logs.mkdir()
    assert main(["run", str(config), "--log", str(logs / "run.log")]) == 0
    assert Image.open(logs / "small.png").format == "PNG"
    said = capsys.readouterr()
    # with the summary on stdout, as the report is: a night that went well says nothing on
    # stderr (cron mails what it finds there)
    assert f"plot {logs / 'small.png'}" in said.out.splitlines() and said.err == ""


def axis_labels(chart) -> list[tuple[float, float, str]]:
    """The category axis labels a bar chart draws, as (left, right, text), left to right:
    every string it draws but the value axis's."""
    from reportlab.graphics.charts.axes import YValueAxis
    from reportlab.graphics.shapes import Group as ShapeGroup
    from reportlab.graphics.shapes import String, mmult, transformPoint
    from reportlab.graphics.widgetbase import Widget

    found = []

    def walk(shape, matrix) -> None:
        if isinstance(shape, YValueAxis):
            return
        if isinstance(shape, Widget):  # the axis and its labels draw their own shapes
            walk(shape.draw(), matrix)
        elif isinstance(shape, ShapeGroup):  # each label is placed by its group's transform
            for child in shape.contents:
                walk(child, mmult(matrix, shape.transform))
        elif isinstance(shape, String) and shape.text.strip():
            x0, y0, x1, _ = shape.getBounds()
            (left, _), (right, _) = (transformPoint(matrix, (x0, y0)),
                                     transformPoint(matrix, (x1, y0)))
            found.append((left, right, shape.text))

    walk(chart.draw(), (1, 0, 0, 1, 0, 0))
    return sorted(found)


SPANS = [(0, 400), (300, 1299), (1000, 1999), (1000, 2450), (950, 4000), (2000, 9999),
         (100, 14000), (5000, 60000), (10000, 99999), (123456, 987654)]


@pytest.mark.parametrize("lo, hi", SPANS)
def test_score_axis_labels_never_touch(lo, hi):
    from nanpure.output.plots import LABEL_GAP, LABEL_SIZE

    step = max(1, (hi - lo) // 97)
    scores = {"easy": list(range(lo, (lo + hi) // 2, step)),
              "hard": list(range((lo + hi) // 2, hi + 1, step))}
    rows = [{"tier": t, "blanks": 50, "score": s, "techniques": ""}
            for t, values in scores.items() for s in values]
    [(title, group)] = [c for c in charts(summarize(rows), score_distribution(rows),
                                          load_fonts())
                        if c[0] == "Scores by tier"]
    labels = axis_labels(group.contents[0])
    assert len(labels) >= 3, labels
    for (_, right, a), (left, _, b) in zip(labels, labels[1:], strict=False):
        assert left - right >= LABEL_GAP * LABEL_SIZE - 1e-6, (a, b)
