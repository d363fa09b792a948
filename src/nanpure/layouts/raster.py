"""Rasterise a reportlab :class:`~reportlab.graphics.shapes.Drawing` to PNG with Pillow.

reportlab's own PNG renderer needs a separate compiled package; Pillow, which nanpure
already needs, does the job for the shapes nanpure draws: groups (with their transforms),
widgets such as charts (as the shapes they provide), lines, rectangles, polylines,
polygons, straight-line paths, circles and strings (TrueType fonts registered with
reportlab, upright). The picture is drawn at up to :data:`SUPERSAMPLE` times the resolution
and scaled down, which smooths the edges that Pillow's own drawing leaves jagged.

>>> from reportlab.graphics.shapes import Drawing, Rect
>>> from reportlab.lib.colors import black
>>> d = Drawing(72, 36)
>>> d.add(Rect(0, 0, 36, 36, fillColor=black, strokeColor=None))
>>> image = to_image(d, dpi=10)
>>> image.size, image.getpixel((2, 2)), image.getpixel((8, 2))
((10, 5), (0, 0, 0), (255, 255, 255))
"""

from __future__ import annotations

import io
import math
import os
from functools import cache
from pathlib import Path as FilePath

from PIL import Image, ImageDraw, ImageFont
from reportlab.graphics.shapes import (
    Circle,
    Drawing,
    Group,
    Line,
    Path,
    Polygon,
    PolyLine,
    Rect,
    String,
    UserNode,
    mmult,
)
from reportlab.pdfbase import pdfmetrics

from ..files import atomic_path, written_through

#: Drawn at up to this many times the resolution asked for, then scaled down; less when
#: the enlarged picture would have more than MAX_PIXELS pixels (a page of charts).
SUPERSAMPLE = 4
MAX_PIXELS = 16_000_000
#: A font reportlab knows by name only (its standard Type 1 fonts) is drawn with Vera.
_FALLBACK = ("Vera.ttf", "VeraBd.ttf")

Matrix = tuple[float, float, float, float, float, float]
Rgb = tuple[int, int, int]


def to_image(drawing: Drawing, dpi: float = 150) -> Image.Image:
    """``drawing`` as an RGB image on white, ``dpi`` pixels per inch."""
    width = max(1, round(drawing.width * dpi / 72))
    height = max(1, round(drawing.height * dpi / 72))
    factor = max(1, min(SUPERSAMPLE, math.isqrt(MAX_PIXELS // (width * height))))
    big = Image.new("RGB", (width * factor, height * factor), "white")
    painter = _Painter(ImageDraw.Draw(big), dpi / 72 * factor, height * factor)
    painter.group(drawing, (1, 0, 0, 1, 0, 0))
    return big.resize((width, height), Image.Resampling.LANCZOS)


def write_png(drawing: Drawing, path: str | FilePath, dpi: float = 150) -> None:
    """Write ``drawing`` to ``path`` as a PNG of ``dpi`` pixels per inch."""
    with atomic_path(path) as tmp:
        image = to_image(drawing, dpi)
        if written_through(tmp):  # a FIFO: Pillow seeks back in the file it writes
            data = io.BytesIO()
            image.save(data, format="PNG", dpi=(dpi, dpi))
            with open(tmp, "wb") as stream:
                stream.write(data.getvalue())
        else:
            image.save(tmp, format="PNG", dpi=(dpi, dpi))


def _rgb(color) -> Rgb | None:
    if color is None:
        return None
    return tuple(round(255 * v) for v in (color.red, color.green, color.blue))  # type: ignore


@cache
def _font_file(name: str) -> str:
    try:
        face = pdfmetrics.getFont(name).face
        filename = getattr(face, "filename", None)
    except KeyError:
        filename = None
    if filename and os.path.exists(filename):
        return filename
    import reportlab

    fonts = os.path.join(os.path.dirname(reportlab.__file__), "fonts")
    return os.path.join(fonts, _FALLBACK[1 if "bold" in name.lower() else 0])


@cache
def _font(name: str, pixels: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(_font_file(name), max(1, pixels))


class _Painter:
    """Draws shapes onto one Pillow image: ``scale`` pixels a point, y pointing up."""

    def __init__(self, draw: ImageDraw.ImageDraw, scale: float, height: int) -> None:
        self.draw = draw
        self.scale = scale
        self.height = height

    def point(self, m: Matrix, x: float, y: float) -> tuple[float, float]:
        return ((m[0] * x + m[2] * y + m[4]) * self.scale,
                self.height - (m[1] * x + m[3] * y + m[5]) * self.scale)

    def group(self, group: Group, m: Matrix) -> None:
        m = mmult(m, tuple(getattr(group, "transform", (1, 0, 0, 1, 0, 0))))
        for shape in group.contents:
            self.shape(shape, m)

    def shape(self, shape, m: Matrix) -> None:
        if isinstance(shape, UserNode):  # a chart, a legend: what it draws
            self.shape(shape.provideNode(), m)
        elif isinstance(shape, Group):
            self.group(shape, m)
        elif isinstance(shape, String):
            self.string(shape, m)
        elif isinstance(shape, Line):
            self.lines([[(shape.x1, shape.y1), (shape.x2, shape.y2)]], shape, m, closed=False)
        elif isinstance(shape, Rect):
            x, y, w, h = shape.x, shape.y, shape.width, shape.height
            self.figure([[(x, y), (x + w, y), (x + w, y + h), (x, y + h)]], shape, m, True)
        elif isinstance(shape, Circle):
            self.circle(shape, m)
        elif isinstance(shape, Polygon):
            self.figure([_pairs(shape.points)], shape, m, True)
        elif isinstance(shape, PolyLine):
            self.lines([_pairs(shape.points)], shape, m, closed=False)
        elif isinstance(shape, Path):
            self.path(shape, m)
        else:
            raise TypeError(f"cannot rasterise a {type(shape).__name__}")

    # -- filled and stroked outlines ---------------------------------------------------------
    def figure(self, rings: list[list[tuple[float, float]]], shape, m: Matrix,
               closed: bool) -> None:
        fill = _rgb(getattr(shape, "fillColor", None))
        if fill is not None:
            for ring in rings:
                if len(ring) > 2:
                    self.draw.polygon([self.point(m, x, y) for x, y in ring], fill=fill)
        self.lines(rings, shape, m, closed)

    def path(self, shape: Path, m: Matrix) -> None:
        rings: list[list[tuple[float, float]]] = []
        closed: list[bool] = []
        points = _pairs(shape.points)
        k = 0
        for op in shape.operators:
            if op == 0:  # moveTo
                rings.append([points[k]])
                closed.append(False)
                k += 1
            elif op == 1:  # lineTo
                rings[-1].append(points[k])
                k += 1
            elif op == 3:  # closePath
                closed[-1] = True
            else:
                raise TypeError("cannot rasterise a curved path")
        fill = _rgb(getattr(shape, "fillColor", None))
        if fill is not None:
            for ring in rings:
                if len(ring) > 2:
                    self.draw.polygon([self.point(m, x, y) for x, y in ring], fill=fill)
        for ring, shut in zip(rings, closed, strict=True):
            self.lines([ring], shape, m, shut)

    def lines(self, rings: list[list[tuple[float, float]]], shape, m: Matrix,
              closed: bool) -> None:
        """Stroke each ring: every segment a quadrilateral of the line's width, the ends
        capped as the shape says, the corners filled square (closed) or round."""
        color = _rgb(getattr(shape, "strokeColor", None))
        width = getattr(shape, "strokeWidth", 1) or 0
        if color is None or width <= 0:
            return
        half = width * math.sqrt(abs(m[0] * m[3] - m[1] * m[2])) * self.scale / 2
        cap = getattr(shape, "strokeLineCap", 0)
        for ring in rings:
            pts = [self.point(m, x, y) for x, y in ring]
            if closed:
                pts.append(pts[0])
            for k, (a, b) in enumerate(zip(pts, pts[1:], strict=False)):
                first, last = k == 0, k == len(pts) - 2
                start = 0 if first and not closed and cap == 0 else half
                end = 0 if last and not closed and cap == 0 else half
                self._segment(a, b, half, start, end, color)
            if not closed and cap == 1:
                for x, y in (pts[0], pts[-1]):
                    self.draw.ellipse((x - half, y - half, x + half, y + half), fill=color)

    def _segment(self, a: tuple[float, float], b: tuple[float, float], half: float,
                 start: float, end: float, color: Rgb) -> None:
        dx, dy = b[0] - a[0], b[1] - a[1]
        length = math.hypot(dx, dy)
        if length == 0:
            return
        ux, uy = dx / length, dy / length
        nx, ny = -uy * half, ux * half
        ax, ay = a[0] - ux * start, a[1] - uy * start
        bx, by = b[0] + ux * end, b[1] + uy * end
        self.draw.polygon([(ax + nx, ay + ny), (bx + nx, by + ny), (bx - nx, by - ny),
                           (ax - nx, ay - ny)], fill=color)

    def circle(self, shape: Circle, m: Matrix) -> None:
        x, y = self.point(m, shape.cx, shape.cy)
        r = shape.r * math.sqrt(abs(m[0] * m[3] - m[1] * m[2])) * self.scale
        fill = _rgb(shape.fillColor)
        color = _rgb(shape.strokeColor)
        width = round((shape.strokeWidth or 0) * self.scale) if color else 0
        self.draw.ellipse((x - r, y - r, x + r, y + r), fill=fill,
                          outline=color if width else None, width=width)

    def string(self, shape: String, m: Matrix) -> None:
        color = _rgb(shape.fillColor)
        if color is None or not shape.text:
            return
        size = shape.fontSize * math.sqrt(abs(m[0] * m[3] - m[1] * m[2])) * self.scale
        anchor = {"middle": "ms", "end": "rs"}.get(shape.textAnchor, "ls")
        self.draw.text(self.point(m, shape.x, shape.y), shape.text, fill=color,
                       font=_font(shape.fontName, round(size)), anchor=anchor)


def _pairs(flat) -> list[tuple[float, float]]:
    return [(flat[k], flat[k + 1]) for k in range(0, len(flat) - 1, 2)]
