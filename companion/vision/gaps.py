"""Tiles washed to the floor's colour, betrayed by the gap between them.

Under a broad glare spot glossy tiles can wash to the floor's colour and brightness, none
of their pixels clipped, and a whole patch of them then reads as bare floor: no colour
tells them apart.  What glare leaves is the gap between two tiles side by side: each is
2 mm thick and their edges never meet flush, so a thin dark line runs between them, where
two bare slots show only the faint printed dashes.  Where the line between two slots read
empty is that dark, a tile lies there; the glare that hid it may hide the tiles beside it,
so every slot of that vat read empty becomes unread.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.boards import GRID, BoardProfile


@dataclass(frozen=True)
class GapRules:
    """How the line between two slots is looked at in the canonical view (millimetres on
    the board, 8-bit grey levels)."""

    # Dark lines narrower than this stand out of a morphological closing: a tile's gap
    # does, a wall does not.
    line_width_max_mm: float = 2.25
    # A tile may sit this far off its slot, shifted or turned a little.
    band_half_mm: float = 2.5
    # Share of the line looked at, centred: its ends meet the vat's walls or another line.
    span: float = 0.7
    # A line between two slots is a tile's gap when, along it, the median of the darkest
    # thin line across it reaches this.  On photoreal frames the line between two bare
    # slots stays at 26 or below (12433 lines), between tiles washed to the floor's colour
    # it measures 38 to 68.
    gap_min: float = 35.0


@dataclass(frozen=True)
class _Line:
    """The line between two neighbouring slots of a vat, as pixels of the canonical view."""

    vat: int
    first: tuple[int, ...]  # the two slots either side
    second: tuple[int, ...]
    rows: slice  # the band around the line, in the canonical view
    cols: slice
    along_axis: int  # the band's axis that runs along the line


class SlotGaps:
    """The lines between neighbouring slots of each vat, laid out once per board."""

    def __init__(self, profile: BoardProfile, px_per_mm: float, rules: GapRules) -> None:
        self.profile = profile
        self.rules = rules
        g = profile.geometry
        half = round(rules.band_half_mm * px_per_mm)
        length = 2 * g.cell_mm * px_per_mm
        inset = (1 - rules.span) / 2 * length
        n = round(rules.span * length)  # pixels along every line, the same for all
        width = max(3, round(rules.line_width_max_mm * px_per_mm) | 1)
        self._kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (width, width))
        lines: list[_Line] = []
        for vat, slots in profile.vat_slots.items():
            corner = {divmod(slot[0], GRID): slot for slot in slots}
            for (row, col), slot in corner.items():
                for d_row, d_col in ((0, 2), (2, 0)):
                    other = corner.get((row + d_row, col + d_col))
                    if other is None:
                        continue
                    x_mm, y_mm = g.cell_corner_mm(row + d_row, col + d_col)
                    x, y = x_mm * px_per_mm, y_mm * px_per_mm
                    if d_col:  # side by side: the line between them runs down
                        rows = slice(round(y + inset), round(y + inset) + n)
                        cols = slice(round(x) - half, round(x) + half + 1)
                        along = 0
                    else:
                        rows = slice(round(y) - half, round(y) + half + 1)
                        cols = slice(round(x + inset), round(x + inset) + n)
                        along = 1
                    lines.append(_Line(vat, slot, other, rows, cols, along))
        self._lines = tuple(lines)
        # One box around every line, a kernel's reach wider, for the black-hat.
        pad = width // 2
        top = min(line.rows.start for line in lines) - pad
        left = min(line.cols.start for line in lines) - pad
        bottom = max(line.rows.stop for line in lines) + pad
        right = max(line.cols.stop for line in lines) + pad
        self._box = (slice(max(top, 0), bottom), slice(max(left, 0), right))

    def _dark_lines(self, view_bgr: NDArray[np.uint8]) -> NDArray[np.uint8]:
        """Thin dark lines of the view over the box around every slot line (grey levels
        above their surroundings), once per frame."""
        rows, cols = self._box
        grey = cv2.cvtColor(np.ascontiguousarray(view_bgr[rows, cols]), cv2.COLOR_BGR2GRAY)
        return np.asarray(cv2.morphologyEx(grey, cv2.MORPH_BLACKHAT, self._kernel), np.uint8)

    def _darkest_across(self, dark: NDArray[np.uint8], line: _Line) -> NDArray[np.uint8]:
        """Along the line, the darkest thin line across it (grey levels)."""
        top, left = self._box[0].start, self._box[1].start
        band = dark[
            line.rows.start - top : line.rows.stop - top,
            line.cols.start - left : line.cols.stop - left,
        ]
        return np.asarray(band.max(axis=1 - line.along_axis), dtype=np.uint8)

    def doubt_washed_vats(self, cells: list[str], view_bgr: NDArray[np.uint8]) -> list[str]:
        """``cells`` with every slot read empty (wholly or in part, no tile seen) made
        unread in each vat where two such slots show a tile's gap between them."""
        candidates = [
            line for line in self._lines if _shows_no_tile(cells, line.first + line.second)
        ]
        if not candidates:
            return cells
        dark = self._dark_lines(view_bgr)
        # Every line is as long: one median over all of them at once.
        gaps = np.median(
            np.stack([self._darkest_across(dark, line) for line in candidates]), axis=1
        )
        doubted = {
            line.vat
            for line, gap in zip(candidates, gaps, strict=True)
            if gap >= self.rules.gap_min
        }
        if not doubted:
            return cells
        out = list(cells)
        for vat in doubted:
            for slot in self.profile.vat_slots[vat]:
                if _shows_no_tile(out, slot):
                    for i in slot:
                        out[i] = "?"
        return out


def _shows_no_tile(cells: list[str], indices: tuple[int, ...]) -> bool:
    """Whether the cells at ``indices`` (a slot, or the two slots beside a line) show no
    tile, one of them read empty at least."""
    chars = [cells[i] for i in indices]
    return "." in chars and all(c in ".?" for c in chars)


__all__ = ["GapRules", "SlotGaps"]
