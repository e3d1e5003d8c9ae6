"""The stability gate: a reading counts only once the view has been still for a while.

Players' hands move over the board all the time; a frame taken mid-move shows tiles half
placed.  The gate watches a small grey thumbnail of each frame and accepts a reading only
after the picture has stopped changing for ``still_s`` seconds, and never while a hand is
seen over the board.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.games.garum.state import BoardState
from companion.vision.reader import Reading

THUMB_SIZE = (64, 48)


@dataclass
class StabilityGate:
    """Feed every frame with its reading; ``update`` returns the accepted state or ``None``."""

    still_s: float = 0.5  # the view must stay this still (s) before a reading counts
    motion_threshold: float = 4.0  # mean absolute grey change (0-255) that counts as motion
    _previous: NDArray[np.float32] | None = None
    _still_since: float | None = None
    _candidate: BoardState | None = None
    accepted: BoardState | None = None

    def motion(self, frame_bgr: NDArray[np.uint8]) -> float:
        """Mean grey change since the previous frame (0 for the first frame)."""
        gray = cv2.cvtColor(frame_bgr, cv2.COLOR_BGR2GRAY)
        thumb = cv2.resize(gray, THUMB_SIZE, interpolation=cv2.INTER_AREA).astype(np.float32)
        previous, self._previous = self._previous, thumb
        if previous is None:
            return 0.0
        return float(np.mean(np.abs(thumb - previous)))

    def update(
        self, frame_bgr: NDArray[np.uint8], reading: Reading, now_s: float
    ) -> BoardState | None:
        """The newly accepted state, or ``None`` while moving, occluded or unchanged."""
        moving = self.motion(frame_bgr) > self.motion_threshold
        state = reading.state
        if moving or state is None or reading.occluded or state != self._candidate:
            self._still_since = None if (moving or state is None or reading.occluded) else now_s
            self._candidate = None if (state is None or reading.occluded) else state
            return None
        if self._still_since is None:
            self._still_since = now_s
            return None
        if now_s - self._still_since < self.still_s or state == self.accepted:
            return None
        self.accepted = state
        return state
