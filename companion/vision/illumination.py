"""The light's colour across the board, measured on the print that never changes.

One white balance for the whole frame assumes one light. A real table often has two (a
warm ceiling lamp and a cold window, or two lamps of different temperature), each
lighting one side: then the print itself changes colour from one side to the other, and
a single balance leaves one half too warm (taken for skin) and the other too cold.

Two prints show the light's colour wherever they lie, because each is one ink all over:
the bare sheet around the grid, and the walls between the vats, which no tile covers. The
sheet's colour in short blocks along its four sides, and the walls' colour along every
vat's side, are the light's colour at those places (the walls' through an ink whose
offset from the sheet's is fitted with them). A lattice of nodes, stiff against bending,
is fitted to those samples and carries the light's colour between them: where two lamps
mix over a narrow band, the walls inside the board show where the band runs, which the
sheet's edge alone cannot.

Only the light's colour (each channel against green) varies from place to place:
brightness alone (a lamp's fall-off, vignetting, a shadow) does not change it and is left
to the single balance.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from typing import NamedTuple

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.boards.profile import Geometry
from companion.vision.canonical import CanonicalLayout
from companion.vision.colour import ColourModel, hex_to_bgr, white_balance

FloatArray = NDArray[np.float64]

# An 8-bit channel at or above this is clipped; such pixels say nothing about the light.
CLIPPED = 250
# A strip of the sheet darker than this share of the brightest (summed channels) lies in
# a hard shadow: lamps' falloff and vignetting leave the lit strips within 0.7 of each
# other.  Over 305 frames of the photoreal and conditions sets, two or more strips lay
# that deep in 9.
SHADOWED_STRIP_MAX = 0.7
# Each of the four bare strips is cut into this many blocks along its length: an arm
# crossing a strip covers one or two of them, which the fit then sets aside.
BLOCKS_PER_STRIP = 12
# Fewer usable samples than this (half the sheet's blocks) say too little about the light.
MIN_BLOCKS = 2 * BLOCKS_PER_STRIP
# A block (or strip) needs this share of unclipped pixels to be measured without them.
BLOCK_MIN_CLEAR = 0.2
# Every this-many-th pixel of a strip or block is enough for its median colour.
PIXEL_STEP = 3
# The four strips' colours are worth a closer look when they move a channel's share of the
# light (against green) by more than this fraction: the noise of a strip's median stays
# well under one per cent.
VARYING_CHROMA_MIN = 0.04
# The light's colour is taken as varying across the board when the fitted lattice moves a
# channel's share by more than this (log ratio) between the samples it keeps. One lamp's
# glare and the room's light move it by up to 0.11 in photoreal renders of a single
# light, and the colour classes bear that; a warm and a cold lamp (2700-3200 K against
# 5000-6500 K) move it by 0.17 or more wherever their mixing band crosses the board.
VARYING_CHROMA_FITTED_MIN = 0.14
# ... and the light is taken as one without a closer look when the middle 80 % of the
# sheet's blocks lie within this (log ratio) of each other: that is so on 100 of the 132
# photoreal frames of a single light that would take the closer look, while two lamps
# spread those blocks by 0.069 or more.
STEADY_EDGE_CHROMA_MAX = 0.05
# A wall is sampled along its centre line, this far (mm) to either side of it: inside the
# narrowest wall (6 mm around the grid on printed boards), clear of a tile's 2 mm edge
# seen at a slant over the wall's side.
WALL_HALF_WIDTH_MM = 1.5
# Each vat's side is cut into this many wall blocks: a wall sample every 36 mm.
WALL_BLOCKS_PER_SIDE = 2
# The lattice's nodes lie this far apart (mm): two lamps' light mixes over 200 mm or more.
NODE_MM = 40.0
# The lattice's stiffness: the weight of each node's bend (second difference, in log
# chroma) against one sample's misfit. Supple enough to follow a band 200 mm wide where
# two lamps mix (within 5 %), stiff enough that the samples an arm half covers, which
# stay in the fit, cannot bend it round the arm's skin: on 80 conditions frames with an
# arm, 134 cells were read wrong at 0.3, 35 at 1, 29 at 3 (at 10 the band is lost).
STIFFNESS = 3.0
# Robust fit: rounds, and how far a sample may sit from the lattice (log chroma, in its
# worse channel: this many times the median sample's misfit, or at least this much) and
# still count in the next round; samples further off are covered (an arm, a leaning
# piece).
FIT_ROUNDS = 3
SAMPLE_OUTLIER_SPREAD = 3.0
SAMPLE_OUTLIER_MIN = 0.03
# With fewer usable sheet blocks than this (a lamp bright enough to clip one channel all
# round the sheet), the samples cannot place the walls' ink against the sheet's: the
# walls' offset is held at the printed one (log chroma), by a weight this many times a
# sample's.  Ratios of two inks under one light do not depend on the light's strength,
# even through a camera's gamma.
MIN_SHEET_BLOCKS = BLOCKS_PER_STRIP // 2
PRINTED_OFFSET_WEIGHT = 1000.0


@dataclass(frozen=True)
class SheetLight:
    """The sheet's observed colour: one colour (``uniform``) and, where the light's colour
    changes across the board, a lattice of its chroma against that colour's."""

    uniform: FloatArray  # BGR, one colour for the whole frame
    # Per node (rows x columns x BGR), the log of the sheet's colour there against the
    # uniform colour; nodes ``NODE_MM`` apart from the view's corner.
    log_colour: FloatArray | None
    node_px: float = 1.0  # the nodes' spacing in view pixels
    set_aside: int = 0  # samples the fit dropped as covered (an arm, a leaning piece)

    @property
    def varies(self) -> bool:
        """Whether the light's colour changes across the board."""
        return self.log_colour is not None

    @classmethod
    def measure(
        cls,
        view: NDArray[np.uint8],
        layout: CanonicalLayout,
        uniform: FloatArray,
        strips: FloatArray,
    ) -> SheetLight:
        """The light over ``view``; ``uniform`` is the sheet's one colour, taken when the
        light's colour does not change across the board, as the four strips' colours
        (``strips``, 4 x BGR) tell at a glance under one light."""
        if _chroma_spread(strips) <= np.log1p(VARYING_CHROMA_MIN) or np.any(uniform <= 1.0):
            return cls(uniform, None)
        centres, colours = _sheet_blocks(view, layout)
        if _steady(colours):
            return cls(uniform, None)
        wall_centres, wall_colours = _wall_blocks(view, layout)
        # np.concatenate, not np.r_ / np.c_: the same arrays without their slow parsing.
        points = np.concatenate([centres, wall_centres])
        chroma = _log_chroma(np.concatenate([colours, wall_colours])) - _log_chroma(uniform[None])
        on_wall = np.concatenate([np.zeros(len(centres), bool), np.ones(len(wall_centres), bool)])
        if len(points) < MIN_BLOCKS:
            return cls(uniform, None)
        node_px = NODE_MM * layout.px_per_mm
        lattice = _Lattice.for_view(layout.size_px, node_px)
        design = lattice.design(points, on_wall)
        printed = None
        if len(centres) < MIN_SHEET_BLOCKS:
            inks = layout.profile.colours
            printed = _printed_wall_offset(inks.wall, inks.sheet)
        fitted = _robust_fit(lattice, design, chroma, printed)
        if fitted is None:
            return cls(uniform, None)
        solution, keep = fitted
        at_samples = design.predict(solution, lattice_only=True)[keep]
        if np.ptp(at_samples, axis=0).max() <= VARYING_CHROMA_FITTED_MIN:
            return cls(uniform, None)
        nodes = solution[:-1].reshape(lattice.rows, lattice.cols, 2)
        unchanged = np.zeros(nodes.shape[:2])  # brightness is left to the single balance
        log_colour = np.stack([nodes[:, :, 0], unchanged, nodes[:, :, 1]], axis=-1)
        return cls(uniform, np.asarray(log_colour, np.float64), node_px, int((~keep).sum()))

    def gains(self, points_px: FloatArray, model: ColourModel) -> FloatArray:
        """The balance's per-channel gains (points x BGR) at the given view pixels."""
        sheet = np.broadcast_to(self.uniform, (len(points_px), 3)).copy()
        if self.log_colour is not None:
            rows, cols = self.log_colour.shape[:2]
            tied = _Lattice(rows, cols, self.node_px).design(points_px)
            sheet *= np.exp(tied.predict(self.log_colour.reshape(-1, 3), lattice_only=True))
        return np.asarray(np.asarray(model.sheet_bgr) / np.maximum(sheet, 1.0), np.float64)

    def balance(self, view: NDArray[np.uint8], model: ColourModel) -> NDArray[np.uint8]:
        """``view`` with each pixel's channels scaled so the sheet would show its reference
        colour there."""
        if self.log_colour is None:
            return white_balance(view, self.uniform, model)
        height, width = view.shape[:2]
        rows, cols = self.log_colour.shape[:2]
        across = _interpolation(np.arange(width) / self.node_px, cols).astype(np.float32)
        down = _interpolation(np.arange(height) / self.node_px, rows).astype(np.float32)
        gains = np.asarray(model.sheet_bgr, np.float64) / np.maximum(self.uniform, 1.0)
        out = []
        for channel, plane in enumerate(cv2.split(view)):
            nodes = self.log_colour[:, :, channel].astype(np.float32)
            if not nodes.any():  # green: brightness is left to the single gain
                out.append(cv2.LUT(plane, _scaled_levels(np.float32(gains[channel]))))
                continue
            field = np.exp(-(down @ nodes @ across.T)) * np.float32(gains[channel])
            out.append(cv2.convertScaleAbs(cv2.multiply(plane, field, dtype=cv2.CV_32F)))
        # Each channel clipped on its own: keeping the hue of pixels lifted past the limit,
        # as the single balance does, read 2 cells wrong in one frame under two lamps and
        # lost one arm more.
        return np.asarray(cv2.merge(out), dtype=np.uint8)


def _scaled_levels(gain: np.float32) -> NDArray[np.uint8]:
    """Every 8-bit level scaled by one gain, by the very operations :meth:`SheetLight.balance`
    applies to a pixel: a channel whose field is one gain is a lookup, not a whole-view
    exponential and product."""
    levels = np.arange(256, dtype=np.uint8).reshape(1, 256)
    field = np.full(levels.shape, gain, dtype=np.float32)
    return np.asarray(
        cv2.convertScaleAbs(cv2.multiply(levels, field, dtype=cv2.CV_32F)), dtype=np.uint8
    )


def _robust_fit(
    lattice: _Lattice, design: _Design, chroma: FloatArray, printed: FloatArray | None = None
) -> tuple[FloatArray, NDArray[np.bool_]] | None:
    """The lattice (and the walls' ink offset, the last unknown, held near ``printed``
    when given) fitted to the samples, those too far off it set aside round after round,
    and which samples it keeps; ``None`` when too few are left."""
    keep = np.ones(len(chroma), dtype=bool)
    for _ in range(FIT_ROUNDS):
        solution = lattice.fit(design, chroma, keep, printed)
        misfit = np.abs(design.predict(solution) - chroma).max(axis=1)
        bound = max(SAMPLE_OUTLIER_SPREAD * float(np.median(misfit[keep])), SAMPLE_OUTLIER_MIN)
        kept, keep = keep, misfit <= bound
        if keep.sum() < MIN_BLOCKS:
            return None
        if np.array_equal(kept, keep):  # settled: the next fit would be this one
            return solution, keep
    return lattice.fit(design, chroma, keep, printed), keep


class _Design(NamedTuple):
    """Each sample's four nearest nodes and bilinear weights on them, and whether it lies
    on a wall (whose ink's offset is one more unknown, after the nodes')."""

    nodes: NDArray[np.intp]  # samples x 4
    weights: FloatArray  # samples x 4
    on_wall: FloatArray  # samples: 1.0 on a wall, else 0.0

    def predict(self, solution: FloatArray, lattice_only: bool = False) -> FloatArray:
        """The fitted values (samples x columns) at the samples: the lattice's, plus the
        walls' offset unless ``lattice_only``."""
        out = np.einsum("sk,skc->sc", self.weights, solution[self.nodes])
        if not lattice_only:
            out += self.on_wall[:, None] * solution[-1]
        return np.asarray(out, np.float64)


@dataclass(frozen=True)
class _Lattice:
    """Nodes ``node_px`` apart over a view, each sample tied to its four nearest."""

    rows: int
    cols: int
    node_px: float

    @classmethod
    def for_view(cls, size_px: tuple[int, int], node_px: float) -> _Lattice:
        width, height = size_px
        return cls(int(np.ceil(height / node_px)) + 1, int(np.ceil(width / node_px)) + 1, node_px)

    def design(self, points_px: FloatArray, on_wall: NDArray[np.bool_] | None = None) -> _Design:
        """How the given view pixels are tied to the nodes."""
        col, fx = _cell_of(points_px[:, 0] / self.node_px, self.cols)
        row, fy = _cell_of(points_px[:, 1] / self.node_px, self.rows)
        first = row * self.cols + col
        nodes = np.stack([first, first + 1, first + self.cols, first + self.cols + 1], axis=1)
        weights = np.stack([(1 - fy) * (1 - fx), (1 - fy) * fx, fy * (1 - fx), fy * fx], axis=1)
        wall = np.zeros(len(points_px)) if on_wall is None else on_wall.astype(np.float64)
        return _Design(nodes, weights, wall)

    def fit(
        self,
        design: _Design,
        values: FloatArray,
        keep: NDArray[np.bool_],
        printed: FloatArray | None = None,
    ) -> FloatArray:
        """Node values, then the walls' offset, fitting the kept samples' ``values`` in
        least squares, each node's bend weighed by ``STIFFNESS``; the offset held at
        ``printed`` (see ``PRINTED_OFFSET_WEIGHT``) when given."""
        unknowns = self.rows * self.cols + 1
        nodes, weights, wall = design.nodes[keep], design.weights[keep], design.on_wall[keep]
        kept = values[keep]
        # The normal equations, summed sample by sample (each touches four nodes and the
        # walls' offset): far faster than products of the mostly empty design matrix.
        cols = np.column_stack([nodes, np.full(len(nodes), unknowns - 1)])
        vals = np.column_stack([weights, wall])
        pairs = (cols[:, :, None] * unknowns + cols[:, None, :]).ravel()
        products = (vals[:, :, None] * vals[:, None, :]).ravel()
        summed = np.bincount(pairs, products, unknowns * unknowns).reshape(unknowns, unknowns)
        normal = np.asarray(summed, np.float64) + _stiffness(self.rows, self.cols)
        rhs = np.stack(
            [np.bincount(cols.ravel(), (vals * kept[:, [c]]).ravel(), unknowns) for c in range(2)],
            axis=1,
        )
        if printed is not None:
            normal[-1, -1] += PRINTED_OFFSET_WEIGHT
            rhs[-1] += PRINTED_OFFSET_WEIGHT * printed
        # The bending terms keep the system positive definite: Cholesky solves it.
        _, solution = cv2.solve(normal, rhs, flags=cv2.DECOMP_CHOLESKY)
        return np.asarray(solution, np.float64)


@functools.lru_cache(maxsize=8)
def _stiffness(rows: int, cols: int) -> FloatArray:
    """The bending terms' share of the normal equations, with a last row and column for
    the walls' offset, which bends nothing."""
    bend = STIFFNESS * _bending(rows, cols)
    nodes = rows * cols
    out = np.zeros((nodes + 1, nodes + 1))
    out[:nodes, :nodes] = bend.T @ bend
    return out


def _bending(rows: int, cols: int) -> FloatArray:
    """Second differences along each row and column of nodes and the twist of each square
    of four, one per row of the result (a thin plate's bending, node by node)."""
    index = np.arange(rows * cols).reshape(rows, cols)
    out: list[FloatArray] = []

    def term(nodes: list[int], factors: list[float]) -> None:
        row = np.zeros(rows * cols)
        row[nodes] = factors
        out.append(row)

    for r in range(rows):
        for c in range(cols):
            if c + 2 < cols:
                term([index[r, c], index[r, c + 1], index[r, c + 2]], [1.0, -2.0, 1.0])
            if r + 2 < rows:
                term([index[r, c], index[r + 1, c], index[r + 2, c]], [1.0, -2.0, 1.0])
            if r + 1 < rows and c + 1 < cols:
                twist = np.sqrt(2.0)
                term(
                    [index[r, c], index[r, c + 1], index[r + 1, c], index[r + 1, c + 1]],
                    [twist, -twist, -twist, twist],
                )
    return np.array(out)


def _cell_of(u: FloatArray, count: int) -> tuple[NDArray[np.intp], FloatArray]:
    """For fractional node positions ``u`` along ``count`` nodes: the node before each
    (clipped to the lattice) and how far past it."""
    u = np.clip(u, 0.0, count - 1.0)
    low = np.minimum(np.floor(u).astype(np.intp), count - 2)
    return low, np.asarray(u - low, np.float64)


def _interpolation(u: FloatArray, count: int) -> FloatArray:
    """Linear interpolation weights (len(u) x count) at fractional node positions ``u``."""
    low, frac = _cell_of(u, count)
    out = np.zeros((len(u), count))
    rows = np.arange(len(u))
    out[rows, low] = 1.0 - frac
    out[rows, low + 1] = frac
    return out


def _log_chroma(colours: FloatArray) -> FloatArray:
    """log(B/G) and log(R/G) of each colour (n x 2)."""
    safe = np.maximum(colours, 1.0)
    return np.asarray(np.log(safe[:, [0, 2]] / safe[:, [1]]), np.float64)


@functools.lru_cache(maxsize=8)
def _printed_wall_offset(wall_hex: str, sheet_hex: str) -> FloatArray:
    """The walls' ink against the sheet's as printed (log chroma, blue and red)."""
    inks = np.array([hex_to_bgr(wall_hex), hex_to_bgr(sheet_hex)], np.float64)
    return np.asarray(_log_chroma(inks[:1])[0] - _log_chroma(inks[1:])[0], np.float64)


def _steady(colours: FloatArray) -> bool:
    """Whether the sheet's blocks (most of them) show one light's colour all around the
    board: a second lamp's band, crossing the board, crosses its edge too."""
    if len(colours) < MIN_BLOCKS:
        return False
    chroma = _log_chroma(colours)
    low, high = np.percentile(chroma, [10.0, 90.0], axis=0)
    return bool((high - low).max() <= STEADY_EDGE_CHROMA_MAX)


def _chroma_spread(colours: FloatArray) -> float:
    """How far apart (log ratio) the given colours' blue and red shares against green lie."""
    if np.any(colours <= 1.0):
        return float("inf")
    return float(np.ptp(_log_chroma(colours), axis=0).max())


def _sheet_blocks(
    view: NDArray[np.uint8], layout: CanonicalLayout
) -> tuple[FloatArray, FloatArray]:
    """Centre (x, y in view pixels) and unclipped median colour of each usable block of
    the sheet's strips."""
    return _usable_medians(view, _sheet_block_rects(_strip_rects(layout)))


def _wall_blocks(view: NDArray[np.uint8], layout: CanonicalLayout) -> tuple[FloatArray, FloatArray]:
    """Centre (x, y in view pixels) and unclipped median colour of each usable wall block."""
    profile = layout.profile
    return _usable_medians(view, _wall_rects(profile.vat_grid, profile.geometry, layout.px_per_mm))


def _usable_medians(
    view: NDArray[np.uint8], rects: tuple[tuple[int, int, int, int], ...]
) -> tuple[FloatArray, FloatArray]:
    """Centre and unclipped median colour of each rectangle with enough unclipped pixels."""
    blocks = _rect_samples(rects, view.shape[1])
    medians, usable, _ = _unclipped_medians(view, blocks)
    return blocks.centres[usable].reshape(-1, 2), medians[usable].reshape(-1, 3)


@functools.lru_cache(maxsize=8)
def _wall_rects(
    vat_grid: tuple[tuple[int | None, ...], ...], g: Geometry, px_per_mm: float
) -> tuple[tuple[int, int, int, int], ...]:
    """Where the wall blocks lie (top, bottom, left, right in view pixels): along the
    centre line of the wall beside each side of every vat (half a wall's width outside
    it), each side cut into ``WALL_BLOCKS_PER_SIDE`` blocks."""
    s = px_per_mm
    side = 4 * g.cell_mm
    half = WALL_HALF_WIDTH_MM
    rects: set[tuple[int, int, int, int]] = set()
    for vr, row in enumerate(vat_grid):
        for vc, vat in enumerate(row):
            if vat is None:
                continue
            x0, y0 = g.cell_corner_mm(4 * vr, 4 * vc)
            cuts = np.linspace(0.0, side, WALL_BLOCKS_PER_SIDE + 1)
            for a, b in itertools.pairwise(cuts.tolist()):
                for line in (-g.wall_mm / 2, side + g.wall_mm / 2):
                    # Beside the vat's left or right side, then its top or bottom side.
                    x, y = x0 + line, y0 + line
                    for top, bottom, left, right in (
                        (y0 + a, y0 + b, x - half, x + half),
                        (y - half, y + half, x0 + a, x0 + b),
                    ):
                        rects.add(
                            (round(top * s), round(bottom * s), round(left * s), round(right * s))
                        )
    return tuple(sorted(rects))


def _unclipped_medians(
    view: NDArray[np.uint8], samples: _BlockSamples
) -> tuple[FloatArray, NDArray[np.bool_], NDArray[np.uint8]]:
    """Each block's median of its sampled pixels with no channel clipped, whether enough of
    them are unclipped for it to count, and the sampled pixels themselves."""
    pixels = np.take(view.reshape(-1, 3), samples.pixels, axis=0)  # faster than [index]
    clear = _brightest_channel(pixels) < CLIPPED
    count = len(samples.centres)
    sampled = np.bincount(samples.block, minlength=count)
    kept = np.bincount(samples.block[clear], minlength=count)
    usable = (kept > 0) & (kept >= BLOCK_MIN_CLEAR * sampled)
    kept_pixels = np.compress(clear, pixels, axis=0)
    return grouped_medians(kept_pixels, samples.block[clear], count), usable, pixels


class _BlockSamples(NamedTuple):
    pixels: NDArray[np.intp]  # flat view index of every sampled pixel, block after block
    block: NDArray[np.intp]  # the block each belongs to
    centres: FloatArray  # x, y (view pixels) of each block


@functools.lru_cache(maxsize=8)
def _sheet_block_rects(
    bands: tuple[tuple[int, int, int, int], ...],
) -> tuple[tuple[int, int, int, int], ...]:
    """Where the blocks along the sheet's strips lie: the same for every frame of a board."""
    blocks: list[tuple[int, int, int, int]] = []
    for top, bottom, left, right in bands:
        along_x = (right - left) >= (bottom - top)
        span = (left, right) if along_x else (top, bottom)
        edges = np.linspace(span[0], span[1], BLOCKS_PER_STRIP + 1).round().astype(int)
        for lo, hi in itertools.pairwise(edges.tolist()):
            blocks.append((top, bottom, lo, hi) if along_x else (lo, hi, left, right))
    return tuple(blocks)


@functools.lru_cache(maxsize=8)
def _rect_samples(rects: tuple[tuple[int, int, int, int], ...], width: int) -> _BlockSamples:
    """The sampled pixels of each whole rectangle (a strip, a block), as blocks of one
    rectangle each."""
    return _samples(list(rects), width)


def _samples(blocks: list[tuple[int, int, int, int]], width: int) -> _BlockSamples:
    """The sampled pixels of each rectangle (top, bottom, left, right), block after block."""
    pixels = [_sample_indices(*block, width) for block in blocks]
    block = np.concatenate([np.full(len(p), k, dtype=np.intp) for k, p in enumerate(pixels)])
    centres = np.array([((c0 + c1) / 2.0, (r0 + r1) / 2.0) for r0, r1, c0, c1 in blocks])
    return _BlockSamples(np.concatenate(pixels), block, centres.astype(np.float64))


def _brightest_channel(pixels: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """Each pixel's largest channel (``max(axis=1)`` reduces three values at a time, far
    slower than two element-wise maxima)."""
    return np.maximum(np.maximum(pixels[:, 0], pixels[:, 1]), pixels[:, 2])


def grouped_medians(pixels: NDArray[np.uint8], group: NDArray[np.intp], count: int) -> FloatArray:
    """Each group's median per channel (``count`` x channels), as ``np.median`` gives it
    (the mean of the two middle values for an even count), from one histogram per
    channel: 8-bit values need no sort."""
    out = np.zeros((count, pixels.shape[1]), dtype=np.float64)
    for channel in range(pixels.shape[1]):
        keys = group * 256 + pixels[:, channel]
        cumulative = np.bincount(keys, minlength=count * 256).reshape(count, 256).cumsum(axis=1)
        n = cumulative[:, -1]
        low = np.argmax(cumulative > ((n - 1) // 2)[:, None], axis=1)
        high = np.argmax(cumulative > (n // 2)[:, None], axis=1)
        out[:, channel] = (low + high) / 2.0
    return out


def _strip_rects(layout: CanonicalLayout) -> tuple[tuple[int, int, int, int], ...]:
    """The sheet's four bare strips (top, bottom, left, right view pixels)."""
    return tuple((r.start, r.stop, c.start, c.stop) for r, c in layout.sheet_bands())


def sheet_strips(view: NDArray[np.uint8], layout: CanonicalLayout) -> FloatArray:
    """The sheet's colour on each of its four bare strips (4 x BGR), ignoring pixels at the
    sensor's limit when enough others show."""
    strips = _rect_samples(_strip_rects(layout), view.shape[1])
    medians, usable, pixels = _unclipped_medians(view, strips)
    if not usable.all():  # too little shows unclipped: every sampled pixel counts
        everything = grouped_medians(pixels, strips.block, len(strips.centres))
        medians[~usable] = everything[~usable]
    return medians


def sheet_clipped(view: NDArray[np.uint8], layout: CanonicalLayout) -> float:
    """The share of the sheet's strips the sensor clipped in two channels or more: a lamp
    that clips the bare sheet so clips the bare floor too (see
    :class:`~companion.vision.pastel.PastelRules`'s ``overexposed_sheet_min``)."""
    strips = _rect_samples(_strip_rects(layout), view.shape[1])
    pixels = np.take(view.reshape(-1, 3), strips.pixels, axis=0)
    at_limit = np.count_nonzero(pixels >= CLIPPED, axis=1)
    return float(np.count_nonzero(at_limit >= 2)) / max(len(pixels), 1)


def sheet_colour(strips: FloatArray) -> FloatArray:
    """The sheet's one colour in this frame: the median of its strips, robust to a hand,
    over the strips in the lamp's light where two or more lie in a hard shadow.  A hard
    shadow takes the lamp's light away from a strip; balanced against it, the lit board
    would be lifted past the limit, and bare floor in the shadow would keep a tint the
    balance reads as yellow."""
    level = strips.sum(axis=1)
    lit = level >= SHADOWED_STRIP_MAX * level.max()
    # One shadowed strip leaves the median among the lit ones; two would move it.
    kept = strips[lit] if np.count_nonzero(~lit) >= 2 else strips
    return np.asarray(np.median(kept, axis=0), dtype=np.float64)


def observed_sheet(view: NDArray[np.uint8], layout: CanonicalLayout) -> FloatArray:
    """The sheet's one colour in this frame, from its four bare strips."""
    return sheet_colour(sheet_strips(view, layout))


@functools.lru_cache(maxsize=256)
def _sample_indices(top: int, bottom: int, left: int, right: int, width: int) -> NDArray[np.intp]:
    """Flat view indices of every PIXEL_STEP-th pixel of a rectangle, in row order: the
    same rectangles every frame."""
    k = np.arange(0, (bottom - top) * (right - left), PIXEL_STEP)
    return np.asarray((top + k // (right - left)) * width + left + k % (right - left), np.intp)


__all__ = ["SheetLight", "grouped_medians", "observed_sheet", "sheet_colour", "sheet_strips"]
