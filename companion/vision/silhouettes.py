"""Settling the worker spaces that direct measures leave unreadable, by prediction.

Where pieces crowd one another, the area of a piece's colour no longer tells its size:
part of it is hidden by a neighbour nearer the camera, or merged with a neighbour of its
own colour, or an empty space is covered by a neighbour leaning over it.  What does still
hold is the geometry: from the camera position, every hypothesis (this space empty, or a
piece of some colour and size on it, with each neighbour's possible sizes) predicts which
pixels of the top-down view show which colour.  Each meeple is projected as what it is, an
outline extruded through its depth, turned to the yaw that best fits what is seen, and
the pieces are painted from the farthest to the nearest.  The hypothesis whose prediction
disagrees with the fewest pixels is taken, only when it wins by a clear margin.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, NamedTuple

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.boards import worker_strip
from companion.boards.profile import Geometry, PieceSize
from companion.vision.canonical import CanonicalLayout
from companion.vision.colour import PixelClass
from companion.vision.localize import CameraPose

# A wooden meeple's front outline, x across (share of its width, centred), y up (share of
# its height): legs apart, arms out, a round head.
MEEPLE_OUTLINE = np.array(
    [
        (-0.48, 0.0),
        (-0.12, 0.0),
        (0.0, 0.2),
        (0.12, 0.0),
        (0.48, 0.0),
        (0.3, 0.48),
        (0.5, 0.6),
        (0.44, 0.74),
        (0.16, 0.74),
        (0.2, 0.92),
        (0.0, 1.0),
        (-0.2, 0.92),
        (-0.16, 0.74),
        (-0.44, 0.74),
        (-0.5, 0.6),
        (-0.3, 0.48),
    ]
)
# The same outline cut into convex parts (left leg, right leg, arms and chest, head), as
# indices into it; WAIST is the point between the legs at the height of the hips.  Each
# part extruded through the piece's depth is a convex solid, and a central projection
# keeps it convex: its silhouette is the convex hull of its corners' images, one fill.
WAIST = len(MEEPLE_OUTLINE)
_OUTLINE_AND_WAIST = np.vstack([MEEPLE_OUTLINE, [(0.0, 0.48)]])
MEEPLE_PARTS = (
    (0, 1, 2, WAIST, 15),
    (2, 3, 4, 5, WAIST),
    (15, 5, 6, 7, 13, 14),
    (12, 8, 9, 10, 11),
)
# Every part's corners, front face then back, one part after another (indices into the
# front face followed by the back face), and where each part's run of them starts and ends.
_PART_CORNERS = np.array(
    [i + face * len(_OUTLINE_AND_WAIST) for part in MEEPLE_PARTS for face in (0, 1) for i in part]
)
_PART_SPANS = tuple(
    itertools.pairwise(np.cumsum([0, *(2 * len(part) for part in MEEPLE_PARTS)]).tolist())
)
YAWS = np.linspace(0.0, math.pi, 8, endpoint=False)  # the outline is symmetric under a half turn
# Cost of one pixel: predicted label (floor, then the four species) x observed class.
# Faces too dark for colour fit a piece nearly as well as its colour, and fit the floor (a
# shadow); pixels of doubtful colour count little either way.
_COST = np.array(
    [
        # NEUTRAL  B    G    Y    R   UNKNOWN DARK
        [0.0, 1.0, 1.0, 1.0, 1.0, 0.3, 0.0],  # floor
        [1.0, 0.0, 1.0, 1.0, 1.0, 0.3, 0.2],  # B
        [1.0, 1.0, 0.0, 1.0, 1.0, 0.3, 0.2],  # G
        [1.0, 1.0, 1.0, 0.0, 1.0, 0.3, 0.2],  # Y
        [1.0, 1.0, 1.0, 1.0, 0.0, 0.3, 0.2],  # R
    ],
    dtype=np.float32,
)
# The same, as a table over (answer * classes + seen) for cv2.LUT.
_COST_LUT = np.zeros(256, dtype=np.float32)
_COST_LUT[: _COST.size] = _COST.ravel()
_BAND = cv2.getStructuringElement(cv2.MORPH_RECT, (3, 3))


@dataclass(frozen=True)
class SilhouetteRules:
    # A hypothesis is taken when the next best of another answer for the space disagrees
    # with this many more mm² of the view.
    margin_mm2: float = 15.0
    # ... or this many, when the direct measures of the piece lean the same way.
    agreed_margin_mm2: float = 10.0
    # ... or this many, when they lean to the other size and no neighbour crowds the
    # piece, whose pixels are then all its own.  Over 1,500 stored conditions frames such
    # answers taken at the plain margin were wrong 8 times in 9 under this, 15 in 23 over
    # it; where a neighbour crowded the piece, right 8 times in 10 under it.
    opposed_margin_mm2: float = 30.0
    # ... and when its own disagreement stays within this share of the pixels judged.
    misfit_max: float = 0.3
    reach_mm: float = 14.0  # how far beyond a piece's swept axis its window extends
    # An unread neighbour is tried in a colour only when its best-fitting silhouette shows
    # this much of that colour (mm²): painting a colour where none is seen only adds
    # disagreement, and each colour dropped saves a factor in the combinations weighed.
    neighbour_colour_min_mm2: float = 1.0


def decide(
    ranked: list[tuple[str | None, float, float]],
    px_per_mm: float,
    rules: SilhouetteRules,
    favoured: str | None = None,
    firm: bool = False,
) -> str | Literal[False] | None:
    """The answer of :func:`rank` to take (``None`` for empty), or ``False`` if unsure.

    ``favoured`` is the answer other evidence leans to, if any: the two rarely agree on a
    wrong answer, so agreement needs a smaller margin.  ``firm`` tells that evidence comes
    from pixels all the piece's own (no neighbour crowds it): then the other size of its
    colour needs ``opposed_margin_mm2``.
    """
    (winner, cost, area), (_, runner_cost, _) = ranked[0], ranked[1]
    if favoured is not None and winner == favoured:
        need = rules.agreed_margin_mm2
    elif firm and favoured is not None and winner is not None and winner[0] == favoured[0]:
        need = rules.opposed_margin_mm2
    else:
        need = rules.margin_mm2
    if (runner_cost - cost) / (px_per_mm * px_per_mm) < need:
        return False
    if cost > rules.misfit_max * max(area, 1.0):
        return False
    return winner


def rank(
    classes: NDArray[np.uint8],
    codes: Sequence[str | None],
    layout: CanonicalLayout,
    pose: CameraPose,
    line: int,
    rules: SilhouetteRules,
) -> list[tuple[str | None, float, float]]:
    """Every answer for space ``line`` with its disagreement (weighted pixels) under the
    best sizes of its neighbours, and the pixels judged; best first.

    ``codes`` are the current readings of all spaces: a full code, a colour letter whose
    size is unknown, ``"?"`` or ``None``.
    """
    fitter, options = _judged_around(classes, codes, layout, pose, [line], rules)
    mine = codes[line]
    colours = "BGYR" if mine is None or mine == "?" else mine[0]
    candidates: list[tuple[str | None, _Mask | None]] = [(None, None)]
    for colour in colours:
        for size in "vd":
            candidates.append((colour + size, fitter.fit(line, colour, size)))
    ranked = []
    for code, mask in candidates:
        cost, area = _best_cost(fitter, options, [] if mask is None else [mask])
        ranked.append((code, cost, area))
    return sorted(ranked, key=lambda r: r[1])


def rank_pair(
    classes: NDArray[np.uint8],
    codes: Sequence[str | None],
    layout: CanonicalLayout,
    pose: CameraPose,
    line: int,
    rules: SilhouetteRules,
) -> dict[str, tuple[float, float]]:
    """The sizes of two pieces of one colour on ``line`` and the space after it, judged
    together: for each pair of sizes (``"vd"``: a vilicus on ``line``, a dominus after
    it) the disagreement (weighted pixels) under the best sizes of their neighbours, and
    the pixels judged.

    Where two pieces of one colour touch, their pixels do not say which is which; the
    geometry does, as the nearer of the two hides the foot of the other.  ``codes`` as for
    :func:`rank`; the colour is ``codes[line]``'s.
    """
    pair = [line, line + 1]
    fitter, options = _judged_around(classes, codes, layout, pose, pair, rules)
    colour = str(codes[line])[0]
    costs: dict[str, tuple[float, float]] = {}
    for sizes in ("vv", "vd", "dv", "dd"):
        masks = [fitter.fit(j, colour, size) for j, size in zip(pair, sizes, strict=True)]
        costs[sizes] = _best_cost(fitter, options, masks)
    return costs


def _judged_around(
    classes: NDArray[np.uint8],
    codes: Sequence[str | None],
    layout: CanonicalLayout,
    pose: CameraPose,
    lines: list[int],
    rules: SilhouetteRules,
) -> tuple[_Fitter, list[list[_Mask | None]]]:
    """The fitter for a window around consecutive spaces ``lines``, and the possible
    silhouettes of each neighbour within two spaces of them that may reach in."""
    geometry, px_per_mm = layout.profile.geometry, layout.px_per_mm
    strip = worker_strip(lines[0])
    first, last = min(lines), max(lines)
    near = [j for j in (first - 1, last + 1) if j in strip]
    far = [j for j in (first - 2, last + 2) if j in strip]
    window = _window(geometry, pose, px_per_mm, [*lines, *near, *far], rules.reach_mm)
    x0, y0, x1, y1 = window
    seen = classes[y0:y1, x0:x1]
    valid = np.ones(seen.shape, dtype=bool)
    limit = layout.worker_strip_px
    if strip.start == 0:
        valid[:, max(limit - x0, 0) :] = False  # the fish grid's tiles are not pieces
    else:
        valid[max(limit - y0, 0) :, :] = False
    fitter = _Fitter(seen, valid, geometry, pose, px_per_mm, window)
    shown_min = rules.neighbour_colour_min_mm2 * px_per_mm * px_per_mm
    options: list[list[_Mask | None]] = []
    for j in [*near, *far]:
        code = codes[j]
        if code is None:
            continue
        if j in far and (code == "?" or len(code) == 1):
            fitter.exclude(fitter.reach(j))  # a piece of unknown colour or size further off
            continue
        if code == "?":  # a neighbour unread: it may be empty, or any piece it shows
            fits = (fitter.fit(j, c, z) for c in "BGYR" for z in "vd")
            options.append([None, *(m for m in fits if fitter.shown(m) >= shown_min)])
            continue
        sizes = "vd" if len(code) == 1 else code[1]
        options.append([fitter.fit(j, code[0], size) for size in sizes])
    return fitter, options


def _best_cost(
    fitter: _Fitter, options: list[list[_Mask | None]], pieces: list[_Mask]
) -> tuple[float, float]:
    """The least disagreement of ``pieces`` with the neighbours at their best-fitting
    sizes, and the pixels it judged."""
    best, area = math.inf, 0.0
    for combo in itertools.product(*options):
        shown = [m for m in (*combo, *pieces) if m is not None]
        cost, covered = fitter.cost(shown)
        if cost < best:
            best, area = cost, covered
    return best, area


class _Mask(NamedTuple):
    """One predicted piece."""

    distance: float  # of its base from the camera's ground point: the nearer is in front
    label: int  # its PixelClass
    pixels: NDArray[np.bool_]


class _Fitter:
    """Predicted silhouettes within one window of the canonical view."""

    def __init__(
        self,
        seen: NDArray[np.uint8],
        valid: NDArray[np.bool_],
        geometry: Geometry,
        pose: CameraPose,
        px_per_mm: float,
        window: tuple[int, int, int, int],
    ) -> None:
        self.seen, self.valid = seen, valid
        self.geometry, self.pose, self.s = geometry, pose, px_per_mm
        self.origin = np.array(window[:2], dtype=np.float64)
        # A silhouette depends on the space, the size and the yaw, not on the colour tried:
        # every yaw's, stacked, per space and size.
        self._drawn: dict[tuple[int, float, float], _Silhouettes] = {}
        self._floor = (seen == PixelClass.NEUTRAL) & valid
        # By colour tried: +1 where a pixel shows it (or is dark), -1 where it shows floor.
        self._weights: dict[int, NDArray[np.float32]] = {}

    def exclude(self, pixels: NDArray[np.bool_]) -> None:
        """Judges no more by ``pixels`` (what another piece may cover) from now on."""
        self.valid &= ~pixels
        self._floor = (self.seen == PixelClass.NEUTRAL) & self.valid
        self._weights.clear()

    def reach(self, line: int) -> NDArray[np.bool_]:
        """Every pixel a piece of either size on ``line`` might cover."""
        drawn = self._draw(line, self.geometry.dominus).masks[::2]
        mask = np.bitwise_or.reduce(drawn, axis=0)
        return cv2.dilate(mask, _BAND).astype(bool)

    def fit(self, line: int, colour: str, size: str) -> _Mask:
        """The piece at the yaw whose silhouette covers the most of its colour (dark
        faces count as its colour) less the floor it would hide."""
        piece = self.geometry.vilicus if size == "v" else self.geometry.dominus
        label = int(PixelClass[colour])
        if label not in self._weights:
            own = ((self.seen == label) | (self.seen == PixelClass.DARK)) & self.valid
            weights = own.astype(np.float32) - self._floor.astype(np.float32)
            self._weights[label] = weights.ravel()
        drawn = self._draw(line, piece)
        # One product scores every yaw: the counts are whole numbers, exact in float32,
        # and the first best yaw wins, as one by one.
        best = int(np.argmax(drawn.flat @ self._weights[label]))
        base = np.asarray(self.geometry.worker_space_centre_mm(line))
        distance = float(np.linalg.norm(base - np.asarray(self.pose.ground_mm)))
        return _Mask(distance, label, drawn.masks[best].view(bool))

    def shown(self, piece: _Mask) -> int:
        """Pixels of the piece's colour seen within its silhouette."""
        return int(np.count_nonzero((self.seen == piece.label) & self.valid & piece.pixels))

    def cost(self, pieces: list[_Mask]) -> tuple[float, float]:
        """Pixels (weighted) that disagree with these pieces, and the pixels judged."""
        label = np.zeros(self.seen.shape, dtype=np.uint8)
        for piece in sorted(pieces, key=lambda p: -p.distance):
            label[piece.pixels] = piece.label
        band = cv2.morphologyEx(label, cv2.MORPH_GRADIENT, _BAND) > 0
        counted = self.valid & ~band
        keys = label * _COST.shape[1] + self.seen  # flat (answer, seen), under 256
        cost = float(cv2.LUT(keys, _COST_LUT)[counted].sum())
        return cost, float(np.count_nonzero(counted))

    def _draw(self, line: int, piece: PieceSize) -> _Silhouettes:
        """The pixels a piece on ``line`` covers in the top-down view, from the camera, at
        each of YAWS."""
        key = (line, piece.height_mm, piece.width_mm)
        if key not in self._drawn:
            self._drawn[key] = self._project(line, piece)
        return self._drawn[key]

    def _project(self, line: int, piece: PieceSize) -> _Silhouettes:
        """One silhouette per yaw in this window: cut from those drawn around the piece
        (:func:`_silhouettes_around`), which every window of the frame shares."""
        base = self.geometry.worker_space_centre_mm(line)
        (bx, by), drawn = _silhouettes_around(self.pose, (base[0], base[1]), piece, self.s)
        height, width = self.seen.shape
        ox, oy = int(self.origin[0]), int(self.origin[1])
        masks = np.zeros((len(YAWS), height, width), dtype=np.uint8)
        # The overlap of the drawn box and this window, in each one's own pixels.
        x0, y0 = max(bx, ox), max(by, oy)
        x1, y1 = min(bx + drawn.shape[2], ox + width), min(by + drawn.shape[1], oy + height)
        if x1 > x0 and y1 > y0:
            masks[:, y0 - oy : y1 - oy, x0 - ox : x1 - ox] = drawn[
                :, y0 - by : y1 - by, x0 - bx : x1 - bx
            ]
        return _Silhouettes(masks, masks.reshape(len(YAWS), -1).astype(np.float32))


@functools.lru_cache(maxsize=256)
def _silhouettes_around(
    pose: CameraPose, base_mm: tuple[float, float], piece: PieceSize, px_per_mm: float
) -> tuple[tuple[int, int], NDArray[np.uint8]]:
    """A piece's silhouette at every yaw of YAWS, drawn in the smallest box of the
    top-down view that holds them all: the box's corner (pixels) and the masks.  Every
    corner is projected in one pass, and the masks are drawn one by one; the windows that
    judge a space and its neighbours overlap, so a frame asks for the same piece often."""
    solids = [_outline_offsets(piece, float(yaw)) for yaw in YAWS]
    offsets = np.concatenate([offsets for offsets, _ in solids])
    heights = np.concatenate([heights for _, heights in solids])
    seen = pose.seen_at(np.asarray(base_mm, np.float64) + offsets, heights)
    # Pixel coordinates with two fractional bits (cv2's ``shift``), then from the box.
    corners = np.round((seen * px_per_mm - 0.5) * 4).astype(np.int32)
    low = np.floor_divide(corners.min(axis=0), 4) - 1
    high = -np.floor_divide(-corners.max(axis=0), 4) + 2
    corners -= 4 * low.astype(np.int32)
    corners = corners.reshape(len(YAWS), 2 * len(_OUTLINE_AND_WAIST), 2)
    by_part = np.ascontiguousarray(corners[:, _PART_CORNERS])
    masks = np.zeros((len(YAWS), int(high[1] - low[1]), int(high[0] - low[0])), dtype=np.uint8)
    for k in range(len(YAWS)):
        mask = masks[k]
        for start, stop in _PART_SPANS:  # one call each: a single call leaves overlaps empty
            hull = cv2.convexHull(by_part[k, start:stop])
            cv2.fillConvexPoly(mask, hull, 1, cv2.LINE_8, shift=2)
    masks.setflags(write=False)
    return (int(low[0]), int(low[1])), masks


class _Silhouettes(NamedTuple):
    """A piece's silhouette at every yaw of YAWS, as 0/1 masks and flattened for scoring."""

    masks: NDArray[np.uint8]  # yaws x rows x columns
    flat: NDArray[np.float32]  # yaws x pixels


@functools.lru_cache(maxsize=512)
def _outline_offsets(
    piece: PieceSize, yaw: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The outline's front then back face (with the waist point), as offsets (mm) from the
    piece's base on the board, and each point's height: the same for every space, frame
    and camera."""
    across = np.array([math.cos(yaw), math.sin(yaw)])
    through = np.array([-math.sin(yaw), math.cos(yaw)]) * (piece.depth_mm / 2)
    middle = (_OUTLINE_AND_WAIST[:, :1] * piece.width_mm) * across
    heights = _OUTLINE_AND_WAIST[:, 1] * piece.height_mm
    offsets = np.concatenate([middle + through, middle - through])
    offsets.setflags(write=False)
    both = np.concatenate([heights] * 2)
    both.setflags(write=False)
    return offsets, both


def _window(
    geometry: Geometry,
    pose: CameraPose,
    px_per_mm: float,
    lines: list[int],
    reach_mm: float,
) -> tuple[int, int, int, int]:
    """Pixel box (x0, y0, x1, y1) holding every piece that may stand on ``lines``."""
    points = []
    height = geometry.dominus.height_mm
    for j in lines:
        base = geometry.worker_space_centre_mm(j)
        lean = pose.lean(base, height)
        points += [base, (base[0] + lean[0], base[1] + lean[1])]
    arr = np.asarray(points)
    low = np.floor((arr.min(axis=0) - reach_mm) * px_per_mm).astype(int)
    high = np.ceil((arr.max(axis=0) + reach_mm) * px_per_mm).astype(int)
    return int(max(low[0], 0)), int(max(low[1], 0)), int(high[0]), int(high[1])
