"""The marker sheet as a PDF to print at home: A4 or Letter pages, markers at true size.

Each marker is printed on a corner piece to cut out: two of its edges (drawn thick) stand
for the board's edges at that corner, so laying them along the board puts the marker's
centre exactly where the board profile says, upright.  A 10 cm ruler on every page shows
whether the printer scaled the page.  The markers are vector squares taken bit by bit from
OpenCV's ArUco dictionary, so they are sharp at any printer resolution.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.boards import BoardProfile
from companion.errors import InputError
from companion.vision.pdf import PdfPage

PAPERS_MM = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
MARGIN_MM = 12.0  # clear of the unprintable border of home printers (about 5 mm)
RULER_MM = 100.0
MAX_PIECE_MM = 80.0
PIECES_PER_PAGE = 4
PLAN_MM = 50.0
CUT_DASH_MM = (2.0, 1.5)


@dataclass(frozen=True)
class CornerPiece:
    """A marker's piece of paper: ``size_mm``, the marker centre inside it, and which of
    its edges lie on the board's edges (``"left"``/``"right"``, ``"top"``/``"bottom"``)."""

    marker_id: int
    size_mm: tuple[float, float]
    centre_mm: tuple[float, float]
    edge_x: str
    edge_y: str

    @property
    def corner(self) -> str:
        return f"{self.edge_y}-{self.edge_x}"


def corner_piece(profile: BoardProfile, marker_id: int) -> CornerPiece:
    """The piece that reaches from the marker's quiet zone to the board's nearest edges."""
    markers = profile.markers
    width, height = profile.geometry.sheet_mm
    cx, cy = markers.centres_mm[marker_id]
    inner = markers.side_mm / 2 + markers.quiet_zone_mm
    edge_x, outer_x = ("left", cx) if cx <= width / 2 else ("right", width - cx)
    edge_y, outer_y = ("top", cy) if cy <= height / 2 else ("bottom", height - cy)
    if max(outer_x, outer_y) + inner > MAX_PIECE_MM or min(outer_x, outer_y) < inner:
        raise InputError(
            f"marker {marker_id} at ({cx:g}, {cy:g}) mm is not near a corner of the board: "
            "print the PNG sheet (--out FILE.png) instead",
            field="markers.centres_mm",
        )
    return CornerPiece(
        marker_id,
        (outer_x + inner, outer_y + inner),
        (outer_x if edge_x == "left" else inner, outer_y if edge_y == "top" else inner),
        edge_x,
        edge_y,
    )


def marker_cells(profile: BoardProfile, marker_id: int) -> NDArray[np.bool_]:
    """The marker's black (``True``) and white cells, border included, from OpenCV."""
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, profile.markers.dictionary))
    cells = dictionary.markerSize + 2
    image = cv2.aruco.generateImageMarker(dictionary, marker_id, cells, borderBits=1)
    return np.asarray(image == 0)


def draw_marker(page: PdfPage, profile: BoardProfile, marker_id: int, x: float, y: float) -> None:
    """The marker with its top-left corner at (``x``, ``y``) mm, as each row's black runs."""
    cells = marker_cells(profile, marker_id)
    cell = profile.markers.side_mm / cells.shape[0]
    rects = []
    for row, line in enumerate(cells.tolist()):
        col = 0
        while col < len(line):
            if not line[col]:
                col += 1
                continue
            start = col
            while col < len(line) and line[col]:
                col += 1
            rects.append((x + start * cell, y + row * cell, (col - start) * cell, cell))
    page.fill_rects(rects)


def draw_piece(
    page: PdfPage, profile: BoardProfile, piece: CornerPiece, x: float, y: float
) -> None:
    """The piece with its top-left at (``x``, ``y``): board edges thick, cut lines dashed."""
    w, h = piece.size_mm
    edges = {
        "top": [(x, y), (x + w, y)],
        "bottom": [(x, y + h), (x + w, y + h)],
        "left": [(x, y), (x, y + h)],
        "right": [(x + w, y), (x + w, y + h)],
    }
    for edge, points in edges.items():
        if edge in (piece.edge_x, piece.edge_y):
            page.line(points, width_mm=0.6)
        else:
            page.line(points, width_mm=0.2, dash_mm=CUT_DASH_MM)
    half = profile.markers.side_mm / 2
    left, top = x + piece.centre_mm[0] - half, y + piece.centre_mm[1] - half
    draw_marker(page, profile, piece.marker_id, left, top)
    label = f"Marker {piece.marker_id}: {piece.corner} corner of the board"
    page.text(x, y + h + 5, label, size_pt=9, bold=True)
    edges_text = f"Thick edges on the board's {piece.edge_y} and {piece.edge_x} edges."
    page.text(x, y + h + 9.5, edges_text, size_pt=8)


def draw_ruler(page: PdfPage, x: float, y: float) -> None:
    """A 100 mm ruler, millimetre ticks hanging from its baseline at ``y``."""
    title = "Scale check: this ruler must measure exactly 10 cm (100 mm)."
    page.text(x, y - 4, title, size_pt=9, bold=True)
    page.line([(x, y), (x + RULER_MM, y)], width_mm=0.2)
    for mm in range(int(RULER_MM) + 1):
        length = 4.5 if mm % 10 == 0 else 3.0 if mm % 5 == 0 else 2.0
        page.line([(x + mm, y), (x + mm, y + length)], width_mm=0.15)
        if mm % 10 == 0:
            page.text(x + mm - 0.8, y + 8, str(mm // 10), size_pt=7)
    page.text(x + RULER_MM + 3, y + 8, "cm", size_pt=7)
    page.text(x + RULER_MM + 8, y + 3, "If it does not, the printer scaled the page:", size_pt=8)
    page.text(x + RULER_MM + 8, y + 7, "print again at 100 % (actual size).", size_pt=8)


def draw_board_plan(
    page: PdfPage, profile: BoardProfile, x: float, y: float, size_mm: float
) -> None:
    """The board from above, top edge up, with each marker's place and id."""
    width, height = profile.geometry.sheet_mm
    scale = size_mm / max(width, height)
    w, h = width * scale, height * scale
    title = f"Where they go: the {profile.name} board seen from above, top edge up"
    page.text(x, y - 4, title, size_pt=9, bold=True)
    page.line([(x, y), (x + w, y), (x + w, y + h), (x, y + h), (x, y)], width_mm=0.3)
    markers = profile.markers
    side = markers.side_mm * scale
    for mid, (cx, cy) in sorted(markers.centres_mm.items()):
        left, top = x + cx * scale - side / 2, y + cy * scale - side / 2
        page.fill_rects([(left, top, side, side)])
        label_x = left + side + 1.5 if cx <= width / 2 else left - 3.5
        label_y = top + side + 3.5 if cy <= height / 2 else top - 1.5
        page.text(label_x, label_y, str(mid), size_pt=8)
    notes = [
        f"{markers.dictionary} markers: a {markers.side_mm:g} mm black square each, with a",
        f"{markers.quiet_zone_mm:g} mm white margin kept clear around it.",
        "Centres, from the board's top-left corner:",
        *(
            f"  marker {mid}: {cx:g} mm across, {cy:g} mm down"
            for mid, (cx, cy) in sorted(markers.centres_mm.items())
        ),
    ]
    for line, text in enumerate(notes):
        page.text(x + size_mm + 8, y + 3 + 4.5 * line, text, size_pt=8)


def marker_pages(profile: BoardProfile, paper: str) -> list[PdfPage]:
    """The pages of the sheet on ``paper`` (``a4`` or ``letter``), four pieces a page."""
    if paper not in PAPERS_MM:
        known = ", ".join(PAPERS_MM)
        raise InputError(f"unknown paper {paper!r} (one of: {known})", field="--paper")
    page_w, page_h = PAPERS_MM[paper]
    ids = sorted(profile.markers.centres_mm, key=lambda i: _reading_order(profile, i))
    pieces = [corner_piece(profile, mid) for mid in ids]
    chunks = [pieces[i : i + PIECES_PER_PAGE] for i in range(0, len(pieces), PIECES_PER_PAGE)]
    column_w = (page_w - 2 * MARGIN_MM) / 2
    pages = []
    for number, chunk in enumerate(chunks, start=1):
        page = PdfPage(page_w, page_h)
        y = MARGIN_MM + 5
        more = f" (page {number} of {len(chunks)})" if len(chunks) > 1 else ""
        title = f"Board markers for the {profile.name} board{more}"
        page.text(MARGIN_MM, y, title, size_pt=14, bold=True)
        for line in (
            'Print at 100 % ("actual size"), never "fit to page", on matte paper; check the ruler.',
            "Cut each piece out along its edges. At the named corner, lay its two thick edges",
            "along the board's edges, marker upright, and glue it flat: then it is in place.",
        ):
            y += 5
            page.text(MARGIN_MM, y, line, size_pt=9)
        y += 8
        for row in range(0, len(chunk), 2):
            pair = chunk[row : row + 2]
            for col, piece in enumerate(pair):
                draw_piece(page, profile, piece, MARGIN_MM + col * column_w, y)
            y += max(p.size_mm[1] for p in pair) + 20
        draw_ruler(page, MARGIN_MM, y)
        y += 22
        plan_mm = min(PLAN_MM, page_h - MARGIN_MM - y)
        if plan_mm < PLAN_MM / 2:
            raise InputError(f"the marker sheet does not fit on {paper} paper", field="--paper")
        draw_board_plan(page, profile, MARGIN_MM, y, plan_mm)
        pages.append(page)
    return pages


def _reading_order(profile: BoardProfile, marker_id: int) -> tuple[bool, bool, int]:
    """Top corners first, then left before right, so the pieces sit as on the board."""
    width, height = profile.geometry.sheet_mm
    cx, cy = profile.markers.centres_mm[marker_id]
    return (cy > height / 2, cx > width / 2, marker_id)
