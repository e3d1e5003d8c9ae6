"""Bare floor beside an arm, proven by the vat wall printed next to it.

Lit until the sensor clips its red, an arm's skin shows the floor's chroma in what is
left, and pale skin under a warm lamp shows it whole, so beside an arm the floor's colour
proves nothing (see :func:`~companion.vision.floor.doubt_floor_beside_an_arm`).  What skin
cannot show is the board's print: every cell on a vat's rim lies against the dark wall
between vats, and where the wall shows all along the cell's side, darker than the cell by
most of the printed step, nothing reaches over that side.  An arm over the cell covers the
wall too, and shows skin on both sides of where the wall should be.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.boards import GRID, BoardProfile
from companion.vision.cells import CELLS
from companion.vision.colour import hex_to_bgr


@dataclass(frozen=True)
class WallRules:
    """Where a cell's wall and its own floor are compared (millimetres on the board)."""

    # The floor is sampled this far into the cell from the wall's edge: clear of the edge's
    # blur, short of where a tile's print would start.
    floor_band_mm: tuple[float, float] = (1.5, 4.0)
    # The wall is sampled this far beyond its edge: inside the 8 mm (6 mm on the rim) wall.
    wall_band_mm: tuple[float, float] = (1.0, 4.0)
    # Share of the side looked at, centred: a corner belongs to two sides.
    side_span: float = 0.8
    # The wall shows where it is darker than the cell's floor by this share of the
    # printed step: bare floor keeps 0.8 or more of it in photoreal frames lit until red
    # clips, skin over a wall shows half of it at most.
    step_share_min: float = 0.55
    # ... along this share of the side at least (a finger may cross the rest).
    along_min: float = 0.8


class CellWalls:
    """The wall beside each cell on a vat's rim, as pixels of the canonical view, laid out
    once per board: for each such side, a floor band and a wall band at each position
    along it."""

    def __init__(self, profile: BoardProfile, px_per_mm: float, rules: WallRules) -> None:
        self.rules = rules
        g = profile.geometry
        s = px_per_mm
        width = round(g.sheet_mm[0] * s)
        # Distances (px) from a side's edge at which the bands are sampled, a pixel apart.
        floor_at = _distances_px(rules.floor_band_mm, s)
        wall_at = -_distances_px(rules.wall_band_mm, s)
        inset = (1 - rules.side_span) / 2 * g.cell_mm
        along = np.arange(round(inset * s), round((g.cell_mm - inset) * s))
        floor_px: list[NDArray[np.intp]] = []
        wall_px: list[NDArray[np.intp]] = []
        owners: list[int] = []
        for cell in range(CELLS):
            row, col = divmod(cell, GRID)
            if profile.vat_of_cell[cell] is None:
                continue
            x0_mm, y0_mm = g.cell_corner_mm(row, col)
            x0, y0 = round(x0_mm * s), round(y0_mm * s)
            for vertical in (True, False):
                for edge_mm, into in ((0.0, 1), (g.cell_mm, -1)):
                    if not _on_rim(profile, row, col, vertical, -into):
                        continue
                    edge = ((x0_mm if vertical else y0_mm) + edge_mm) * s
                    lengthwise = (y0 if vertical else x0) + along
                    for at, out in ((floor_at, floor_px), (wall_at, wall_px)):
                        across = np.floor(edge + into * at).astype(np.int64)
                        out.append(_band_pixels(lengthwise, across, vertical, width))
                    owners.append(cell)
        self._floor_px = np.stack(floor_px)  # sides x positions x band
        self._wall_px = np.stack(wall_px)
        self._owners = np.array(owners, dtype=np.intp)
        self._rim = np.zeros(CELLS, dtype=bool)
        self._rim[self._owners] = True
        floor_grey = _grey(hex_to_bgr(profile.colours.vat_floor))
        wall_grey = _grey(hex_to_bgr(profile.colours.wall))
        self.step_min = rules.step_share_min * (1.0 - wall_grey / floor_grey)

    def shown(
        self, view_bgr: NDArray[np.uint8], cells: Collection[int] | None = None
    ) -> NDArray[np.bool_]:
        """Cells whose every rim side shows the printed wall (never a cell off the rim),
        among ``cells`` (all when ``None``; the others read False): only their sides'
        pixels are looked at."""
        if cells is None:
            sides = np.arange(len(self._owners))
        else:
            sides = np.flatnonzero(np.isin(self._owners, np.fromiter(cells, dtype=np.intp)))
        shown = np.zeros(CELLS, dtype=bool)
        if len(sides) == 0:
            return shown
        floor = np.median(_grey_at(view_bgr, self._floor_px[sides]), axis=2)
        wall = np.median(_grey_at(view_bgr, self._wall_px[sides]), axis=2)
        step = (floor - wall) / np.maximum(floor, 1.0)
        # The step at the side's weakest positions, leaving the share a finger may cross.
        weak = np.quantile(step, 1.0 - self.rules.along_min, axis=1)
        side_shows = weak >= self.step_min
        owners = self._owners[sides]
        shown[owners] = True
        np.logical_and.at(shown, owners, side_shows)
        return shown


def _grey_at(view_bgr: NDArray[np.uint8], pixels: NDArray[np.intp]) -> NDArray[np.float32]:
    """Grey levels (as OpenCV converts) of the view's pixels at flat indices ``pixels``,
    in their shape: converting only these is cheaper than the whole view."""
    picked = np.take(view_bgr.reshape(-1, 3), pixels.ravel(), axis=0).reshape(-1, 1, 3)
    grey = cv2.cvtColor(picked, cv2.COLOR_BGR2GRAY)
    return np.asarray(grey, dtype=np.float32).reshape(pixels.shape)


def _on_rim(profile: BoardProfile, row: int, col: int, vertical: bool, outward: int) -> bool:
    """Whether a wall lies beside a cell's side: the cell across it (``outward`` -1 or 1
    along columns when ``vertical``, along rows otherwise) is off the grid or in another
    vat."""
    r, c = (row, col + outward) if vertical else (row + outward, col)
    if not (0 <= r < GRID and 0 <= c < GRID):
        return True
    return profile.vat_of_cell[r * GRID + c] != profile.vat_of_cell[row * GRID + col]


def _distances_px(band_mm: tuple[float, float], px_per_mm: float) -> NDArray[np.float64]:
    """Distances (px) from an edge, one pixel apart, whose pixels lie within ``band_mm``."""
    step = 1.0 / px_per_mm
    return np.arange(band_mm[0] + step / 2, band_mm[1], step) * px_per_mm


def _band_pixels(
    lengthwise: NDArray[np.int64], across: NDArray[np.int64], vertical: bool, width: int
) -> NDArray[np.intp]:
    """Flat view indices of a band along one side: positions along it x pixels across it."""
    if vertical:
        ys, xs = np.meshgrid(lengthwise, across, indexing="ij")
    else:
        xs, ys = np.meshgrid(lengthwise, across, indexing="ij")
    return np.asarray(ys * width + xs, dtype=np.intp)


def _grey(bgr: tuple[int, int, int]) -> float:
    """8-bit grey level of one BGR colour, as OpenCV converts it."""
    px = np.array([[bgr]], dtype=np.uint8)
    return float(cv2.cvtColor(px, cv2.COLOR_BGR2GRAY)[0, 0])


__all__ = ["CellWalls", "WallRules"]
