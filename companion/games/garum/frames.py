"""A top-down picture of a board state, as JPEG: the evidence frame of a simulated camera."""

from __future__ import annotations

import cv2
import numpy as np

from companion.boards.profile import BoardProfile
from companion.games.garum.state import GRID, BoardState


def _bgr(hex_colour: str) -> tuple[int, int, int]:
    h = hex_colour.lstrip("#")
    r, g, b = (int(h[i : i + 2], 16) for i in (0, 2, 4))
    return (b, g, r)


def render_jpeg(profile: BoardProfile, state: BoardState, *, px_per_mm: float = 1.0) -> bytes:
    g = profile.geometry
    w, h = (round(v * px_per_mm) for v in g.sheet_mm)
    image = np.full((h, w, 3), _bgr(profile.colours.sheet), np.uint8)

    def pt(x: float, y: float) -> tuple[int, int]:
        return round(x * px_per_mm), round(y * px_per_mm)

    half = g.cell_mm / 2
    for i, ch in enumerate(state.cells):
        if profile.vat_of_cell[i] is None:
            continue
        cx, cy = g.cell_centre_mm(*divmod(i, GRID))
        colour = _bgr(profile.colours.species[ch]) if ch in profile.colours.species else None
        fill = colour or _bgr(profile.colours.vat_floor)
        cv2.rectangle(
            image, pt(cx - half + 1, cy - half + 1), pt(cx + half - 1, cy + half - 1), fill, -1
        )
    for line, worker in enumerate(state.workers):
        x, y = g.worker_space_centre_mm(line)
        cv2.circle(
            image, pt(x, y), round(g.worker_space_diameter_mm / 2 * px_per_mm), (90, 110, 140), 1
        )
        if worker and worker[0] in profile.colours.species:
            radius = (g.dominus.width_mm if worker[1] == "d" else g.vilicus.width_mm) / 2
            cv2.circle(
                image,
                pt(x, y),
                round(radius * px_per_mm),
                _bgr(profile.colours.species[worker[0]]),
                -1,
            )
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 80])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return bytes(data)
