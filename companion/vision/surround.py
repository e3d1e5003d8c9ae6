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
from companion.vision.illumination import grouped_medians
from companion.vision.pixels import bounding_box

# The first millimetres beyond the sheet's edge (its cut edge and the shadow under it, a
# homography a pixel off) are left out of what lies beyond it.
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
    """The frame around the sheet, resampled top-down at ``px_per_mm`` where asked: most
    frames never ask (no coloured patch on the sheet's edge), and each ask resamples only
    the box around its patch."""

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

    @functools.cached_property
    def _frame_on_board(self) -> NDArray[np.float64]:
        """The frame's corners carried onto the board (mm): under a homography, the frame
        covers the quadrilateral they make."""
        height, width = self._frame.shape[:2]
        corners = np.array([[[0, 0], [width, 0], [width, height], [0, height]]], np.float64)
        on_board = cv2.perspectiveTransform(corners, np.linalg.inv(self._homography))[0]
        # Held to a sane range: a corner near the horizon maps very far away.
        return np.asarray(np.clip(on_board, -1e5, 1e5), dtype=np.float64)

    def goes_on(self, patch: NDArray[np.bool_]) -> bool:
        """Whether the colour of ``patch`` (a mask over the sheet at this scale) goes on
        beyond the sheet's edge near it, or the frame does not show what lies there."""
        s = self._s
        reach = round(SURROUND_REACH_MM * s)
        found = bounding_box(patch)  # no coordinates needed: the patch is copied whole
        if found is None:
            return False
        # The box around the patch, as far as the strip beyond it reaches (px of the
        # sheet's view, which may run past the sheet).
        px0, py0, px1, py1 = found
        x0, y0 = px0 - reach, py0 - reach
        x1, y1 = px1 + reach, py1 + reach
        size = (x1 - x0, y1 - y0)
        placed = np.zeros((size[1], size[0]), dtype=np.uint8)
        placed[reach : reach + py1 - py0, reach : reach + px1 - px0] = patch[py0:py1, px0:px1]
        near = cv2.dilate(placed, np.ones((2 * reach + 1, 2 * reach + 1), np.uint8)) > 0
        gap = round(SURROUND_GAP_MM * s)
        width, height = round(self._sheet_mm[0] * s), round(self._sheet_mm[1] * s)
        beyond = np.ones_like(near)
        beyond[
            max(-gap - y0, 0) : max(height + gap - y0, 0),
            max(-gap - x0, 0) : max(width + gap - x0, 0),
        ] = False
        in_frame = np.zeros_like(placed)
        polygon = np.round(self._frame_on_board * s - (x0, y0)).astype(np.int32)
        cv2.fillConvexPoly(in_frame, polygon, 1)
        strip = near & beyond
        seen = strip & (in_frame > 0)
        strip_px = int(np.count_nonzero(strip))
        seen_px = int(np.count_nonzero(seen))
        if strip_px == 0 or seen_px < SURROUND_SEEN_MIN * strip_px:
            return True
        # Resampled only now: a patch whose surround the frame does not show needs none.
        view = board_view(self._frame, self._homography, s, (x0 / s, y0 / s), size)
        lab = np.asarray(cv2.cvtColor(view, cv2.COLOR_BGR2Lab), dtype=np.uint8)
        inside = lab[placed > 0]  # its median by histogram: 8-bit values need no sort
        median = grouped_medians(inside, np.zeros(len(inside), np.intp), 1)[0]
        there = lab[seen].astype(np.float32) - median.astype(np.float32)
        alike = (np.hypot(there[:, 1], there[:, 2]) <= SURROUND_ALIKE_AB) & (
            np.abs(there[:, 0]) <= SURROUND_ALIKE_L
        )
        return bool(alike.mean() >= SURROUND_SHARE_MIN)
