"""A shadow is not an arm: the board's print shows through a shadow, never through an arm.

The hard shadow of a lamp's arm or of a person darkens the sheet until its warm beige looks
like skin, so it can pass every colour test an arm passes.  It only dims what lies under it:
each printed line (the worker circles, the walls around and between the vats, the markers)
keeps its contrast relative to the light around it, where an arm hides the print.  The
region found for an arm is compared, part by part, with the print of the bare board where
no tile can lie; when the print shows in nearly every part that has any, the region is a
shadow and there is no arm.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.boards import GRID, BoardProfile
from companion.vision.artwork import BoardTexture


@dataclass(frozen=True)
class ShadowRules:
    """How the print is looked for under a region (millimetres on the board)."""

    # Contrast is taken relative to the mean log-brightness within this radius (Gaussian
    # sigma): wider than a printed line, narrower than a shadow's soft edge.
    detail_sigma_mm: float = 2.5
    # The region is judged in square parts this wide: about one worker circle, or a
    # stretch of wall with the sheet beside it.
    part_mm: float = 12.0
    # A part is judged where the region covers this share of it, on known print ...
    part_cover_min: float = 0.3
    # ... and its expected detail varies by this much at least (standard deviation of the
    # log-brightness detail; a printed line against the sheet gives 0.1 and more).
    part_detail_min: float = 0.05
    # The print shows in a part where the frame's detail correlates with it this well.
    shown_correlation_min: float = 0.5
    # The view puts the print a pixel or two off where a Pi camera's barrel distortion
    # bends the board's edges, which is all of a printed line's width: each part is
    # compared at offsets up to this far, this far apart, and the best kept.  Under the
    # hard shadows of five distorted frames the share below rose from 0.32-0.83 to
    # 0.57-1.0; under arms it stays far lower.
    misplaced_mm: float = 1.6
    misplaced_step_mm: float = 0.8
    # A region is a shadow when the print shows in this share of its judged parts (over
    # 727 frames: the arms' own regions 0.63 at most, but for one at 0.80 that took in a
    # second lamp's patch as well; hard shadows 0.7 to 1.0 in 17 frames of 22) ...
    shadow_share_min: float = 0.7
    # ... and it has this many parts judged at least; fewer prove nothing ...
    parts_min: int = 8
    # ... and no more than this many parts that hide the print touch one another: an arm
    # hides a broad stretch of it (11 parts in the region at 0.80 above), a shadow only a
    # few parts (pieces standing in it, its own edge; at most 4).
    hidden_patch_max: int = 5
    # A body too dark for any colour is an arm only when the print shows in no more than
    # this share of its judged parts: dark arms' bodies 0.03-0.12 over 3 frames, the
    # darkest lamp-arm shadow crossing tiles 0.56 (its print drowned in the dark).
    hidden_share_max: float = 0.3
    # ... and it shows, even faintly (this correlation), in no more than this share: where
    # two lamps' shadows overlap, the darkest shade drowns the print's detail in noise, so
    # few parts reach the correlation above, but most still reach this one (conditions
    # 100612 and 101351: 0.67 and 0.71 of their parts), where an arm shows nothing of
    # the print (dark arms 0.07 to 0.35: conditions 100715, 86100, 99295).
    faint_correlation_min: float = 0.25
    faint_shown_share_max: float = 0.5


class PrintUnderShadow:
    """The detail of the bare board's print where no tile can lie, in the canonical view,
    drawn once per board."""

    def __init__(self, profile: BoardProfile, px_per_mm: float, rules: ShadowRules) -> None:
        self.rules = rules
        self._s = px_per_mm
        texture = BoardTexture(profile, 2 * px_per_mm)
        g = profile.geometry
        width, height = round(g.sheet_mm[0] * px_per_mm), round(g.sheet_mm[1] * px_per_mm)
        grey = cv2.cvtColor(texture.image, cv2.COLOR_BGR2GRAY)
        grey = cv2.resize(grey, (width, height), interpolation=cv2.INTER_AREA)
        self._expected = self._detail(np.asarray(grey, np.uint8))
        # The print is known everywhere but inside the vats, where tiles may lie.
        known = np.ones((height, width), dtype=bool)
        side = 4 * g.cell_mm
        for vat_row in range(GRID // 4):
            for vat_col in range(GRID // 4):
                x, y = g.cell_corner_mm(4 * vat_row, 4 * vat_col)
                rows = slice(round(y * px_per_mm), round((y + side) * px_per_mm))
                known[rows, round(x * px_per_mm) : round((x + side) * px_per_mm)] = False
        self._known = known

    def _detail(self, grey: NDArray[np.uint8]) -> NDArray[np.float32]:
        """Log-brightness less its local mean: a shadow scales brightness, so it leaves
        this unchanged but for its own edge."""
        logs = np.take(_LOG_GREY, grey)
        return np.asarray(
            logs - cv2.GaussianBlur(logs, (0, 0), self.rules.detail_sigma_mm * self._s),
            np.float32,
        )

    def _detail_around(
        self, view_bgr: NDArray[np.uint8], ys: tuple[int, int], xs: tuple[int, int]
    ) -> NDArray[np.float32]:
        """The detail of rows ``ys`` and columns ``xs`` (end excluded) of the view, its
        edge repeated beyond it: worked out on just enough of the view around them to be
        the whole view's (the blur reaches no further than four sigmas)."""
        margin = int(4 * self.rules.detail_sigma_mm * self._s) + 2
        height, width = view_bgr.shape[:2]
        top, bottom = max(ys[0] - margin, 0), min(ys[1] + margin, height)
        left, right = max(xs[0] - margin, 0), min(xs[1] + margin, width)
        crop = np.ascontiguousarray(view_bgr[top:bottom, left:right])
        detail = self._detail(np.asarray(cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY), np.uint8))
        y0, y1 = max(ys[0], 0), min(ys[1], height)
        x0, x1 = max(xs[0], 0), min(xs[1], width)
        inside = detail[y0 - top : y1 - top, x0 - left : x1 - left]
        beyond = ((y0 - ys[0], ys[1] - y1), (x0 - xs[0], xs[1] - x1))
        return np.asarray(np.pad(inside, beyond, mode="edge"), np.float32)

    def correlation_in(self, view_bgr: NDArray[np.uint8], box: tuple[int, int, int, int]) -> float:
        """How well the bare board's print shows in ``box`` (top, bottom, left, right view
        pixels, ends excluded): the best correlation of the frame's detail with the
        print's there, over the same small offsets as the parts of a region."""
        top, bottom, left, right = box
        printed = self._expected[top:bottom, left:right]
        printed = printed - printed.mean()
        reach = round(self.rules.misplaced_mm * self._s)
        step = max(round(self.rules.misplaced_step_mm * self._s), 1)
        seen = self._detail_around(
            view_bgr, (top - reach, bottom + reach), (left - reach, right + reach)
        )
        shape = printed.shape
        # (offsets, pixels): the box's pixels at every offset, in one copy.
        shifted = np.lib.stride_tricks.sliding_window_view(seen, shape)[::step, ::step]
        at = shifted.reshape(-1, shape[0] * shape[1])
        at = at - at.mean(axis=1, keepdims=True)
        flat = printed.ravel()
        cov = at @ flat
        scale = np.sqrt(np.maximum((at * at).sum(axis=1) * float(flat @ flat), 1e-12))
        return float((cov / scale).max())

    def shows_through(self, region: NDArray[np.bool_], view_bgr: NDArray[np.uint8]) -> bool:
        """Whether the board's print shows through ``region`` (canonical view): a shadow."""
        parts = self.parts_seen(region, view_bgr)
        if parts is None:
            return False
        judged, shown = parts
        if int(shown.sum()) < self.rules.shadow_share_min * int(judged.sum()):
            return False
        return _largest_patch(judged & ~shown) <= self.rules.hidden_patch_max

    def hides(self, region: NDArray[np.bool_], view_bgr: NDArray[np.uint8]) -> bool:
        """Whether ``region`` (canonical view) surely hides the board's print, as only
        something solid does: enough parts with print are judged, it shows in few, and
        even faintly in no more than some."""
        found = self._part_correlations(region, view_bgr)
        if found is None:
            return False
        r = self.rules
        best = found[3]
        judged = len(best)
        shown = int(np.count_nonzero(best >= r.shown_correlation_min))
        faint = int(np.count_nonzero(best >= r.faint_correlation_min))
        return shown <= r.hidden_share_max * judged and faint <= r.faint_shown_share_max * judged

    def parts_seen(
        self, region: NDArray[np.bool_], view_bgr: NDArray[np.uint8]
    ) -> tuple[NDArray[np.bool_], NDArray[np.bool_]] | None:
        """On the grid of parts: those of ``region`` with print, and those in which the
        print shows; ``None`` when too few parts have print to tell."""
        found = self._part_correlations(region, view_bgr)
        if found is None:
            return None
        judged, rows, cols, best = found
        shown = np.zeros(judged.shape, dtype=bool)
        keep = best >= self.rules.shown_correlation_min
        shown[rows[keep], cols[keep]] = True
        return judged, shown

    def _part_correlations(
        self, region: NDArray[np.bool_], view_bgr: NDArray[np.uint8]
    ) -> tuple[NDArray[np.bool_], NDArray[np.intp], NDArray[np.intp], NDArray[np.float64]] | None:
        """The parts of ``region`` with print (on the grid of parts, and as rows and
        columns) and the best correlation of the frame's detail with the print in each;
        ``None`` when too few parts have print to tell."""
        r = self.rules
        side = max(round(r.part_mm * self._s), 1)
        weight = _parts((region & self._known).astype(np.float32), side)
        count = weight.sum(axis=(1, 3))
        judged = count >= r.part_cover_min * side * side
        if int(judged.sum()) < r.parts_min:
            return None
        # Only the parts judged are compared: (parts, side, side) stacks of each image.
        rows, cols = np.nonzero(judged)
        w = weight[rows, :, cols, :]
        n = count[rows, cols][:, None, None]
        e = _parts(self._expected, side)[rows, :, cols, :]
        e = e - (e * w).sum(axis=(1, 2), keepdims=True) / n
        e_var = (e * e * w).sum(axis=(1, 2)) / n[:, 0, 0]
        printed = e_var >= r.part_detail_min**2
        if int(printed.sum()) < r.parts_min:
            return None
        rows, cols, w, n, e, e_var = (x[printed] for x in (rows, cols, w, n, e, e_var))
        reach = round(r.misplaced_mm * self._s)
        top, left = int(rows.min()) * side - reach, int(cols.min()) * side - reach
        bottom, right = (int(rows.max()) + 1) * side + reach, (int(cols.max()) + 1) * side + reach
        seen = self._detail_around(view_bgr, (top, bottom), (left, right))
        span = side + 2 * reach
        windows = np.lib.stride_tricks.sliding_window_view(seen, (span, span))
        # (parts, span, span): each part with ``reach`` pixels around it.
        around = windows[rows * side - reach - top, cols * side - reach - left]
        step = max(round(r.misplaced_step_mm * self._s), 1)
        # (parts, offsets, pixels): each part's pixels at every offset, in one copy.
        shifted = np.lib.stride_tricks.sliding_window_view(around, (side, side), axis=(1, 2))
        seen_at = shifted[:, ::step, ::step].reshape(len(rows), -1, side * side)
        # Weighted sums at every offset by batched products. The print's detail is centred
        # on its weighted mean, so the covariance needs no centring of the frame's.
        weights = w.reshape(len(rows), side * side, 1)
        total = n[:, 0, :]
        mean = (seen_at @ weights)[..., 0] / total
        o_var = np.maximum(((seen_at * seen_at) @ weights)[..., 0] / total - mean * mean, 0.0)
        cov = (seen_at @ (e * w).reshape(len(rows), side * side, 1))[..., 0] / total
        correlation = cov / np.sqrt(np.maximum(e_var[:, None] * o_var, 1e-12))
        best = np.asarray(correlation.max(axis=1), dtype=np.float64)
        judged = np.zeros(count.shape, dtype=bool)
        judged[rows, cols] = True
        return judged, rows, cols, best


# Natural log of each 8-bit grey level, offset so that black stays finite.
_LOG_GREY = np.log(np.arange(256, dtype=np.float32) + np.float32(8.0))


def _largest_patch(parts: NDArray[np.bool_]) -> int:
    """The number of parts in the largest group of touching ones (corners count)."""
    if not parts.any():
        return 0
    _, _, stats, _ = cv2.connectedComponentsWithStats(parts.astype(np.uint8), connectivity=8)
    return int(stats[1:, cv2.CC_STAT_AREA].max())


def _parts(image: NDArray[np.float32], side: int) -> NDArray[np.float32]:
    """``image`` cut into square parts ``side`` pixels wide, as (rows, part height,
    columns, part width); the ragged right and bottom edges are left out."""
    rows, cols = image.shape[0] // side, image.shape[1] // side
    return image[: rows * side, : cols * side].reshape(rows, side, cols, side)
