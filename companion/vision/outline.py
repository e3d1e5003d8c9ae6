"""Bare floor under glare, proven by the outline of its slot.

Where glare clips the sensor's channels the floor's chroma is bent or gone, and a glossy
tile washed pale can show the same mean colour (:func:`~companion.vision.floor.shows_floor`
refuses both).  What glare does not wash away is a tile's outline: a tile is 2 mm thick,
so all along its edges the gap to its neighbour, its shadowed side face or the shadow it
casts shows as a thin dark line, the darker for the glare around it.  Bare floor shows no
such line, only the faint printed dashes between slots.  A slot whose cells show the
floor's chroma but for the clipping, and whose outline has no dark line on any side, is
empty.  A slot beside a tile read for sure shows that tile's edge on the side they share,
whatever it holds: that side is left out, and the proof asks for quiet on every other
side (a tile in the slot would show its own edge on each of them).

The same proof serves floor that shows no tile's colour in a fair light but whose
printed dashes the light blurred (a shadow's edge across the slot, a tinted lamp): a
tile there would keep its ink, or, in too deep a shadow for that, lose its edge too.
Under a bright spot that took the floor's brightest channel alone far past the limit,
the chroma bends further than glare's, and so far off only the quietest outline proves
the slot bare.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.boards import GRID, BoardProfile
from companion.vision.canonical import board_view
from companion.vision.floor import (
    CLIPPED_MIN,
    CellColour,
    FloorModel,
    clipped,
    floor_offset_in_shade,
    washed_out,
)

Side = Literal["top", "bottom", "left", "right"]
SIDES: tuple[Side, ...] = ("top", "bottom", "left", "right")
# Dark lines up to 3 px wide stand out in the reader's view (a tile's edge gap and shadow).
_VIEW_KERNEL = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
# A slot is proven bare by no fewer quiet sides than this: two tiles read beside it leave
# two, and a tile in it shows its edge on every side.
QUIET_SIDES_MIN = 2
# A tile's edge runs along the whole of each side of its slot; the printed dashes a
# board may draw along a slot's side cover half of it (photoreal boards: the dashes
# between a vat's slots, whose median along a bare slot's side reached 37 where a
# tile's edge fell to 28).  The proof asks how strong a line runs over this share of a
# side: of the 511 bare slots the proof met in 726 photoreal frames, the median kept
# 121 from it and this share 2 (both beside a tile read later), under 16.5, while the
# 7 tiles' slots it met showed 23 and more; 1,500 conditions frames read the same.  A
# side beside a tile read only later is not left out afterwards: photoreal 6251 showed
# glare-washed yellow tiles whose other sides' edges are that faint.
EDGE_ALONG = 0.75
# Glare that clips the sensor's channels bends the floor's chroma as well: a cell clipped in
# one channel or more over most of its window counts as the floor's colour up to this far
# (Lab units) from the floor expected there, where the outline is the proof.  Bare cells
# washed in two channels lay within 7.1 (260 of clear photoreal, conditions and own frames;
# the colour proof's 4 left photoreal glare slots unread), and of 4,058 bare cells clipped
# in any, 95 % within 8; clipped tiles come as near as 0.4 either way.
CLIPPED_FLOOR_OFFSET_MAX = 8.0
# A bright spot takes the floor's brightest channel (red, on the cream floor) far past
# the sensor's limit, and the further past, the further the chroma bends once balanced:
# bare slots under one, clipped in that channel alone and nearly white at L 243 to 252
# (8-bit), lay 10 to 18 Lab units off the floor, their outlines at 8 at most (conditions
# 99049, 99139, own renderer 98216, 98259).  Showing no tile's colour, such a cell counts
# as the floor's up to BRIGHT_CLIPPED_FLOOR_OFFSET_MAX off it, but only the quietest
# outline proves its slot: glare washes tiles as pale and as far off, clipped in a
# channel of their own (photoreal green tiles at L 252 in green alone, a red one at 245
# in red); over 486 photoreal frames the one tile's slot that would come to the outline
# this way showed an edge of 56, and the slots of tiles this pale 18 and more.
BRIGHT_CLIPPED_LIGHTNESS_MIN = 240.0  # 8-bit L: nearly white
BRIGHT_CLIPPED_FLOOR_OFFSET_MAX = 20.0  # Lab units: past the 18 the bare slots bent
BRIGHT_CLIPPED_EDGE_MAX = 10.0  # grey levels: above their 8, under the tiles' 18
# Unclipped, a cell showing no tile's colour counts as the floor's up to this far (Lab
# units) from the floor expected in its light, where the outline is the proof: as far as
# the print proof allows, for a lamp's tinted corner moves bare floor up to 7 off.
SHOWN_FLOOR_OFFSET_MAX = 8.0
# ... and only where it is lit at least this much (8-bit L): in a deep shadow a tile
# loses its ink's chroma and its edge fades with the light (conditions 93124 and 96088:
# tiles under a hard shadow showing no colour at L 15 to 27, one of them within 8.5 Lab
# units of the floor in its light, its edges at 6).  The bare slots crossed by a
# shadow's edge or lit by a tinted lamp that left their dashes under the print proof's
# bar lay at L 122 to 231, their edges at 4 at most (conditions 97002, 94344, 93147).
SHOWN_FLOOR_LIGHTNESS_MIN = 100.0
# Cells of one slot read bare, the darkest under this share of the brightest's lightness
# (8-bit L), lie partly in a shadow.  The glare-washed tiles read bare that their walls'
# edge caught (photoreal, as rendered and developed half a stop darker) spanned 0.93 to
# 0.98 within a slot; a bare slot crossed by a lamp arm's hard shadow whose edge ran
# beside its wall (conditions 77496), 0.72.
SHADOWED_IN_SLOT_MAX = 0.8
# Where the slot beside each side starts, in cells (rows, columns) from the slot's first.
_BESIDE: dict[Side, tuple[int, int]] = {
    "top": (-2, 0),
    "bottom": (2, 0),
    "left": (0, -2),
    "right": (0, 2),
}


@dataclass(frozen=True)
class OutlineRules:
    """How a slot's outline is looked at (millimetres on the board, 8-bit grey levels)."""

    # Resolution of a slot's close-up (px/mm): a tile's edge gap, about a millimetre wide,
    # spans several pixels.
    px_per_mm: float = 4.0
    # Dark lines narrower than this stand out of a morphological closing: tile gaps and
    # shadowed side faces do, the board's 8 mm walls do not.
    line_width_max_mm: float = 2.25
    # A tile may sit this far off its slot's outline, shifted or turned a little.
    band_half_mm: float = 2.5
    # Share of each side looked at, centred: the corners belong to two sides, and to the
    # crossings of the walls.
    side_span: float = 0.7
    # A side shows an edge when, along it, the median of the darkest thin line across it
    # reaches this.  On photoreal glare frames bare floor stays at 14 or below (printed
    # dashes, faint shading), and a tile washed to the floor's colour shows 87 and more.
    edge_min: float = 20.0
    # In the reader's own view (1.25 px/mm) a side along the vat's wall shows a tile's edge
    # when, along it, the median of the darkest line across it (3 px wide at most) reaches
    # this: over 11,081 bare slots of photoreal and generated frames none passed 13, and
    # tiles glare washed to the floor's colour (photoreal seed 2551) showed 26 to 38.
    wall_edge_min: float = 20.0
    # In a close-up, a side along the vat's wall or the grid's edge (no other slot's tile
    # lies there) shows the slot's own tile when its edge reaches this: of 58,642 such
    # sides of bare slots in 743 photoreal frames none passed 11 (of 75,762 in 1,166
    # generated frames, 18), while yellow tiles glare washed to the floor's very colour
    # that nothing else read showed 52 to 105.
    own_edge_min: float = 35.0


class SlotOutlines:
    """Close-ups of the board's slot outlines from a frame, laid out once per board."""

    def __init__(self, profile: BoardProfile, rules: OutlineRules) -> None:
        self.profile = profile
        self.rules = rules
        g = profile.geometry
        self._origin_mm: dict[int, tuple[float, float]] = {}
        self._wall_sides: dict[int, tuple[Side, ...]] = {}
        # Each slot's neighbour of its own vat on each side (None across a wall or the
        # grid's edge): the only tiles that may lie against it.
        self.beside: dict[tuple[int, ...], tuple[tuple[Side, tuple[int, ...] | None], ...]] = {}
        for slots in profile.vat_slots.values():
            firsts = {other[0]: other for other in slots}
            for slot in slots:
                self.beside[slot] = tuple(
                    (name, firsts.get(slot[0] + _BESIDE[name][0] * GRID + _BESIDE[name][1]))
                    for name in SIDES
                )
        for slot in profile.slots:
            self._origin_mm[slot[0]] = g.cell_corner_mm(*divmod(slot[0], GRID))
            self._wall_sides[slot[0]] = _wall_sides(profile, slot)
        self._side_mm = 2 * g.cell_mm
        self._margin_mm = rules.band_half_mm + rules.line_width_max_mm
        width = round(rules.line_width_max_mm * rules.px_per_mm) | 1
        self._kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (width, width))
        self._bands: dict[float, _WallBands] = {}

    def strongest_edge(
        self,
        frame_bgr: NDArray[np.uint8],
        homography: NDArray[np.float64],
        slot: tuple[int, ...],
        sides: tuple[Side, ...] = SIDES,
        along: float = 0.5,
    ) -> float:
        """The most edge-like of the slot's ``sides`` (grey levels): along each side the
        darkest thin line across it, as strong as it runs over the share ``along`` of the
        side (the median by default), so that a tile's continuous edge counts and a
        printed dash or a speck does not."""
        r = self.rules
        s = r.px_per_mm
        x0, y0 = self._origin_mm[slot[0]]
        m = self._margin_mm
        size = round((self._side_mm + 2 * m) * s)
        close = board_view(
            frame_bgr, homography, s, (x0 - m, y0 - m), (size, size), cv2.BORDER_REPLICATE
        )
        grey = cv2.cvtColor(close, cv2.COLOR_BGR2GRAY)
        lines = np.asarray(cv2.morphologyEx(grey, cv2.MORPH_BLACKHAT, self._kernel), np.uint8)
        near, far = round(m * s), round((m + self._side_mm) * s)
        half = round(r.band_half_mm * s)
        inset = round((1 - r.side_span) / 2 * self._side_mm * s)
        return max(
            _side_edge(lines, name, (near, near), (far, far), half, inset, along) for name in sides
        )

    def own_edge(
        self, frame_bgr: NDArray[np.uint8], homography: NDArray[np.float64], slot: tuple[int, ...]
    ) -> float:
        """The most edge-like of the slot's sides along its vat's walls or the grid's edge
        (see :meth:`strongest_edge`): no other slot's tile lies there, so an edge there is
        this slot's own tile; 0.0 for a slot with no such side."""
        sides = self._wall_sides[slot[0]]
        return self.strongest_edge(frame_bgr, homography, slot, sides) if sides else 0.0

    def wall_edge(
        self, view_bgr: NDArray[np.uint8], px_per_mm: float, slot: tuple[int, ...]
    ) -> float:
        """The most edge-like of the slot's sides along its vat's walls, in the reader's
        canonical view (``px_per_mm``): no other slot's tile lies there, so an edge there
        is this slot's tile."""
        return self.wall_edges(view_bgr, px_per_mm, [slot])[0]

    def wall_edges(
        self, view_bgr: NDArray[np.uint8], px_per_mm: float, slots: Sequence[tuple[int, ...]]
    ) -> list[float]:
        """:meth:`wall_edge` of each of ``slots``, from one black-hat of the whole view: a
        frame asks of every slot read bare, up to the board's 64."""
        grey = cv2.cvtColor(view_bgr, cv2.COLOR_BGR2GRAY)
        lines = np.asarray(cv2.morphologyEx(grey, cv2.MORPH_BLACKHAT, _VIEW_KERNEL), np.uint8)
        bands = self._wall_bands(px_per_mm)
        wanted = [side for slot in slots for side in bands.sides_of[slot[0]]]
        if not wanted:
            return [0.0] * len(slots)
        picked = np.asarray(wanted, np.intp)
        darkest = lines[bands.rows[picked], bands.cols[picked]].max(axis=1)
        along = np.sort(darkest, axis=1)  # medians along each side, as in _quantile
        count = along.shape[1]
        medians = (along[:, (count - 1) // 2].astype(np.float64) + along[:, count // 2]) / 2.0
        edges, at = [], 0
        for slot in slots:
            n = len(bands.sides_of[slot[0]])
            edges.append(float(medians[at : at + n].max()) if n else 0.0)
            at += n
        return edges

    def _wall_bands(self, px_per_mm: float) -> _WallBands:
        """The pixels of every wall side's band in a canonical view at ``px_per_mm``, laid
        out at the first ask (a reader has one view resolution)."""
        if px_per_mm not in self._bands:
            self._bands[px_per_mm] = self._lay_out_wall_bands(px_per_mm)
        return self._bands[px_per_mm]

    def _lay_out_wall_bands(self, px_per_mm: float) -> _WallBands:
        s = px_per_mm
        half = round(self.rules.band_half_mm * s)
        side = round(self._side_mm * s)
        inset = round((1 - self.rules.side_span) / 2 * side)
        # Each band's offsets (across x along): across the side, then along it.
        across, along = np.meshgrid(
            np.arange(-half, half + 1), np.arange(inset, side - inset), indexing="ij"
        )
        rows: list[NDArray[np.intp]] = []
        cols: list[NDArray[np.intp]] = []
        sides_of: dict[int, list[int]] = {}
        for first, names in self._wall_sides.items():
            x0, y0 = self._origin_mm[first]
            near_x, near_y = round(x0 * s), round(y0 * s)
            sides_of[first] = []
            for name in names:
                if name in ("top", "bottom"):
                    y = near_y + (0 if name == "top" else side)
                    r, c = y + across, near_x + along
                else:
                    x = near_x + (0 if name == "left" else side)
                    r, c = near_y + along, x + across
                sides_of[first].append(len(rows))
                rows.append(r)
                cols.append(c)
        return _WallBands(np.stack(rows), np.stack(cols), sides_of)


@dataclass(frozen=True)
class _WallBands:
    """Pixel rows and columns (sides x across x along) of the bands along the vat walls,
    and which of them belong to each slot (by its first cell)."""

    rows: NDArray[np.intp]
    cols: NDArray[np.intp]
    sides_of: dict[int, list[int]]


def _side_edge(
    lines: NDArray[np.uint8],
    name: Side,
    near: tuple[int, int],
    far: tuple[int, int],
    half: int,
    inset: int,
    along: float = 0.5,
) -> float:
    """How edge-like one side of a slot is in a black-hat image ``lines`` whose slot
    corners lie at ``near`` and ``far`` (x, y pixels): along the side, less ``inset`` at
    each end, the darkest line within ``half`` pixels across it, at the level it reaches
    over the share ``along`` of the side (the median at 0.5)."""
    if name in ("top", "bottom"):
        y = near[1] if name == "top" else far[1]
        band = lines[y - half : y + half + 1, near[0] + inset : far[0] - inset]
        darkest = band.max(axis=0)
    else:
        x = near[0] if name == "left" else far[0]
        band = lines[near[1] + inset : far[1] - inset, x - half : x + half + 1]
        darkest = band.max(axis=1)
    return _quantile(darkest, 1.0 - along)


def _quantile(values: NDArray[np.uint8], q: float) -> float:
    """``np.quantile(values, q)`` of a few dozen 8-bit values (linear between ranks: the
    median the mean of the two middle ones), from one sort: a frame asks for a score of
    them, and numpy's own checks cost several times the sort; 0.0 for no values."""
    count = len(values)
    if count == 0:
        return 0.0
    ranked = np.sort(values).astype(np.float64)
    at = q * (count - 1)
    low = int(at)
    high = min(low + 1, count - 1)
    return float(ranked[low] + (at - low) * (ranked[high] - ranked[low]))


def prove_floor_by_outline(
    cells: list[str],
    colour: CellColour,
    floor: FloorModel,
    outlines: SlotOutlines,
    frame_bgr: NDArray[np.uint8],
    homography: NDArray[np.float64],
    hidden: frozenset[int] = frozenset(),
    colourless: NDArray[np.bool_] | None = None,
) -> list[str]:
    """Slots left unread whose cells show the floor's colour but for what the light did
    to it become empty when their outline shows no tile's edge along most of any side;
    an arm's cells are never proven.

    The light may have clipped the floor's chroma (glare), or, where ``colourless`` marks
    the cells showing no tile's colour, left it near the floor's in a fair light while
    the printed dashes blurred (a shadow's edge across the slot, a tinted lamp): conditions
    97002 and 93147 left such bare slots unread, their dashes correlating 0.17 and 0.19.
    A bright spot that clipped the floor's brightest channel alone bends its chroma
    further still: such cells need the quietest outline (``BRIGHT_CLIPPED_EDGE_MAX``).
    """
    masks: tuple[NDArray[np.bool_], NDArray[np.bool_]] | None = None  # once a slot asks
    out = list(cells)
    for slot in outlines.profile.slots:
        chars = [out[i] for i in slot]
        if "?" not in chars or any(c not in ".?" for c in chars):
            continue
        if masks is None:
            masks = _floor_masks(colour, floor, colourless)
        floor_like, bent = masks
        if any(i in hidden for i in slot):
            continue
        unread = [i for i in slot if out[i] == "?"]
        if all(floor_like[i] for i in unread):
            edge_max = outlines.rules.edge_min
        elif all(floor_like[i] or bent[i] for i in unread):
            edge_max = BRIGHT_CLIPPED_EDGE_MAX
        else:
            continue
        sides = _sides_not_beside_a_tile(out, outlines.beside[slot])
        if len(sides) < QUIET_SIDES_MIN:
            continue
        edge = outlines.strongest_edge(frame_bgr, homography, slot, sides, EDGE_ALONG)
        if edge < edge_max:
            for i in slot:
                out[i] = "."
    return out


def _floor_masks(
    colour: CellColour, floor: FloorModel, colourless: NDArray[np.bool_] | None
) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    """Per cell, whether its colour is the floor's but for the light, and whether it may
    be the floor bent further by a bright spot, from one measure of each cell's offset
    from the floor and of its clipping."""
    offset = floor_offset_in_shade(colour, floor)
    at_limit = clipped(colour)
    return (
        _floor_but_for_the_light(colour, offset, at_limit, colourless),
        _floor_bent_by_a_bright_spot(colour, floor, offset, at_limit, colourless),
    )


def _floor_but_for_the_light(
    colour: CellColour,
    offset: NDArray[np.float64],
    at_limit: NDArray[np.bool_],
    colourless: NDArray[np.bool_] | None,
) -> NDArray[np.bool_]:
    """Per cell, whether its colour (``offset`` Lab units from the floor's, clipped where
    ``at_limit``) is the floor's but for the light: clipped and near it, or (among the
    ``colourless`` cells) unclipped, near it and fairly lit."""
    like = (offset <= CLIPPED_FLOOR_OFFSET_MAX) & at_limit
    if colourless is not None:
        lit = np.asarray(colour.lightness) >= SHOWN_FLOOR_LIGHTNESS_MIN
        like |= colourless & ~at_limit & lit & (offset <= SHOWN_FLOOR_OFFSET_MAX)
    return np.asarray(like)


def _floor_bent_by_a_bright_spot(
    colour: CellColour,
    floor: FloorModel,
    offset: NDArray[np.float64],
    at_limit: NDArray[np.bool_],
    colourless: NDArray[np.bool_] | None,
) -> NDArray[np.bool_]:
    """Per cell, whether it may be the floor under a bright spot (see
    ``BRIGHT_CLIPPED_EDGE_MAX``): among the ``colourless`` cells, nearly white, clipped in
    one channel alone, the one the floor's own colour there holds highest, and within
    ``BRIGHT_CLIPPED_FLOOR_OFFSET_MAX`` of the floor's chroma."""
    if colourless is None:
        return np.zeros(len(colour.lightness), dtype=bool)
    # The floor's own chroma at each cell, as its own light shows it: the brightness
    # path's chroma up at the limit is bent by the clipping itself.
    own = np.stack([np.full(len(floor.a), 200.0), floor.a + 128.0, floor.b + 128.0], axis=-1)
    floor_bgr = cv2.cvtColor(np.clip(own, 0, 255).astype(np.uint8)[:, None, :], cv2.COLOR_LAB2BGR)
    brightest = np.argmax(floor_bgr[:, 0, :], axis=1)
    shares = np.asarray(colour.channel_clipped)
    own_channel = shares[np.arange(len(brightest)), brightest] >= CLIPPED_MIN
    return np.asarray(
        colourless
        & at_limit
        & ~washed_out(colour)
        & own_channel
        & (np.asarray(colour.lightness) >= BRIGHT_CLIPPED_LIGHTNESS_MIN)
        & (offset <= BRIGHT_CLIPPED_FLOOR_OFFSET_MAX)
    )


def _sides_not_beside_a_tile(
    cells: list[str], beside: tuple[tuple[Side, tuple[int, ...] | None], ...]
) -> tuple[Side, ...]:
    """A slot's sides but those it shares with a slot of its vat (``beside``: the one on
    each side, see :attr:`SlotOutlines.beside`) whose every cell is read as a tile's:
    there a tile's edge shows whatever the slot holds.  Across a wall, the tile beside
    lies beyond the band looked at."""
    return tuple(
        name for name, other in beside if other is None or any(cells[k] in ".?" for k in other)
    )


def doubt_floor_by_walls(
    cells: list[str],
    outlines: SlotOutlines,
    view_bgr: NDArray[np.uint8],
    px_per_mm: float,
    lightness: NDArray[np.float64],
) -> list[str]:
    """Slots read bare, in part or whole, become ``?`` where a side along their vat's wall
    shows a tile's edge.

    Where glare lifts a tile to the sensor's limit, or to a lower limit that a camera's
    gains after the sensor set, its colour can be the floor's own, and the colour proof
    takes it for floor.  Its outline does not wash away, and along the vat's walls no
    neighbour's tile can have put it there: bare floor shows nothing on those sides.  The
    glare need not be the frame's brightest spot: in photoreal frames developed half a
    stop darker, yellow tiles washed to the floor's colour lay 10 to 14 levels of L below
    the frame's brightest cell.  A slot whose cells read bare lie some in a shadow and
    some out of it (``lightness``, each cell's) is no washed tile, which glare lights
    all over; the shadow's edge, running beside a wall, draws a line there like a tile's.
    """
    out = list(cells)
    suspects = [
        slot
        for slot in outlines.profile.slots
        if "." in (chars := [out[i] for i in slot])
        and all(c in ".?" for c in chars)
        and not _shadow_across(slot, out, lightness)
    ]
    if not suspects:
        return out
    edges = outlines.wall_edges(view_bgr, px_per_mm, suspects)
    for slot, edge in zip(suspects, edges, strict=True):
        if edge >= outlines.rules.wall_edge_min:
            for i in slot:
                out[i] = "?"
    return out


def _shadow_across(slot: tuple[int, ...], cells: list[str], lightness: NDArray[np.float64]) -> bool:
    """Whether the cells of ``slot`` read bare lie partly in a shadow: the darkest under
    ``SHADOWED_IN_SLOT_MAX`` of the brightest's lightness."""
    bare = [float(lightness[i]) for i in slot if cells[i] == "."]
    return min(bare) < SHADOWED_IN_SLOT_MAX * max(bare)


def _wall_sides(profile: BoardProfile, slot: tuple[int, ...]) -> tuple[Side, ...]:
    """The sides of ``slot`` beyond which the next cell lies in another vat, or none."""
    rows, cols = zip(*(divmod(i, GRID) for i in slot), strict=True)
    vat = profile.vat_of_cell[slot[0]]
    beyond: dict[Side, tuple[int, int]] = {
        "top": (min(rows) - 1, min(cols)),
        "bottom": (max(rows) + 1, min(cols)),
        "left": (min(rows), min(cols) - 1),
        "right": (min(rows), max(cols) + 1),
    }
    return tuple(
        side
        for side, (r, c) in beyond.items()
        if not (0 <= r < GRID and 0 <= c < GRID) or profile.vat_of_cell[r * GRID + c] != vat
    )


__all__ = [
    "OutlineRules",
    "Side",
    "SlotOutlines",
    "doubt_floor_by_walls",
    "prove_floor_by_outline",
]
