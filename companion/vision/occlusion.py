"""Finding a hand (or arm, or anything foreign) over the board.

An arm always reaches in from outside, so it crosses the bare sheet around the grid.  There
it shows as a large patch that is neither sheet nor a saturated piece colour.  From that
patch the foreign region is grown into the grid through every pixel that is not clearly
floor, and widened by a safety margin for blur and soft edges.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.vision.canonical import CanonicalLayout
from companion.vision.colour import PixelClass

# Smallest foreign patch on the bare sheet taken as a hand (mm²); a leaning dominus covers
# far less of the sheet outside the worker strips.
HAND_MIN_AREA_MM2 = 250.0
HAND_MARGIN_MM = 8.0
SKIN_CHROMA = (12.0, 45.0)
SKIN_HUE_DEG = (15.0, 75.0)
SKIN_MIN_L = 150


def foreign_pixels(lab: NDArray[np.uint8], classes: NDArray[np.uint8]) -> NDArray[np.bool_]:
    """Pixels that look like skin or are unexplained: neither floor/sheet nor a strong colour."""
    a = lab[..., 1].astype(np.int16) - 128
    b = lab[..., 2].astype(np.int16) - 128
    chroma2 = a * a + b * b
    hue = np.degrees(np.arctan2(b, a))
    skin = (
        (chroma2 >= SKIN_CHROMA[0] ** 2)
        & (chroma2 <= SKIN_CHROMA[1] ** 2)
        & (hue >= SKIN_HUE_DEG[0])
        & (hue <= SKIN_HUE_DEG[1])
        & (lab[..., 0] >= SKIN_MIN_L)
    )
    return np.asarray(skin & (classes != PixelClass.NEUTRAL), dtype=bool)


def hand_mask(
    lab: NDArray[np.uint8], classes: NDArray[np.uint8], layout: CanonicalLayout
) -> NDArray[np.bool_] | None:
    """The region covered by a hand, or ``None`` when no hand reaches over the board."""
    s = layout.px_per_mm
    foreign = foreign_pixels(lab, classes)
    ring = foreign & layout.ring_mask
    small = cv2.morphologyEx(ring.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(small, connectivity=8)
    min_px = HAND_MIN_AREA_MM2 * s * s
    seeds = [i for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] >= min_px]
    if not seeds:
        return None
    grow = cv2.morphologyEx(foreign.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    _, labels2 = cv2.connectedComponents(grow, connectivity=8)
    seed_mask = np.isin(labels, seeds)
    keep = np.unique(labels2[seed_mask])
    keep = keep[keep > 0]
    region = np.isin(labels2, keep)
    margin = max(int(HAND_MARGIN_MM * s), 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * margin + 1, 2 * margin + 1))
    return np.asarray(cv2.dilate(region.astype(np.uint8), kernel) > 0, dtype=bool)
