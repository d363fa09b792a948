"""A stand-in canvas that keeps where the lines and fills of a drawing put their ink, for
tests that a figure stays inside the box it was given (a page's margins are measured to
the ink). Test modules import it with ``from ink import InkCanvas``."""

from __future__ import annotations


class InkCanvas:
    """Enough of a reportlab canvas to draw a Sudoku grid's or a nonogram's lines and
    fills, keeping each mark's box: a stroke's widened by half its line width (and along
    the line by as much again where the caps are square), a fill's as it is. Text is not
    kept (preflight reads text from the PDF)."""

    def __init__(self) -> None:
        self.width, self.cap = 1.0, 0
        self.ink: list[tuple[float, float, float, float]] = []

    def extent(self) -> tuple[float, float, float, float]:
        """The box of all the ink: (x0, y0, x1, y1)."""
        return (min(b[0] for b in self.ink), min(b[1] for b in self.ink),
                max(b[2] for b in self.ink), max(b[3] for b in self.ink))

    def beginPath(self) -> _Segments:  # noqa: N802 (reportlab's names)
        return _Segments()

    def setStrokeColorRGB(self, *rgb) -> None:  # noqa: N802
        pass

    def setFillColorRGB(self, *rgb) -> None:  # noqa: N802
        pass

    def setLineWidth(self, width: float) -> None:  # noqa: N802
        self.width = width

    def setLineCap(self, cap: int) -> None:  # noqa: N802
        self.cap = cap

    def drawPath(self, path: _Segments, stroke: int = 1, fill: int = 0) -> None:  # noqa: N802
        half = self.width / 2 if stroke else 0.0
        along = half if self.cap == 2 else 0.0
        for (x0, y0), (x1, y1) in path.segments:
            dx, dy = (along, half) if y0 == y1 else (half, along)
            self.ink.append((min(x0, x1) - dx, min(y0, y1) - dy,
                             max(x0, x1) + dx, max(y0, y1) + dy))
        for x, y, width, height in path.rects:
            self._rect(x, y, width, height, half)

    def setFont(self, name: str, size: float) -> None:  # noqa: N802
        pass

    def stringWidth(self, text: str, font: str, size: float) -> float:  # noqa: N802
        return 0.0

    def beginText(self) -> _Text:  # noqa: N802
        return _Text()

    def drawText(self, text: _Text) -> None:  # noqa: N802
        pass

    def drawString(self, x: float, y: float, text: str) -> None:  # noqa: N802
        pass

    def rect(self, x: float, y: float, width: float, height: float, stroke: int = 1,
             fill: int = 0) -> None:
        self._rect(x, y, width, height, self.width / 2 if stroke else 0.0)

    def _rect(self, x: float, y: float, width: float, height: float, half: float) -> None:
        # mitred corners: half the width out on both sides
        self.ink.append((x - half, y - half, x + width + half, y + height + half))


class _Segments:
    def __init__(self) -> None:
        self.segments: list[tuple[tuple[float, float], tuple[float, float]]] = []
        self.rects: list[tuple[float, float, float, float]] = []
        self.at = (0.0, 0.0)

    def moveTo(self, x: float, y: float) -> None:  # noqa: N802
        self.at = (x, y)

    def lineTo(self, x: float, y: float) -> None:  # noqa: N802
        self.segments.append((self.at, (x, y)))
        self.at = (x, y)

    def rect(self, x: float, y: float, width: float, height: float) -> None:
        self.rects.append((x, y, width, height))


class _Text:
    """A text object whose text goes nowhere."""

    def setFont(self, name: str, size: float) -> None:  # noqa: N802
        pass

    def setFillColorRGB(self, *rgb) -> None:  # noqa: N802
        pass

    def setTextOrigin(self, x: float, y: float) -> None:  # noqa: N802
        pass

    def textOut(self, text: str) -> None:  # noqa: N802
        pass
