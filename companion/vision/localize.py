"""Finding the board in a camera frame: ArUco markers to a board-plane homography.

The four markers printed at the sheet corners give sixteen image points with known board
coordinates (millimetres).  Three markers are enough; with fewer, the last good homography is
reused as long as the markers still visible have not moved, so a hand covering two corners
does not lose the board while the camera is still.  With no such homography, two markers
at opposite corners place the board with the sheet's edges (see
:mod:`companion.vision.sheet_edges`), and two on one side with what shows of the other two
beside the arm over them (see :mod:`companion.vision.partial_marker`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.boards import BoardProfile
from companion.vision.partial_marker import MarkerPrint, PartialMarkerFinder, white_chroma
from companion.vision.sheet_edges import SheetEdgePlacer

MIN_MARKERS = 3
# Two markers' eight corners predict where the others lie (a homography through them),
# though too loosely to place the board: enough to say where to look for a third.
PREDICT_MARKERS = 2
# A marker corner that moved further than this (pixels) means the camera moved.
STILL_TOLERANCE_PX = 3.0
# Detection runs on a half-size image first; small or blurred markers get larger passes.
SCALES = (0.5, 0.75, 1.0)
# Once three markers place the board, a missing one is looked for only around where they
# put it: a window this many marker sides beyond the predicted square on every side (room
# for the quiet zone, a misfit of the first homography and the detector's own border).
SEARCH_MARGIN_SIDES = 1.0
# Two markers at one side of the sheet put the far ones less surely: in a steep view
# (photoreal 4251 occ056) the two-marker fit put a far marker a whole side off, half of it
# outside the one-side window.
SEARCH_MARGIN_SIDES_FROM_TWO = 2.0
# Where a marker is expected and the full-size frame still hides it, its bits are sampled
# again from the middle of each cell: this share of a cell's side at each border is left
# out (the detector's default, 0.13, takes in the blur between cells).  A small, steep
# marker whose cells span a few pixels each decodes only so (photoreal 4251 occ056: 25 px
# wide, its square found but its bits misread by the default sampling).
EXPECTED_MARKER_CELL_MARGIN = 0.3
# The first look at the half-size image thresholds it with one window size (px) instead of
# the detector's default three: a board in focus shows all its markers to it, at a third
# of the cost.  Any marker it misses is looked for again with the default windows.
FIRST_LOOK_WINDOW_PX = 13
# When too few markers show, a last look divides the frame by its local white (the
# brightest within this share of the frame's width, two of a marker's cells at the usual
# framing): a lamp's hard shadow across a marker darkens its white cells on one side below
# its black ones on the other, and the detector's bits are then misread.  (On a 1280 px
# frame whose markers were 40 px wide, windows of 10 to 19 px read them, 23 px or more not.)
EVEN_LIGHT_WINDOW = 0.012
# Focal length of a typical lens, in image widths (about 53 degrees across), and how far a
# camera's may differ from it (standard deviation of its logarithm).
TYPICAL_FOCAL = 1.0
TYPICAL_FOCAL_SPREAD = 0.3
# How far (px) a located board corner may lie from the true one.
CORNER_NOISE_PX = 1.0

FloatArray = NDArray[np.float64]

# The smallest area scale (px² per mm²) a fitted homography may have at any corner of the
# sheet: below it (or negative) the board is collapsed to a line or mirrored there, which
# no camera can see.
MIN_SHEET_AREA_SCALE = 1e-9


class BoardNotFound(Exception):
    """The frame does not show enough of the board's markers to locate it."""


@dataclass(frozen=True)
class Localization:
    """Where the board is: ``homography`` maps board millimetres to image pixels."""

    homography: FloatArray
    marker_ids: tuple[int, ...]
    reused: bool  # True when the last good homography stood in for missing markers
    # The image corners (4 x 2, pixels) of each marker the homography was fitted through.
    corners: Mapping[int, FloatArray] = field(default_factory=dict)
    # Placed with what shows of markers partly covered: something lies over the sheet
    # there, whether or not the reader finds it.
    partly_hidden: bool = False

    def to_image(self, points_mm: FloatArray) -> FloatArray:
        pts = np.asarray(points_mm, dtype=np.float64).reshape(-1, 1, 2)
        moved = cv2.perspectiveTransform(pts, self.homography).reshape(-1, 2)
        return np.asarray(moved, dtype=np.float64)


def _dictionary(name: str) -> cv2.aruco.Dictionary:
    code = getattr(cv2.aruco, name, None)
    if not isinstance(code, int):
        raise ValueError(f"unknown ArUco dictionary {name!r}")
    return cv2.aruco.getPredefinedDictionary(code)


class BoardLocator:
    """Detects the profile's markers and keeps the last good homography."""

    def __init__(self, profile: BoardProfile) -> None:
        layout = profile.markers
        dictionary = _dictionary(layout.dictionary)
        self._detector = cv2.aruco.ArucoDetector(dictionary, cv2.aruco.DetectorParameters())
        quick = cv2.aruco.DetectorParameters()
        quick.adaptiveThreshWinSizeMin = FIRST_LOOK_WINDOW_PX
        quick.adaptiveThreshWinSizeMax = FIRST_LOOK_WINDOW_PX
        self._first_look = cv2.aruco.ArucoDetector(dictionary, quick)
        close = cv2.aruco.DetectorParameters()
        close.perspectiveRemoveIgnoredMarginPerCell = EXPECTED_MARKER_CELL_MARGIN
        self._close_look = cv2.aruco.ArucoDetector(dictionary, close)
        half = layout.side_mm / 2
        offsets = np.array([[-half, -half], [half, -half], [half, half], [-half, half]])
        self._corners_mm: dict[int, FloatArray] = {
            mid: np.asarray(centre, dtype=np.float64) + offsets
            for mid, centre in layout.centres_mm.items()
        }
        self._last: Localization | None = None
        self._sheet_mm = profile.geometry.sheet_mm
        self._edges = SheetEdgePlacer(self._sheet_mm, self._corners_mm)
        self._partial = {
            mid: PartialMarkerFinder(
                MarkerPrint(
                    marker_id=mid,
                    side_mm=layout.side_mm,
                    quiet_mm=layout.quiet_zone_mm,
                    corner_mm=(float(corners[0, 0]), float(corners[0, 1])),
                    bits=_marker_bits(dictionary, mid),
                )
            )
            for mid, corners in self._corners_mm.items()
        }

    def reset(self) -> None:
        """Forgets the last good homography (the camera was moved on purpose)."""
        self._last = None

    def detect(self, gray: NDArray[np.uint8]) -> dict[int, FloatArray]:
        """Image corners (4 x 2, pixels) of each of this board's markers found in ``gray``.

        The first pass runs on the whole image at the smallest scale, with a quick look
        first.  Once the markers found predict where the missing ones lie, every later
        pass (the default look at that scale, then the larger scales) searches the windows
        where they should be; while too few are found to place the board, it searches the
        whole image as well.
        """
        first, *larger = SCALES
        small = _scaled(gray, first)
        found = self._markers(small, 1 / first, self._first_look)
        if PREDICT_MARKERS <= len(found) < len(self._corners_mm):
            found = self._search_missing(small, found, first, first) | found
        if len(found) < MIN_MARKERS:
            found = self._markers(small, 1 / first) | found
        for scale in larger:
            if len(found) == len(self._corners_mm):
                break
            if len(found) >= PREDICT_MARKERS:
                found = self._search_missing(gray, found, scale) | found
            if len(found) < MIN_MARKERS:
                found = self._markers(_scaled(gray, scale), 1 / scale) | found
        if len(found) < MIN_MARKERS:
            found = self._markers(_lit_evenly(gray), 1.0) | found
        return found

    def _search_missing(
        self,
        image: NDArray[np.uint8],
        found: dict[int, FloatArray],
        scale: float,
        image_scale: float = 1.0,
    ) -> dict[int, FloatArray]:
        """Markers missing from ``found``, looked for at ``scale`` in the window around
        where the found ones put each; ``image`` is the frame at ``image_scale``."""
        homography = self._fit(found)
        if homography is None:
            return {}
        height, width = image.shape
        two = len(found) <= PREDICT_MARKERS
        margin = SEARCH_MARGIN_SIDES_FROM_TWO if two else SEARCH_MARGIN_SIDES
        more: dict[int, FloatArray] = {}
        for mid in sorted(set(self._corners_mm) - set(found)):
            pts = self._corners_mm[mid].reshape(-1, 1, 2)
            quad = cv2.perspectiveTransform(pts, homography).reshape(-1, 2) * image_scale
            if not np.isfinite(quad).all():
                continue
            side = float(np.max(np.linalg.norm(quad - np.roll(quad, 1, axis=0), axis=1)))
            pad = side * margin
            x0, y0 = (max(int(v - pad), 0) for v in quad.min(axis=0))
            x1, y1 = (int(v + pad) + 1 for v in quad.max(axis=0))
            x1, y1 = min(x1, width), min(y1, height)
            if x1 - x0 < side or y1 - y0 < side:
                continue  # predicted off the frame
            window = np.ascontiguousarray(image[y0:y1, x0:x1])
            window = _scaled(window, scale / image_scale)
            seen = self._markers(window, 1 / scale)
            if mid not in seen and scale == SCALES[-1]:
                seen = self._markers(window, 1 / scale, self._close_look)
            if mid in seen:
                more[mid] = seen[mid] + np.array([x0, y0], dtype=np.float64) / image_scale
        return more

    def _fit(self, found: dict[int, FloatArray]) -> FloatArray | None:
        """The homography (board mm to image pixels) through every found marker's corners."""
        src = np.concatenate([self._corners_mm[m] for m in sorted(found)])
        dst = np.concatenate([found[m] for m in sorted(found)])
        homography, _ = cv2.findHomography(src, dst, 0)
        return None if homography is None else np.asarray(homography, np.float64)

    def _markers(
        self,
        gray: NDArray[np.uint8],
        scale: float,
        detector: cv2.aruco.ArucoDetector | None = None,
    ) -> dict[int, FloatArray]:
        corners, ids, _ = (detector or self._detector).detectMarkers(gray)
        found: dict[int, FloatArray] = {}
        if ids is None:
            return found
        for quad, mid in zip(corners, ids.ravel(), strict=True):
            key = int(mid)
            if key in self._corners_mm and key not in found:
                found[key] = quad.reshape(4, 2).astype(np.float64) * scale
        return found

    def locate(
        self, gray: NDArray[np.uint8], frame_bgr: NDArray[np.uint8] | None = None
    ) -> Localization:
        """The board's homography in this frame, or :class:`BoardNotFound` saying why.

        Given the colour frame too, two markers at opposite corners may place the board
        with the sheet's edges when no earlier homography stands in."""
        found = self.detect(gray)
        if len(found) >= MIN_MARKERS:
            homography = self._fit(found)
            if homography is not None and _sane(homography, self._sheet_mm):
                self._last = Localization(homography, tuple(sorted(found)), False, found)
                return self._last
        last = self._last
        if last is not None and found and self._still(last, found):
            # Placed from markers found in part, the others still unread: whatever lay
            # over them still does.
            still_hidden = last.partly_hidden and set(found) <= set(last.marker_ids)
            return Localization(
                last.homography, tuple(sorted(found)), reused=True, partly_hidden=still_hidden
            )
        two = frame_bgr is not None and len(found) == PREDICT_MARKERS
        loose = self._fit(found) if two else None
        if frame_bgr is not None and loose is not None:
            placed = self._edges.place(frame_bgr, found, loose)
            partly = placed is None
            if partly:
                placed = self._partly_hidden(frame_bgr, found, loose)
            if placed is not None and _sane(placed, self._sheet_mm):
                self._last = Localization(
                    placed, tuple(sorted(found)), False, found, partly_hidden=partly
                )
                return self._last
        total = len(self._corners_mm)
        ids = ", ".join(map(str, sorted(found)))
        if not found:
            raise BoardNotFound(f"board not found: none of its {total} markers is visible")
        if len(found) >= MIN_MARKERS:
            raise BoardNotFound(
                f"board not found: {len(found)} of its {total} markers visible (ids {ids}), "
                "but they place the board mirrored or collapsed: a marker misread or "
                "printed in the wrong corner?"
            )
        raise BoardNotFound(
            f"board not found: only {len(found)} of its {total} markers visible "
            f"(ids {ids}; at least {MIN_MARKERS} needed, or two at opposite corners "
            "with the sheet's edges in view, or two with a corner of each other showing)"
        )

    def _partly_hidden(
        self, frame_bgr: NDArray[np.uint8], found: dict[int, FloatArray], loose: FloatArray
    ) -> FloatArray | None:
        """The homography through the ``found`` markers' corners and those of the other
        markers that show beside whatever covers the rest of them; ``None`` unless each
        of the others shows a corner, or one does and the sheet's edges tie the board
        down with it.

        From the corners of one of them alone, the far side of the board is placed
        loosely (230 such fits on photoreal and generated frames put cells up to 18 mm
        off, median 6); with a corner of each, within 2.1 mm (253 fits)."""
        white = white_chroma(frame_bgr, list(found.values()))
        partial: dict[int, tuple[FloatArray, FloatArray]] = {}
        for mid in sorted(set(self._corners_mm) - set(found)):
            shown = self._partial[mid].find(frame_bgr, loose, white)
            if shown is not None:
                partial[mid] = shown
        if not partial:
            return None
        src = [self._corners_mm[m] for m in sorted(found)] + [b for b, _ in partial.values()]
        dst = [found[m] for m in sorted(found)] + [i for _, i in partial.values()]
        homography, _ = cv2.findHomography(np.concatenate(src), np.concatenate(dst), 0)
        if homography is None:
            return None
        fitted = np.asarray(homography, np.float64)
        if len(found) + len(partial) == len(self._corners_mm):
            return fitted
        return self._edges.place(frame_bgr, found, fitted, partial)

    def tied_by_edges(
        self, frame_bgr: NDArray[np.uint8], located: Localization
    ) -> Localization | None:
        """``located``, fitted through the markers with one missing, tied down by the
        sheet's edges where they show and agree with it; ``None`` for a board located by
        every marker, or by the last view, or whose edges place nothing.

        Through three markers the missing corner is extrapolated from three small squares,
        and a lens's barrel bends them: on 98 generated frames with a marker unseen, the
        farthest cell or worker space lay up to 10.7 mm off (median 2.3), with the edges
        1.4 mm at most (median 0.8) but in one, where the straight side of an arm over
        the missing corner passed for the sheet's edge (9.4 mm)."""
        if located.reused or len(located.corners) != len(self._corners_mm) - 1:
            return None
        placed = self._edges.place(frame_bgr, dict(located.corners), located.homography)
        if placed is None or not _sane(placed, self._sheet_mm):
            return None
        self._last = replace(located, homography=placed)
        return self._last

    def _still(self, last: Localization, found: dict[int, FloatArray]) -> bool:
        for mid, quad in found.items():
            expected = last.to_image(self._corners_mm[mid])
            if float(np.max(np.linalg.norm(expected - quad, axis=1))) > STILL_TOLERANCE_PX:
                return False
        return True


def _marker_bits(dictionary: cv2.aruco.Dictionary, marker_id: int) -> NDArray[np.uint8]:
    """The marker as printed, one pixel per cell: its bits in a one-cell black border."""
    cells = int(dictionary.markerSize) + 2
    return np.asarray(cv2.aruco.generateImageMarker(dictionary, marker_id, cells), np.uint8)


def _scaled(gray: NDArray[np.uint8], scale: float) -> NDArray[np.uint8]:
    if scale == 1.0:
        return gray
    small = cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    return np.asarray(small, dtype=np.uint8)


def _lit_evenly(gray: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """``gray`` divided by its local white (see ``EVEN_LIGHT_WINDOW``): each marker's
    cells keep their contrast on either side of a shadow's edge."""
    side = max(3, round(EVEN_LIGHT_WINDOW * gray.shape[1]) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (side, side))
    white = cv2.GaussianBlur(cv2.dilate(gray, kernel), (0, 0), side / 3)
    return np.asarray(cv2.divide(gray, np.maximum(white, 1), scale=255), dtype=np.uint8)


def _sane(homography: FloatArray, sheet_mm: tuple[float, float]) -> bool:
    """Rejects degenerate fits: a sheet mirrored or collapsed somewhere, or reaching behind
    the camera.

    A homography's orientation at a point is the sign of its Jacobian there, det(H) / w³
    (w: the point's projective depth), not that of its linear part alone: in a steep view
    the perspective row outweighs it, and a correct fit through three markers, every
    corner within 2 px, was rejected as mirrored (photoreal 4251 ``img044``, 35° of tilt).
    """
    if not np.isfinite(homography).all():
        return False
    width, height = sheet_mm
    corners = np.array(
        [[0.0, 0.0, 1.0], [width, 0.0, 1.0], [0.0, height, 1.0], [width, height, 1.0]]
    )
    depth = corners @ homography[2]
    if not (np.all(depth > 0) or np.all(depth < 0)):
        return False  # the sheet crosses the camera's own plane
    area_scale = float(np.linalg.det(homography)) / depth**3
    return bool(np.all(area_scale > MIN_SHEET_AREA_SCALE))


@dataclass(frozen=True)
class CameraPose:
    """Camera centre over the board: ground point (mm) and height above the sheet (mm)."""

    ground_mm: tuple[float, float]
    height_mm: float
    # How sure the height is (standard deviation of its logarithm): a view straight down
    # says little of the lens, and the height then rests on a typical lens.
    height_log_sd: float = 0.0

    def lean(self, point_mm: tuple[float, float], height_mm: float) -> tuple[float, float]:
        """Where, on the board plane, a point ``height_mm`` above ``point_mm`` appears.

        Returned as the displacement from ``point_mm`` (mm): standing pieces look as if
        they lean away from the camera's ground point.
        """
        k = height_mm / max(self.height_mm - height_mm, 1.0)
        return ((point_mm[0] - self.ground_mm[0]) * k, (point_mm[1] - self.ground_mm[1]) * k)

    def seen_at(self, points_mm: FloatArray, heights_mm: FloatArray) -> FloatArray:
        """Where each point ``heights_mm`` above ``points_mm`` (n x 2) appears on the board
        plane: :meth:`lean` for many points at once, added to the points."""
        k = heights_mm / np.maximum(self.height_mm - heights_mm, 1.0)
        shifted = points_mm + (points_mm - np.asarray(self.ground_mm)) * k[:, None]
        return np.asarray(shifted, dtype=np.float64)


def estimate_pose(
    homography: FloatArray, image_size: tuple[int, int], board_mm: float
) -> CameraPose:
    """Camera centre from a plane homography, principal point at the image centre.

    The focal length follows from the two rotation constraints of a tilted view, but the
    straighter the view, the less they say: a pixel of error in the board's corners may
    then double it.  The measured focal length is therefore weighed against a typical lens
    by how much such an error would move it (see :func:`focal_estimate`).
    """
    width, height = image_size
    shift = np.array([[1, 0, -width / 2], [0, 1, -height / 2], [0, 0, 1]], dtype=np.float64)
    h = shift @ homography
    focal, focal_log_sd = focal_estimate(h, max(width, height), board_mm)
    k_inv = np.diag([1 / focal, 1 / focal, 1.0])
    m = k_inv @ h
    scale = 2.0 / (np.linalg.norm(m[:, 0]) + np.linalg.norm(m[:, 1]))
    r1, r2, t = m[:, 0] * scale, m[:, 1] * scale, m[:, 2] * scale
    r3 = np.cross(r1, r2)
    rot = np.stack([r1, r2, r3], axis=1)
    centre = -rot.T @ t
    return CameraPose((float(centre[0]), float(centre[1])), float(abs(centre[2])), focal_log_sd)


def focal_estimate(centred: FloatArray, image_width: int, board_mm: float) -> tuple[float, float]:
    """Focal length (px) for a homography whose image origin is the principal point, and
    the standard deviation of its logarithm.

    The measurement and the typical lens are combined in log scale, each weighed by the
    inverse of its variance; the measurement's comes from moving each of the board's four
    corners (a square of side ``board_mm``) in the image by ``CORNER_NOISE_PX``.
    """
    typical = TYPICAL_FOCAL * image_width
    measured = _measured_focal(centred)
    if measured is None:
        return typical, TYPICAL_FOCAL_SPREAD
    board = np.array([[0, 0, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1]], dtype=np.float64).T
    board *= np.array([[board_mm], [board_mm], [1.0]])
    seen = centred @ board
    image = (seen[:2] / seen[2]).T
    src = board[:2].T.astype(np.float32)
    variance = 0.0
    for corner, axis in np.ndindex(4, 2):
        moved = image.copy()
        moved[corner, axis] += CORNER_NOISE_PX
        moved_h = cv2.getPerspectiveTransform(src, moved.astype(np.float32))
        other = _measured_focal(np.asarray(moved_h, dtype=np.float64))
        if other is None:
            return typical, TYPICAL_FOCAL_SPREAD
        variance += math.log(other / measured) ** 2
    weight = 1.0 / max(variance, 1e-12)
    prior = 1.0 / TYPICAL_FOCAL_SPREAD**2
    log_focal = (weight * math.log(measured) + prior * math.log(typical)) / (weight + prior)
    return math.exp(log_focal), math.sqrt(1.0 / (weight + prior))


def _measured_focal(centred: FloatArray) -> float | None:
    """The focal length the two rotation constraints give, from the better conditioned
    one, or None where it has no real value."""
    h1, h2 = centred[:, 0], centred[:, 1]
    options = (
        (-(h1[0] * h2[0] + h1[1] * h2[1]), h1[2] * h2[2]),
        (-(h1[0] ** 2 + h1[1] ** 2 - h2[0] ** 2 - h2[1] ** 2), h1[2] ** 2 - h2[2] ** 2),
    )
    num, den = max(options, key=lambda o: abs(o[1]))
    if abs(den) < 1e-15 or num / den <= 0:
        return None
    return math.sqrt(num / den)
