"""Tiles washed to the floor's colour are betrayed by the gap between them."""

from __future__ import annotations

import cv2
import numpy as np

from companion.boards import GRID, load_profile
from companion.vision.canonical import CanonicalLayout
from companion.vision.colour import hex_to_bgr
from companion.vision.gaps import GapRules, SlotGaps

PROFILE = load_profile("troia")
LAYOUT = CanonicalLayout(PROFILE)
GAPS = SlotGaps(PROFILE, LAYOUT.px_per_mm, GapRules())
VAT = next(iter(PROFILE.vat_slots))
SLOTS = PROFILE.vat_slots[VAT]
FLOOR = hex_to_bgr(PROFILE.colours.vat_floor)


def _view() -> np.ndarray:
    width, height = LAYOUT.size_px
    view = np.empty((height, width, 3), dtype=np.uint8)
    view[:] = FLOOR
    return view


def _line_between_first_two_slots(view: np.ndarray, darker: int) -> None:
    """A thin line, one pixel (0.8 mm) wide, along the side the vat's first two slots
    share, ``darker`` grey levels under the floor."""
    g = PROFILE.geometry
    s = LAYOUT.px_per_mm
    row, col = divmod(SLOTS[0][0], GRID)
    neighbour = next(divmod(slot[0], GRID) for slot in SLOTS[1:] if slot[0] == SLOTS[0][0] + 2)
    x_mm, y_mm = g.cell_corner_mm(*neighbour)
    x, y = round(x_mm * s), round(y_mm * s)
    colour = tuple(max(c - darker, 0) for c in FLOOR)
    cv2.line(view, (x, y), (x, y + round(2 * g.cell_mm * s)), colour, 1)
    assert (row, col + 2) == neighbour


def _vat_cells(cells: list[str]) -> list[str]:
    return [cells[i] for slot in SLOTS for i in slot]


def test_a_tiles_gap_between_slots_read_empty_makes_the_vat_unread() -> None:
    view = _view()
    _line_between_first_two_slots(view, 90)
    cells = ["."] * 256
    out = GAPS.doubt_washed_vats(cells, view)
    assert _vat_cells(out) == ["?"] * 16
    # Only that vat: glare that hid one tile may hide its neighbours, not the board.
    others = [c for i, c in enumerate(out) if PROFILE.vat_of_cell[i] != VAT]
    assert set(others) == {"."}


def test_bare_floor_and_faint_printed_dashes_stay_empty() -> None:
    assert GAPS.doubt_washed_vats(["."] * 256, _view()) == ["."] * 256
    faint = _view()
    _line_between_first_two_slots(faint, 20)
    assert GAPS.doubt_washed_vats(["."] * 256, faint) == ["."] * 256


def test_a_line_beside_a_tile_read_is_that_tiles_edge() -> None:
    # A tile seen in one of the two slots explains the line; nothing is doubted.
    view = _view()
    _line_between_first_two_slots(view, 90)
    cells = ["."] * 256
    for i in SLOTS[0]:
        cells[i] = "R"
    assert GAPS.doubt_washed_vats(cells, view) == cells
