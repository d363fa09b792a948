"""A stand-in for a reportlab canvas that records what is drawn as reportlab shapes, so
the book's drawing code (:func:`~nanpure.layouts.grid.draw_grid`,
:func:`~nanpure.layouts.nonogram.draw_nonogram`) also makes SVG and PNG pictures.

:class:`ShapesCanvas` answers the few canvas calls those functions make (colours, line
width and cap, paths, rectangles, lines, strings and text objects) by adding
:mod:`reportlab.graphics.shapes` to a :class:`~reportlab.graphics.shapes.Drawing`: the
same code, one call at a time, draws a book page or a picture.

>>> from reportlab.graphics.shapes import Drawing
>>> canvas = ShapesCanvas(Drawing(20, 20))
>>> canvas.setLineWidth(2)
>>> canvas.line(0, 0, 20, 20)
>>> [type(s).__name__ for s in canvas.drawing.contents], canvas.drawing.contents[0].strokeWidth
(['Line'], 2)
"""

from __future__ import annotations

from reportlab.graphics.shapes import Drawing, Line, Path, Rect, String
from reportlab.lib.colors import Color
from reportlab.pdfbase import pdfmetrics

_BLACK = Color(0, 0, 0)


class ShapesPath:
    """What ``canvas.beginPath()`` gives: subpaths of straight lines and rectangles."""

    def __init__(self) -> None:
        self.path = Path()

    def moveTo(self, x: float, y: float) -> None:
        self.path.moveTo(x, y)

    def lineTo(self, x: float, y: float) -> None:
        self.path.lineTo(x, y)

    def rect(self, x: float, y: float, width: float, height: float) -> None:
        self.path.moveTo(x, y)
        self.path.lineTo(x + width, y)
        self.path.lineTo(x + width, y + height)
        self.path.lineTo(x, y + height)
        self.path.closePath()


class ShapesText:
    """What ``canvas.beginText()`` gives: strings placed one after another."""

    def __init__(self, canvas: ShapesCanvas) -> None:
        self.canvas = canvas
        self.font, self.size = canvas.font, canvas.size
        self.fill = canvas.fill
        self.x = self.y = 0.0
        self.strings: list[String] = []

    def setFont(self, name: str, size: float) -> None:
        self.font, self.size = name, size

    def setFillColorRGB(self, r: float, g: float, b: float) -> None:
        self.fill = Color(r, g, b)

    def setTextOrigin(self, x: float, y: float) -> None:
        self.x, self.y = x, y

    def textOut(self, text: str) -> None:
        self.strings.append(String(self.x, self.y, text, fontName=self.font,
                                   fontSize=self.size, fillColor=self.fill))
        self.x += pdfmetrics.stringWidth(text, self.font, self.size)


class ShapesCanvas:
    """The canvas calls of the book's figure drawing, recorded into ``drawing``."""

    def __init__(self, drawing: Drawing) -> None:
        self.drawing = drawing
        self.stroke = _BLACK
        self.fill = _BLACK
        self.width = 1.0
        self.cap = 0
        self.font = "Helvetica"
        self.size = 10.0

    def setStrokeColorRGB(self, r: float, g: float, b: float) -> None:
        self.stroke = Color(r, g, b)

    def setFillColorRGB(self, r: float, g: float, b: float) -> None:
        self.fill = Color(r, g, b)

    def setLineWidth(self, width: float) -> None:
        self.width = width

    def setLineCap(self, cap: int) -> None:
        self.cap = cap

    def setFont(self, name: str, size: float) -> None:
        self.font, self.size = name, size

    def stringWidth(self, text: str, font: str, size: float) -> float:
        return pdfmetrics.stringWidth(text, font, size)

    def beginPath(self) -> ShapesPath:
        return ShapesPath()

    def drawPath(self, path: ShapesPath, stroke: int = 1, fill: int = 0) -> None:
        shape = path.path.copy()
        self._paint(shape, stroke, fill)
        self.drawing.add(shape)

    def rect(self, x: float, y: float, width: float, height: float, stroke: int = 1,
             fill: int = 0) -> None:
        shape = Rect(x, y, width, height)
        self._paint(shape, stroke, fill)
        self.drawing.add(shape)

    def line(self, x1: float, y1: float, x2: float, y2: float) -> None:
        self.drawing.add(Line(x1, y1, x2, y2, strokeColor=self.stroke,
                              strokeWidth=self.width, strokeLineCap=self.cap))

    def beginText(self) -> ShapesText:
        return ShapesText(self)

    def drawText(self, text: ShapesText) -> None:
        for string in text.strings:
            self.drawing.add(string)

    def drawString(self, x: float, y: float, text: str) -> None:
        self.drawing.add(String(x, y, text, fontName=self.font, fontSize=self.size,
                                fillColor=self.fill))

    def _paint(self, shape, stroke: int, fill: int) -> None:
        shape.strokeColor = self.stroke if stroke else None
        shape.strokeWidth = self.width
        shape.strokeLineCap = self.cap
        shape.fillColor = self.fill if fill else None
