"""Shared helpers for the vision tests: rendered photos and truth comparisons."""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.boards import BoardProfile
from companion.games.garum.state import BoardState


def confident_wrong_cells(got: BoardState, truth: BoardState) -> list[int]:
    return [
        i for i, (a, b) in enumerate(zip(got.cells, truth.cells, strict=True)) if a not in ("?", b)
    ]


def cover_marker(
    image: NDArray[np.uint8], homography: NDArray[np.float64], profile: BoardProfile, marker: int
) -> NDArray[np.uint8]:
    """A copy of ``image`` with one marker (and its quiet zone) painted over in grey."""
    m = profile.markers
    cx, cy = m.centres_mm[marker]
    half = m.side_mm / 2 + m.quiet_zone_mm
    corners = np.array(
        [
            [cx - half, cy - half],
            [cx + half, cy - half],
            [cx + half, cy + half],
            [cx - half, cy + half],
        ],
        np.float64,
    ).reshape(-1, 1, 2)
    quad = cv2.perspectiveTransform(corners, homography).reshape(-1, 2)
    out = image.copy()
    cv2.fillConvexPoly(out, np.round(quad).astype(np.int32), (90, 110, 140))
    return out
