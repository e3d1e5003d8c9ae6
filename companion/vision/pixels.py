"""Where a mask's pixels are, found fast.

``np.nonzero`` on a 2-D mask is several times slower than on a flat one, and a frame asks
for such coordinates a dozen times; a bounding box needs no coordinates at all.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray


def pixel_coords(mask: NDArray[np.bool_]) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """Rows and columns of a 2-D mask's set pixels, in row-major order (as ``np.nonzero``)."""
    ys, xs = np.divmod(np.flatnonzero(mask), mask.shape[1])
    return ys, xs


def bounding_box(mask: NDArray[np.bool_] | NDArray[np.uint8]) -> tuple[int, int, int, int] | None:
    """``(x0, y0, x1, y1)`` (ends excluded) around a 2-D mask's set pixels, or ``None``."""
    x, y, w, h = cv2.boundingRect(np.ascontiguousarray(mask).view(np.uint8))
    if w == 0:
        return None
    return x, y, x + w, y + h


__all__ = ["bounding_box", "pixel_coords"]
