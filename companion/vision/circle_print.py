"""An empty worker space, proven by the printed circle around it showing all round.

A space's own colour tests fail where the light moves the bare sheet out of its class: a
warm lamp's orange, a dim corner between two lamps, glare.  Its print does not change
with the light (see :mod:`companion.vision.slot_print`): the thin circle printed round
the space keeps its contrast relative to the light around it.  A piece standing in the
space hides part of the circle under its base and more of it under its lean; only a
piece leaning away from the camera leaves much of it in view.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

from companion.boards import LINES, BoardProfile
from companion.vision.slot_print import Box

# The circle is compared in a square this far (mm) beyond it on every side: room for
# the view to put it a pixel or two off.
CIRCLE_MARGIN_MM = 2.0

# How well the bare board's print shows in a box of the canonical view.
PrintCorrelation = Callable[[NDArray[np.uint8], Box], float]


class CirclePrint:
    """Each worker space's square around its printed circle, laid out once per board."""

    def __init__(
        self, profile: BoardProfile, px_per_mm: float, correlation: PrintCorrelation
    ) -> None:
        """``correlation`` compares a box of the view with the bare board's print on a
        printed line's scale, as the slots' dashes are compared (see
        :meth:`~companion.vision.slot_print.SlotPrint.correlation`)."""
        self._correlation = correlation
        g = profile.geometry
        half = g.worker_space_diameter_mm / 2 + CIRCLE_MARGIN_MM
        self._boxes: list[Box] = []
        for line in range(LINES):
            x, y = g.worker_space_centre_mm(line)
            self._boxes.append(
                (
                    round((y - half) * px_per_mm),
                    round((y + half) * px_per_mm),
                    round((x - half) * px_per_mm),
                    round((x + half) * px_per_mm),
                )
            )

    def shown(self, view_bgr: NDArray[np.uint8], line: int) -> float:
        """How well the circle of space ``line`` shows in the canonical view: the
        correlation of the frame's detail with the bare print's around it."""
        return self._correlation(view_bgr, self._boxes[line])


__all__ = ["CIRCLE_MARGIN_MM", "CirclePrint", "PrintCorrelation"]
