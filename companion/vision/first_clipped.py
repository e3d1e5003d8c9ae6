"""Which channel glare clipped first: the one the tile's ink holds highest.

Glare adds the lamp's light to a glossy tile, alike in every channel once the view is
balanced, on top of the ink scaled by the diffuse light.  Adding alike keeps the order of
the channels, so the one the ink holds highest reaches the sensor's limit first.  A pixel
with one channel at the limit and the other two below it, that channel still above them
once balanced (a clipped channel's balanced level is only a lower bound, so this is proof),
shows which channel its ink holds highest:

- blue: only a blue ink;
- green: only a green ink, when it stands well above red (a yellow holds its red about
  level with its green, or higher, and the cream floor higher);
- red: a red or a yellow ink (or the floor), told apart by green against blue, which a
  red holds level and a yellow far apart.

No pixel of a cell washed white, or clipped in two channels, says anything here.  Inside a
slot known to hold a tile, a cell a good share of whose pixels show one species this way,
and almost none another, is that species.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from companion.vision.cells import SPECIES_ORDER
from companion.vision.colour import SENSOR_LIMIT
from companion.vision.floor import CellWindows

BLUE, GREEN, RED = 0, 1, 2  # BGR channel indices

# Species whose first clipped channel (blue, green) the cream floor holds below its red:
# glare clips the floor's red first, so these name an ink wherever they show.
FLOOR_NEVER_FIRST = frozenset("BG")


@dataclass(frozen=True)
class FirstClippedRules:
    """Thresholds on a washed cell's pixels (8-bit levels, shares of its window)."""

    # The clipped channel's balanced lower bound lies this far above the other two at least:
    # JPEG noise at the limit moves a level or two.
    order_margin: int = 3
    # ... and green this far: a yellow ink holds its green about level with its red, so
    # glare may clip a yellow's green a little first (photoreal 5001 ``img031``: a
    # yellow read green, 0.17 of its window green-first, every such pixel within 10 of
    # its red), where a green ink holds red far below (of 858 green cells so clipped on
    # stored photoreal frames, 737 show 0.15 of their window green-first at the margin
    # above, 727 at this one; no yellow cell shows any).
    green_lead_min: int = 10
    # Where red clipped first, balanced green and blue this close show a red ink (washed
    # reds of photoreal frames: 9 to 10 apart at the median, the print spreads them by up
    # to about 20) ...
    red_green_blue_max: int = 15
    # ... and this far apart a yellow (washed yellows: 43 and more).
    yellow_green_blue_min: int = 30
    # The cell's pixels showing its species this way: at least this share of its window ...
    species_share_min: float = 0.3
    # ... or this share for blue and green, channels the cream floor never clips first
    # (photoreal and conditions frames: floor cells show at most 0.09 of either; 0.1 of
    # a cell's window named no other species than its own in about 30 000 clipped cells).
    ink_share_min: float = 0.15
    # ... and those showing any other species at most this share.
    other_share_max: float = 0.05


def species_shares(
    raw: NDArray[np.uint8], balanced: NDArray[np.uint8], rules: FirstClippedRules
) -> NDArray[np.float64]:
    """Per species (SPECIES_ORDER), the share of these pixels (any shape x BGR; the
    camera's levels and the balanced ones) whose first clipped channel names it."""
    levels = balanced.reshape(-1, 3).astype(np.int16)
    limited = raw.reshape(-1, 3) >= SENSOR_LIMIT
    alone = limited & (limited.sum(axis=1) == 1)[:, None]
    counts = {letter: 0 for letter in SPECIES_ORDER}
    for channel, letters in ((BLUE, "B"), (GREEN, "G"), (RED, "RY")):
        others = [c for c in (BLUE, GREEN, RED) if c != channel]
        margin = max(rules.order_margin, rules.green_lead_min if channel == GREEN else 0)
        above = levels[:, channel] >= levels[:, others].max(axis=1) + margin
        first = alone[:, channel] & above
        if letters == "RY":
            spread = levels[:, GREEN] - levels[:, BLUE]
            counts["R"] = int(np.count_nonzero(first & (spread <= rules.red_green_blue_max)))
            counts["Y"] = int(np.count_nonzero(first & (spread >= rules.yellow_green_blue_min)))
        else:
            counts[letters] = int(np.count_nonzero(first))
    total = max(len(levels), 1)
    return np.array([counts[letter] / total for letter in SPECIES_ORDER], dtype=np.float64)


def first_clipped_species(
    raw: NDArray[np.uint8],
    balanced: NDArray[np.uint8],
    windows: CellWindows,
    index: int,
    rules: FirstClippedRules,
) -> str | None:
    """The species cell ``index``'s first clipped channel names (views in the canonical
    layout, the camera's and the balanced), or ``None`` when no species clearly leads."""
    box = (
        slice(int(windows.y0[index]), int(windows.y1[index])),
        slice(int(windows.x0[index]), int(windows.x1[index])),
    )
    shares = species_shares(raw[box], balanced[box], rules)
    best = int(np.argmax(shares))
    letter = SPECIES_ORDER[best]
    share_min = rules.ink_share_min if letter in FLOOR_NEVER_FIRST else rules.species_share_min
    others = np.delete(shares, best)
    if shares[best] >= share_min and others.max() <= rules.other_share_max:
        return letter
    return None


__all__ = ["FLOOR_NEVER_FIRST", "FirstClippedRules", "first_clipped_species", "species_shares"]
