"""Tiles glare washed too pale to name, read against tiles the same frame did name.

A glossy tile under a lamp sends back two lights: its ink's, scaled by the diffuse light
there, and the lamp's own off the gloss (the dichromatic reflection model).  In linear
light each channel of a cell then reads ``k * ink + s`` until the sensor clips it: the
glare ``s`` adds alike to every channel, and ``k`` follows the light falling on that part
of the board.  A washed cell therefore lies on the line from a tile of its own species
seen nearby, lifted by some glare and scaled by its share of diffuse light; the bare
floor's cells and tiles of the other species lie off that line.

The frame's own named cells stand in for the inks: they carry this camera's processing and
this lamp's colour, which no printed reference does.  The diffuse light at each cell comes
from the bare floor around it, so an exemplar in a shadow is not taken for a washed cell
in the light.  Only channels below the sensor's limit are fitted; a clipped one says only
that the fit must reach the limit there.  A cell is named when one species fits, the floor
and every other species fit clearly worse, and at least two channels are fitted: with one
channel, and an exemplar clipped where the cell is, any exemplar fits.

A cell whose means are too clipped for that is fitted again at its least glared pixels,
where the glare's spread across the cell often leaves a channel or two below the limit;
there the channels still at the limit bound the fit, so one below it is enough.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, replace

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.boards import GRID, BoardProfile
from companion.vision.cells import SPECIES_ORDER, slot_possible
from companion.vision.colour import SENSOR_LIMIT
from companion.vision.floor import CellColour, CellWindows

FloatArray = NDArray[np.float64]

FLOOR = "."
YELLOW = "Y"


def srgb_to_linear(levels: FloatArray) -> FloatArray:
    """The sRGB transfer curve undone: 8-bit levels to linear light (0 to 1)."""
    c = np.asarray(levels, dtype=np.float64) / 255.0
    return np.asarray(np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4))


# Linear light of every 8-bit level, one lookup per pixel.
_LINEAR_LUT = srgb_to_linear(np.arange(256, dtype=np.float64)).astype(np.float32).reshape(256, 1)
_LINEAR = _LINEAR_LUT.ravel().astype(np.float64)


@dataclass(frozen=True)
class ExemplarRules:
    """Thresholds of the fit (linear light 0 to 1, shares of a cell's window)."""

    # Glare lifts a cell this bright (8-bit L) at least, or clips this share of it in some
    # channel: only such a cell counts as washed (as for
    # :class:`~companion.vision.pastel.PastelRules`).  Lit skin over a dim board reaches
    # L 150-190 unclipped, and fits a washed red.
    glare_lightness_min: float = 200.0
    glare_clipped_min: float = 0.1
    # A channel clipped over this share of a cell's window is a lower bound, not a level.
    clipped_share: float = 0.25
    # Each of an exemplar's channels is clear of the limit (at most the first share at
    # it) or at it (at least the second): a channel clipped in part has a mean that is
    # neither its colour nor a bound.
    exemplar_clear_max: float = 0.05
    exemplar_clipped_min: float = 0.8
    # A clipped channel's mean reaches at least this (about 8-bit 245).
    clipped_linear_min: float = 0.92
    # Exemplars count within this many cells (rows and columns) of the washed cell: the
    # same lamp, the same corner of the lens.
    radius_cells: int = 4
    # The diffuse light at a cell is read from this many nearest bare-floor cells ...
    floor_neighbours: int = 6
    # ... and with fewer bare-floor cells than this the frame gives no light to compare.
    floor_cells_min: int = 4
    # The two cells' diffuse light may differ from the floor's estimate by this factor
    # either way: a tile stands 2 mm above the floor and casts its own soft shadow.
    light_factor_max: float = 1.25
    # Steps tried across that range.
    light_steps: int = 10
    # Channels fitted at least: below the limit in both the cell and the exemplar.
    free_channels_min: int = 2
    # The best species fits within this (linear light x 255, root mean square) ...
    residual_max: float = 8.0
    # ... and the floor and every other species fit this much worse at least.  Read back
    # against their neighbours, over 5,000 named cells of photoreal frames lit by glare,
    # no wrong species passed these two.
    margin_min: float = 5.0
    # A cell whose means have too many channels at the limit to fit is fitted again at
    # its least glared pixels: each channel's level at this quantile of its window.
    # Glare varies across a cell and lifts every channel of a pixel together, so the
    # three channels' quantiles come from the same few pixels, often below the limit.
    low_quantile: float = 0.05
    # There one channel below the limit is enough: the channels at the limit still bound
    # the fit, which must reach them.  Read back as if unread, of the 973 tile cells too
    # clipped for their means in 216 photoreal and 480 conditions frames, 945 were named
    # and none wrong; of 290 such bare floor cells, none was named.
    low_free_channels_min: int = 1
    # With fewer channels than this below the limit, a cell is named only where every
    # species had an exemplar in reach: one channel does not rule out an ink no exemplar
    # showed (photoreal 5651 img011: a yellow clipped in red and green, no yellow tile in
    # reach, named green).  Of the 36 cells the low fit named in 246 stored photoreal
    # frames, one other lay so, right, in the same frame; the two and a cell the
    # pastel pass then read are unread, and no other reading of those frames changes.
    every_species_below_free: int = 2


@dataclass(frozen=True)
class LinearCells:
    """Per cell window: mean linear light (BGR) and the share of it clipped per channel."""

    light: FloatArray  # cells x 3
    clipped_share: FloatArray  # cells x 3

    @classmethod
    def measure(
        cls, view_bgr: NDArray[np.uint8], colour: CellColour, windows: CellWindows
    ) -> LinearCells:
        linear = cv2.LUT(np.ascontiguousarray(view_bgr[windows.box]), _LINEAR_LUT)
        return cls(windows.means_in_box(np.asarray(linear, np.float32)), colour.channel_clipped)


def low_quantile_cells(
    view_bgr: NDArray[np.uint8], windows: CellWindows, chosen: Collection[int], quantile: float
) -> LinearCells:
    """For the ``chosen`` cells, each channel's linear light at ``quantile`` of its window
    and whether that level is at the sensor's limit (``clipped_share`` 1.0, else 0.0);
    other cells read zero."""
    light = np.zeros((len(windows.y0), 3))
    limited = np.zeros((len(windows.y0), 3))
    for i in chosen:
        box = view_bgr[windows.y0[i] : windows.y1[i], windows.x0[i] : windows.x1[i]]
        pixels = box.reshape(-1, 3)
        rank = int(quantile * (len(pixels) - 1))
        levels = np.partition(pixels, rank, axis=0)[rank]
        light[i] = _LINEAR[levels]
        limited[i] = levels >= SENSOR_LIMIT
    return LinearCells(light, limited)


def diffuse_light(
    cells: LinearCells,
    clipped: NDArray[np.bool_],
    floor_cells: Collection[int],
    floor_linear: FloatArray,
    rules: ExemplarRules,
) -> FloatArray:
    """Per cell, the diffuse light the bare floor around it shows (``nan`` when the frame
    reads too few floor cells): each floor cell's unclipped channels (``clipped``: cells x
    channels at the limit) against the printed floor's, weighed by the inverse square of
    its distance among the nearest few."""
    floor = np.array([i for i in sorted(floor_cells) if not clipped[i].all()], dtype=np.intp)
    count = len(cells.light)
    if len(floor) < rules.floor_cells_min:
        return np.full(count, np.nan)
    free = ~clipped[floor]
    ratio = np.where(free, cells.light[floor] / floor_linear[None, :], 0.0)
    level = ratio.sum(axis=1) / free.sum(axis=1)
    here = np.arange(count)
    dist = np.hypot(
        floor[None, :] // GRID - here[:, None] // GRID, floor[None, :] % GRID - here[:, None] % GRID
    )
    nearest = np.argsort(dist, axis=1)[:, : rules.floor_neighbours]
    weight = 1.0 / (np.take_along_axis(dist, nearest, axis=1) + 0.5) ** 2
    return np.asarray((weight * level[nearest]).sum(axis=1) / weight.sum(axis=1), np.float64)


def lamp_colour(gains_srgb: FloatArray) -> FloatArray:
    """The lamp's colour in the camera's linear light (BGR, largest channel 1), from the
    white balance's 8-bit gains there: balanced, the lamp's white is neutral, so each
    channel of it was dimmed by its gain, raised to the sRGB curve's power."""
    colour = np.power(np.maximum(np.asarray(gains_srgb, np.float64), 1e-6), -2.4)
    return np.asarray(colour / colour.max(axis=-1, keepdims=True), np.float64)


NEUTRAL = np.ones(3)


def misfit(
    cell: FloatArray,
    cell_clipped: NDArray[np.bool_],
    exemplar: FloatArray,
    exemplar_clipped: NDArray[np.bool_],
    light_ratio: float,
    rules: ExemplarRules,
    lamp: FloatArray = NEUTRAL,
) -> float | None:
    """How far (linear light x 255, root mean square over channels) ``cell`` lies from
    ``exemplar`` lit by about ``light_ratio`` times its diffuse light plus any glare of the
    ``lamp``'s colour (:func:`lamp_colour`), or ``None`` when too few channels are below
    the limit in both to tell."""
    fit = misfits(
        cell,
        cell_clipped,
        exemplar[None, :],
        exemplar_clipped[None, :],
        np.array([light_ratio]),
        rules,
        lamp,
    )[0]
    return None if np.isnan(fit) else float(fit)


def misfits(
    cell: FloatArray,
    cell_clipped: NDArray[np.bool_],
    exemplars: FloatArray,
    exemplars_clipped: NDArray[np.bool_],
    light_ratios: FloatArray,
    rules: ExemplarRules,
    lamp: FloatArray = NEUTRAL,
) -> FloatArray:
    """:func:`misfit` of ``cell`` against each of several exemplars at once (exemplars x
    channels, one light ratio each), ``nan`` where too few channels tell."""
    free = ~cell_clipped[None, :] & ~exemplars_clipped  # exemplars x channels
    spread = np.log(rules.light_factor_max)
    factors = light_ratios[:, None] * np.exp(np.linspace(-spread, spread, rules.light_steps))
    # exemplars x steps x channels, before glare
    predicted = factors[:, :, None] * exemplars[:, None, :]
    # The glare's strength that fits the free channels best (least squares along the
    # lamp's colour).
    along = np.where(free, lamp[None, :], 0.0)
    weight = np.maximum((along * along).sum(axis=1), 1e-12)
    apart = np.where(free[:, None, :], cell[None, None, :] - predicted, 0.0)
    glare = (apart * along[:, None, :]).sum(axis=2) / weight[:, None]
    predicted = predicted + glare[:, :, None] * lamp[None, None, :]
    error = np.where(free[:, None, :], cell[None, None, :] - predicted, 0.0)
    # The cell clipped where the exemplar did not: the fit must reach the limit there.
    short = (cell_clipped[None, :] & ~exemplars_clipped)[:, None, :]
    error = np.where(short, np.maximum(0.0, rules.clipped_linear_min - predicted), error)
    # The exemplar clipped where the cell did not: its true level was higher still, so the
    # fit may not pass the cell's.
    over = (exemplars_clipped & ~cell_clipped[None, :])[:, None, :]
    error = np.where(over, np.maximum(0.0, predicted - cell[None, None, :]), error)
    fits = np.sqrt((error**2).mean(axis=2)).min(axis=1) * 255.0
    return np.where(free.sum(axis=1) >= rules.free_channels_min, fits, np.nan)


def _reach(cells: NDArray[np.intp], index: int) -> NDArray[np.intp]:
    """How many rows or columns (the larger) each of ``cells`` lies from cell ``index``."""
    row, col = divmod(index, GRID)
    return np.asarray(np.maximum(np.abs(cells // GRID - row), np.abs(cells % GRID - col)))


def exemplar_species(
    index: int,
    cells: LinearCells,
    clipped: NDArray[np.bool_],
    chars: list[str],
    exemplars: Collection[int],
    light: FloatArray,
    rules: ExemplarRules,
    floor_possible: bool = False,
    lamp: FloatArray = NEUTRAL,
) -> str | None:
    """The species cell ``index`` shows against the frame's named cells, or ``None``
    (``clipped``: cells x channels at the limit, worked out once per frame; ``lamp``: the
    lamp's colour at the cell, :func:`lamp_colour`).

    The cream floor is a pale yellow: bare floor in a warm lamp's light, lifted by the
    balance, fits a washed yellow.  Where the cell may be bare floor (``floor_possible``:
    no cell of its slot is named, only the slot's outline tells of a tile), a yellow is
    named only when bare floor near enough was tried and fit clearly worse.  The other
    inks lie off the floor's hue, where no tint of light takes bare floor.  Where a cell
    of the slot is named, a tile covers all of it: the floor is no candidate there, and
    a washed yellow need only fit clearly better than the other inks."""
    others = np.fromiter(exemplars, dtype=np.intp)
    near = others[(others != index) & (_reach(others, index) <= rules.radius_cells)].tolist()
    best: dict[str, float] = {}
    if near:
        with np.errstate(divide="ignore", invalid="ignore"):
            ratios = light[index] / light[near]
        fits = misfits(
            cells.light[index],
            clipped[index],
            cells.light[near],
            clipped[near],
            np.where(np.isfinite(ratios), ratios, 1.0),
            rules,
            lamp,
        )
        for other, fit in zip(near, fits.tolist(), strict=True):
            if not np.isnan(fit):
                kind = chars[other]
                best[kind] = min(best.get(kind, np.inf), fit)
    if not floor_possible:
        best.pop(FLOOR, None)  # a tile covers the slot: no cell of it is bare floor
    if not best:
        return None
    free = int((~clipped[index]).sum())
    if free < rules.every_species_below_free and not set(SPECIES_ORDER) <= best.keys():
        return None  # an ink no exemplar in reach showed may fit as well
    ranked = sorted(best.items(), key=lambda item: item[1])
    kind, fit = ranked[0]
    runner = ranked[1][1] if len(ranked) > 1 else np.inf
    if kind not in SPECIES_ORDER or fit > rules.residual_max:
        return None
    if kind == YELLOW and floor_possible and FLOOR not in best:
        return None
    return kind if runner - fit >= rules.margin_min else None


def fill_by_exemplars(
    chars: list[str],
    colour: CellColour,
    view_bgr: NDArray[np.uint8],
    windows: CellWindows,
    floor_bgr: FloatArray,
    profile: BoardProfile,
    rules: ExemplarRules,
    shows_edge: Callable[[tuple[int, ...]], bool] = lambda slot: False,
    beside_arm: frozenset[int] = frozenset(),
    gains: FloatArray | None = None,
    shows_own_edge: Callable[[tuple[int, ...]], bool] = lambda slot: False,
) -> list[str]:
    """Unread washed cells of slots that hold a tile, named against the frame's own tiles
    (``floor_bgr``: the printed floor colour, 8-bit; ``gains``: the white balance's 8-bit
    gains at each cell, cells x BGR, which give the glare's colour; neutral without).  A
    tile is there when a cell of the slot names a species or its outline shows a tile's
    edge (``shows_edge``): bare floor in a shadow's light can fit a washed yellow.  An edge
    along the slot's vat wall or the grid's edge (``shows_own_edge``) is the slot's own
    tile's, no neighbour's: such a slot is covered, and no cell of it is floor.  A slot
    with a cell read empty, or within reach of an arm's skin (``beside_arm``), is left as
    it is; so is a slot the names found would make impossible."""
    washed = (colour.lightness >= rules.glare_lightness_min) | (
        colour.channel_clipped.max(axis=1) >= rules.glare_clipped_min
    )
    slots = [
        slot
        for slot in profile.slots
        if any(chars[i] == "?" and washed[i] for i in slot)
        and all(chars[i] != FLOOR for i in slot)
        and not beside_arm.intersection(slot)
        and (any(chars[i] in SPECIES_ORDER for i in slot) or shows_edge(slot))
    ]
    if not slots:
        return list(chars)  # most frames: nothing washed is left unread
    cells = LinearCells.measure(view_bgr, colour, windows)
    share = cells.clipped_share
    clipped = share >= rules.clipped_share
    clean = np.all(
        (share <= rules.exemplar_clear_max) | (share >= rules.exemplar_clipped_min), axis=1
    )
    floor_cells = [i for i, c in enumerate(chars) if c == FLOOR and windows.plain[i]]
    exemplars = [i for i, c in enumerate(chars) if c in SPECIES_ORDER and clean[i]]
    exemplars += [i for i in floor_cells if clean[i]]
    light = diffuse_light(cells, clipped, floor_cells, srgb_to_linear(floor_bgr), rules)
    lamps = np.ones((len(chars), 3)) if gains is None else lamp_colour(gains)
    low = _LowQuantileFit(chars, view_bgr, windows, slots, washed, floor_cells, rules)

    def named(i: int, floor_possible: bool) -> str:
        if chars[i] != "?" or not washed[i]:
            return chars[i]
        found = exemplar_species(
            i, cells, clipped, chars, exemplars, light, rules, floor_possible, lamps[i]
        )
        if found is None and int((~clipped[i]).sum()) < rules.free_channels_min:
            # Too clipped to fit by its means (an unclipped cell's darkest pixels are
            # the print, not its ink): fitted again at its least glared pixels.
            found = low.species(i, light, floor_possible, lamps[i])
        return found or "?"

    out = list(chars)
    for slot in slots:
        unnamed = not any(chars[i] in SPECIES_ORDER for i in slot)
        floor_possible = unnamed and not shows_own_edge(slot)
        filled = [named(i, floor_possible) for i in slot]
        if floor_possible and any(c in SPECIES_ORDER for c in filled):
            # A cell of it now named: a tile covers the whole slot, none of it is floor.
            filled = [named(i, False) if c == "?" else c for i, c in zip(slot, filled, strict=True)]
        if filled != [chars[i] for i in slot] and slot_possible(filled):
            for i, c in zip(slot, filled, strict=True):
                out[i] = c
    return out


class _LowQuantileFit:
    """The second fit of a frame's washed cells, at their least glared pixels
    (:attr:`ExemplarRules.low_quantile`): measured once, on the first cell that needs it,
    over the cells within reach of the unread ones."""

    def __init__(
        self,
        chars: list[str],
        view_bgr: NDArray[np.uint8],
        windows: CellWindows,
        slots: Collection[tuple[int, ...]],
        washed: NDArray[np.bool_],
        floor_cells: list[int],
        rules: ExemplarRules,
    ) -> None:
        self._chars = chars
        self._view = view_bgr
        self._windows = windows
        self._unread = sorted({i for slot in slots for i in slot if chars[i] == "?" and washed[i]})
        self._exemplars = [i for i, c in enumerate(chars) if c in SPECIES_ORDER] + floor_cells
        self._rules = replace(rules, free_channels_min=rules.low_free_channels_min)
        self._cells: LinearCells | None = None
        self._clipped: NDArray[np.bool_] | None = None

    def _measured(self) -> tuple[LinearCells, NDArray[np.bool_]]:
        """The cells' low quantiles and which channels of them are at the limit."""
        if self._cells is None or self._clipped is None:
            exemplars = np.array(self._exemplars, dtype=np.intp)
            reach = np.full(len(exemplars), GRID)
            for cell in self._unread:
                reach = np.minimum(reach, _reach(exemplars, cell))
            near = exemplars[reach <= self._rules.radius_cells].tolist()
            chosen = self._unread + near
            self._cells = low_quantile_cells(
                self._view, self._windows, chosen, self._rules.low_quantile
            )
            self._clipped = self._cells.clipped_share >= 0.5
        return self._cells, self._clipped

    def species(
        self, index: int, light: FloatArray, floor_possible: bool, lamp: FloatArray
    ) -> str | None:
        """:func:`exemplar_species` of cell ``index`` at the low quantile."""
        cells, clipped = self._measured()
        return exemplar_species(
            index,
            cells,
            clipped,
            self._chars,
            self._exemplars,
            light,
            self._rules,
            floor_possible,
            lamp,
        )


__all__ = [
    "ExemplarRules",
    "LinearCells",
    "diffuse_light",
    "exemplar_species",
    "fill_by_exemplars",
    "lamp_colour",
    "low_quantile_cells",
    "misfit",
    "misfits",
    "srgb_to_linear",
]
