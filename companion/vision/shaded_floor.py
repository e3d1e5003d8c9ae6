"""Bare floor in a shadow, proven by keeping the floor's hue as its light fades.

A shadow dims the floor and shrinks its chroma with its light, keeping its hue: the
cream floor in a shadow is a darker, greyer cream.  The colour proof asks a cell to lie
within a few units of the floor's colour (:func:`~companion.vision.floor.shows_floor`),
and in a deep shadow, or where the shadow's light differs in colour from the lamp the
floor model was fitted under, bare floor misses it by a little; the printed dashes that
prove it otherwise (:mod:`companion.vision.slot_print`) fade into the camera's noise
there.  What a cell cannot do by chance is stay on the floor's side of grey: its step
from the floor's expected chroma must be small against the floor's own distance from
grey.  Grey is what a dark sleeve, a cuff or a deep shadow's noise shows, and every
tile's ink lies far from the floor on its own side of the hue circle.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from companion.boards import BoardProfile
from companion.vision.cells import CellRules
from companion.vision.floor import (
    CellColour,
    FloorModel,
    ShadedFloor,
    keeps_floor_hue,
    washed_out,
)
from companion.vision.slot_print import no_tile_colour, unread_plain_slots


@dataclass(frozen=True)
class ShadedFloorRules:
    """How near a shaded cell's chroma must lie to the floor's (8-bit Lab units)."""

    # At most this far in any light: the slot print's allowance for a lamp's tinted
    # corner (SlotPrintRules.floor_offset_max).  The floor's hue is asked as the colour
    # proof asks it in a shadow (:func:`~companion.vision.floor.keeps_floor_hue`), with a
    # wider step than its own 4: bare floor in a deep shadow lies up to 7 off it.
    offset_max: float = 8.0


def prove_shaded_floor_by_hue(
    cells: list[str],
    fractions: NDArray[np.float64],
    colour: CellColour,
    floor: FloorModel,
    cell_rules: CellRules,
    profile: BoardProfile,
    rules: ShadedFloorRules,
    hidden: frozenset[int] = frozenset(),
) -> list[str]:
    """Slots left unread with no tile's colour in any cell become empty where every cell
    lies in a shadow, keeps the floor's hue there and shows no species' pixels
    (``fractions``: each cell's pixel classes); an arm's cells are never proven."""
    unread = unread_plain_slots(cells, profile.slots, hidden)
    if not unread:
        return list(cells)  # most frames: nothing to prove
    shade = ShadedFloor.expected(colour, floor)
    floor_hued = (
        shade.shaded
        & ~washed_out(colour)
        & keeps_floor_hue(colour, shade)
        & (shade.offset(colour) <= rules.offset_max)
    )
    floor_hued &= no_tile_colour(fractions, cell_rules, profile.bonus_kind)
    out = list(cells)
    for slot in unread:
        if all(floor_hued[i] for i in slot):
            for i in slot:
                out[i] = "."
    return out


__all__ = ["ShadedFloorRules", "prove_shaded_floor_by_hue"]
