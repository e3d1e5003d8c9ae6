"""The canonical view's resampling: the fast path must show what a plain warp shows."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from companion.vision.canonical import board_view


def _plain(
    frame: NDArray[np.uint8], homography: NDArray[np.float64], size: tuple[int, int], border: int
) -> NDArray[np.uint8]:
    return np.asarray(
        cv2.warpPerspective(
            frame,
            homography,
            size,
            flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
            borderMode=border,
            borderValue=(0, 0, 0),
        ),
        dtype=np.uint8,
    )


def _frame(seed: int) -> NDArray[np.uint8]:
    rng = np.random.default_rng(seed)
    noise = rng.integers(0, 256, (240, 320, 3), dtype=np.uint8)
    return np.asarray(cv2.GaussianBlur(noise, (0, 0), 2.0), dtype=np.uint8)


# Board mm to frame pixels: a slanted view inside the frame, and one running off its
# right and bottom edges.
INSIDE = np.array([[0.5, 0.08, 40.0], [-0.05, 0.45, 30.0], [0.0002, 0.0001, 1.0]])
OFF_THE_EDGE = np.array([[0.9, 0.1, 180.0], [0.0, 0.8, 140.0], [0.0, 0.0004, 1.0]])


@pytest.mark.parametrize("homography", [INSIDE, OFF_THE_EDGE])
@pytest.mark.parametrize("border", [cv2.BORDER_CONSTANT, cv2.BORDER_REPLICATE])
def test_board_view_matches_a_plain_warp(homography: NDArray[np.float64], border: int) -> None:
    frame = _frame(7)
    size = (300, 280)
    fast = board_view(frame, homography, 1.25, (0.0, 0.0), size, border)
    scale = np.diag([1 / 1.25, 1 / 1.25, 1.0])
    plain = _plain(frame, homography @ scale, size, border)
    difference = np.abs(fast.astype(np.int16) - plain.astype(np.int16))
    assert fast.shape == plain.shape
    assert difference.max() <= 1  # rounding alone
    assert np.count_nonzero(difference) <= 0.001 * difference.size
    if border == cv2.BORDER_CONSTANT and homography is OFF_THE_EDGE:
        assert not fast[-20:, -20:].any()  # beyond the frame: black


def test_a_view_missing_the_frame_is_black() -> None:
    far = np.array([[1.0, 0.0, 5000.0], [0.0, 1.0, 5000.0], [0.0, 0.0, 1.0]])
    assert not board_view(_frame(3), far, 1.25, (0.0, 0.0), (50, 40)).any()
