"""The simplest reader that could work: the yardstick the real reader's speed is held to.

Markers found on a half-size image, one homography, the frame warped to the canonical
1.25 px/mm view, the mean colour of each cell, and the nearest printed colour. It ignores
workers, glare, hands and shadows; it exists only so a benchmark can say how many times
slower the real reader is, measured in the same process on the same frames.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.boards import GRID, BoardProfile
from companion.vision.canonical import CanonicalLayout
from companion.vision.colour import hex_to_bgr

HALF = 0.5  # the marker search runs on a half-size image, as a cheap reader would


class NaiveReader:
    """Reads cells only, with no confidence: a cost baseline, never a product reader."""

    def __init__(self, profile: BoardProfile) -> None:
        self.layout = CanonicalLayout(profile)
        markers = profile.markers
        dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, markers.dictionary))
        self._detector = cv2.aruco.ArucoDetector(dictionary, cv2.aruco.DetectorParameters())
        self._centres_mm = markers.centres_mm
        palette = [(".", hex_to_bgr(profile.colours.vat_floor))]
        palette += [(k, hex_to_bgr(v)) for k, v in profile.colours.species.items()]
        self._letters = [k for k, _ in palette]
        self._palette = np.array([v for _, v in palette], dtype=np.float64)
        labels = self.layout.cell_labels.ravel()
        inside = labels >= 0
        self._pixels = np.flatnonzero(inside)
        self._labels = labels[inside]
        self._counts = np.bincount(self._labels, minlength=GRID * GRID).astype(np.float64)

    def read(self, frame_bgr: NDArray[np.uint8]) -> str | None:
        """256 cell letters, or ``None`` when fewer than four markers are seen."""
        gray = cv2.cvtColor(frame_bgr, cv2.COLOR_BGR2GRAY)
        small = cv2.resize(gray, None, fx=HALF, fy=HALF, interpolation=cv2.INTER_AREA)
        corners, ids, _ = self._detector.detectMarkers(small)
        if ids is None:
            return None
        found = {
            int(i): q.reshape(4, 2).mean(axis=0) / HALF
            for q, i in zip(corners, ids.ravel(), strict=True)
        }
        keys = [k for k in sorted(self._centres_mm) if k in found]
        if len(keys) < 4:
            return None
        src = np.array([self._centres_mm[k] for k in keys], dtype=np.float64)
        dst = np.array([found[k] for k in keys], dtype=np.float64)
        homography, _ = cv2.findHomography(src, dst, 0)
        if homography is None:
            return None
        # OpenCV's warp of the frame as it comes: the plain call a simple reader makes
        # (the real reader resamples only the part of the frame it needs, faster).
        scale = 1 / self.layout.px_per_mm
        to_frame = np.asarray(homography, np.float64) @ np.diag([scale, scale, 1.0])
        view = cv2.warpPerspective(
            frame_bgr,
            to_frame,
            self.layout.size_px,
            flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        )
        view = view.reshape(-1, 3)[self._pixels]
        sums = np.stack(
            [
                np.bincount(self._labels, weights=view[:, ch], minlength=GRID * GRID)
                for ch in range(3)
            ],
            axis=1,
        )
        means = sums / np.maximum(self._counts, 1.0)[:, None]
        distance = np.linalg.norm(means[:, None, :] - self._palette[None, :, :], axis=2)
        return "".join(self._letters[i] for i in np.argmin(distance, axis=1))
