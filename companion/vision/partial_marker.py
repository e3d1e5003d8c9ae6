"""A marker partly under an arm, found by its known print.

The detector decodes a marker only when its whole square shows; an arm over a corner of the
sheet often leaves half of it, and three quarters of its quiet zone, in view.  When two
markers on one side are all that decode, their fit says roughly where a missing one lies
(within about a marker's side), but not well enough to read the far cells.  The missing
marker's print is known exactly: its black and white cells and the white quiet zone around
them.  Around where the loose fit puts it, the frame is rectified to the board's plane and
sorted into black, white and neither (skin, table, shadow's edge); the marker's print is
slid over it at a few sizes and turns, scoring agreement only where the frame shows black
or white, so whatever covers the rest costs nothing.  A placement is kept only when much of
the marker shows, nearly all of it agrees, and no other placement nearby comes close; it is
then refined to a fraction of a pixel by aligning the print to the visible part (ECC).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]

# Rectified patch resolution (px per board mm): a 32 mm marker's cells span 16 px, over the
# 1-2 px per mm a marker shows at in the frames seen (sharper than the frame itself).
PATCH_PX_PER_MM = 3.0
# How far (marker sides) the missing marker is looked for around where the loose fit puts
# it: the two-marker fit put far markers up to about one side off on photoreal frames.
SEARCH_MARGIN_SIDES = 2.0
# The coarse search runs on the patch and print reduced this many times.
COARSE_REDUCE = 2
# Sizes and turns of the print tried against the loose fit's (relative scale; degrees):
# extrapolated from two small squares, the fit's scale errs by some 10 % and its direction
# by up to 5 degrees at the far side.
SCALES = (0.85, 0.9, 0.95, 1.0, 1.05, 1.1, 1.15, 1.2)
TURNS_DEG = (-6.0, -3.0, 0.0, 3.0, 6.0)
# Sorting a pixel: its lightness over the local white (the brightest within this many mm,
# two of the marker's cells) ...
LOCAL_WHITE_MM = 12.0
# ... above this share is white, below this one black ...
WHITE_SHARE_MIN = 0.75
BLACK_SHARE_MAX = 0.5
# ... and only when it keeps nearly the white's own chroma (Lab a, b units from the white
# cells of the markers that decoded): skin, the table and the cream sheet are coloured.
NEUTRAL_CHROMA_MAX = 14.0
# A placement is kept when the frame shows black or white over this share of the marker's
# own square at least (two of its corners, or most of one side with its cells) ...
SHOWN_MIN = 0.3
# ... and agrees with the print over this share of what it shows (pixels at the cells'
# blurred borders disagree: 0.93-0.96 on the partly covered markers seen) ...
AGREE_MIN = 0.9
# ... and the best placement more than a cell away scores at most this share of it: a
# print that fits about as well elsewhere shows too little to place it.
RUNNER_UP_MAX = 0.8
# ECC refinement: iterations and the smallest step in its correlation that goes on.
ECC_ITERATIONS = 50
ECC_EPSILON = 1e-4
# The refinement may move no corner that shows further than this share of a side from the
# coarse placement (it converged on something else); hidden ones it may move freely.
ECC_MOVE_MAX_SIDES = 0.25
# A corner of the square counts as shown when the frame is black or white over this share
# of a disc this many cells across around it (an arm's edge through it leaves it loose).
CORNER_SHOWN_MIN = 0.8
CORNER_DISC_CELLS = 2.0
# A decoded marker's white cells: its pixels at least this lightness percentile (most
# markers are about half white, blurred edges aside).
WHITE_CELLS_PERCENTILE = 75.0
# Agreement with the print per pixel: +1 white over white or black over black, -1 crossed.
_WHITE, _BLACK = 1.0, -1.0


@dataclass(frozen=True)
class MarkerPrint:
    """One marker as printed: its id, side (mm), quiet zone (mm) and bits."""

    marker_id: int
    side_mm: float
    quiet_mm: float
    corner_mm: tuple[float, float]  # its square's first corner on the board
    bits: NDArray[np.uint8]  # the detector dictionary's image of it, any size, 255 white


class PartialMarkerFinder:
    """Finds one marker's square in a frame, from its print and a loose homography."""

    def __init__(self, marker: MarkerPrint) -> None:
        self._marker = marker
        side = round(marker.side_mm * PATCH_PX_PER_MM)
        self._quiet = round(marker.quiet_mm * PATCH_PX_PER_MM)
        self._side = side
        self._cell = side / marker.bits.shape[0]
        bits = cv2.resize(marker.bits, (side, side), interpolation=cv2.INTER_NEAREST)
        full = side + 2 * self._quiet
        template = np.full((full, full), _WHITE, np.float32)
        template[self._quiet : self._quiet + side, self._quiet : self._quiet + side] = np.where(
            bits > 0, _WHITE, _BLACK
        )
        self._template = template
        inside = np.zeros((full, full), np.float32)
        inside[self._quiet : self._quiet + side, self._quiet : self._quiet + side] = 1.0
        self._inside = inside

    def find(
        self, frame_bgr: NDArray[np.uint8], loose: FloatArray, white_ab: tuple[float, float]
    ) -> tuple[FloatArray, FloatArray] | None:
        """The corners of the marker's square that show: their board points (k x 2, mm)
        and image points (k x 2, px), in the detector's order; ``None`` when none do.

        ``loose``: board mm to frame px, fitted through the markers that decoded;
        ``white_ab``: the Lab chroma of their white cells (the light's tint there).
        Only corners with the print showing all around them are given: the placement of
        a half-hidden square is sure along what shows, loose in what does not."""
        m = self._marker
        off = SEARCH_MARGIN_SIDES * m.side_mm + m.quiet_mm
        size = round((m.side_mm + 2 * off) * PATCH_PX_PER_MM)
        step = 1 / PATCH_PX_PER_MM
        to_board = np.array(
            [[step, 0, m.corner_mm[0] - off], [0, step, m.corner_mm[1] - off], [0, 0, 1]]
        )
        patch_to_frame = loose @ to_board
        patch = np.asarray(
            cv2.warpPerspective(
                frame_bgr,
                patch_to_frame,
                (size, size),
                flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                borderMode=cv2.BORDER_CONSTANT,
                borderValue=(128, 0, 128),  # a strong colour: neither black nor white
            ),
            np.uint8,
        )
        sorted_ = _black_or_white(patch, white_ab)
        placed = self._best_placement(sorted_)
        if placed is None:
            return None
        refined = self._refined(patch, sorted_, placed)
        if refined is not None and self._shows_enough(sorted_, refined):
            placed = refined
        elif not self._shows_enough(sorted_, placed):
            return None
        corners = self._corners(placed)
        print_ = self._placed_print(sorted_, placed)
        shown = [k for k in range(4) if self._corner_shows(sorted_, print_, corners[k])]
        if not shown:
            return None
        frame = cv2.perspectiveTransform(corners[shown].reshape(-1, 1, 2), patch_to_frame)
        x, y = m.corner_mm
        side = m.side_mm
        board = np.array([[x, y], [x + side, y], [x + side, y + side], [x, y + side]])
        return board[shown], np.asarray(frame.reshape(-1, 2), np.float64)

    def _placed_print(
        self, sorted_: NDArray[np.float32], placed: FloatArray
    ) -> NDArray[np.float32]:
        """The print (+1 white, -1 black) placed over the patch, 0 off it."""
        size = sorted_.shape[::-1]
        moved = cv2.warpAffine(self._template, placed, size, flags=cv2.INTER_NEAREST)
        return np.asarray(moved, np.float32)

    def _seen(
        self, sorted_: NDArray[np.float32], placed: FloatArray
    ) -> tuple[NDArray[np.float32], NDArray[np.bool_]]:
        """The print so placed over the patch (+1, -1; 0 off it), and where the frame
        shows it uncovered: black or white, and not in what covers it.

        Whatever covers a marker reaches over it from beyond its quiet zone, so it is
        taken as every stretch that is neither black nor white, or crosses the print
        (white where it is black: pale skin in a warm light), that reaches the quiet
        zone's outer rim, through the quiet zone itself if need be (white skin there
        agrees with it).  A placement a little off crosses the print as well, along the
        edges of the bits and of the border's inside, which stay counted."""
        size = sorted_.shape[::-1]
        print_ = self._placed_print(sorted_, placed)
        footprint = (print_ != 0).astype(np.uint8)
        inside = cv2.warpAffine(self._inside, placed, size, flags=cv2.INTER_NEAREST) > 0
        unlike = (footprint > 0) & (print_ != sorted_)
        conduit = unlike | ((footprint > 0) & ~inside)
        rim = footprint - cv2.erode(footprint, np.ones((3, 3), np.uint8))
        _, labels = cv2.connectedComponents(conduit.astype(np.uint8), connectivity=8)
        reaching = np.unique(labels[(rim > 0) & conduit])
        covered = unlike & np.isin(labels, reaching[reaching > 0])
        return print_, (sorted_ != 0) & ~covered & (footprint > 0)

    def _best_placement(self, sorted_: NDArray[np.float32]) -> FloatArray | None:
        """The affine map (2 x 3, template px to patch px) of the best-scoring placement,
        or ``None`` when another, more than a cell away, scores nearly as well.

        Searched on both reduced COARSE_REDUCE times: the refinement that follows needs
        only to start within a cell."""
        shrink = 1 / COARSE_REDUCE
        coarse = cv2.resize(sorted_, None, fx=shrink, fy=shrink, interpolation=cv2.INTER_AREA)
        t = cv2.resize(self._template, None, fx=shrink, fy=shrink, interpolation=cv2.INTER_AREA)
        centre = (t.shape[1] / 2, t.shape[0] / 2)
        best: tuple[float, FloatArray, NDArray[np.float32]] | None = None
        placed: FloatArray
        for scale in SCALES:
            for turn in TURNS_DEG:
                affine = cv2.getRotationMatrix2D(centre, turn, scale)
                dim = int(np.ceil(t.shape[0] * scale * 1.1)) + 2
                if dim >= coarse.shape[0]:
                    continue
                affine[:, 2] += (dim - t.shape[0]) / 2
                moved = cv2.warpAffine(t, affine, (dim, dim), flags=cv2.INTER_LINEAR)
                scores = cv2.matchTemplate(coarse, moved, cv2.TM_CCORR)
                _, top, _, at = cv2.minMaxLoc(scores)
                if best is None or top > best[0]:
                    placed = np.asarray(affine, np.float64)
                    placed[:, 2] += at
                    best = (float(top), placed, np.asarray(scores, np.float32))
        if best is None:
            return None
        top, placed, scores = best
        # The runner-up: the best score more than a cell away from the top.
        y, x = np.unravel_index(int(np.argmax(scores)), scores.shape)
        away = scores.copy()
        r = int(np.ceil(self._cell * shrink))
        away[max(y - r, 0) : y + r + 1, max(x - r, 0) : x + r + 1] = -np.inf
        if float(away.max()) > RUNNER_UP_MAX * top:
            return None
        placed[:, 2] *= COARSE_REDUCE  # back to full-size template and patch pixels
        return np.asarray(placed, np.float64)

    def _shows_enough(self, sorted_: NDArray[np.float32], placed: FloatArray) -> bool:
        """Whether, so placed, enough of the marker's square shows uncovered, agreeing."""
        print_, clear = self._seen(sorted_, placed)
        size = sorted_.shape[::-1]
        inside = cv2.warpAffine(self._inside, placed, size, flags=cv2.INTER_NEAREST) > 0
        shown = inside & clear
        if shown.sum() < SHOWN_MIN * inside.sum():
            return False
        agree = float((print_[shown] == sorted_[shown]).mean())
        return agree >= AGREE_MIN

    def _refined(
        self, patch: NDArray[np.uint8], sorted_: NDArray[np.float32], placed: FloatArray
    ) -> FloatArray | None:
        """``placed`` refined by ECC over the print's uncovered pixels (as first placed),
        or ``None`` when it did not converge or moved a corner that shows too far."""
        gray = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY).astype(np.float32)
        template = (self._template > 0).astype(np.float32) * 255.0
        print_, clear = self._seen(sorted_, placed)
        # The mask is the input's (the patch's): the print's uncovered pixels, and the
        # pixels beyond its footprint that show black or white.
        mask = (clear | ((print_ == 0) & (sorted_ != 0))).astype(np.uint8)
        criteria = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, ECC_ITERATIONS, ECC_EPSILON)
        try:
            _, warp = cv2.findTransformECC(
                template, gray, placed.astype(np.float32), cv2.MOTION_AFFINE, criteria, mask, 3
            )
        except cv2.error:
            return None  # did not converge
        refined = np.asarray(warp, np.float64)
        corners = self._corners(placed)
        shown = [k for k in range(4) if self._corner_shows(sorted_, print_, corners[k])]
        moved = np.linalg.norm(self._corners(refined)[shown] - corners[shown], axis=1)
        if len(moved) and float(moved.max()) > ECC_MOVE_MAX_SIDES * self._side:
            return None
        return refined

    def _corner_shows(
        self, sorted_: NDArray[np.float32], print_: NDArray[np.float32], corner: FloatArray
    ) -> bool:
        """Whether the print shows all around a corner (patch px): black or white over
        CORNER_SHOWN_MIN of a disc CORNER_DISC_CELLS across, agreeing with the print as
        placed over AGREE_MIN of what shows there.

        Nothing here is set aside as covered: near what covers the marker a corner is not
        sure, and a placement a little off crosses the print along the border's outer
        edge, which runs into the quiet zone like a cover would."""
        radius = self._cell / 2 * CORNER_DISC_CELLS
        x, y = corner
        h, w = sorted_.shape
        if not (radius <= x < w - radius and radius <= y < h - radius):
            return False
        disc = np.zeros(sorted_.shape, np.uint8)
        cv2.circle(disc, (round(x), round(y)), round(radius), 1, -1)
        around = sorted_[disc > 0]
        shows = around != 0
        if float(shows.mean()) < CORNER_SHOWN_MIN:
            return False
        return float((print_[disc > 0][shows] == around[shows]).mean()) >= AGREE_MIN

    def _corners(self, placed: FloatArray) -> FloatArray:
        """The marker square's corners (patch px) under a template-to-patch map."""
        q, s = self._quiet, self._side
        square = np.array([[q, q], [q + s, q], [q + s, q + s], [q, q + s]], np.float64)
        return np.asarray(square @ placed[:, :2].T + placed[:, 2], np.float64)


def _black_or_white(patch: NDArray[np.uint8], white_ab: tuple[float, float]) -> NDArray[np.float32]:
    """Each pixel +1 (white), -1 (black) or 0 (neither: skin, table, a shadow's edge)."""
    lab = cv2.cvtColor(patch, cv2.COLOR_BGR2LAB).astype(np.float32)
    lightness = lab[..., 0]
    side = int(LOCAL_WHITE_MM * PATCH_PX_PER_MM) | 1
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (side, side))
    white = cv2.GaussianBlur(cv2.dilate(lightness, kernel), (0, 0), side / 3)
    share = lightness / np.maximum(white, 1.0)
    # A neutral surface darker than the white keeps its tint in proportion.
    ink = np.minimum(share, 1.0)
    chroma = np.hypot(lab[..., 1] - 128 - ink * white_ab[0], lab[..., 2] - 128 - ink * white_ab[1])
    neutral = chroma < NEUTRAL_CHROMA_MAX
    out = np.zeros(lightness.shape, np.float32)
    out[neutral & (share > WHITE_SHARE_MIN)] = _WHITE
    out[neutral & (share < BLACK_SHARE_MAX)] = _BLACK
    return out


def white_chroma(frame_bgr: NDArray[np.uint8], quads: list[FloatArray]) -> tuple[float, float]:
    """The Lab chroma (a, b) of the white cells of decoded markers (``quads``: their image
    corners): the light's tint where the markers lie."""
    whites = []
    for quad in quads:
        x0, y0 = np.floor(quad.min(axis=0)).astype(int)
        x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 1
        x0, y0 = max(x0, 0), max(y0, 0)
        window = frame_bgr[y0:y1, x0:x1]
        if window.size == 0:
            continue
        # Only the marker's box is converted: the frame is large, the markers small.
        box = cv2.cvtColor(np.ascontiguousarray(window), cv2.COLOR_BGR2LAB)
        inside = np.zeros(box.shape[:2], np.uint8)
        shifted = np.round(quad - (x0, y0)).astype(np.int32)
        cv2.fillConvexPoly(inside, shifted, 1)
        pixels = box[inside > 0].astype(np.float32)
        if len(pixels) == 0:
            continue
        bright = pixels[pixels[:, 0] >= np.percentile(pixels[:, 0], WHITE_CELLS_PERCENTILE)]
        whites.append(bright[:, 1:] - 128)
    if not whites:
        return 0.0, 0.0
    a, b = np.median(np.concatenate(whites), axis=0)
    return float(a), float(b)
