"""A minimal vector PDF: filled rectangles, lines and Helvetica text, placed in millimetres.

Enough for a sheet that must print at true size (the marker sheet), without a PDF library.
Coordinates are millimetres from the page's top-left corner, as on a ruler laid on paper;
the writer turns them into PDF points from the bottom-left.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

PT_PER_MM = 72 / 25.4


def _num(value: float) -> str:
    text = f"{value:.3f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


def _pdf_text(text: str) -> str:
    """``text`` as a PDF string literal; characters outside ASCII become ``?`` (the standard
    Helvetica of every reader has no Unicode map)."""
    ascii_text = text.encode("ascii", "replace").decode("ascii")
    return "(" + ascii_text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") + ")"


class PdfPage:
    """One page of drawing operations; sizes and positions in millimetres."""

    def __init__(self, width_mm: float, height_mm: float) -> None:
        self.width_mm = width_mm
        self.height_mm = height_mm
        self._ops: list[str] = []

    def _x(self, x_mm: float) -> str:
        return _num(x_mm * PT_PER_MM)

    def _y(self, y_mm: float) -> str:
        return _num((self.height_mm - y_mm) * PT_PER_MM)

    def fill_rects(self, rects: Iterable[tuple[float, float, float, float]]) -> None:
        """Fills the union of rectangles (x, y, width, height) black in one operation, so
        touching rectangles leave no hairline seam between them."""
        parts = [
            f"{self._x(x)} {self._y(y + h)} {_num(w * PT_PER_MM)} {_num(h * PT_PER_MM)} re"
            for x, y, w, h in rects
        ]
        if parts:
            self._ops.append("0 g\n" + "\n".join(parts) + "\nf")

    def line(
        self,
        points: Sequence[tuple[float, float]],
        *,
        width_mm: float = 0.2,
        dash_mm: tuple[float, float] | None = None,
    ) -> None:
        """A black polyline through ``points``, with flat ends exactly at the end points."""
        dash = (
            f"[{_num(dash_mm[0] * PT_PER_MM)} {_num(dash_mm[1] * PT_PER_MM)}] 0 d"
            if dash_mm
            else "[] 0 d"
        )
        (x0, y0), *rest = points
        path = [f"{self._x(x0)} {self._y(y0)} m"] + [
            f"{self._x(x)} {self._y(y)} l" for x, y in rest
        ]
        self._ops.append(
            f"0 G {_num(width_mm * PT_PER_MM)} w 0 J {dash}\n" + "\n".join(path) + "\nS"
        )

    def text(
        self, x_mm: float, y_mm: float, text: str, *, size_pt: float = 9, bold: bool = False
    ) -> None:
        """``text`` with its baseline starting at (``x_mm``, ``y_mm``)."""
        font = "/F2" if bold else "/F1"
        self._ops.append(
            f"0 g BT {font} {_num(size_pt)} Tf {self._x(x_mm)} {self._y(y_mm)} Td "
            f"{_pdf_text(text)} Tj ET"
        )

    def content(self) -> bytes:
        return ("\n".join(self._ops) + "\n").encode("ascii")


def pdf_bytes(pages: Sequence[PdfPage], *, title: str = "") -> bytes:
    """The whole file: catalogue, page tree, the two standard fonts, one stream per page."""
    objects: list[bytes] = []

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    catalog = add(b"")  # filled in once the page tree's number is known
    info = add(f"<< /Title {_pdf_text(title)} /Producer (companion) >>".encode("ascii"))
    regular = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    bold = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold >>")
    tree = add(b"")
    kids = []
    for page in pages:
        data = page.content()
        stream = add(b"<< /Length %d >>\nstream\n" % len(data) + data + b"endstream")
        box = f"[0 0 {_num(page.width_mm * PT_PER_MM)} {_num(page.height_mm * PT_PER_MM)}]"
        kids.append(
            add(
                f"<< /Type /Page /Parent {tree} 0 R /MediaBox {box} /Contents {stream} 0 R "
                f"/Resources << /Font << /F1 {regular} 0 R /F2 {bold} 0 R >> >> >>".encode("ascii")
            )
        )
    refs = " ".join(f"{k} 0 R" for k in kids)
    objects[tree - 1] = f"<< /Type /Pages /Kids [{refs}] /Count {len(kids)} >>".encode("ascii")
    objects[catalog - 1] = f"<< /Type /Catalog /Pages {tree} 0 R >>".encode("ascii")
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root {catalog} 0 R /Info {info} 0 R >>\n"
        f"startxref\n{xref}\n%%EOF\n"
    ).encode("ascii")
    return bytes(out)


def write_pdf(path: Path, pages: Sequence[PdfPage], *, title: str = "") -> None:
    path.write_bytes(pdf_bytes(pages, title=title))
