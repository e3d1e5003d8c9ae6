"""The light's colour across the board, measured on the bare sheet around it.

One white balance for the whole frame assumes one light. A real table often has two (a
warm ceiling lamp and a cold window, or two lamps of different temperature), each
lighting one side: then the sheet itself changes colour from one side to the other, and
a single balance leaves one half too warm (taken for skin) and the other too cold. The
sheet is printed in one ink all around the grid, so its colour in short blocks along the
four sides tells how the light's colour changes; a plane per channel, fitted to those
blocks, carries it across the board. Brightness alone (a lamp's fall-off, vignetting)
does not change the light's colour and is left alone: only when the plane's chromaticity
moves does the balance vary from place to place.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from companion.vision.canonical import CanonicalLayout
from companion.vision.colour import ColourModel, white_balance

FloatArray = NDArray[np.float64]

# An 8-bit channel at or above this is clipped; such pixels say nothing about the light.
CLIPPED = 250
# Each of the four bare strips is cut into this many blocks along its length: an arm
# crossing a strip covers one or two of them, which the fit then sets aside.
BLOCKS_PER_STRIP = 12
# Fewer usable blocks than this (half of them) say too little about the light.
MIN_BLOCKS = 2 * BLOCKS_PER_STRIP
# A block (or strip) needs this share of unclipped pixels to be measured without them.
BLOCK_MIN_CLEAR = 0.2
# Every this-many-th pixel of a strip or block is enough for its median colour.
PIXEL_STEP = 3
# The light's colour is taken as varying across the board when the fitted plane moves a
# channel's share of the light (against green) by more than this fraction between any two
# corners: a 2700 K and a 6500 K lamp move red against blue by a factor of two, while the
# noise of the median of a block stays well under one per cent.
VARYING_CHROMA_MIN = 0.04
# Robust fit: rounds, and how far a block may sit from the plane (relative, in its worst
# channel: this many times the median block's offset, or at least this fraction) and
# still count in the next round; blocks further off are covered (an arm, a leaning piece).
FIT_ROUNDS = 3
BLOCK_OUTLIER_SPREAD = 3.0
BLOCK_OUTLIER_MIN = 0.02


@dataclass(frozen=True)
class SheetLight:
    """The sheet's observed colour: one colour (``uniform``) and, where the light's colour
    changes across the board, a plane per channel over the canonical view."""

    uniform: FloatArray  # BGR, one colour for the whole frame
    plane: FloatArray | None  # 3 x 3: per channel, value = c0 + c1 * x_px + c2 * y_px
    set_aside: int = 0  # blocks the fit dropped as covered (an arm, a leaning piece)

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
        if _chroma_spread(strips) <= np.log1p(VARYING_CHROMA_MIN):
            return cls(uniform, None)
        centres, colours = _blocks(view, layout)
        if len(colours) < MIN_BLOCKS:
            return cls(uniform, None)
        design = np.c_[np.ones(len(centres)), centres]
        keep = np.ones(len(colours), dtype=bool)
        coef = np.zeros((3, 3))
        for _ in range(FIT_ROUNDS):
            coef, *_ = np.linalg.lstsq(design[keep], colours[keep], rcond=None)
            off = (np.abs(design @ coef - colours) / np.maximum(colours, 1.0)).max(axis=1)
            bound = max(BLOCK_OUTLIER_SPREAD * float(np.median(off[keep])), BLOCK_OUTLIER_MIN)
            keep = off <= bound
            if keep.sum() < MIN_BLOCKS:
                return cls(uniform, None)
        coef, *_ = np.linalg.lstsq(design[keep], colours[keep], rcond=None)
        width, height = layout.size_px
        corners = np.array([[1, 0, 0], [1, width, 0], [1, 0, height], [1, width, height]])
        at = corners @ coef  # 4 x 3 (B, G, R)
        if np.any(at <= 1.0):
            return cls(uniform, None)
        if _chroma_spread(at) <= np.log1p(VARYING_CHROMA_MIN):
            return cls(uniform, None)
        return cls(uniform, np.asarray(coef.T, dtype=np.float64), int((~keep).sum()))

    def gains(self, points_px: FloatArray, model: ColourModel) -> FloatArray:
        """The balance's per-channel gains (points x BGR) at the given view pixels."""
        if self.plane is None:
            sheet = np.broadcast_to(self.uniform, (len(points_px), 3))
        else:
            design = np.c_[np.ones(len(points_px)), points_px]
            sheet = design @ self.plane.T
        return np.asarray(np.asarray(model.sheet_bgr) / np.maximum(sheet, 1.0), np.float64)

    def balance(self, view: NDArray[np.uint8], model: ColourModel) -> NDArray[np.uint8]:
        """``view`` with each pixel's channels scaled so the sheet would show its reference
        colour there."""
        if self.plane is None:
            return white_balance(view, self.uniform, model)
        height, width = view.shape[:2]
        ys = np.arange(height, dtype=np.float32)[:, None]
        xs = np.arange(width, dtype=np.float32)[None, :]
        out = np.empty(view.shape, dtype=np.float32)
        for ch in range(3):
            c0, cx, cy = (float(v) for v in self.plane[ch])
            sheet = np.maximum(c0 + cx * xs + cy * ys, 1.0)
            out[..., ch] = view[..., ch] * (float(model.sheet_bgr[ch]) / sheet)
        return np.asarray(np.clip(out, 0, 255), dtype=np.uint8)


def _chroma_spread(colours: FloatArray) -> float:
    """How far apart (log ratio) the given colours' blue and red shares against green lie."""
    if np.any(colours <= 1.0):
        return float("inf")
    ratios = np.log(colours[:, [0, 2]] / colours[:, [1]])
    return float(np.ptp(ratios, axis=0).max())


def _blocks(view: NDArray[np.uint8], layout: CanonicalLayout) -> tuple[FloatArray, FloatArray]:
    """Centre (x, y in view pixels) and unclipped median colour of each usable block."""
    bands = tuple((r.start, r.stop, c.start, c.stop) for r, c in layout.sheet_bands())
    blocks = _block_samples(bands, view.shape[1])
    medians, usable, _ = _unclipped_medians(view, blocks)
    return blocks.centres[usable].reshape(-1, 2), medians[usable].reshape(-1, 3)


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
def _block_samples(bands: tuple[tuple[int, int, int, int], ...], width: int) -> _BlockSamples:
    """Where the blocks along the sheet's strips lie: the same for every frame of a board."""
    blocks: list[tuple[int, int, int, int]] = []
    for top, bottom, left, right in bands:
        along_x = (right - left) >= (bottom - top)
        span = (left, right) if along_x else (top, bottom)
        edges = np.linspace(span[0], span[1], BLOCKS_PER_STRIP + 1).round().astype(int)
        for lo, hi in itertools.pairwise(edges.tolist()):
            blocks.append((top, bottom, lo, hi) if along_x else (lo, hi, left, right))
    return _samples(blocks, width)


@functools.lru_cache(maxsize=8)
def _strip_samples(bands: tuple[tuple[int, int, int, int], ...], width: int) -> _BlockSamples:
    """The sampled pixels of each whole strip, as blocks of one strip each."""
    return _samples(list(bands), width)


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


def sheet_strips(view: NDArray[np.uint8], layout: CanonicalLayout) -> FloatArray:
    """The sheet's colour on each of its four bare strips (4 x BGR), ignoring pixels at the
    sensor's limit when enough others show."""
    bands = tuple((r.start, r.stop, c.start, c.stop) for r, c in layout.sheet_bands())
    strips = _strip_samples(bands, view.shape[1])
    medians, usable, pixels = _unclipped_medians(view, strips)
    if not usable.all():  # too little shows unclipped: every sampled pixel counts
        everything = grouped_medians(pixels, strips.block, len(strips.centres))
        medians[~usable] = everything[~usable]
    return medians


def sheet_colour(strips: FloatArray) -> FloatArray:
    """The sheet's one colour in this frame: the median of its strips, robust to a hand."""
    return np.asarray(np.median(strips, axis=0), dtype=np.float64)


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
