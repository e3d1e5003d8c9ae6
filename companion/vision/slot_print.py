"""Bare floor in a shadow or a lamp's tint, proven by the dashes printed inside its slot.

The floor's colour proves a cell bare only in the light the floor model knows: in a hard
shadow deeper than it follows, or in a lamp's tinted corner, bare floor comes in unread.
Its print does not change with the light: the faint dashes between a slot's four cells
keep their contrast relative to the light around them (as the print does under a shadow,
see :mod:`companion.vision.shadows`).  A tile lying in the slot covers them with its own
print, and so does a sleeve or an arm.  A slot whose cells show no species colour and
whose dashes show is empty.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray

from companion.boards import GRID, BoardProfile
from companion.vision.cells import SPECIES_ORDER, CellRules
from companion.vision.colour import PixelClass
from companion.vision.floor import CellColour, FloorModel, clipped, floor_offset_in_shade
from companion.vision.shadows import PrintUnderShadow, ShadowRules

# A slot's box in the canonical view: top, bottom, left, right pixels (ends excluded).
Box = tuple[int, int, int, int]


@dataclass(frozen=True)
class SlotPrintRules:
    """Where a slot's print is compared (millimetres on the board) and how well it must
    show."""

    # Detail is taken against the mean log-brightness within this radius (Gaussian sigma):
    # a dash's width, so that the steps between the colours of the slots around, and
    # between a tile and its neighbours, stay out of it (at the shadow test's 2.5 mm a
    # synthetic tile of one colour correlated 0.58 with the dashes, at 1.5 mm 0.16).
    detail_sigma_mm: float = 1.5
    # The slot's outline is left out by this much: a tile's edges lie there, and its
    # neighbours' (the dashes between its cells cross its middle, 18 mm inside).
    inset_mm: float = 3.0
    # The dashes show where the frame's detail correlates with the print's this well.
    # Only slots showing no tile's colour in any cell are asked: over 1,086 stored clear
    # frames none of 36,976 slots holding a tile reached 0.31, and the tiles that show no
    # colour of their own (glare-washed, or deep in a shadow) stay far lower: 106 such
    # slots in 1,606 generated and photoreal frames, 0.16 at most.  Bare floor in a hard
    # shadow or a second lamp's tinted corner, whose dashes the light blurs, was left
    # unread from 0.22 to 0.35 (conditions 81175, 78167 the lowest): the bar lies midway
    # between the two.
    shown_min: float = 0.20
    # ... and where every cell's mean colour lies within this many Lab units of the
    # floor's, shrunk with the light in a shadow: a tile's cells of different colours
    # meet along the dashes, and in a deep shadow their steps can pass for them, but
    # their inks keep their chroma there.  Wider than the floor proof's own 4: in a
    # lamp's tinted corner bare floor lies up to 7 off the floor fitted to the board.
    floor_offset_max: float = 8.0
    # Where the dashes show as no tile's detail ever did, the floor's colour may lie
    # further off: over 36,976 slots holding a tile in 1,086 stored clear frames none
    # reached 0.31 (tiles washed of all colour 0.17), while a warm lamp's glare moved bare
    # floor whose dashes showed 0.52 to 0.86 by 9 to 11 Lab units.  Between the two bars
    # the offset allowed grows with the dashes' clarity: bare floor in a warm lamp's
    # bright corner, its dashes at 0.39, lay 7 to 9 units off (conditions 93372).  The
    # full allowance starts at 0.4, still 0.09 above the clearest tile: bare floor under
    # a bright warm lamp, red near the limit, showed dashes at 0.40 to 0.46 and lay 11
    # to 12 off (conditions 100074, 100283).
    clear_shown_min: float = 0.4
    clear_floor_offset_max: float = 12.0
    # A cell the sensor clipped in a channel keeps only a bound there, and balanced, the
    # clipped channel falls behind the others: bare floor under a bright warm spot, red
    # clipped, lay 10 to 12 Lab units off the floor (conditions 90728).  Its colour then
    # proves nothing either way, and the dashes alone must prove the slot bare, as
    # clearly as no slot holding a tile ever showed them (0.31 at most, above).
    clipped_shown_min: float = 0.4


class SlotPrint:
    """Each slot's box inside its outline, laid out once per board."""

    def __init__(self, profile: BoardProfile, px_per_mm: float, rules: SlotPrintRules) -> None:
        self.rules = rules
        self.profile = profile
        self._print = PrintUnderShadow(
            profile, px_per_mm, replace(ShadowRules(), detail_sigma_mm=rules.detail_sigma_mm)
        )
        g = profile.geometry
        side = 2 * g.cell_mm - 2 * rules.inset_mm
        self.boxes: dict[tuple[int, ...], Box] = {}
        for slot in profile.slots:
            row, col = divmod(min(slot), GRID)
            x, y = g.cell_corner_mm(row, col)
            left = round((x + rules.inset_mm) * px_per_mm)
            top = round((y + rules.inset_mm) * px_per_mm)
            width = round(side * px_per_mm)
            self.boxes[tuple(slot)] = (top, top + width, left, left + width)

    def correlation(self, view_bgr: NDArray[np.uint8], box: Box) -> float:
        """How well the bare board's dashes show in ``box`` of the canonical view (see
        :meth:`~companion.vision.shadows.PrintUnderShadow.correlation_in`)."""
        return self._print.correlation_in(view_bgr, box)


def prove_floor_by_print(
    cells: list[str],
    colourless: NDArray[np.bool_],
    colour: CellColour,
    floor: FloorModel,
    slot_print: SlotPrint,
    view_bgr: NDArray[np.uint8],
    hidden: frozenset[int] = frozenset(),
) -> list[str]:
    """Slots left unread with no tile's colour in any cell become empty where their
    printed dashes show and their colour is near the floor's in the light they are in,
    the nearer the fainter the dashes, or where they show clearly, the colour of the
    cells below the sensor's limit (``colourless``: per cell, :func:`no_tile_colour`;
    ``view_bgr``: the canonical view); an arm's cells are never proven."""
    unread = unread_plain_slots(cells, slot_print.boxes, hidden)
    if not unread:
        return list(cells)  # most frames: nothing to prove
    rules = slot_print.rules
    offset = floor_offset_in_shade(colour, floor)
    at_limit = clipped(colour)
    out = list(cells)
    for slot in unread:
        if not all(colourless[i] for i in slot):
            continue
        furthest = max(float(offset[i]) for i in slot)
        # The cells below the sensor's limit: a clipped one's colour proves nothing.
        measured = max((float(offset[i]) for i in slot if not at_limit[i]), default=0.0)
        if measured > max(rules.floor_offset_max, rules.clear_floor_offset_max):
            continue  # too far off the floor whatever the print shows
        shown = slot_print.correlation(view_bgr, slot_print.boxes[slot])
        if _print_proves_floor(shown, furthest, rules) or (
            shown >= rules.clipped_shown_min and _print_proves_floor(shown, measured, rules)
        ):
            for i in slot:
                out[i] = "."
    return out


def _print_proves_floor(shown: float, furthest: float, rules: SlotPrintRules) -> bool:
    """Whether dashes showing this well prove bare floor whose cells' colour lies up to
    ``furthest`` Lab units off the floor's: the fainter the dashes, the nearer it must be,
    from ``floor_offset_max`` where they barely show to ``clear_floor_offset_max`` where
    they show clearly."""
    if shown < rules.shown_min:
        return False
    clarity = min((shown - rules.shown_min) / (rules.clear_shown_min - rules.shown_min), 1.0)
    allowed = rules.floor_offset_max + clarity * (
        rules.clear_floor_offset_max - rules.floor_offset_max
    )
    return furthest <= allowed


def unread_plain_slots(
    cells: list[str], slots: Iterable[tuple[int, ...]], hidden: frozenset[int]
) -> list[tuple[int, ...]]:
    """The slots with a cell left unread, none read as a species and none under an arm:
    the ones a proof of bare floor may settle."""
    return [
        slot
        for slot in slots
        if "?" in (chars := [cells[i] for i in slot])
        and not any(c in SPECIES_ORDER for c in chars)
        and not hidden.intersection(slot)
    ]


def no_tile_colour(
    fractions: NDArray[np.float64], rules: CellRules, bonus_kind: dict[int, str]
) -> NDArray[np.bool_]:
    """Per cell, whether it shows no more species colour than bare floor does: a stray
    edge at most, and on a bonus cell its printed icon (a star reads as yellow)."""
    species = fractions[:, PixelClass.B : PixelClass.R + 1]
    others = species.sum(axis=1)
    icon_share = np.zeros(len(others))
    for i, kind in bonus_kind.items():
        letter = "Y" if kind == "J" else kind
        icon_share[i] = min(float(fractions[i, PixelClass[letter]]), rules.bonus_icon_max)
    return np.asarray(others - icon_share <= rules.stray_max)


__all__ = [
    "Box",
    "SlotPrint",
    "SlotPrintRules",
    "no_tile_colour",
    "prove_floor_by_print",
    "unread_plain_slots",
]
