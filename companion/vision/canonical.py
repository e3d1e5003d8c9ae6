"""The canonical top-down view: the board sheet resampled at a fixed scale.

Every later step (cells, workers, hands) works in this view, in which board millimetres map
linearly to pixels, whatever the camera pose.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import NamedTuple

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.boards import GRID, BoardProfile

PX_PER_MM = 1.25
# Half-side (mm) of the square read in the middle of each fish cell: small enough that a
# tile a little offset or rotated in its slot still fills it.
CELL_WINDOW_HALF_MM = 6.0
# Width (mm) of the sheet's edge beyond the worker strips that no standing piece reaches.
OUTER_BAND_MM = 12.0
SHEET_EDGE_MM = 3.0
# Inner and outer radius (mm) of the floor ring read around a bonus cell's printed icon.
BONUS_RING_MM = (6.5, 8.0)

# White balance strips run this far (mm) in from the sheet's edge: inside its printed
# border and outside the worker circles.
SHEET_BAND_FROM_EDGE_MM = (8.0, 36.0)
# ... and keep this far (mm) beyond a marker's quiet zone, clear of the marker.
SHEET_BAND_MARKER_CLEARANCE_MM = 40.0


class SheetMasks(NamedTuple):
    """The layout's masks of the bare sheet, the outer band, the cells' windows and the
    worker spaces' printed circles, at every n-th pixel of the view (see
    :meth:`CanonicalLayout.masks_every`)."""

    ring: NDArray[np.bool_]
    outer: NDArray[np.bool_]
    cells: NDArray[np.bool_]
    worker_spaces: NDArray[np.bool_]


@dataclass(frozen=True)
class CanonicalLayout:
    """Pixel geometry of the canonical view for one profile."""

    profile: BoardProfile
    px_per_mm: float = PX_PER_MM
    size_px: tuple[int, int] = field(init=False)
    cell_labels: NDArray[np.int32] = field(init=False)  # cell index of each pixel, or -1
    cell_mask: NDArray[np.bool_] = field(init=False)  # pixels of some cell's window
    ring_mask: NDArray[np.bool_] = field(init=False)  # sheet outside grid and markers
    bonus_rings: NDArray[np.int32] = field(init=False)  # ring around each bonus icon, or -1
    outer_mask: NDArray[np.bool_] = field(init=False)  # bare sheet no piece can lean over
    worker_space_mask: NDArray[np.bool_] = field(init=False)  # the printed worker circles
    _every: dict[int, SheetMasks] = field(
        init=False, default_factory=dict, repr=False, compare=False
    )
    _outer_within: dict[tuple[int, ...], NDArray[np.intp]] = field(
        init=False, default_factory=dict, repr=False, compare=False
    )

    @property
    def worker_strip_px(self) -> int:
        """Width (px) of the worker strips along the left and top edges, up to the wall
        around the fish grid."""
        g = self.profile.geometry
        return round((min(g.grid_origin_mm) - g.wall_mm) * self.px_per_mm)

    def __post_init__(self) -> None:
        g = self.profile.geometry
        s = self.px_per_mm
        width, height = (round(g.sheet_mm[0] * s), round(g.sheet_mm[1] * s))
        labels = np.full((height, width), -1, dtype=np.int32)
        half = CELL_WINDOW_HALF_MM
        for row in range(GRID):
            for col in range(GRID):
                x, y = g.cell_centre_mm(row, col)
                labels[
                    round((y - half) * s) : round((y + half) * s),
                    round((x - half) * s) : round((x + half) * s),
                ] = row * GRID + col
        rings = np.full((height, width), -1, dtype=np.int32)
        for cell in self.profile.bonus_kind:
            centre = g.cell_centre_mm(cell // GRID, cell % GRID)
            window, r = _distances_around(rings.shape, s, centre, BONUS_RING_MM[1])
            inside = rings[window]
            inside[(r >= BONUS_RING_MM[0]) & (r <= BONUS_RING_MM[1])] = cell
        ring = np.ones((height, width), dtype=bool)
        x0, y0 = g.grid_origin_mm
        end = g.cell_start_mm(GRID - 1) + g.cell_mm
        frame = g.wall_mm + 2
        ring[
            round((y0 - frame) * s) : round((y0 + end + frame) * s),
            round((x0 - frame) * s) : round((x0 + end + frame) * s),
        ] = False
        set_ = object.__setattr__
        set_(self, "size_px", (width, height))
        ring &= ~self.marker_squares(tuple(self.profile.markers.centres_mm))
        set_(self, "cell_labels", labels)
        set_(self, "cell_mask", labels >= 0)
        set_(self, "ring_mask", ring)
        set_(self, "bonus_rings", rings)
        outer = np.zeros((height, width), dtype=bool)
        near = round(OUTER_BAND_MM * s)
        far_x = round((x0 + end + frame) * s)
        far_y = round((y0 + end + frame) * s)
        outer[:, :near] = True
        outer[:near, :] = True
        outer[:, far_x:] = True
        outer[far_y:, :] = True
        # The sheet's very edge may show the table when the corners are a pixel off.
        edge = round(SHEET_EDGE_MM * s)
        ring[:edge, :] = False
        ring[-edge:, :] = False
        ring[:, :edge] = False
        ring[:, -edge:] = False
        set_(self, "outer_mask", outer & ring)
        spaces = np.zeros((height, width), dtype=bool)
        radius = g.worker_space_diameter_mm / 2
        for line in range(2 * GRID):
            centre = g.worker_space_centre_mm(line)
            window, r = _distances_around(spaces.shape, s, centre, radius)
            spaces[window] |= r <= radius
        set_(self, "worker_space_mask", spaces)

    def marker_squares(self, marker_ids: tuple[int, ...]) -> NDArray[np.bool_]:
        """The view's pixels of the given markers and their quiet zones."""
        s = self.px_per_mm
        m = self.profile.markers
        reach = m.side_mm / 2 + m.quiet_zone_mm
        width, height = self.size_px
        squares = np.zeros((height, width), dtype=bool)
        for mid in marker_ids:
            cx, cy = m.centres_mm[mid]
            squares[
                max(round((cy - reach) * s), 0) : round((cy + reach) * s),
                max(round((cx - reach) * s), 0) : round((cx + reach) * s),
            ] = True
        return squares

    def masks_every(self, step: int) -> SheetMasks:
        """The sheet's masks at every ``step``-th pixel, each copied whole once: the arm
        search combines them several times a frame at a reduced scale, and masks read
        through strides are several times slower to combine."""
        masks = self._every.get(step)
        if masks is None:
            masks = SheetMasks(
                *(
                    np.ascontiguousarray(mask[::step, ::step])
                    for mask in (
                        self.ring_mask,
                        self.outer_mask,
                        self.cell_mask,
                        self.worker_space_mask,
                    )
                )
            )
            self._every[step] = masks
        return masks

    def outer_pixels(self, rows: slice, cols: slice) -> NDArray[np.intp]:
        """Flat view indices of the outer band's pixels within ``rows`` x ``cols``, in row
        order (as ``view[rows, cols][outer_mask[rows, cols]]`` takes them), found once per
        rectangle: every frame looks at the same few rectangles of the band."""
        height, width = self.outer_mask.shape
        key = (*rows.indices(height), *cols.indices(width))
        found = self._outer_within.get(key)
        if found is None:
            top, _, down, left, _, across = key
            if down != 1 or across != 1:
                raise ValueError("outer_pixels takes rectangles of unit step")
            inside = self.outer_mask[rows, cols]
            ys, xs = np.divmod(np.flatnonzero(inside), inside.shape[1])
            found = np.asarray((ys + top) * width + xs + left, dtype=np.intp)
            self._outer_within[key] = found
        return found

    def warp(self, frame: NDArray[np.uint8], homography: NDArray[np.float64]) -> NDArray[np.uint8]:
        """The frame resampled into this view (``homography`` maps mm to frame pixels)."""
        return board_view(frame, homography, self.px_per_mm, (0.0, 0.0), self.size_px)

    def sheet_bands(self) -> list[tuple[slice, slice]]:
        """Four strips of bare sheet between the markers, for white balance."""
        g = self.profile.geometry
        s = self.px_per_mm
        w, h = g.sheet_mm
        m = self.profile.markers
        inset = m.side_mm / 2 + m.quiet_zone_mm + SHEET_BAND_MARKER_CLEARANCE_MM
        lo, hi = SHEET_BAND_FROM_EDGE_MM
        bands_mm = [
            (inset, w - inset, lo, hi),
            (lo, hi, inset, h - inset),
            (w - hi, w - lo, inset, h - inset),
            (inset, w - inset, h - hi, h - lo),
        ]
        return [
            (slice(round(y0 * s), round(y1 * s)), slice(round(x0 * s), round(x1 * s)))
            for x0, x1, y0, y1 in bands_mm
        ]


def _distances_around(
    shape: tuple[int, ...], px_per_mm: float, centre_mm: tuple[float, float], reach_mm: float
) -> tuple[tuple[slice, slice], NDArray[np.float64]]:
    """The window of a view of ``shape`` (at ``px_per_mm``) that holds every pixel within
    ``reach_mm`` of ``centre_mm``, and each of its pixels' distance (mm) from it: a disc
    or ring drawn in it is the one drawn over the whole view, at a small share of the
    work (a layout draws 32 worker circles and every bonus icon's ring)."""
    x, y = centre_mm
    s = px_per_mm
    top, left = (max(math.floor((v - reach_mm) * s), 0) for v in (y, x))
    bottom = min(math.ceil((y + reach_mm) * s) + 1, shape[0])
    right = min(math.ceil((x + reach_mm) * s) + 1, shape[1])
    yy, xx = np.mgrid[top:bottom, left:right]
    return (slice(top, bottom), slice(left, right)), np.hypot(xx / s - x, yy / s - y)


def board_view(
    frame: NDArray[np.uint8],
    homography: NDArray[np.float64],
    px_per_mm: float,
    origin_mm: tuple[float, float],
    size_px: tuple[int, int],
    border: int = cv2.BORDER_CONSTANT,
) -> NDArray[np.uint8]:
    """A top-down view of the board from ``origin_mm`` at ``px_per_mm`` (``homography``
    maps board mm to frame pixels); outside the frame, black unless told otherwise.

    Only the part of the frame the view samples is resampled, as four channels: OpenCV
    warps four interleaved channels about twice as fast as three, and the part's
    conversion costs less than that saves (1.9 ms down to 1.1 ms per view of a 1280 x 960
    frame on one core).  Values differ from a three-channel warp's by rounding alone (one
    level, in 0.02 % of pixels).
    """
    s = px_per_mm
    to_mm = np.array(
        [[1 / s, 0, origin_mm[0]], [0, 1 / s, origin_mm[1]], [0, 0, 1]], dtype=np.float64
    )
    to_frame = homography @ to_mm
    part = _sampled_part(to_frame, size_px, frame.shape[:2])
    if frame.ndim != 3 or frame.shape[2] != 3 or part is None:
        return _warped(frame, to_frame, size_px, border)
    x0, y0, x1, y1 = part
    shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], dtype=np.float64)
    bgra = np.asarray(cv2.cvtColor(frame[y0:y1, x0:x1], cv2.COLOR_BGR2BGRA), dtype=np.uint8)
    return np.asarray(
        cv2.cvtColor(_warped(bgra, shift @ to_frame, size_px, border), cv2.COLOR_BGRA2BGR),
        dtype=np.uint8,
    )


def _warped(
    frame: NDArray[np.uint8], to_frame: NDArray[np.float64], size_px: tuple[int, int], border: int
) -> NDArray[np.uint8]:
    out = cv2.warpPerspective(
        frame,
        to_frame,
        size_px,
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=border,
        borderValue=(0, 0, 0, 0),
    )
    return np.asarray(out, dtype=np.uint8)


def _sampled_part(
    to_frame: NDArray[np.float64], size_px: tuple[int, int], frame_hw: tuple[int, ...]
) -> tuple[int, int, int, int] | None:
    """The frame's pixels (left, top, right, bottom; ends excluded) a view of ``size_px``
    samples through ``to_frame``, with the interpolation's neighbours; ``None`` when the
    view reaches behind the camera or misses the frame."""
    width, height = size_px
    corners = np.array([[0, 0, 1], [width, 0, 1], [width, height, 1], [0, height, 1]], float)
    mapped = corners @ to_frame.T
    if not np.isfinite(mapped).all() or (mapped[:, 2] <= 0).any():
        return None
    xy = mapped[:, :2] / mapped[:, 2:]
    x0, y0 = (max(int(np.floor(v)) - 2, 0) for v in xy.min(axis=0))
    x1 = min(int(np.ceil(xy[:, 0].max())) + 3, frame_hw[1])
    y1 = min(int(np.ceil(xy[:, 1].max())) + 3, frame_hw[0])
    if x1 - x0 < 2 or y1 - y0 < 2:
        return None
    return x0, y0, x1, y1
