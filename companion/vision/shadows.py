"""A shadow is not an arm: the board's print shows through a shadow, never through an arm.

The hard shadow of a lamp's arm or of a person darkens the sheet until its warm beige looks
like skin, so it can pass every colour test an arm passes.  It only dims what lies under it:
each printed line (the worker circles, the walls around and between the vats, the markers)
keeps its contrast relative to the light around it, where an arm hides the print.  The
region found for an arm is compared, part by part, with the print of the bare board where
no tile can lie; when the print shows in nearly every part that has any, the region is a
shadow and there is no arm.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.boards import GRID, BoardProfile
from companion.vision.artwork import BoardTexture


@dataclass(frozen=True)
class ShadowRules:
    """How the print is looked for under a region (millimetres on the board)."""

    # Contrast is taken relative to the mean log-brightness within this radius (Gaussian
    # sigma): wider than a printed line, narrower than a shadow's soft edge.
    detail_sigma_mm: float = 2.5
    # The region is judged in square parts this wide: about one worker circle, or a
    # stretch of wall with the sheet beside it.
    part_mm: float = 12.0
    # A part is judged where the region covers this share of it, on known print ...
    part_cover_min: float = 0.3
    # ... and its expected detail varies by this much at least (standard deviation of the
    # log-brightness detail; a printed line against the sheet gives 0.1 and more).
    part_detail_min: float = 0.05
    # The print shows in a part where the frame's detail correlates with it this well
    # (over 1,000 parts of arms and shadows: under an arm mostly below 0.2).
    shown_correlation_min: float = 0.5
    # A region is a shadow when the print shows in this share of its judged parts (arms
    # over 209 frames: at most 0.38; a lamp arm's hard shadow: 0.86) ...
    shadow_share_min: float = 0.7
    # ... and it has this many parts judged at least; fewer prove nothing.
    parts_min: int = 8


class PrintUnderShadow:
    """The detail of the bare board's print where no tile can lie, in the canonical view,
    drawn once per board."""

    def __init__(self, profile: BoardProfile, px_per_mm: float, rules: ShadowRules) -> None:
        self.rules = rules
        self._s = px_per_mm
        texture = BoardTexture(profile, 2 * px_per_mm)
        g = profile.geometry
        width, height = round(g.sheet_mm[0] * px_per_mm), round(g.sheet_mm[1] * px_per_mm)
        grey = cv2.cvtColor(texture.image, cv2.COLOR_BGR2GRAY)
        grey = cv2.resize(grey, (width, height), interpolation=cv2.INTER_AREA)
        self._expected = self._detail(np.asarray(grey, np.uint8))
        # The print is known everywhere but inside the vats, where tiles may lie.
        known = np.ones((height, width), dtype=bool)
        x0, y0 = g.grid_origin_mm
        side = 4 * g.cell_mm
        for vat_row in range(GRID // 4):
            for vat_col in range(GRID // 4):
                x = x0 + g.cell_start_mm(vat_col * 4)
                y = y0 + g.cell_start_mm(vat_row * 4)
                rows = slice(round(y * px_per_mm), round((y + side) * px_per_mm))
                known[rows, round(x * px_per_mm) : round((x + side) * px_per_mm)] = False
        self._known = known

    def _detail(self, grey: NDArray[np.uint8]) -> NDArray[np.float32]:
        """Log-brightness less its local mean: a shadow scales brightness, so it leaves
        this unchanged but for its own edge."""
        logs = np.log(grey.astype(np.float32) + 8.0)
        return np.asarray(
            logs - cv2.GaussianBlur(logs, (0, 0), self.rules.detail_sigma_mm * self._s),
            np.float32,
        )

    def shows_through(self, region: NDArray[np.bool_], view_bgr: NDArray[np.uint8]) -> bool:
        """Whether the board's print shows through ``region`` (canonical view): a shadow."""
        r = self.rules
        grey = np.asarray(cv2.cvtColor(view_bgr, cv2.COLOR_BGR2GRAY), np.uint8)
        seen = _parts(self._detail(grey), r.part_mm * self._s)
        expected = _parts(self._expected, r.part_mm * self._s)
        weight = _parts((region & self._known).astype(np.float32), r.part_mm * self._s)
        # Per part, weighted moments of the expected (e) and seen (o) detail.
        n = weight.sum(axis=(1, 3))
        judged = n >= r.part_cover_min * weight.shape[1] * weight.shape[3]
        safe = np.maximum(n, 1.0)

        def mean(x: NDArray[np.float32]) -> NDArray[np.float32]:
            return np.asarray((x * weight).sum(axis=(1, 3)) / safe, np.float32)

        e_mean, o_mean = mean(expected), mean(seen)
        e_var = mean(expected * expected) - e_mean**2
        o_var = mean(seen * seen) - o_mean**2
        cov = mean(expected * seen) - e_mean * o_mean
        judged &= e_var >= r.part_detail_min**2
        count = int(judged.sum())
        if count < r.parts_min:
            return False
        correlation = cov / np.sqrt(np.maximum(e_var * o_var, 1e-12))
        shown = int((judged & (correlation >= r.shown_correlation_min)).sum())
        return shown >= r.shadow_share_min * count


def _parts(image: NDArray[np.float32], part_px: float) -> NDArray[np.float32]:
    """``image`` cut into square parts, as (rows, part height, columns, part width); the
    ragged right and bottom edges are left out."""
    side = max(round(part_px), 1)
    rows, cols = image.shape[0] // side, image.shape[1] // side
    return image[: rows * side, : cols * side].reshape(rows, side, cols, side)
