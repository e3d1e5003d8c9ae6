"""Beside an arm, the vat wall printed next to a cell proves that no skin covers it."""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.boards import GRID, load_profile
from companion.vision.canonical import CanonicalLayout
from companion.vision.colour import hex_to_bgr
from companion.vision.walls import CellWalls, WallRules

PROFILE = load_profile("troia")
LAYOUT = CanonicalLayout(PROFILE)
WALLS = CellWalls(PROFILE, LAYOUT.px_per_mm, WallRules())
GEOMETRY = PROFILE.geometry
S = LAYOUT.px_per_mm
LIT_SKIN = (205, 228, 255)  # BGR: a pale arm, lit until its red clips
RIM = (0, 1, 2, 3, 4, 7, 8, 11, 12, 13, 14, 15)  # a vat's cells by the wall, row-major
CENTRE = (5, 6, 9, 10)  # ... and those between the dashed slot lines


def _vat_cell(vat_row: int, vat_col: int, k: int) -> int:
    return (4 * vat_row + k // 4) * GRID + 4 * vat_col + k % 4


def _board(gain: float = 1.0) -> NDArray[np.uint8]:
    """The canonical view of the bare printed board: walls around cream vat floors, all
    lit by ``gain`` (clipping where it pushes a channel past the sensor's limit)."""
    w, h = LAYOUT.size_px
    view = np.full((h, w, 3), hex_to_bgr(PROFILE.colours.sheet), dtype=np.float32)
    end = GEOMETRY.cell_start_mm(GRID - 1) + GEOMETRY.cell_mm
    x0, y0 = GEOMETRY.grid_origin_mm
    frame = GEOMETRY.wall_mm
    view[
        round((y0 - frame) * S) : round((y0 + end + frame) * S),
        round((x0 - frame) * S) : round((x0 + end + frame) * S),
    ] = hex_to_bgr(PROFILE.colours.wall)
    side = 4 * GEOMETRY.cell_mm
    for vat_row in range(4):
        for vat_col in range(4):
            vx = x0 + GEOMETRY.cell_start_mm(4 * vat_col)
            vy = y0 + GEOMETRY.cell_start_mm(4 * vat_row)
            view[round(vy * S) : round((vy + side) * S), round(vx * S) : round((vx + side) * S)] = (
                hex_to_bgr(PROFILE.colours.vat_floor)
            )
    view = cv2.GaussianBlur(view, (5, 5), 1.0) * gain
    return np.asarray(np.clip(view, 0, 255), dtype=np.uint8)


def _arm_over(view: NDArray[np.uint8], cell: int, width_mm: float) -> None:
    """Lays a lit arm across the board's columns, through the middle of ``cell``."""
    x, y = GEOMETRY.cell_centre_mm(cell // GRID, cell % GRID)
    half = width_mm / 2
    view[round((y - half) * S) : round((y + half) * S), : round((x + 4) * S)] = LIT_SKIN


def test_every_rim_cell_of_the_bare_board_shows_its_wall() -> None:
    shown = WALLS.shown(_board())
    for vat_row in range(4):
        for vat_col in range(4):
            assert all(shown[_vat_cell(vat_row, vat_col, k)] for k in RIM)
            # Cells between the dashed lines have no wall to show.
            assert not any(shown[_vat_cell(vat_row, vat_col, k)] for k in CENTRE)


def test_the_wall_still_shows_when_glare_clips_the_floor() -> None:
    shown = WALLS.shown(_board(gain=1.35))
    assert all(shown[_vat_cell(1, 2, k)] for k in RIM)


def test_an_arm_over_a_cell_and_its_wall_hides_it_and_only_it() -> None:
    view = _board()
    corner = _vat_cell(1, 1, 0)  # the vat's top-left cell: walls on its left and top
    _arm_over(view, corner, width_mm=12.0)
    shown = WALLS.shown(view)
    assert not shown[corner]
    # The arm runs along the row, to the left: the cell below keeps its wall.
    assert shown[corner + GRID]
    # Across the wall to the left, the neighbouring vat's rim cell is under the arm too.
    assert not shown[corner - 1]


def test_an_arm_reaching_over_part_of_a_wall_leaves_it_unproven() -> None:
    view = _board()
    cell = _vat_cell(2, 0, 4)  # left rim, second row of the vat
    x, y = GEOMETRY.cell_centre_mm(cell // GRID, cell % GRID)
    # A finger over the wall, a third of the side long: more than the share left to one.
    top = y - GEOMETRY.cell_mm / 6
    view[round(top * S) : round((top + GEOMETRY.cell_mm / 3) * S), : round(x * S)] = LIT_SKIN
    assert not WALLS.shown(view)[cell]


def test_walls_asked_for_some_cells_only_are_those_of_the_whole_board() -> None:
    view = _board()
    corner = _vat_cell(1, 1, 0)
    _arm_over(view, corner, width_mm=12.0)
    every = WALLS.shown(view)
    asked = [corner, corner - 1, corner + GRID, _vat_cell(2, 2, 0), _vat_cell(0, 3, 5)]
    some = WALLS.shown(view, asked)
    assert [bool(some[i]) for i in asked] == [bool(every[i]) for i in asked]
    assert not some[corner] and some[corner + GRID]
    assert some.sum() == sum(bool(every[i]) for i in asked)
