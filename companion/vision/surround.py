"""What the frame shows just beyond the sheet's edge.

An arm over the board reaches in from outside: where it crosses the sheet's edge, the
same sleeve or skin goes on past it.  A coloured patch on the sheet's edge that stops
there is something else: the shadow of one lamp lit by the other, or the tablecloth the
lens's barrel distortion bows inside the markers' straight edges.  Beyond the edge, the
tablecloth (or the shadow falling on it) shows its own colours, not the patch's.
"""

from __future__ import annotations

import functools

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.vision.canonical import board_view

# The sheet's outermost millimetres (its cut edge, a homography a pixel off) are left
# out of what lies beyond it.
SURROUND_GAP_MM = 3.0
# How far (mm) beyond the sheet's edge, and along it from a patch, the frame is looked
# at: more than a blurred edge, less than the width of an arm.
SURROUND_REACH_MM = 20.0
# A pixel beyond the edge goes on with the patch when within this many Lab units of the
# patch's median colour: chroma (a, b) closely, lightness loosely (skin and a sleeve
# shade unevenly along an arm).
SURROUND_ALIKE_AB = 12.0
SURROUND_ALIKE_L = 30.0
# A patch goes on past the edge when this share of what lies beyond it is alike: an
# arm's crossing fills a good part of the strip beyond its patch (measured 0.2-1.0 on
# arms; a shadow or tablecloth beyond a patch leaves 0.0 on nearly every frame).
SURROUND_SHARE_MIN = 0.2
# Less than this share of the strip beyond a patch inside the frame (the sheet runs off
# the view) and nothing can be told: the patch is taken to go on.
SURROUND_SEEN_MIN = 0.3


class SheetSurround:
    """The sheet and a strip around it, resampled top-down at ``px_per_mm`` on demand:
    most frames never ask (no coloured patch on the sheet's edge), and the warp is then
    skipped."""

    def __init__(
        self,
        frame: NDArray[np.uint8],
        homography: NDArray[np.float64],
        sheet_mm: tuple[float, float],
        px_per_mm: float,
    ) -> None:
        self._frame = frame
        self._homography = homography
        self._sheet_mm = sheet_mm
        self._s = px_per_mm
        self._pad = round((SURROUND_GAP_MM + SURROUND_REACH_MM) * px_per_mm) + 1

    @functools.cached_property
    def _lab(self) -> NDArray[np.uint8]:
        """The padded view in Lab, with pixels outside the frame left black."""
        width = round(self._sheet_mm[0] * self._s) + 2 * self._pad
        height = round(self._sheet_mm[1] * self._s) + 2 * self._pad
        origin = (-self._pad / self._s, -self._pad / self._s)
        view = board_view(self._frame, self._homography, self._s, origin, (width, height))
        return np.asarray(cv2.cvtColor(view, cv2.COLOR_BGR2Lab), dtype=np.uint8)

    @functools.cached_property
    def _in_frame(self) -> NDArray[np.bool_]:
        """Pixels of the padded view that lie inside the camera's frame."""
        height, width = self._frame.shape[:2]
        inside = np.full((height, width), 255, dtype=np.uint8)
        lab = self._lab  # same geometry
        origin = (-self._pad / self._s, -self._pad / self._s)
        seen = board_view(inside, self._homography, self._s, origin, lab.shape[1::-1])
        return np.asarray(seen == 255, dtype=bool)

    @functools.cached_property
    def _beyond(self) -> NDArray[np.bool_]:
        """The strip beyond the sheet's edge, past its outermost millimetres."""
        lab = self._lab
        gap = round(SURROUND_GAP_MM * self._s)
        beyond = np.ones(lab.shape[:2], dtype=bool)
        beyond[self._pad - gap : -self._pad + gap, self._pad - gap : -self._pad + gap] = False
        return beyond

    def goes_on(self, patch: NDArray[np.bool_]) -> bool:
        """Whether the colour of ``patch`` (a mask over the sheet at this scale) goes on
        beyond the sheet's edge near it, or the frame does not show what lies there."""
        lab = self._lab
        placed = np.zeros(lab.shape[:2], dtype=np.uint8)
        pad = self._pad
        placed[pad : pad + patch.shape[0], pad : pad + patch.shape[1]] = patch
        reach = 2 * round(SURROUND_REACH_MM * self._s) + 1
        near = cv2.dilate(placed, np.ones((reach, reach), np.uint8)) > 0
        strip = near & self._beyond
        seen = strip & self._in_frame
        strip_px = int(np.count_nonzero(strip))
        seen_px = int(np.count_nonzero(seen))
        if strip_px == 0 or seen_px < SURROUND_SEEN_MIN * strip_px:
            return True
        median = np.median(lab[placed > 0].astype(np.float32), axis=0)
        there = lab[seen].astype(np.float32) - median
        alike = (np.hypot(there[:, 1], there[:, 2]) <= SURROUND_ALIKE_AB) & (
            np.abs(there[:, 0]) <= SURROUND_ALIKE_L
        )
        return bool(alike.mean() >= SURROUND_SHARE_MIN)
