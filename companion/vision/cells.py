"""Reading the 256 fish cells from classified pixels, abstaining when unsure.

A cell is a colour only when that colour clearly dominates its window; empty only when the
window is floor except for a printed bonus icon; anything else is ``?``.  Then the tile
constraint is applied per 2 x 2 slot: a slot is either four empty cells or one tile whose
colour is strictly predominant.  A slot that breaks this has a misread cell somewhere, so all
its cells become ``?``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from companion.boards import GRID, BoardProfile
from companion.vision.colour import PixelClass, dark_inks_named

N_CLASSES = len(PixelClass)
CELLS = GRID * GRID
SPECIES_ORDER = "BGYR"
_LETTERS = np.array(list(SPECIES_ORDER))


@dataclass(frozen=True)
class CellRules:
    """Thresholds on the fractions of a cell window's pixels."""

    colour_min: float = 0.6  # the cell's colour covers at least this much
    bonus_colour_min: float = 0.85  # ... more on a bonus cell printed in that colour
    # ... unless the colour also covers the ring around the icon, where only a tile is.
    bonus_ring_tile_min: float = 0.6
    colour_ratio: float = 4.0  # ... and this many times the next colour
    empty_min: float = 0.6  # floor covers at least this much of an empty cell
    stray_max: float = 0.1  # colour allowed on a plain empty cell (a leaning piece's edge)
    empty_unknown_max: float = 0.35  # shading on bare floor
    unknown_max: float = 0.25  # skin, glare edges, shadows of pieces
    # Where no floor at all shows, the unknown part of a cell is its own fish icon (blurred
    # into the tile's colour, or washed by glare), so more of it is allowed; most for
    # yellow, which shares the floor's hue.
    bare_unknown_max: float = 0.35
    yellow_unknown_max: float = 0.4
    no_floor_max: float = 0.05
    # An empty bonus cell shows its printed icon (a fish of its species, or a star for the
    # joker, read as yellow): that colour may cover this much, the floor the rest.
    bonus_icon_max: float = 0.45
    bonus_ring_floor_min: float = 0.75
    bonus_ring_stray_max: float = 0.12
    # ... or, with no colour at all in the ring, this much floor (the rest shading).
    bonus_ring_bare_min: float = 0.5
    bonus_ring_bare_species_max: float = 0.03
    # ... or floor in both the cell (beside its icon) and the ring, where a tile shows none;
    # neighbouring tiles may spill a little colour into the ring, blur into the cell.
    bonus_floor_min: float = 0.3
    bonus_ring_open_min: float = 0.45
    bonus_ring_spill_max: float = 0.2
    bonus_blur_max: float = 0.08
    # The printed icon must show (a glossy tile washed out by glare shows floor-like
    # pixels too, but no icon) unless the ring is clean floor, which a washed tile's is not.
    bonus_icon_min: float = 0.05
    # Inside a slot where a tile is seen, every cell is covered by it: a cell washed out by
    # glare takes the only colour it still shows, this much of it and no other.
    covered_colour_min: float = 0.15
    covered_other_max: float = 0.02
    # ... or, where a little of another shows (a neighbour's edge blurred in), its own
    # colour over half the cell and ``colour_ratio`` times the next: a read cell's
    # ``colour_min`` less the floor a tile's cell cannot show.  On the stored conditions
    # frames this named 10 more cells (6 beside an arm), each its tile's colour.
    covered_lead_min: float = 0.5
    # ... and a cell of such a slot this dark (a hard shadow's band across the tile) is too
    # dark for any pixel's colour, but not for its mean: a chroma this strong (Lab units)
    # within this hue (degrees) of blue's, green's or red's printed hue names it.  Over
    # 660 photoreal and conditions frames, each of the 21 such cells named by its hue was
    # its tile's colour, the faintest at chroma 3; a deep shadow leaves a green tile 6-9.
    # Yellow too, its own hue (4 such cells in 1,085 clear frames, all yellow): no floor
    # shows inside a tile.  Outside one, never yellow: it is the shadowed floor's hue.
    dark_cell_min: float = 0.5
    dark_chroma_min: float = 5.0
    dark_hue_max_deg: float = 25.0
    # Inside such a slot a cell in a shadow's soft edge is too dim for its pixels'
    # colour with a little less of it dark: this share dark at least (a cell less dark
    # than that is mostly lit), and dark or in no class at all over this share.  Over
    # 1,500 stored conditions frames each of the 97 unread cells of a tile seen whose hue
    # named an ink was that ink, however dark or dim; four left unread at 0.46 to 0.50
    # dark, 0.85 to 0.89 colourless, were each their board's only miss (conditions
    # 96049, 96127, 90782, 94348).
    dim_dark_min: float = 0.45
    dim_colourless_min: float = 0.8
    # A slot where no cell shows a tile holds one when this many of its cells are that
    # dark and named so (a tile wholly in a hard shadow): on 1,082 stored clear frames
    # (photoreal, conditions, own renderer), each of the 130 dark cells named by its hue
    # was its tile's colour, while bare floor was that dark in 4 cells, none named (the
    # shadowed floor keeps its own hue).
    dark_named_tile_min: int = 2
    # A slot where no cell reaches ``colour_min`` still shows a tile when this many of its
    # cells each show one species over this share and no other: glare turns a glossy tile
    # pastel (half its pixels fall out of every class) but no bare floor shows two such
    # cells (a printed icon is one, a neighbour's spill stays at the edge).  Yellow alone
    # is no such proof: it shares the floor's hue, and a warm lamp turns bare floor
    # yellowish ...
    pastel_colour_min: float = 0.3
    pastel_cells_min: int = 2
    # ... where a yellow cell counts once its mean lies this far (Lab units) off the floor
    # expected in its light: the floor's own yellowish hue, a warm lamp's included, is
    # the floor model's, while a yellow ink in a hard shadow keeps two to three times its
    # chroma.  Of the cells mostly yellow and of no other colour in the slots still
    # unread there (2,280 stored frames), the 4 on bare floor lay 3.3 off at most; of 101
    # lying 12 or more off, 93 were yellow cells and 8 green ones of tiles under an arm
    # whose light the balance took for yellow (their slots stay unread).
    pastel_yellow_offset_min: float = 12.0
    bonus_clean_ring_min: float = 0.85
    # A slot with this many cells read as bare floor holds no tile, whatever colour
    # spills into its other cells (with fewer, only its colourless cells are read empty).
    open_slot_any_min: int = 2


def class_fractions(
    classes: NDArray[np.uint8], cell_labels: NDArray[np.int32]
) -> NDArray[np.float64]:
    """Fraction of each pixel class in each cell window (256 x classes)."""
    return LabelledPixels(cell_labels).fractions(classes)


class LabelledPixels:
    """The labelled pixels of a fixed labelling (the cell windows, the bonus rings), found
    once: :func:`class_fractions` for every frame without searching for them again."""

    def __init__(self, labels: NDArray[np.int32]) -> None:
        flat = labels.ravel()
        self._pixels = np.flatnonzero(flat >= 0)
        self._labels = flat[self._pixels]
        self._base = self._labels.astype(np.int64) * N_CLASSES
        self.sizes = np.bincount(self._labels, minlength=CELLS)

    def fractions(
        self, classes: NDArray[np.uint8], hidden: NDArray[np.bool_] | None = None
    ) -> NDArray[np.float64]:
        """Class shares per label, over the pixels ``hidden`` leaves visible (all if None)."""
        keys = self._base + np.take(classes, self._pixels)  # flat indices
        if hidden is not None:
            keys = keys[~np.take(hidden, self._pixels)]
        return _fractions(keys)

    def covered(self, region: NDArray[np.bool_]) -> NDArray[np.int64]:
        """How many of each label's pixels ``region`` covers."""
        inside = np.take(region, self._pixels)
        return np.bincount(self._labels[inside], minlength=CELLS)


def _fractions(keys: NDArray[np.int64]) -> NDArray[np.float64]:
    counts = np.bincount(keys, minlength=CELLS * N_CLASSES).reshape(CELLS, N_CLASSES)
    totals = np.maximum(counts.sum(axis=1, keepdims=True), 1)
    return np.asarray(counts / totals, dtype=np.float64)


def read_cells(
    fractions: NDArray[np.float64],
    rules: CellRules,
    bonus_kind: dict[int, str],
    rings: NDArray[np.float64] | None = None,
) -> list[str]:
    """One character per cell from its class fractions, before the tile constraint.

    ``rings`` holds the class fractions of a ring around each bonus cell's printed icon:
    an empty bonus cell shows bare floor there, a tile (even washed out by glare) does not.
    """
    species = fractions[:, PixelClass.B : PixelClass.R + 1]
    order = np.argsort(-species, axis=1)
    ranked = np.take_along_axis(species, order[:, :2], axis=1)
    best, second, first = ranked[:, 0], ranked[:, 1], order[:, 0]
    unknown = fractions[:, PixelClass.UNKNOWN] + fractions[:, PixelClass.DARK]
    neutral = fractions[:, PixelClass.NEUTRAL]
    need = np.full(CELLS, rules.colour_min)
    for i, kind in bonus_kind.items():
        letter = SPECIES_ORDER[int(first[i])]
        if kind == letter and (
            rings is None or rings[i, PixelClass[letter]] < rules.bonus_ring_tile_min
        ):
            need[i] = rules.bonus_colour_min
    yellow = first == SPECIES_ORDER.index("Y")
    allowed = np.where(
        neutral <= rules.no_floor_max,
        np.where(yellow, rules.yellow_unknown_max, rules.bare_unknown_max),
        rules.unknown_max,
    )
    coloured = (best >= need) & (best >= rules.colour_ratio * second) & (unknown <= allowed)
    empty = _empty_plain(neutral, species.sum(axis=1), unknown, rules)
    empty[list(bonus_kind)] = False
    out: list[str] = np.where(coloured, _LETTERS[first], np.where(empty, ".", "?")).tolist()
    if rings is not None:
        for i, kind in bonus_kind.items():
            if not coloured[i] and _empty_bonus(fractions[i], rings[i], kind, rules):
                out[i] = "."
    return out


def _empty_plain(
    neutral: NDArray[np.float64],
    species: NDArray[np.float64],
    unknown: NDArray[np.float64],
    rules: CellRules,
) -> NDArray[np.bool_]:
    """Plain empty cells: mostly floor.  A glossy tile washed out by glare shows half floor
    and half unknown, so less floor than this is never read as empty."""
    return np.asarray(
        (neutral >= rules.empty_min)
        & (species <= rules.stray_max)
        & (unknown <= rules.empty_unknown_max)
    )


def _empty_bonus(
    fractions: NDArray[np.float64],
    ring: NDArray[np.float64],
    kind: str | None,
    rules: CellRules,
) -> bool:
    """An empty bonus cell: bare floor (and the icon's printed circle) around the icon."""
    if kind is None:
        return False
    icon = "Y" if kind == "J" else kind
    others = [k for k in SPECIES_ORDER if k != icon]
    icon_min = (
        0.0 if ring[PixelClass.NEUTRAL] >= rules.bonus_clean_ring_min else rules.bonus_icon_min
    )
    ring_species = float(ring[PixelClass.B : PixelClass.R + 1].sum())
    ring_other = max(ring[PixelClass[k]] for k in others)
    cell_other = max(fractions[PixelClass[k]] for k in others)
    icon_shown = icon_min <= fractions[PixelClass[icon]] <= rules.bonus_icon_max
    if (
        fractions[PixelClass.NEUTRAL] >= rules.bonus_floor_min
        and ring[PixelClass.NEUTRAL] >= rules.bonus_ring_open_min
        and ring_other <= rules.bonus_ring_spill_max
        and cell_other <= rules.bonus_blur_max
        and icon_shown
    ):
        return True
    floor_around = (
        (ring[PixelClass.NEUTRAL] + ring[PixelClass[icon]] >= rules.bonus_ring_floor_min)
        or (
            ring[PixelClass.NEUTRAL] >= rules.bonus_ring_bare_min
            and ring_species <= rules.bonus_ring_bare_species_max
        )
        or (
            fractions[PixelClass.NEUTRAL] >= rules.empty_min
            and fractions[PixelClass.UNKNOWN] + fractions[PixelClass.DARK]
            <= rules.empty_unknown_max
        )
    )
    return bool(
        floor_around
        and ring_other <= rules.bonus_ring_stray_max
        and icon_shown
        and cell_other <= 0.03
    )


def fill_covered_cells(
    cells: list[str],
    fractions: NDArray[np.float64],
    profile: BoardProfile,
    rules: CellRules,
    floor_offset: NDArray[np.float64] | None = None,
) -> list[str]:
    """Unreadable cells inside a slot where a tile is seen, read from the one colour left.

    A tile covers its whole slot, so no cell of a slot holding a tile is empty; a glossy
    tile under glare turns pale and shows floor-like pixels, but keeps its hue where it
    shows any colour at all.  ``floor_offset`` (each cell's mean colour from the floor's
    in its light, see :func:`~companion.vision.floor.floor_offset_in_shade`) lets a
    yellow cell far off the floor show a tile as the other colours do.
    """
    out = list(cells)
    species = fractions[:, PixelClass.B : PixelClass.R + 1]
    # Each cell's species, most shown first, as plain lists: the rules compare scalars.
    order = np.argsort(-species, axis=1).tolist()
    shares = np.take_along_axis(species, np.asarray(order), axis=1).tolist()
    for slot in profile.slots:
        if "." in (out[i] for i in slot):
            continue
        seen = any(out[i] in SPECIES_ORDER for i in slot)
        if (
            not seen
            and _pastel_cells(slot, order, shares, profile, rules, floor_offset)
            < rules.pastel_cells_min
        ):
            continue
        for i in slot:
            if out[i] != "?":
                continue
            letter = SPECIES_ORDER[order[i][0]]
            best, second = shares[i][0], shares[i][1]
            drift = letter == "Y" and SPECIES_ORDER[order[i][1]] == "G"
            if drift and best >= rules.colour_ratio * second:
                # Glare bends a glossy yellow towards green: green well behind it is yellow's.
                second = shares[i][2]
            alone = best >= rules.covered_colour_min and second <= rules.covered_other_max
            leading = best >= rules.covered_lead_min and best >= rules.colour_ratio * second
            if alone or leading:
                out[i] = letter
    return out


def name_dark_cells(
    cells: list[str],
    fractions: NDArray[np.float64],
    chroma: NDArray[np.float64],
    printed_hues: dict[str, float],
    profile: BoardProfile,
    rules: CellRules,
) -> list[str]:
    """Unreadable cells too dark for their pixels' colour, inside a slot where a tile is
    seen, named by their mean chroma (``chroma``: a* and b* per cell, centred on 0).

    A hard shadow across a tile leaves too little light for any one pixel's colour, yet
    the cell's mean keeps its hue (and in its soft edge, a cell half dark and the rest
    too dim for a class is no different).  Inside a slot holding a tile the cell is the
    tile's, so the question is only which colour, and the dark inks (blue, green, red)
    lie far apart in hue.  There yellow is named too: no floor shows inside a tile, so its hue
    is no shadowed floor's.  A tile wholly in the shadow shows no cell to start from:
    there, the slot holds one when enough of its cells are named blue, green or red (see
    ``dark_named_tile_min``).  A tile seen only by its cells named so covers the rest of
    its slot as well (see :func:`fill_covered_cells`).
    """
    dark_share = fractions[:, PixelClass.DARK]
    colourless = dark_share + fractions[:, PixelClass.UNKNOWN]
    is_dark = dark_share >= rules.dark_cell_min
    dark = is_dark.tolist()
    dim = (
        is_dark | ((dark_share >= rules.dim_dark_min) & (colourless >= rules.dim_colourless_min))
    ).tolist()
    if not any(d and c == "?" for d, c in zip(dim, cells, strict=True)):
        return list(cells)  # most frames: no cell that dark
    out = list(cells)
    limits = (rules.dark_chroma_min, rules.dark_hue_max_deg)
    named_dark = dark_inks_named(chroma, printed_hues, *limits)
    named_in_tile = dark_inks_named(chroma, printed_hues, *limits, inks=SPECIES_ORDER)
    species = fractions[:, PixelClass.B : PixelClass.R + 1]

    def name_of(i: int, named: list[str | None], shaded: list[bool]) -> str | None:
        """The ink cell ``i`` is ``named`` by its hue, if unread, ``shaded`` so, and
        showing no other colour in what light is left."""
        letter = named[i]
        if out[i] != "?" or not shaded[i] or letter is None:
            return None
        others = float(species[i].sum() - species[i, SPECIES_ORDER.index(letter)])
        return letter if others <= rules.covered_other_max else None

    for slot in profile.slots:
        if "." in (out[i] for i in slot):
            continue
        if any(out[i] in SPECIES_ORDER for i in slot):  # a tile seen
            names = {i: name_of(i, named_in_tile, dim) for i in slot}
        else:
            names = {i: name_of(i, named_dark, dark) for i in slot}
            if sum(n is not None for n in names.values()) < rules.dark_named_tile_min:
                continue
        for i, letter in names.items():
            if letter is not None:
                out[i] = letter
    return out if out == cells else fill_covered_cells(out, fractions, profile, rules)


def _pastel_cells(
    slot: tuple[int, ...],
    order: list[list[int]],
    shares: list[list[float]],
    profile: BoardProfile,
    rules: CellRules,
    floor_offset: NDArray[np.float64] | None = None,
) -> int:
    """How many cells of a slot show one species clearly and no other, leaving out a cell
    whose printed icon is of that species (``order``: each cell's species, most shown
    first; ``shares``: how much of each, in that order).  A yellow cell counts only as
    far off the floor as bare floor never lies (``floor_offset``, per cell)."""
    count = 0
    for i in slot:
        letter = SPECIES_ORDER[order[i][0]]
        if profile.bonus_kind.get(i) == letter:
            continue
        if letter == "Y" and (
            floor_offset is None or floor_offset[i] < rules.pastel_yellow_offset_min
        ):
            continue
        if shares[i][0] >= rules.pastel_colour_min and shares[i][1] <= rules.covered_other_max:
            count += 1
    return count


def fill_open_slots(
    cells: list[str],
    fractions: NDArray[np.float64],
    profile: BoardProfile,
    rules: CellRules,
    pastel: Callable[[], Sequence[str | None]] = lambda: (),
) -> list[str]:
    """Unreadable cells of a slot seen empty elsewhere, read as empty.

    A tile covers its whole slot, so a cell read as bare floor means no tile lies there:
    the slot's other cells are empty too, whatever a bright spot or a shadow makes of them.
    With more than one such cell, a cell that shows a species colour can only show a
    neighbour's spill or a leaning piece.  With one, that colour weighs as much as the
    floor's (glare washes a tile's yellow cell to the floor's colour and leaves its green
    one green: photoreal 4201 ``occ054``), so the whole slot is left unread.  So does a
    species the glare left in a cell's mean colour alone (``pastel`` gives them per cell,
    asked only when a slot needs them: see :func:`~companion.vision.pastel.pastel_cells`):
    a yellow washed to the floor's colour beside its tile's pale red (photoreal 5401
    ``img007``).  Slots where a tile is seen are left as they are.
    """
    out = list(cells)
    species = fractions[:, PixelClass.B : PixelClass.R + 1].sum(axis=1)

    def shows_a_tile(cell: int) -> bool:
        if species[cell] > rules.stray_max:
            return True
        seen = pastel()
        return bool(seen and seen[cell])

    for slot in profile.slots:
        chars = [out[i] for i in slot]
        empty = chars.count(".")
        if empty == 0 or any(c in SPECIES_ORDER for c in chars):
            continue
        unread = [i for i in slot if out[i] == "?"]
        if empty < rules.open_slot_any_min and any(shows_a_tile(i) for i in unread):
            for i in slot:
                out[i] = "?"
            continue
        for i in unread:
            out[i] = "."
    return out


def apply_tile_constraint(cells: list[str], profile: BoardProfile) -> list[str]:
    """Cells of any 2 x 2 slot that cannot be a real tile (or an empty slot) become ``?``."""
    out = list(cells)
    missing = [i for i, v in enumerate(profile.vat_of_cell) if v is None]
    for i in missing:
        out[i] = "."
    for slot in profile.slots:
        chars = [out[i] for i in slot]
        if not slot_possible(chars):
            for i in slot:
                out[i] = "?"
    return out


def slot_possible(chars: list[str]) -> bool:
    """Could a real slot look like this, reading ``?`` as any character?"""
    return _slot_possible("".join(chars))


@functools.lru_cache(maxsize=2048)
def _slot_possible(chars: str) -> bool:
    """:func:`slot_possible` of the cells' characters in one string: a slot has four, so
    a frame meets only a few hundred patterns, each worked out once."""
    known = [c for c in chars if c != "?"]
    if not known:
        return True
    if "." in known:
        # An empty slot: every readable cell must be empty, and at least one cell is empty
        # means no tile lies there.
        return all(c == "." for c in known)
    unknowns = len(chars) - len(known)
    counts = sorted((known.count(c) for c in set(known)), reverse=True)
    # The unknown cells can be filled to favour the leading colour.
    lead = counts[0] + unknowns
    runner = counts[1] if len(counts) > 1 else 0
    return lead > runner
