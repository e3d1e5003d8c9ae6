"""Placing the board from two markers at opposite corners and the sheet's own edges.

Two markers' eight corners fit a homography that is close beside them but loose across
the board (its perspective rests on two small squares: about 15 mm off at the far
cells).  The sheet's edges are long straight lines that tie it down: along each one,
the steps from the table to the bare sheet are gathered within as far of the loose fit
as it may be off there, and the edge is the straight line through a step beside the
found marker at its end that passes the most of them; an arm crossing an edge only
leaves a gap in it.  The four lines found and the markers' corners then fit one
homography, kept only when both agree with it.

Only markers at opposite corners lead to every edge.  Two on one side leave the far
edge unled, and it cannot be told from the straight side of an arm lying along it
(then the board would be placed wrong by several millimetres), so they place nothing
alone; the corners of a third marker partly hidden (see
:mod:`companion.vision.partial_marker`) lead to the far edge from its end.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]
# Each marker's corners used: their board points (mm) and image points (px).
_MarkerPoints = Mapping[int, tuple[FloatArray, FloatArray]]


# Steps are looked for from this far (mm) along each edge from a found marker's sheet
# corner: past the marker's white quiet zone (its square ends 46 mm from the corner on the
# reference board), where the sheet itself meets the table.
TRACK_START_MM = 56.0
# ... and stops this far from the edge's far corner, before the next marker's quiet zone.
TRACK_END_MM = 56.0
# Where along an edge steps are looked for (mm apart): some 55 positions on the reference
# board's edges, enough for an edge half hidden by an arm to keep a line's worth.
TRACK_STEP_MM = 6.0
# How far across the loose fit's edge (mm, each side) a step is looked for: beside the
# marker, as far as the fit may be off there, and further along, that much more per mm
# from the marker (over the photoreal frames the two markers' fit put the far corners
# up to about 15 mm off, more where the board is small in the frame).
TRACK_SEARCH_MM = 8.0
LOOSE_DRIFT = 0.1
STEPS_PER_POSITION = 3  # the strongest steps at each position that may be the edge
# The line must pass through a step within the first ANCHOR_POSITIONS positions beside the
# marker and one ANCHOR_SPAN_POSITIONS or more further on, and turn from the loose fit's
# edge there by at most TRACK_ANGLE_MAX_DEG (the fit's direction errs by 3.2 degrees at
# most over the photoreal frames, 5.3 under table conditions; a shadow's edge crossing
# the sheet's turns anyhow).
ANCHOR_POSITIONS = 6
ANCHOR_SPAN_POSITIONS = 10
TRACK_ANGLE_MAX_DEG = 6.0
# With a line fitted to the tracked edge and to every marker, an edge is searched over
# its whole length this far (mm) each side of where the fit puts it.
REFIT_SEARCH_MM = 3.0
# Colour step (8-bit BGR distance, from the table to the sheet past the edge's blur) that
# counts as the sheet meeting the table: the reference sheet against a mid-grey cloth
# steps about 90; a dim corner's sheet against an orange cloth about 30.
EDGE_STEP_MIN = 18.0
# The sheet side of a step must go on as the sheet this far in (mm, a band clear of the
# step's blur and short of the worker strips' print): its colour nearer the band's than
# this share of the whole step from the table to the band (a blurred edge is crossed
# half-way where it is steepest).  An edge with the table on one side and the bare sheet
# on the other, whatever the light's tint there.
SHEET_BEYOND_MM = (4.0, 8.0)
SHEET_GOES_ON_MAX = 0.5
# Pixels each side of a candidate step that are averaged (blur and JPEG spread an edge).
STEP_SIDE_PX = 2
# A line is fitted once this many points lie on it ...
LINE_POINTS_MIN = 12
# ... spread over this share of the edge at least (an arm may hide the rest: 88 mm of an
# edge, its points a tenth of a pixel off their line, fix its direction well enough) ...
LINE_SPAN_MIN = 0.2
# ... each within this distance (px) of the line: farther ones are the arm, a fold or
# a crumb, and are set aside.
LINE_INLIER_PX = 1.5
# All four edges: three and two markers at one end of the sheet leave its far end loose
# (the markers' corners lie within 40 mm of the near edge), while the four alone fix it.
EDGES_MIN = 4
# The fit is kept when every found marker corner lies within this share of the marker's
# side of where it puts it (the detector's corners lie up to 0.13 of it off two-marker
# fits that place every cell within 1.7 mm: its squares come out a little large or
# small), each edge's ends within LINE_END_MAX_PX of its line and the tracked points within
# LINE_RMS_MAX_PX of it, on average.  These catch a line on the wrong feature; an edge
# moved a few millimetres along the sheet moves the corners too little to show.
CORNER_FIT_MAX_SIDES = 0.2
LINE_END_MAX_PX = 2.0
LINE_RMS_MAX_PX = 1.0


@dataclass(frozen=True)
class _Edge:
    """One side of the sheet: from ``start`` to ``end`` (mm), and the side the sheet is on."""

    start: FloatArray
    end: FloatArray
    inward: FloatArray

    @property
    def length(self) -> float:
        return float(np.linalg.norm(self.end - self.start))

    def at(self, along_mm: FloatArray) -> FloatArray:
        """The points ``along_mm`` from ``start`` (one per distance)."""
        along = np.asarray(along_mm, np.float64)[:, None]
        return np.asarray(self.start + (self.end - self.start) * (along / self.length))

    def positions(self) -> FloatArray:
        """Where along the edge (mm from ``start``) steps are looked for: every
        TRACK_STEP_MM between the quiet zones of the markers at its ends."""
        return np.arange(TRACK_START_MM, self.length - TRACK_END_MM, TRACK_STEP_MM)


def _edges(sheet_mm: tuple[float, float]) -> list[_Edge]:
    w, h = sheet_mm
    corners = [(0.0, 0.0), (w, 0.0), (w, h), (0.0, h)]
    inward = [(0.0, 1.0), (-1.0, 0.0), (0.0, -1.0), (1.0, 0.0)]
    return [
        _Edge(np.array(corners[k]), np.array(corners[(k + 1) % 4]), np.array(inward[k]))
        for k in range(4)
    ]


def _to_image(homography: FloatArray, points_mm: FloatArray) -> FloatArray:
    pts = np.asarray(points_mm, np.float64).reshape(-1, 1, 2)
    return np.asarray(cv2.perspectiveTransform(pts, homography).reshape(-1, 2), np.float64)


class SheetEdgePlacer:
    """Fits the board's homography to two (or more) markers and the sheet's edges."""

    def __init__(
        self,
        sheet_mm: tuple[float, float],
        corners_mm: dict[int, FloatArray],
    ) -> None:
        """``corners_mm``: each marker's four corners on the board (mm)."""
        self._sheet_mm = sheet_mm
        self._edges = _edges(sheet_mm)
        self._corners_mm = corners_mm

    def place(
        self,
        frame_bgr: NDArray[np.uint8],
        found: Mapping[int, FloatArray],
        loose: FloatArray,
        partial: _MarkerPoints | None = None,
    ) -> FloatArray | None:
        """The homography (board mm to frame pixels) through the ``found`` markers' image
        corners and the sheet's edges, starting from the ``loose`` fit through the
        markers alone; ``None`` unless enough edges show and everything agrees.

        ``partial``: markers partly hidden, each with the board and image points (mm,
        px) of the corners that show; like a found marker, each leads to the edges at its
        corner of the sheet."""
        markers = {mid: (self._corners_mm[mid], quad) for mid, quad in found.items()}
        markers.update(partial or {})
        if not all(
            self._marker_at(markers, edge, 0) or self._marker_at(markers, edge, 1)
            for edge in self._edges
        ):
            return None  # two markers on one side: see the module's note
        image = np.asarray(frame_bgr, np.float32)
        tracked: dict[int, FloatArray] = {}
        for side, edge in enumerate(self._edges):
            starts = [end for end in (0, 1) if self._marker_at(markers, edge, end)]
            points = [self._track(image, loose, edge, end) for end in starts]
            points = [p for p in points if len(p)]
            if points:
                tracked[side] = np.concatenate(points)
        lines = self._lines(tracked, loose)
        if len(lines) < EDGES_MIN:
            return None
        fitted = self._fit(markers, lines)
        if fitted is None:
            return None
        # Every edge again, the whole of it, where the fit to all four now puts it.
        tracked = {side: self._search(image, fitted, edge) for side, edge in enumerate(self._edges)}
        lines = self._lines(tracked, fitted)
        if len(lines) < EDGES_MIN:
            return None
        fitted = self._fit(markers, lines)
        if fitted is None or not self._agrees(fitted, markers, lines):
            return None
        return fitted

    def _marker_at(self, found: Collection[int], edge: _Edge, end: int) -> bool:
        """Whether a found marker sits at this end of the edge."""
        corner = edge.start if end == 0 else edge.end
        for mid in found:
            centre = self._corners_mm[mid].mean(axis=0)
            if np.all(np.abs(centre - corner) < min(self._sheet_mm) / 4):
                return True
        return False

    def _track(
        self,
        image: NDArray[np.float32],
        loose: FloatArray,
        edge: _Edge,
        end: int,
    ) -> FloatArray:
        """Image points of the sheet's edge, led to by the marker at ``end`` of it.

        At each step along the edge, every likely step from the table to the sheet is
        taken within a window around where the loose fit puts the edge, as wide as the fit
        may be off there (TRACK_SEARCH_MM beside the marker, LOOSE_DRIFT further on).  The
        edge is the straight line through one step beside the marker (where the fit is
        sure) and one further on that passes nearest the most steps, turning from the
        fit's own edge by TRACK_ANGLE_MAX_DEG at most: a shadow's or an arm's edge may be
        as strong, but not along the whole edge."""
        along = edge.positions()
        from_marker = along - TRACK_START_MM
        if end == 1:
            along = edge.length - along
        guesses, inwards = _across(loose, edge, along)
        points: list[FloatArray] = []
        position: list[int] = []
        for k, away in enumerate(from_marker.tolist()):
            window = TRACK_SEARCH_MM + LOOSE_DRIFT * away
            for found in _steps(image, guesses[k], inwards[k], window, STEPS_PER_POSITION):
                points.append(found)
                position.append(k)
        if not points:
            return np.zeros((0, 2))
        candidates, index = np.array(points), np.array(position)
        run = guesses[1] - guesses[0]
        direction = run / max(float(np.linalg.norm(run)), 1e-9)
        return _consensus_line_points(candidates, index, direction)

    def _search(self, image: NDArray[np.float32], fitted: FloatArray, edge: _Edge) -> FloatArray:
        """Image points of the sheet's edge along its length, within REFIT_SEARCH_MM of
        where ``fitted`` puts it."""
        guesses, inwards = _across(fitted, edge, edge.positions())
        points: list[FloatArray] = []
        for guess, inward in zip(guesses, inwards, strict=True):
            points.extend(_steps(image, guess, inward, REFIT_SEARCH_MM, 1))
        return np.array(points, np.float64).reshape(-1, 2)

    def _lines(
        self, tracked: dict[int, FloatArray], homography: FloatArray
    ) -> dict[int, tuple[FloatArray, float]]:
        """Each edge's image line (a, b, c with a² + b² = 1) and its points' RMS distance,
        for edges whose points on the line span enough of the edge (as ``homography``
        puts it)."""
        lines = {}
        for side, points in tracked.items():
            line = _robust_line(points)
            if line is None:
                continue
            edge = self._edges[side]
            ends = _to_image(homography, np.array([edge.start, edge.end]))
            length = max(float(np.linalg.norm(ends[1] - ends[0])), 1e-9)
            direction = (ends[1] - ends[0]) / length
            on = points[np.abs(points @ line[0][:2] + line[0][2]) <= LINE_INLIER_PX] @ direction
            if float(on.max() - on.min()) < LINE_SPAN_MIN * length:
                continue
            lines[side] = line
        return lines

    def _fit(
        self, markers: _MarkerPoints, lines: dict[int, tuple[FloatArray, float]]
    ) -> FloatArray | None:
        """The homography through the markers' corners and with each edge on its line."""
        src = np.concatenate([markers[m][0] for m in sorted(markers)])
        dst = np.concatenate([markers[m][1] for m in sorted(markers)])
        on_lines = []
        for side, (line, _) in lines.items():
            edge = self._edges[side]
            on_lines.append((edge.at(np.linspace(0.0, edge.length, 9)), line))
        return _points_and_lines_homography(src, dst, on_lines)

    def _agrees(
        self,
        fitted: FloatArray,
        markers: _MarkerPoints,
        lines: dict[int, tuple[FloatArray, float]],
    ) -> bool:
        """Whether the markers' corners and the edges' points all sit where ``fitted``
        puts them."""
        for mid, (board, image) in markers.items():
            square = _to_image(fitted, self._corners_mm[mid])
            side = float(np.mean(np.linalg.norm(square - np.roll(square, 1, axis=0), axis=1)))
            off = np.linalg.norm(_to_image(fitted, board) - image, axis=1)
            if float(off.max()) > CORNER_FIT_MAX_SIDES * side:
                return False
        for side, (line, rms) in lines.items():
            if rms > LINE_RMS_MAX_PX:
                return False
            ends = _to_image(fitted, np.array([self._edges[side].start, self._edges[side].end]))
            if float(np.max(np.abs(ends @ line[:2] + line[2]))) > LINE_END_MAX_PX:
                return False
        return True


def _across(
    homography: FloatArray, edge: _Edge, along_mm: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """Where ``homography`` puts the edge's points ``along_mm`` from its start (image
    points), and the image step of one millimetre inward from each (pixels per mm)."""
    points = edge.at(along_mm)
    guesses = _to_image(homography, points)
    return guesses, _to_image(homography, points + edge.inward) - guesses


def _sample(image: NDArray[np.float32], points: FloatArray) -> FloatArray | None:
    """Colours at image points (bilinear), or ``None`` if any lies outside the frame."""
    height, width = image.shape[:2]
    if (points < 1).any() or (points[:, 0] > width - 2).any() or (points[:, 1] > height - 2).any():
        return None
    xs = points[:, 0].astype(np.float32).reshape(1, -1)
    ys = points[:, 1].astype(np.float32).reshape(1, -1)
    return np.asarray(cv2.remap(image, xs, ys, cv2.INTER_LINEAR).reshape(-1, 3), np.float64)


def _steps(
    image: NDArray[np.float32],
    guess: FloatArray,
    inward_px_per_mm: FloatArray,
    search_mm: float,
    most: int,
) -> list[FloatArray]:
    """Where, across ``guess`` (along the sheet's inward direction, pixels per mm), the
    table may meet the sheet: up to ``most`` colour steps within ``search_mm``, strongest
    first, whose inner side goes on as the bare sheet further in does (a lamp may tint the
    sheet anywhere, so it is compared with itself, not with its colour elsewhere)."""
    scale = float(np.linalg.norm(inward_px_per_mm))
    if scale <= 0:
        return []
    normal = inward_px_per_mm / scale
    reach = search_mm * scale + STEP_SIDE_PX + 1
    deep = (SHEET_BEYOND_MM[0] * scale * 2, SHEET_BEYOND_MM[1] * scale * 2)  # in samples
    offsets = np.arange(-reach, reach + SHEET_BEYOND_MM[1] * scale + 0.5, 0.5)
    colours = _sample(image, guess[None, :] + offsets[:, None] * normal[None, :])
    if colours is None:
        return []
    side = 2 * STEP_SIDE_PX  # samples are half a pixel apart
    cumulative = np.vstack([np.zeros((1, 3)), np.cumsum(colours, axis=0)])
    # Boundaries at samples side .. last - deep end, each with its outer and inner side
    # and the sheet beyond it.
    count = int(np.floor(4 * reach)) + 1 - 2 * side  # the search's samples, less the sides
    at = np.arange(side, side + count)
    near, far = at + round(deep[0]), at + round(deep[1])
    usable = far < len(colours)
    at, near, far = at[usable], near[usable], far[usable]
    if len(at) < 3:
        return []
    outer = (cumulative[at] - cumulative[at - side]) / side
    inner = (cumulative[at + side + 1] - cumulative[at + 1]) / side
    beyond = (cumulative[far + 1] - cumulative[near]) / (far + 1 - near)[:, None]
    step = _lengths(inner - outer)
    whole = _lengths(beyond - outer)  # the whole step, past the blur
    goes_on = _lengths(inner - beyond) <= SHEET_GOES_ON_MAX * whole
    good = (whole >= EDGE_STEP_MIN) & goes_on
    # The steepest sample of each step, among those whose sheet side goes on (the very
    # steepest of a blurred edge may still be half-way across it).
    steep = np.where(good, step, 0.0)
    peak = np.zeros(len(step), dtype=bool)
    peak[1:-1] = good[1:-1] & (steep[1:-1] >= steep[:-2]) & (steep[1:-1] > steep[2:])
    found = []
    for k in np.flatnonzero(peak)[np.argsort(-step[peak])][:most].tolist():
        a, b, c = step[k - 1], step[k], step[k + 1]
        denominator = a - 2 * b + c  # the peak between samples
        shift = 0.5 * (a - c) / denominator if denominator < 0 else 0.0
        found.append(np.asarray(guess + (offsets[at[k]] + 0.5 * shift) * normal, np.float64))
    return found


def _lengths(vectors: FloatArray) -> FloatArray:
    """Each row's Euclidean length (as ``np.linalg.norm(vectors, axis=1)``, without its
    checks: this runs some 500 times a frame)."""
    return np.asarray(np.sqrt((vectors * vectors).sum(axis=1)))


def _distances(candidates: FloatArray, anchors: FloatArray, units: FloatArray) -> FloatArray:
    """How far (pixels) each candidate lies from each line through ``anchors[k]`` along
    ``units[k]`` (lines x candidates)."""
    normal_x, normal_y = -units[:, 1:2], units[:, 0:1]
    across_x = candidates[None, :, 0] - anchors[:, 0:1]
    across_y = candidates[None, :, 1] - anchors[:, 1:2]
    return np.asarray(np.abs(across_x * normal_x + across_y * normal_y))


def _consensus_line_points(
    candidates: FloatArray, position: NDArray[np.int64], direction: FloatArray
) -> FloatArray:
    """The candidates (one per position at most) on the line through an anchor (a
    candidate at one of the first ANCHOR_POSITIONS positions) and a candidate at least
    ANCHOR_SPAN_POSITIONS further on that the most positions have a candidate within
    LINE_INLIER_PX of, among lines within TRACK_ANGLE_MAX_DEG of ``direction``."""
    anchors = np.flatnonzero(position < ANCHOR_POSITIONS)
    sine_max = np.sin(np.radians(TRACK_ANGLE_MAX_DEG))
    # Every line tried (an anchor and a unit direction from it), in order, with how many
    # positions have a candidate near it; then, of those the most positions agree on,
    # the first whose candidates lie closest to it.
    lines: list[tuple[int, FloatArray]] = []
    counts: list[NDArray[np.int64]] = []
    positions = np.zeros((len(candidates), int(position.max()) + 1), dtype=np.int64)
    positions[np.arange(len(candidates)), position] = 1  # candidates x positions, one-hot
    for a in anchors.tolist():
        others = np.flatnonzero(position >= position[a] + ANCHOR_SPAN_POSITIONS)
        if len(others) == 0:
            continue
        runs = candidates[others] - candidates[a]
        lengths = _lengths(runs)
        units = runs / np.maximum(lengths, 1e-9)[:, None]
        aligned = units[np.abs(units[:, 0] * direction[1] - units[:, 1] * direction[0]) <= sine_max]
        if len(aligned) == 0:
            continue
        anchor = np.broadcast_to(candidates[a], aligned.shape)
        near = _distances(candidates, anchor, aligned) <= LINE_INLIER_PX
        counts.append(((near.astype(np.int64) @ positions) > 0).sum(axis=1))
        lines.extend((a, unit) for unit in aligned)
    if not lines:
        return np.zeros((0, 2))
    every = np.concatenate(counts)
    tied = np.flatnonzero(every == every.max())
    anchors_tied = candidates[[lines[k][0] for k in tied]]  # tied lines x 2
    units_tied = np.array([lines[k][1] for k in tied])
    off = _distances(candidates, anchors_tied, units_tied)  # tied lines x candidates
    near_lines = off <= LINE_INLIER_PX
    spread = np.where(near_lines, off, 0.0).sum(axis=1)
    chosen = near_lines[int(np.argmin(spread))]
    # One point per position: the first (strongest) candidate on the line.
    kept = [int(np.flatnonzero(chosen & (position == k))[0]) for k in np.unique(position[chosen])]
    return np.asarray(candidates[kept], np.float64)


def _robust_line(points: FloatArray) -> tuple[FloatArray, float] | None:
    """The line through most of ``points`` (a, b, c with a² + b² = 1) and the RMS distance
    of those on it; ``None`` when too few lie on one line."""
    if len(points) < LINE_POINTS_MIN:
        return None
    kept = np.ones(len(points), dtype=bool)
    line = None
    for _ in range(4):  # refit without the points farthest off, until none is
        if np.count_nonzero(kept) < LINE_POINTS_MIN:
            return None
        on = points[kept]
        centre = on.mean(axis=0)
        _, _, vt = np.linalg.svd(on - centre)
        normal = vt[1]
        line = np.array([normal[0], normal[1], -float(normal @ centre)])
        distance = np.abs(points @ line[:2] + line[2])
        worst = float(distance[kept].max())
        if worst <= LINE_INLIER_PX:
            break
        kept &= distance < max(LINE_INLIER_PX, worst / 2)
    if line is None:
        return None
    distance = np.abs(points[kept] @ line[:2] + line[2])
    return line, float(np.sqrt(np.mean(distance**2)))


def _points_and_lines_homography(
    src: FloatArray, dst: FloatArray, on_lines: list[tuple[FloatArray, FloatArray]]
) -> FloatArray | None:
    """The homography mapping each ``src`` point to its ``dst`` point and each group of
    board points onto its image line, in the least-squares sense (direct linear
    transform, both sides normalised)."""
    board = np.concatenate([src] + [points for points, _ in on_lines])
    to_board = _normalising(board)
    to_image = _normalising(dst)
    rows = []
    for (x, y), (u, v) in zip(src, dst, strict=True):
        p = to_board @ np.array([x, y, 1.0])
        q = to_image @ np.array([u, v, 1.0])
        rows.append(np.concatenate([np.zeros(3), -q[2] * p, q[1] * p]))
        rows.append(np.concatenate([q[2] * p, np.zeros(3), -q[0] * p]))
    inverse_image = np.linalg.inv(to_image)
    for points, line in on_lines:
        normalised = inverse_image.T @ line  # the line in normalised image coordinates
        normalised = normalised / np.linalg.norm(normalised[:2])
        for x, y in points:
            p = to_board @ np.array([x, y, 1.0])
            rows.append(np.concatenate([normalised[0] * p, normalised[1] * p, normalised[2] * p]))
    _, _, vt = np.linalg.svd(np.array(rows))
    h = inverse_image @ vt[-1].reshape(3, 3) @ to_board
    if abs(h[2, 2]) < 1e-12 or not np.isfinite(h).all():
        return None
    return np.asarray(h / h[2, 2], np.float64)


def _normalising(points: FloatArray) -> FloatArray:
    """The similarity moving ``points`` to mean zero and mean distance √2 (Hartley)."""
    centre = points.mean(axis=0)
    spread = float(np.mean(np.linalg.norm(points - centre, axis=1)))
    s = np.sqrt(2.0) / max(spread, 1e-9)
    return np.array([[s, 0.0, -s * centre[0]], [0.0, s, -s * centre[1]], [0.0, 0.0, 1.0]])


__all__ = ["SheetEdgePlacer"]
