"""Tiles glare has turned pastel, read from each cell's mean colour.

Glare on a glossy tile adds the lamp's white to the tile's own colour: after white balance
the cell keeps its species' hue but loses chroma, so few of its pixels reach a species
class and the cell comes in unread.  Its mean colour still tells, with two guards:

- **Not floor.**  A cell counts only where its mean sits clearly off the floor's colour
  expected at its brightness (:class:`~companion.vision.floor.FloorModel`): bare floor in
  glare stays within a few units of it.  Yellow shares the floor's hue, so a yellow cell
  must lie beyond the floor along that hue, not merely off it.
- **A tile is there.**  Only a slot with no cell read empty, and at least two cells that
  show a species (read, seen pastel, or with glare clipping blue or green first, which
  the cream floor never does), is filled: one tinted cell can be a neighbour's spill.
  So is a slot whose outline shows a tile's edge and whose every cell glare clipped as
  only a yellow or the floor clips, further off the floor than bare floor lies.
  The filled slot must still be a possible tile.

Inside such a slot a cell at the floor's own hue is no floor: the cream floor is a pale
yellow, and glare takes a yellow tile straight to it, where the other species arrive from
their own side of the hue circle (green nearest) or lose their hue to white.  So is a cell
whose red and green both clipped while blue did not, at the hue clipping bends a yellow
to: no other ink clips two channels short of white.

Inside such a slot, too, a washed cell one of whose channels glare clipped before the
others is the species that holds that channel highest (see
:mod:`~companion.vision.first_clipped`).

Glare mixes the sensor's white into a tile, and the balance shows that white tinted where
a lamp is coloured (:meth:`~companion.vision.floor.FloorModel.white`): a tint's hue is
measured from there.

Where the lamp clips the bare sheet itself, it clips bare floor as glare clips a washed
yellow: in such a frame a slot that shows only the floor's hue needs a tile's edge.

Skin shares a pale red's hue, so no slot within reach of an arm's skin is read this way.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from companion.boards import BoardProfile
from companion.vision.cells import SPECIES_ORDER, slot_possible
from companion.vision.colour import YELLOW_DRIFT_MAX_DEG, ColourModel, hue_difference
from companion.vision.first_clipped import FLOOR_NEVER_FIRST
from companion.vision.floor import (
    CellColour,
    FloorModel,
    low_channels_clipped,
    washed_out,
    yellow_clipped,
)

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class PastelRules:
    """Thresholds on a cell window's mean colour (8-bit Lab units, degrees of hue)."""

    # Glare lifts a cell this bright (8-bit L) at least; darker unread cells are shadows
    # or edges, which the mean colour does not settle.
    min_lightness: float = 200.0
    # ... or clips this share of its pixels in some channel: glare's white reached the
    # sensor's limit there, where a shadow never does.  A yellow seen from its mean needs
    # this clipping, not brightness alone: a bright warm lamp lifts bare floor's chroma
    # past what the floor model expects without clipping anything (conditions 36051: a
    # bare slot read yellow), while glare washing a yellow tile clips (all 178 yellows so
    # read on 1,152 stored frames clipped this share or more).
    glare_clipped_min: float = 0.1
    # A pastel cell's mean lies this far from the floor expected there; bare floor in
    # glare stays within about 5 (the floor proof allows 5).
    min_floor_offset: float = 9.0
    # ... and keeps this much chroma (a cell washed white has none, whatever it was).
    min_chroma: float = 8.0
    # Hue may stray this far from the printed species' hue: glare bends it a little.
    hue_half_width_deg: float = 20.0
    # Glare bends a glossy yellow towards green (see colour.YELLOW_DRIFT_MAX_DEG); the
    # yellow sector reaches this far on the green side, short of green's own.
    yellow_drift_deg: float = 30.0
    # A yellow cell steps away from the floor along the floor's own hue: the direction of
    # the step may differ from the floor's hue by this much.
    yellow_step_half_width_deg: float = 45.0
    # ... except a clipped yellow inside a tile's edge (``stepped_yellow``), whose step
    # may turn this far towards green: glare bends a washed yellow that way (photoreal
    # washed yellows left unread step up to 105 degrees from the floor's hue on that side,
    # bare floor so clipped lies too near the floor for its step to have a direction).
    yellow_step_green_side_deg: float = 120.0
    # Cells of one slot that must show a species before any is read from its mean.
    min_cells_seen: int = 2
    # ... or one, when it lies this far off the floor (a tile's own colour, where a
    # neighbour's spill tints a cell less) or its own pixels named it, every other cell
    # is at the floor's hue (a tile mostly yellow, washed) and either the slot's outline
    # shows a tile's edge or glare clipped first the channel that cell's ink holds highest
    # (see first_clipped).  (A cell read from its pixels stands however pale its mean: the
    # yellow glare around it pales the mean, not the pixels that named it.)  Where glare
    # clipped first the cell's own ink's channel, as far off as any pastel cell lies is
    # enough: on 1,150 stored frames the three lone cells so proven 9 to 12 off the
    # floor named their slots right.
    lone_cell_offset_min: float = 12.0
    # Inside a tile, a cell this close to the floor's hue is a washed yellow: on photoreal
    # glare frames washed yellows lie from 7 degrees on the red side to 26 on the green
    # side; reds lie beyond 28 on the red side, and greens that keep the chroma asked
    # below (0.7 of the floor's) from 23 on the green side.
    floor_hue_red_side_deg: float = 12.0
    floor_hue_green_side_deg: float = 20.0
    # ... and keeps this share of the floor's chroma at least (washed white, it has none).
    floor_chroma_share_min: float = 0.7
    # Inside a slot known to hold a tile, every cell is one of the tile's species: a cell
    # off the floor is read from its hue with this much chroma left, away from the white
    # glare mixes in (a glossy red washed to an eighth of its ink keeps about 5; white
    # keeps none) ...
    tinted_min_chroma: float = 5.0
    # ... when the hue lies this close to a printed species' (glare bends it a little) ...
    tinted_half_width_deg: float = 25.0
    # ... or, for blue, this close on its cyan side: glare clips the blue ink's own
    # channel first while red and green rise on, and bends it towards cyan, where no
    # other species lies (photoreal washed blues: 8 to 32 degrees that way, 20 at most
    # the other).
    tinted_blue_cyan_side_deg: float = 40.0
    # ... and this much closer than to any other species': the mean of a cell two colours
    # share (a shifted tile, a neighbour's spill) lies between them and stays unread.
    tinted_margin_deg: float = 15.0
    # ... and when the cell is lit at least this much (8-bit L): brighter than the blue,
    # green and red inks (about 100-135), so glare washed it.  A dimmer faint tint inside
    # a tile may be an arm's shaded skin that went unseen (photoreal washed cells: 177
    # and up; shaded skin: about 100-110).
    tinted_min_lightness: float = 150.0
    # A cell clipped in two channels is a bent yellow when its hue lies this much nearer
    # the bent yellow's than green's (degrees): as clear as a tint must be of its second
    # nearest species, since a wrong yellow is as wrong as any.
    bent_yellow_margin_deg: float = 15.0
    # Inside a slot whose outline shows a tile's edge, a cell clipped in red (and green)
    # over a low blue that steps this far (Lab a, b units) off the floor expected there,
    # along the floor's hue or bent towards green (``yellow_step_half_width_deg`` and
    # ``yellow_step_green_side_deg``), is a washed yellow, every
    # cell of the slot so: bare floor so clipped, beside a tile's edge or not, lies within
    # 1.6 of it on stored photoreal frames (4.2 once under a conditions lamp, with no
    # edge); the washed yellows of tiles left unread lie 4 to 20 off.
    edge_yellow_offset_min: float = 4.0
    # A cell whose mean lies this near (Lab a, b units) the sensor's white, as the
    # balance shows it, is white: glare clipped every channel and left no colour of its
    # own.  Under a warm lamp that white is itself yellowish and would pass for a washed
    # yellow.  (A cell clipped whole lies within about 1 of it, the balance's rounding;
    # washed blues named right on photoreal frames lie 2.3 and more from a bluish white.)
    white_offset_min: float = 1.5
    # A lamp that clips the bare sheet in two channels over this share of its strips
    # (an overexposed frame) clips the bare floor as glare clips a washed yellow: there a
    # slot none of whose cells its pixels named, and whose washed cells show only the
    # floor's hue, is a tile only where a tile's edge shows.  On 3,210 stored frames the
    # ten such slots read: five yellow tiles right, in frames whose sheet clipped 0.18 at
    # most, and five bare slots as yellow in the one frame at 0.48 (photoreal 4051
    # img038).  Thirteen frames clip 0.3 or more; no other reading of theirs changes.
    overexposed_sheet_min: float = 0.3


# The floor's chroma (a, b) expected at each cell, seen as bright as the cell is
# (:meth:`~companion.vision.floor.FloorModel.expected`): worked out once per frame.
Expected = tuple[FloatArray, FloatArray]


def _angle(a: FloatArray, b: FloatArray) -> FloatArray:
    return np.asarray(np.degrees(np.arctan2(b, a)), dtype=np.float64)


def _chroma_from(colour: CellColour, origin: Expected) -> FloatArray:
    """How far each cell's mean chroma lies from ``origin`` per cell (the floor expected
    there, or the white glare takes it to)."""
    oa, ob = origin
    return np.asarray(np.hypot(colour.a - oa, colour.b - ob), dtype=np.float64)


def _bent_yellow_lead(hue: FloatArray, printed: dict[str, float]) -> FloatArray:
    """How much nearer (degrees) each hue lies to a yellow bent by glare as far as
    YELLOW_DRIFT_MAX_DEG towards green than to green itself (negative: nearer green)."""
    bent = np.abs(hue_difference(hue, printed["Y"] + YELLOW_DRIFT_MAX_DEG))
    return np.asarray(np.abs(hue_difference(hue, printed["G"])) - bent, dtype=np.float64)


def _maybe_bent_yellow(
    colour: CellColour, hue: FloatArray, printed: dict[str, float]
) -> NDArray[np.bool_]:
    """Cells whose green may be a yellow's: where two channels clipped, glare bends a
    yellow towards green, and the cell's hue lies nearer that bent yellow than green.
    (Where red clipped, no hue proves green at all: see ``low_channels_clipped``.)"""
    return np.asarray(washed_out(colour) & (_bent_yellow_lead(hue, printed) > 0.0))


def pastel_species(
    colour: CellColour, expected: Expected, model: ColourModel, rules: PastelRules
) -> list[str | None]:
    """Per cell, the species its mean colour shows through glare, or ``None``."""
    ea, eb = expected
    step_a, step_b = colour.a - ea, colour.b - eb
    offset = np.hypot(step_a, step_b)
    chroma = np.hypot(colour.a, colour.b)
    hue = _angle(colour.a, colour.b)
    step_hue = _angle(step_a, step_b)
    floor_hue = _angle(ea, eb)
    # The floor's hue here against its printed hue: a lamp's tint, or a channel clipped in
    # glare, turns a yellow tile as far as the floor beside it.
    printed_floor = float(np.degrees(np.arctan2(model.floor_ab[1], model.floor_ab[0])))
    local_turn = hue_difference(floor_hue, printed_floor)
    candidate = (colour.lightness >= rules.min_lightness) & (offset >= rules.min_floor_offset)
    out: list[str | None] = [None] * len(chroma)
    printed = model.species_hues_deg()
    for letter in SPECIES_ORDER:
        off = hue_difference(hue, printed[letter])
        if letter == "Y":
            off = hue_difference(off - local_turn, 0.0)
            # Towards green is the direction of increasing hue from yellow.
            inside = (off >= -rules.hue_half_width_deg) & (off <= rules.yellow_drift_deg)
            outward = np.abs(hue_difference(step_hue - floor_hue, 0.0))
            inside &= outward <= rules.yellow_step_half_width_deg
            # Red and green clipped over a low blue is a yellow or the floor, whatever
            # hue the balance gives the clipped pair; this far off the floor, a yellow.
            inside |= yellow_clipped(colour)
            inside &= colour.clipped >= rules.glare_clipped_min
        else:
            inside = (np.abs(off) <= rules.hue_half_width_deg) & (chroma >= rules.min_chroma)
        if letter == "G":
            inside &= ~_maybe_bent_yellow(colour, hue, printed)
        inside &= ~low_channels_clipped(colour, letter)
        for i in np.flatnonzero(candidate & inside).tolist():
            out[i] = letter
    return out


def pastel_cells(
    colour: CellColour, floor: FloorModel, model: ColourModel, rules: PastelRules
) -> list[str | None]:
    """Per cell, the species its mean colour shows through glare (see
    :func:`pastel_species`), leaving out cells as white as the glare itself."""
    blank = _chroma_from(colour, floor.white()) < rules.white_offset_min
    return _named_unless_blank(colour, floor.expected(colour.lightness), blank, model, rules)


def _named_unless_blank(
    colour: CellColour,
    expected: Expected,
    blank: NDArray[np.bool_],
    model: ColourModel,
    rules: PastelRules,
) -> list[str | None]:
    """:func:`pastel_cells` from the floor expected at each cell and the cells as white
    as the glare (``blank``), where the caller has them already."""
    species = pastel_species(colour, expected, model, rules)
    return [None if blank[i] else letter for i, letter in enumerate(species)]


class _Nearest(NamedTuple):
    """Per cell, seen from one origin: the species whose printed hue is nearest."""

    chroma: FloatArray  # the cell's distance from the origin
    past_deg: FloatArray  # the cell's hue less the nearest species' (signed)
    margin_deg: FloatArray  # how much further than the nearest the second lies
    species: NDArray[np.intp]  # the nearest, in SPECIES_ORDER


def _nearest_species(colour: CellColour, origin: Expected, model: ColourModel) -> _Nearest:
    """Each cell's nearest printed species by hue, hues measured from ``origin``."""
    oa, ob = origin
    hue = _angle(colour.a - oa, colour.b - ob)
    inks = [_angle(model.species_ab[c][0] - oa, model.species_ab[c][1] - ob) for c in SPECIES_ORDER]
    signed = np.stack([hue_difference(hue - ink, 0.0) for ink in inks])
    away = np.abs(signed)
    ranked = np.sort(away, axis=0)
    nearest = np.argmin(away, axis=0)
    chroma = np.asarray(np.hypot(colour.a - oa, colour.b - ob), dtype=np.float64)
    past = np.take_along_axis(signed, nearest[None, :], axis=0)[0]
    return _Nearest(chroma, past, ranked[1] - ranked[0], nearest)


def tinted_species(
    colour: CellColour,
    expected: Expected,
    model: ColourModel,
    rules: PastelRules,
    white: Expected,
) -> list[str | None]:
    """Per cell, the species other than yellow its hue names once a tile is known to cover
    it, or ``None``.  Yellow shares the floor's hue: :func:`floor_hued` decides it.

    Glare mixes the sensor's white into a tile, and the balance shows that white tinted
    where a lamp is coloured (``white``, per cell).  A washed cell lies on the line from
    that white to its ink, unless the balance misjudged the white: the cell must name the
    same species seen from the white and from neutral grey, and name it clearly from the
    white."""
    neutral = (np.zeros(len(colour.a)), np.zeros(len(colour.a)))
    grey = _nearest_species(colour, neutral, model)
    lit = _nearest_species(colour, white, model)
    # Blue's cyan side is the side of decreasing hue (towards -180 degrees).
    cyan_side = (lit.species == SPECIES_ORDER.index("B")) & (lit.past_deg < 0.0)
    reach = np.where(cyan_side, rules.tinted_blue_cyan_side_deg, rules.tinted_half_width_deg)
    tinted = (
        (_chroma_from(colour, expected) >= rules.min_floor_offset)
        & (np.minimum(grey.chroma, lit.chroma) >= rules.tinted_min_chroma)
        & (grey.species == lit.species)
        & (np.abs(lit.past_deg) <= reach)
        & (lit.margin_deg >= rules.tinted_margin_deg)
    )
    bent = _maybe_bent_yellow(colour, _angle(colour.a, colour.b), model.species_hues_deg())
    unproven = {letter: low_channels_clipped(colour, letter) for letter in SPECIES_ORDER}
    out: list[str | None] = [None] * len(colour.a)
    for i in np.flatnonzero(tinted).tolist():
        letter = SPECIES_ORDER[int(lit.species[i])]
        if letter == "Y" or (letter == "G" and bent[i]) or unproven[letter][i]:
            continue
        out[i] = letter
    return out


def floor_hued(colour: CellColour, expected: Expected, rules: PastelRules) -> NDArray[np.bool_]:
    """Per cell, whether glare shows it at the floor's own hue and about its chroma: in a
    slot known to hold a tile, a washed yellow."""
    ea, eb = expected
    off = hue_difference(_angle(colour.a, colour.b) - _angle(ea, eb), 0.0)
    share = np.hypot(colour.a, colour.b) / np.maximum(np.hypot(ea, eb), 1e-9)
    return np.asarray(
        (colour.lightness >= rules.min_lightness)
        & (off >= -rules.floor_hue_red_side_deg)
        & (off <= rules.floor_hue_green_side_deg)
        & (share >= rules.floor_chroma_share_min)
    )


def stepped_yellow(colour: CellColour, expected: Expected, rules: PastelRules) -> NDArray[np.bool_]:
    """Per cell, whether it is clipped in red (and green) over a low blue and steps off
    the floor expected there along the floor's own hue, or bent from it towards green, as
    far as the floor never lies: where a tile's edge shows, a washed yellow.  Only a
    yellow ink or the floor clips so; glare keeps the yellow's surplus of chroma over the
    floor's, or bends its hue towards green, never towards red."""
    ea, eb = expected
    step = _chroma_from(colour, expected)
    # Towards green is the direction of increasing hue from the floor's.
    turn = hue_difference(_angle(colour.a - ea, colour.b - eb) - _angle(ea, eb), 0.0)
    return np.asarray(
        yellow_clipped(colour)
        & (step >= rules.edge_yellow_offset_min)
        & (turn >= -rules.yellow_step_half_width_deg)
        & (turn <= rules.yellow_step_green_side_deg)
    )


def bent_yellow(
    colour: CellColour, expected: Expected, model: ColourModel, rules: PastelRules
) -> NDArray[np.bool_]:
    """Per cell, whether it is washed out in two channels with a hue clearly nearer a
    yellow bent by glare than green, keeping the floor's chroma, or clipped in red and
    green over a low blue: in a slot known to hold a tile, a washed yellow.  Only a yellow
    ink (or the floor) clips red and green long before blue; a green, red or blue tile
    clips two channels only in glare that leaves it white."""
    ea, eb = expected
    share = np.hypot(colour.a, colour.b) / np.maximum(np.hypot(ea, eb), 1e-9)
    lead = _bent_yellow_lead(_angle(colour.a, colour.b), model.species_hues_deg())
    bent = (
        washed_out(colour)
        & (lead >= rules.bent_yellow_margin_deg)
        & (colour.lightness >= rules.min_lightness)
        & (share >= rules.floor_chroma_share_min)
    )
    return np.asarray(bent | yellow_clipped(colour))


def fill_pastel_slots(
    cells: list[str],
    colour: CellColour,
    floor: FloorModel,
    model: ColourModel,
    profile: BoardProfile,
    rules: PastelRules,
    shows_edge: Callable[[tuple[int, ...]], bool] = lambda slot: False,
    beside_arm: frozenset[int] = frozenset(),
    first_clipped: Callable[[int], str | None] = lambda cell: None,
    shows_own_edge: Callable[[tuple[int, ...]], bool] = lambda slot: False,
    sheet_clipped: Callable[[], float] = lambda: 0.0,
) -> list[str]:
    """Unread cells of slots that hold a tile, read from their mean colour where glare
    left too few pixels of it in any class.  ``shows_edge`` tells whether a slot's
    outline shows a tile's edge (:class:`~companion.vision.outline.SlotOutlines`);
    ``first_clipped`` names the species whose brightest channel a cell's glare clipped
    first (:mod:`~companion.vision.first_clipped`), asked only inside a known tile;
    ``shows_own_edge`` tells whether a slot's outline shows a tile's edge along its vat's
    walls, where no tile beside it can have put one
    (:meth:`~companion.vision.outline.SlotOutlines.own_edge`); ``sheet_clipped`` gives
    the share of the bare sheet the sensor clipped in two channels
    (:func:`~companion.vision.illumination.sheet_clipped`).

    Skin has a pale red's hue: a slot with a cell ``beside_arm`` (within reach of an
    arm's lit skin) is left as it is."""
    slots = [
        slot
        for slot in profile.slots
        if any(cells[i] == "?" for i in slot)
        and all(cells[i] != "." for i in slot)
        and not beside_arm.intersection(slot)
    ]
    if not slots:
        return list(cells)  # most frames: no evidence to weigh
    expected = floor.expected(colour.lightness)
    white = floor.white()
    blank = _chroma_from(colour, white) < rules.white_offset_min
    seen = _named_unless_blank(colour, expected, blank, model, rules)
    tinted = tinted_species(colour, expected, model, rules, white)
    yellow = floor_hued(colour, expected, rules) | bent_yellow(colour, expected, model, rules)
    yellow &= ~blank
    off_floor = _chroma_from(colour, expected)
    stepped = stepped_yellow(colour, expected, rules)
    glare = (colour.lightness >= rules.min_lightness) | (colour.clipped >= rules.glare_clipped_min)
    washed = glare | (colour.lightness >= rules.tinted_min_lightness)

    def washed_guess(cell: int) -> str | None:
        """An unread cell's species from its pastel mean, or, where glare lies on it, its
        tint or a first clipped channel the floor's cream never clips first (an ink's)."""
        if seen[cell] or not glare[cell]:
            return seen[cell]
        clipped_first = first_clipped(cell)
        return tinted[cell] or (clipped_first if clipped_first in FLOOR_NEVER_FIRST else None)

    out = list(cells)

    def one_cell_and_the_rest_yellow(
        slot: tuple[int, ...], known: list[int], guesses: list[str | None]
    ) -> bool:
        """One cell off the floor (``known``), the others at its hue: a tile where that
        cell's glare clipped first the channel its hue's ink holds highest (a tint from a
        lamp spreads over its neighbours too), or where the tile's edge shows."""
        if len(known) != 1 or known[0] in profile.bonus_kind:
            return False
        cell = known[0]
        clipped_own = first_clipped(cell) == guesses[slot.index(cell)]
        off = off_floor[cell]
        return (
            (
                out[cell] != "?"
                or off >= rules.lone_cell_offset_min
                or (clipped_own and off >= rules.min_floor_offset)
            )
            and all(yellow[i] for i in slot if i != cell)
            and (clipped_own or shows_edge(slot))
        )

    def yellow_up_to_an_edge(slot: tuple[int, ...]) -> bool:
        """Cells clipped as a yellow and off the floor, ``min_cells_seen`` of them at
        least, and the rest at the floor's hue under glare, inside a tile's edge: a tile
        covers its whole slot, and a washed yellow's palest cells lie on the floor's
        very colour (photoreal 5551 ``img045``: three cells 6 off, the fourth 1.9)."""
        steps = sum(bool(stepped[i]) for i in slot)
        return (
            steps >= rules.min_cells_seen
            and all(stepped[i] or yellow[i] for i in slot)
            and shows_edge(slot)
        )

    def yellow_inside_its_own_edge(slot: tuple[int, ...]) -> bool:
        """Every cell at the floor's hue under glare, inside an edge along the walls that
        no tile beside it can have cast: a yellow tile glare washed to the floor's very
        colour (bare floor shows no edge there)."""
        return all(yellow[i] for i in slot) and shows_own_edge(slot)

    def floor_clipped_alike(chars: list[str], filled: list[str], slot: tuple[int, ...]) -> bool:
        """A slot glare showed only at the floor's hue, none of its cells named by its
        pixels and no tile's edge in view, in a frame whose lamp clips the bare floor as
        it clips a washed yellow: nothing tells a tile there."""
        return (
            all(c == "?" for c in chars)
            and set(filled) <= {"Y", "?"}
            and not shows_edge(slot)
            and not shows_own_edge(slot)
            and sheet_clipped() >= rules.overexposed_sheet_min
        )

    for slot in slots:  # slots share no cell: each is judged on the cells as read
        chars = [out[i] for i in slot]
        # Evidence of a tile needs glare on the cell: a tint in the shade may be a shadow's.
        guesses = [c if c != "?" else washed_guess(i) for i, c in zip(slot, chars, strict=True)]
        known = [i for i, g in zip(slot, guesses, strict=True) if g is not None]
        if (
            len(known) < rules.min_cells_seen
            and not one_cell_and_the_rest_yellow(slot, known, guesses)
            and not yellow_up_to_an_edge(slot)
            and not yellow_inside_its_own_edge(slot)
        ):
            continue
        # Only now a tile is known: a faint tint or the floor's own hue is no evidence of
        # one on its own, but inside a tile it names the species where glare washed the
        # cell (the floor's hue can only be a washed yellow).
        filled = [
            g
            or (tinted[i] if washed[i] else None)
            or ("Y" if yellow[i] or stepped[i] else None)
            or (first_clipped(i) if glare[i] else None)
            or "?"
            for i, g in zip(slot, guesses, strict=True)
        ]
        if slot_possible(filled) and not floor_clipped_alike(chars, filled, slot):
            for i, c in zip(slot, filled, strict=True):
                out[i] = c
    return out


def fill_washed_tiles(
    cells: list[str],
    pastel: Callable[[list[str]], list[str]],
    exemplars: Callable[[list[str]], list[str]],
) -> list[str]:
    """Washed tiles read by their mean colours (``pastel``: :func:`fill_pastel_slots`
    bound to a frame), then against the frame's own tiles (``exemplars``:
    :func:`~companion.vision.exemplars.fill_by_exemplars`); a slot the exemplars named a
    cell of holds a known tile from then on, so the pastel pass reads it again."""
    read = pastel(cells)
    named = exemplars(read)
    return named if named == read else pastel(named)


__all__ = [
    "PastelRules",
    "bent_yellow",
    "fill_pastel_slots",
    "fill_washed_tiles",
    "floor_hued",
    "pastel_species",
    "stepped_yellow",
    "tinted_species",
]
