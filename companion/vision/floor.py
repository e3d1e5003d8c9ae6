"""Proof that a cell is empty: the bare floor's own colour, as this frame shows it.

Floor-like pixels are no proof: a glossy tile washed pale by glare shows them too.  What a
tile cannot show is the floor's chroma at its place.  The printed floor is one ink, so
under one scene's light its chroma drifts smoothly across the board (a warm lamp on one
side, a cold one on the other): a plane fitted to the cells read empty follows it.  Where
a bright spot pushes a channel to the sensor's limit, the floor's chroma bends in a way
the camera fixes (the clipped channel stops, the others go on rising), so the expected
colour follows that path.  With two channels at the limit no chroma is left to measure:
such a washed-out cell is never proven empty.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.boards import GRID, BoardProfile
from companion.vision.cells import CELLS
from companion.vision.colour import SENSOR_LIMIT, lab_scale

FloatArray = NDArray[np.float64]
# Balanced BGR pixels to the reader's analysis Lab (Lab, then chroma re-centring).
ToAnalysis = Callable[[NDArray[np.uint8]], NDArray[np.uint8]]

# Mean chroma (Lab units) of an empty cell lies this close to the floor expected there:
# over 38,492 empty cells of clear frames (photoreal, generated, conditions) 99 % lie
# within 3.1 of the fitted floor, and no tile cell comes nearer than 5.4.  Even washed
# three quarters of the way to the floor's colour, a tile keeps a larger step.
FLOOR_MATCH_MAX = 4.0
# Fewer floor cells than this give no trustworthy fit; the printed floor colour (after the
# frame's white balance) is the reference instead.
FLOOR_FIT_MIN_CELLS = 12
# Robust plane fit: rounds, and how far (times the median offset, or at least this many
# Lab units) a cell may sit from the plane and still count as floor in the next round.
FLOOR_FIT_ROUNDS = 3
FLOOR_OUTLIER_SPREAD = 3.0
FLOOR_OUTLIER_MIN = 1.5
# A cell is washed out when this share of its pixels has two or more channels at the limit,
# and clipped when this share has any.
WASHED_OUT_MIN = 0.5
CLIPPED_MIN = 0.5
# A slot's one cell proven bare while clipped stands alone against a slot mate this far
# (Lab units, in the light it is in) from the floor: bare floor lies up to 7 off the floor
# fitted to the board in a lamp's tinted corner (see the slot print's proof), and a
# conditions frame's clipped bare slot 5 at most; glare-washed yellow cells lay 9 off.
LONE_CLIPPED_MATE_OFFSET_MIN = 8.0
# Balanced blue this far (8-bit) below both red and green, where the sensor clipped red and
# green, shows a yellow or the floor: a clipped channel only hides how much brighter it
# was, and a green ink's blue is no lower than its red, a red ink's no lower than its
# green less 6, a blue ink's far higher.  The floor's blue lies 27 below its green.
YELLOW_CLIPPED_BLUE_MARGIN = 15
# Where the sensor clipped red but not green, balanced blue this far below green shows a
# yellow or the floor too: green and blue inks would have clipped their own brightest
# channel first, and a red's green and blue lie within the tiles' print spread of each
# other (washed reds of photoreal frames: 9 to 10; washed yellows: 43 and more).
YELLOW_RED_CLIPPED_BLUE_MARGIN = 30
# Brightness factors along which the floor's clipped colour is traced (darker to brighter).
# No darker than half: deeper in a shadow the floor's chroma shrinks towards none, and a
# dark sleeve's nearly colourless black would then pass for bare floor.
BRIGHTENING = np.linspace(0.5, 4.0, 141)
# Empty cells whose brightness moves the floor's expected chroma this far (Lab units)
# along the path tell how far the path holds; FLOOR_FIT_MIN_CELLS of them are needed.
PATH_FIT_STEP_MIN = 1.0
FLOOR_SAMPLE_STEP = 7
# A lamp's falloff bends the floor's chroma across the board more than a plane follows
# (a warm corner 5-7 Lab units off the plane fitted to the rest), but not within a few
# cells: an unread cell may be matched with the cells proven bare around it instead.
# Around: within this many cells in each direction (a slot and a half) ...
NEIGHBOUR_REACH_CELLS = 3
# ... in the same light: L* + 16 within this factor of the cell's (a shadow's edge between
# them would move their chroma apart) ...
NEIGHBOUR_LIGHT_RATIO = 1.1
LOG_LIGHT_RATIO = float(np.log(NEIGHBOUR_LIGHT_RATIO))
# ... and at least this many of them, so that one stray cell proves nothing.
NEIGHBOURS_MIN = 3


class CellWindows:
    """Where each cell's window lies in the canonical view, worked out once per board: each
    window is a rectangle, so a frame's per-cell sums come from one integral image."""

    def __init__(
        self,
        cell_labels: NDArray[np.int32],
        profile: BoardProfile,
        bonus_rings: NDArray[np.int32] | None = None,
    ) -> None:
        flat = cell_labels.ravel()
        pixels = np.flatnonzero(flat >= 0)
        keys = flat[pixels]
        ys, xs = np.divmod(pixels, cell_labels.shape[1])
        top = np.full(CELLS, cell_labels.shape[0]), np.full(CELLS, cell_labels.shape[1])
        np.minimum.at(top[0], keys, ys)
        np.minimum.at(top[1], keys, xs)
        bottom = np.zeros(CELLS, dtype=np.int64), np.zeros(CELLS, dtype=np.int64)
        np.maximum.at(bottom[0], keys, ys + 1)
        np.maximum.at(bottom[1], keys, xs + 1)
        self.y0, self.x0 = top
        self.y1, self.x1 = bottom
        self.counts = np.maximum((self.y1 - self.y0) * (self.x1 - self.x0), 1).astype(np.float64)
        # Every FLOOR_SAMPLE_STEP-th window pixel is enough for the floor's median colour.
        self.sample_pixels = pixels[::FLOOR_SAMPLE_STEP]
        self.sample_keys = keys[::FLOOR_SAMPLE_STEP]
        g = profile.geometry
        centres = np.array([g.cell_centre_mm(i // GRID, i % GRID) for i in range(CELLS)])
        self.design = np.c_[centres / 100.0, np.ones(CELLS)]  # a plane in decimetres
        self.plain = np.array([i not in profile.bonus_kind for i in range(CELLS)])
        # A cell with a printed icon shows the floor's own ink only in the ring around it.
        rings = np.full(0, 0) if bonus_rings is None else bonus_rings.ravel()
        self.ring_pixels = np.flatnonzero(rings >= 0)
        self.ring_keys = rings[self.ring_pixels]
        self.ring_cells = np.unique(self.ring_keys)
        self.ring_counts = np.bincount(self.ring_keys, minlength=CELLS)[self.ring_cells]
        # The box holding every window and ring: a frame's sums need no pixel outside it.
        ring_ys, ring_xs = np.divmod(self.ring_pixels, cell_labels.shape[1])
        box_y0 = int(min(self.y0.min(), ring_ys.min(initial=cell_labels.shape[0])))
        box_x0 = int(min(self.x0.min(), ring_xs.min(initial=cell_labels.shape[1])))
        box_y1 = int(max(self.y1.max(), ring_ys.max(initial=-1) + 1))
        box_x1 = int(max(self.x1.max(), ring_xs.max(initial=-1) + 1))
        self.box = (slice(box_y0, box_y1), slice(box_x0, box_x1))
        # Windows and rings within the box.
        self._box_windows = (self.y0 - box_y0, self.x0 - box_x0, self.y1 - box_y0, self.x1 - box_x0)
        self._box_ring_pixels = (ring_ys - box_y0) * (box_x1 - box_x0) + ring_xs - box_x0

    def read_empty(self, cells: list[str]) -> NDArray[np.bool_]:
        """The plain cells (no printed bonus icon) read as empty: the floor's witnesses."""
        empty = np.asarray([c == "." for c in cells], dtype=bool)
        return np.asarray(empty & self.plain, dtype=bool)

    def means(self, image: NDArray[np.uint8] | NDArray[np.float32]) -> FloatArray:
        """Mean of each channel of ``image`` over each window (CELLS x channels); over the
        ring around the icon for a cell with a printed icon."""
        return self.means_in_box(np.asarray(np.ascontiguousarray(image[self.box])))

    def means_in_box(self, image: NDArray[np.uint8] | NDArray[np.float32]) -> FloatArray:
        """:meth:`means` of an image cut to :attr:`box`: the sums of the whole view come
        from an integral image of its middle alone."""
        y0, x0, y1, x1 = self._box_windows
        summed = cv2.integral(image)  # 32-bit sums: a whole view of 8-bit pixels fits
        if summed.ndim == 2:
            summed = summed[..., None]
        exact = np.float64 if image.dtype.kind == "f" else np.int64  # float sums stay float
        corners = [
            np.asarray(summed[y, x], dtype=exact)
            for y, x in ((y1, x1), (y0, x1), (y1, x0), (y0, x0))
        ]
        total = corners[0] - corners[1] - corners[2] + corners[3]
        means = np.asarray(total / self.counts[:, None], dtype=np.float64)
        if len(self.ring_cells):
            flat = image.reshape(-1, means.shape[1])
            at_rings = np.take(flat, self._box_ring_pixels, axis=0)
            for channel in range(means.shape[1]):
                sums = np.bincount(self.ring_keys, at_rings[:, channel], minlength=CELLS)
                means[self.ring_cells, channel] = sums[self.ring_cells] / self.ring_counts
        return means


@dataclass(frozen=True)
class CellColour:
    """Per cell window: mean Lab (analysis space, a and b centred on 0), and how much of it
    the sensor clipped in two or more channels, in any, and in red with blue clearly below
    the other channels once balanced (see YELLOW_CLIPPED_BLUE_MARGIN and
    YELLOW_RED_CLIPPED_BLUE_MARGIN)."""

    lightness: FloatArray
    a: FloatArray
    b: FloatArray
    washed_out: FloatArray
    clipped: FloatArray
    yellow_clipped: FloatArray = field(default_factory=lambda: np.zeros(CELLS))
    # Per cell, the share of its window at the limit in each channel (blue, green, red).
    channel_clipped: FloatArray = field(default_factory=lambda: np.zeros((CELLS, 3)))

    @classmethod
    def measure(
        cls,
        lab: NDArray[np.uint8],
        raw: NDArray[np.uint8],
        balanced: NDArray[np.uint8],
        windows: CellWindows,
    ) -> CellColour:
        """``lab`` is the analysis Lab view, ``raw`` the view as the camera gave it and
        ``balanced`` the view white-balanced (BGR)."""
        means = windows.means(lab)
        # 1 where a channel is at the sensor's limit, and how many are, per pixel.
        _, limited = cv2.threshold(
            np.ascontiguousarray(raw[windows.box]), SENSOR_LIMIT - 1, 1, cv2.THRESH_BINARY
        )
        each = np.asarray(limited, dtype=np.uint8)
        if cv2.countNonZero(each.reshape(each.shape[0], -1)) == 0:
            # Nothing at the limit (half the frames): every share is zero, without the
            # integral image of six flags that measures them (a third of this step).
            shares = np.zeros((len(means), 6))
        else:
            blue, green, red = cv2.split(each)
            at_limit = cv2.add(cv2.add(blue, green), red)
            yellow = _yellow_clipped(red, green, balanced[windows.box])
            # Every share at once, from one integral image of all six flags.
            two, one = (np.asarray(at_limit >= k, dtype=np.uint8) for k in (2, 1))
            flags = cv2.merge([two, one, yellow, blue, green, red])
            shares = windows.means_in_box(np.asarray(flags, dtype=np.uint8))
        return cls(
            means[:, 0],
            means[:, 1] - 128.0,
            means[:, 2] - 128.0,
            shares[:, 0],
            shares[:, 1],
            shares[:, 2],
            np.ascontiguousarray(shares[:, 3:]),
        )


def _yellow_clipped(
    red: NDArray[Any], green: NDArray[Any], balanced: NDArray[np.uint8]
) -> NDArray[np.uint8]:
    """1 where the camera clipped red (``red``: 1 there) and the balanced blue lies clearly
    below the other channels: below both balanced red and green where green clipped too
    (``green``: 1 there; see YELLOW_CLIPPED_BLUE_MARGIN), below green by more where it
    did not (YELLOW_RED_CLIPPED_BLUE_MARGIN); else 0."""
    if cv2.countNonZero(red) == 0:  # nothing clipped red: no glare in view
        return np.zeros(red.shape, dtype=np.uint8)
    b, g, r = cv2.split(np.ascontiguousarray(balanced))
    # 8-bit differences, saturating at 0: only how far above blue the others lie counts.
    both = (green > 0) & (cv2.subtract(cv2.min(g, r), b) >= YELLOW_CLIPPED_BLUE_MARGIN)
    red_alone = (green == 0) & (cv2.subtract(g, b) >= YELLOW_RED_CLIPPED_BLUE_MARGIN)
    return np.asarray((both | red_alone) & (red > 0), dtype=np.uint8)


@dataclass(frozen=True)
class FloorModel:
    """The floor's chroma expected at every cell, at the floor's own brightness, and how
    brightening by glare (up to the sensor's limit) moves it there.  Where two lamps light
    the board the balance, and so the clipping, differ by place: one path per light, and
    each cell follows its own light's."""

    a: FloatArray
    b: FloatArray
    path_lightness: FloatArray  # lights x BRIGHTENING, never decreasing along each row
    path_da: FloatArray  # chroma change from the floor's own, along each path
    path_db: FloatArray
    light_of_cell: NDArray[np.intp]  # the path each cell follows
    # Per light, the analysis chroma (a, b) of the sensor's white balanced there: where
    # glare takes any colour once every channel reaches the limit.  ``None``: neutral.
    white_ab: FloatArray | None = None

    def white(self) -> tuple[FloatArray, FloatArray]:
        """The chroma glare takes each cell towards (see ``white_ab``)."""
        if self.white_ab is None:
            zero = np.zeros(len(self.light_of_cell))
            return zero, zero
        at = self.white_ab[self.light_of_cell]
        return np.asarray(at[:, 0], np.float64), np.asarray(at[:, 1], np.float64)

    @property
    def own_step(self) -> int:
        """The step of each path at which the floor is seen in its own light (brightened
        by 1), the path's steps spread evenly over BRIGHTENING's range."""
        steps = np.linspace(BRIGHTENING[0], BRIGHTENING[-1], self.path_lightness.shape[1])
        return int(np.argmin(np.abs(steps - 1.0)))

    def expected(self, lightness: FloatArray) -> tuple[FloatArray, FloatArray]:
        """The floor's chroma at each cell, seen as bright as the cell is."""
        rows = self.light_of_cell
        steps = self.path_lightness.shape[1]
        # Each cell's lightness between two points of its path (held at the ends).
        above = np.clip(self._points_below(lightness), 1, steps - 1)
        low, high = self.path_lightness[rows, above - 1], self.path_lightness[rows, above]
        t = np.clip((lightness - low) / np.maximum(high - low, 1e-9), 0.0, 1.0)

        def along(values: FloatArray) -> FloatArray:
            start, end = values[rows, above - 1], values[rows, above]
            return np.asarray(start + t * (end - start), dtype=np.float64)

        return self.a + along(self.path_da), self.b + along(self.path_db)

    def _points_below(self, lightness: FloatArray) -> NDArray[np.intp]:
        """How many points of each cell's path lie below the cell's ``lightness``.

        A path never decreases: under one light its one path is searched, and under
        several each row's count is where it first reaches the cell's lightness (an
        argmin stops there; a sum of the whole comparison took three times as long).
        """
        if len(self.path_lightness) == 1:
            found = np.searchsorted(self.path_lightness[0], lightness, side="left")
            return np.asarray(found, dtype=np.intp)
        below = self.path_lightness[self.light_of_cell] < lightness[:, None]
        first_not = np.argmin(below, axis=1)
        return np.asarray(np.where(below[:, -1], below.shape[1], first_not), dtype=np.intp)


def fit_floor(
    cells: list[str],
    colour: CellColour,
    floor_bgr: FloatArray | None,
    gains: FloatArray,
    to_analysis: ToAnalysis,
    windows: CellWindows,
    printed_floor_ab: tuple[float, float],
) -> FloorModel:
    """The floor model of one frame, from the cells read empty (``cells``) and the floor's
    balanced colour seen in it (``None`` when too little floor shows; see
    :func:`floor_colour`).

    ``gains`` are the white balance's per-channel gains at each cell (cells x 3) and
    ``to_analysis`` turns balanced BGR into the reader's analysis Lab.  The sensor clips
    before the balance: the floor's raw colour at a cell is its balanced colour over that
    cell's gains, brightened and clipped at the sensor's limit, then balanced again.
    """
    steps = len(BRIGHTENING)
    # Under one light every cell has the same gains, and so the same path: trace it once.
    if (gains == gains[0]).all():
        distinct, owner = gains[:1], np.zeros(CELLS, dtype=np.intp)
    else:
        distinct, owner = np.unique(gains, axis=0, return_inverse=True)
    owner = np.asarray(owner.ravel(), dtype=np.intp)
    white = np.round(np.minimum(255.0 * distinct, 255.0)).astype(np.uint8)
    white_ab = to_analysis(white[:, None, :])[:, 0, 1:].astype(np.float64) - 128.0
    if floor_bgr is None:
        flat = np.zeros((len(distinct), steps))
        shared = np.tile(np.linspace(0.0, 255.0, steps), (len(distinct), 1))
        a, b = _floor_plane(cells, colour, windows, printed_floor_ab)
        return FloorModel(a, b, shared, flat, flat, owner, white_ab)
    raw = floor_bgr[None, :] / np.maximum(distinct, 1e-6)  # lights x 3
    sensor = np.minimum(raw[:, None, :] * BRIGHTENING[None, :, None], 255.0)
    balanced = np.minimum(sensor * distinct[:, None, :], 255.0)
    lab = to_analysis(np.round(balanced).astype(np.uint8)).astype(np.float64)
    own = lab[:, int(np.argmin(np.abs(BRIGHTENING - 1.0)))]
    # Lightness grows along the path until every channel is clipped; 8-bit steps may
    # repeat or dip a value: each point counts as bright as the brightest before it.
    lightness = np.maximum.accumulate(lab[..., 0], axis=1)
    path = FloorModel(
        np.zeros(CELLS),
        np.zeros(CELLS),
        lightness,
        lab[..., 1] - own[:, None, 1],
        lab[..., 2] - own[:, None, 2],
        owner,
        white_ab,
    )
    return _with_plane(path, cells, colour, windows, printed_floor_ab)


def _with_plane(
    path: FloorModel,
    cells: list[str],
    colour: CellColour,
    windows: CellWindows,
    printed_floor_ab: tuple[float, float],
) -> FloorModel:
    """``path`` (a model whose plane is zero) with its plane and the path's scale fitted
    together to the cells read empty.

    Fitted alone, the plane takes the drift of the brighter empty cells along the path
    for a drift across the board, and carries it to every cell: a bright corner then
    expects the path's bend on top of it.  Fitted together, the path accounts for
    brightness and the plane for place.  The path's scale (0 to 1) is fitted too: it
    multiplies the floor's 8-bit colour until channels clip, and a camera's tone curve
    may bend its brightest values less.  With too few empty cells the path moves, the
    plane is fitted alone and the path stands as traced."""
    chosen = np.flatnonzero(windows.read_empty(cells) & (colour.washed_out < WASHED_OUT_MIN))
    moves_a, moves_b = path.expected(colour.lightness)  # the path's move at each cell
    step = np.column_stack([moves_a, moves_b])
    moved = np.hypot(step[chosen, 0], step[chosen, 1]) >= PATH_FIT_STEP_MIN
    fitted = None
    if moved.sum() >= FLOOR_FIT_MIN_CELLS:
        seen = np.column_stack([colour.a, colour.b])
        # One least-squares fit: a plane per channel in (x, y) and the path's scale, shared.
        design = windows.design[chosen]
        zeros = np.zeros_like(design)
        rows = np.concatenate(
            [
                np.column_stack([design, zeros, step[chosen, 0]]),
                np.column_stack([zeros, design, step[chosen, 1]]),
            ]
        )
        seen_both = np.concatenate([seen[chosen, 0], seen[chosen, 1]])
        solution, *_ = np.linalg.lstsq(rows, seen_both, rcond=None)
        scale = float(np.clip(solution[-1], 0.0, 1.0))
        fitted = _robust_plane(windows, chosen, seen - scale * step)
    if fitted is None:
        a, b = _floor_plane(cells, colour, windows, printed_floor_ab)
        return replace(path, a=a, b=b)
    return replace(
        path,
        a=np.asarray(fitted[:, 0]),
        b=np.asarray(fitted[:, 1]),
        path_da=path.path_da * scale,
        path_db=path.path_db * scale,
    )


def floor_colour(
    cells: list[str], raw: NDArray[np.uint8], gains: FloatArray, windows: CellWindows
) -> FloatArray | None:
    """Median balanced colour of the cells read empty (each pixel times its cell's
    ``gains``), or ``None`` when too few are."""
    empty = windows.read_empty(cells)
    if empty.sum() < FLOOR_FIT_MIN_CELLS:
        return None
    chosen = empty[windows.sample_keys]
    pixels = np.take(raw.reshape(-1, 3), windows.sample_pixels[chosen], axis=0)
    balanced = pixels * np.take(gains, windows.sample_keys[chosen], axis=0)
    return np.asarray(np.median(balanced, axis=0), np.float64)


def _floor_plane(
    cells: list[str],
    colour: CellColour,
    windows: CellWindows,
    printed_floor_ab: tuple[float, float],
) -> tuple[FloatArray, FloatArray]:
    """A plane in (x, y) fitted to the chroma of the cells read empty, dropping cells off it
    (a washed tile read as floor) and fitting again; the printed colour if too few remain."""
    chosen = windows.read_empty(cells) & (colour.washed_out < WASHED_OUT_MIN)
    fitted = _robust_plane(windows, np.flatnonzero(chosen), np.column_stack([colour.a, colour.b]))
    if fitted is None:
        return np.full(CELLS, printed_floor_ab[0]), np.full(CELLS, printed_floor_ab[1])
    return np.asarray(fitted[:, 0]), np.asarray(fitted[:, 1])


def _robust_plane(
    windows: CellWindows, used: NDArray[np.intp], values: FloatArray
) -> FloatArray | None:
    """``values`` (cells x channels) of the ``used`` cells fitted by a plane in (x, y),
    dropping cells off it and fitting again; ``None`` if too few cells remain."""
    if len(used) < FLOOR_FIT_MIN_CELLS:
        return None
    design = windows.design[used]
    seen = values[used]
    keep = np.ones(len(used), dtype=bool)
    coef = np.zeros((3, values.shape[1]))
    for _ in range(FLOOR_FIT_ROUNDS):
        coef, *_ = np.linalg.lstsq(design[keep], seen[keep], rcond=None)
        off = np.sqrt(((design @ coef - seen) ** 2).sum(axis=1))
        keep = off <= max(FLOOR_OUTLIER_SPREAD * float(np.median(off[keep])), FLOOR_OUTLIER_MIN)
        if keep.sum() < FLOOR_FIT_MIN_CELLS:
            return None
    return np.asarray(windows.design @ coef, dtype=np.float64)


def floor_chroma(colour: CellColour, floor: FloorModel) -> NDArray[np.bool_]:
    """Cells whose mean chroma is the floor's expected at their place and brightness.

    The brightening path follows the floor down to half its own light.  Deeper in a
    shadow, the floor's chroma shrinks with its light and a tile's ink with it: a deeply
    shaded yellow shows the chroma of the floor at the path's end.  A cell that dark is
    held to the floor's chroma shrunk as the shadow shrinks it, and must keep the
    floor's hue (see :func:`keeps_floor_hue`)."""
    ea, eb = floor.expected(colour.lightness)
    along_path = np.hypot(colour.a - ea, colour.b - eb) <= FLOOR_MATCH_MAX
    shade = ShadedFloor.expected(colour, floor, (ea, eb))
    in_shade = (shade.offset(colour) <= FLOOR_MATCH_MAX) & keeps_floor_hue(colour, shade)
    beyond_path = colour.lightness < floor.path_lightness[floor.light_of_cell, 0]
    return np.asarray(np.where(beyond_path, in_shade, along_path))


@dataclass(frozen=True)
class ShadedFloor:
    """Per cell, the floor's chroma (a, b) expected at the cell's brightness, and whether
    the cell is darker than the floor's own light there (in a shadow)."""

    a: FloatArray
    b: FloatArray
    shaded: NDArray[np.bool_]

    @classmethod
    def expected(
        cls,
        colour: CellColour,
        floor: FloorModel,
        on_path: tuple[FloatArray, FloatArray] | None = None,
    ) -> ShadedFloor:
        """A cell darker than the floor's own light has the floor's chroma shrunk as a
        shadow shrinks it (with ``L* + 16``; see :func:`~companion.vision.colour.lab_scale`),
        deeper than the brightness path follows.  Brighter cells follow the path
        (``on_path``: ``floor.expected(colour.lightness)``, when the caller has it)."""
        own = floor.own_step
        own_lightness = floor.path_lightness[floor.light_of_cell, own]
        dimmer = np.minimum(lab_scale(colour.lightness) / lab_scale(own_lightness), 1.0)
        ea, eb = floor.expected(colour.lightness) if on_path is None else on_path
        shaded = colour.lightness < own_lightness
        ea = np.where(shaded, (floor.a + floor.path_da[floor.light_of_cell, own]) * dimmer, ea)
        eb = np.where(shaded, (floor.b + floor.path_db[floor.light_of_cell, own]) * dimmer, eb)
        return cls(np.asarray(ea, np.float64), np.asarray(eb, np.float64), np.asarray(shaded))

    def offset(self, colour: CellColour) -> FloatArray:
        """How far each cell's mean chroma lies from the floor's expected there."""
        return np.asarray(np.hypot(colour.a - self.a, colour.b - self.b), np.float64)

    def chroma(self) -> FloatArray:
        """The floor's chroma expected at each cell: how far from grey it lies."""
        return np.asarray(np.hypot(self.a, self.b), np.float64)


# A shaded cell's step from the floor's expected chroma may be at most this share of the
# floor's own chroma there: over 990 frames bare slots in shadows stepped 0.58 of it at
# most (the worst cell of a slot), unread slots holding a tile 1.09 at least, and a grey
# sleeve over tiles 0.86 to 1.07.
SHADE_STEP_SHARE_MAX = 0.6
# ... and the floor must keep this much chroma there (Lab units): in a shadow deep enough
# to take it nearer grey, every colour is, and none tells floor from tile.
SHADE_FLOOR_CHROMA_MIN = 3.0
# ... and the cell must be this bright (8-bit L): darker, the camera's noise and rounding
# decide its chroma (tiles in a twentieth of the light, at 6 to 17, showed the floor's
# hue; bare floor in the deepest shadows of the conditions sets, 26 and up).
SHADE_LIGHTNESS_MIN = 20.0


def keeps_floor_hue(colour: CellColour, shade: ShadedFloor) -> NDArray[np.bool_]:
    """Cells whose chroma stays on the floor's side of grey: their step from the floor's
    expected chroma is small against the floor's own distance from grey, and that
    distance is enough to tell.  Grey is what a dark sleeve or a deep shadow's noise
    shows; every tile's ink lies far off the floor on its own side of the hue circle."""
    chroma = shade.chroma()
    return np.asarray(
        (colour.lightness >= SHADE_LIGHTNESS_MIN)
        & (chroma >= SHADE_FLOOR_CHROMA_MIN)
        & (shade.offset(colour) <= SHADE_STEP_SHARE_MAX * chroma)
    )


def floor_offset_in_shade(colour: CellColour, floor: FloorModel) -> FloatArray:
    """How far each cell's mean chroma lies from the floor's, where a cell darker than
    the floor's own light has the floor's chroma shrunk as a shadow shrinks it (see
    :class:`ShadedFloor`)."""
    return ShadedFloor.expected(colour, floor).offset(colour)


def washed_out(colour: CellColour) -> NDArray[np.bool_]:
    """Cells the sensor clipped in two channels over most of their window."""
    return np.asarray(colour.washed_out >= WASHED_OUT_MIN)


def clipped(colour: CellColour) -> NDArray[np.bool_]:
    """Cells the sensor clipped in one channel or more over most of their window."""
    return np.asarray(colour.clipped >= CLIPPED_MIN)


# Each species' ink is told by the channels it keeps low (blue, green, red: 0, 1, 2).
_LOW_CHANNELS = {"B": (1, 2), "G": (0, 2), "Y": (0,), "R": (0, 1)}


def low_channels_clipped(colour: CellColour, species: str) -> NDArray[np.bool_]:
    """Cells where a channel ``species`` keeps low is at the sensor's limit over most of
    the window: a clipped channel only says it was at least that bright, so a mean hue
    that rests on it being low proves nothing of that species."""
    shares = colour.channel_clipped[:, list(_LOW_CHANNELS[species])]
    return np.asarray((shares >= WASHED_OUT_MIN).any(axis=1))


def yellow_clipped(colour: CellColour) -> NDArray[np.bool_]:
    """Cells clipped in red (and green, or not yet) over most of their window with blue
    clearly below: a washed yellow or the floor, never a green, blue or red ink."""
    return np.asarray(colour.yellow_clipped >= WASHED_OUT_MIN)


def shows_floor(colour: CellColour, floor: FloorModel, windows: CellWindows) -> NDArray[np.bool_]:
    """Cells whose colour proves bare floor: the floor's chroma at that place, with at
    least one channel short of the sensor's limit (glare washes a glossy tile to the
    floor's colour; with two channels clipped nothing tells them apart)."""
    return np.asarray(floor_chroma(colour, floor) & ~washed_out(colour))


def prove_empty(
    cells: list[str], colour: CellColour, floor: FloorModel, windows: CellWindows
) -> list[str]:
    """Cells read as floor that do not show the floor's colour become ``?``."""
    unproven = ~shows_floor(colour, floor, windows)
    return ["?" if c == "." and unproven[i] else c for i, c in enumerate(cells)]


def doubt_floor_beside_an_arm(
    cells: list[str],
    near_arm: frozenset[int],
    walls_shown: Callable[[Collection[int]], NDArray[np.bool_]],
    slots: Sequence[Sequence[int]],
) -> list[str]:
    """Empty cells near an arm become ``?`` unless the printed wall beside them shows or
    another cell of their slot is proven bare.

    Skin and the floor are both warm pale colours that differ most in red; lit until red
    clips, they show the same chroma in what is left, and pale skin under a warm lamp
    shows it whole (photoreal 4251 ``occ048``: the lit half of a hand, 2 to 3 Lab units
    from the floor, was read as seven bare cells of two slots).  So beside an arm the
    floor's colour is no proof.  The wall beside a cell is (an arm over the cell covers
    it as well), and a tile covers its whole slot: one cell of it seen bare means no tile
    lies under the others, whatever covers them.  ``walls_shown`` tells, for the cells
    given, whether the wall beside each shows
    (:meth:`~companion.vision.walls.CellWalls.shown`): it is asked only about cells in
    doubt.
    """
    suspects = [i for i, c in enumerate(cells) if c == "." and i in near_arm]
    if not suspects:
        return list(cells)
    walls = walls_shown(suspects)
    doubtful = {i for i in suspects if not walls[i]}
    out = list(cells)
    for slot in slots:
        bare = any(out[i] == "." and i not in doubtful for i in slot)
        for i in slot:
            if i in doubtful and not bare:
                out[i] = "?"
    return out


def doubt_lone_clipped_floor(
    cells: list[str],
    colour: CellColour,
    floor: FloorModel,
    slots: Sequence[Sequence[int]],
    hidden: frozenset[int] = frozenset(),
) -> list[str]:
    """A slot's only empty reading becomes ``?`` where a channel clipped over most of its
    window and the slot's other cells are unread with no arm over them, one of them off
    the ``floor``'s colour.

    One cell seen bare proves its whole slot open (:func:`~companion.vision.cells.
    fill_open_slots`), so that cell's proof must hold alone.  Clipped, it does not where a
    slot mate lies further from the floor than bare floor does: glare that lifts a glossy
    yellow tile until red clips leaves it the floor's chroma in what is left, and the
    tile's other cells, less lit, keep their yellow (photoreal 4201 ``occ054``: two yellow
    tiles read as open slots).  Cells under an arm are unread for the arm's sake, not
    their colour's: beside them, the proof stands.
    """
    at_limit = clipped(colour)
    lone: list[tuple[int, list[int]]] = []  # each such cell, and its unread slot mates
    for slot in slots:
        empty = [i for i in slot if cells[i] == "."]
        if len(empty) != 1 or not at_limit[empty[0]]:
            continue
        others = [i for i in slot if i != empty[0]]
        if all(cells[i] == "?" and i not in hidden for i in others):
            lone.append((empty[0], others))
    out = list(cells)
    if not lone:  # most frames: the floor's offsets are not needed
        return out
    off_floor = floor_offset_in_shade(colour, floor) > LONE_CLIPPED_MATE_OFFSET_MIN
    for cell, others in lone:
        if any(off_floor[i] for i in others):
            out[cell] = "?"
    return out


def admit_floor(
    cells: list[str],
    colour: CellColour,
    floor: FloorModel,
    windows: CellWindows,
    species_share: FloatArray,
    stray_max: float,
    hidden: frozenset[int] = frozenset(),
) -> list[str]:
    """Unread plain cells that show the floor's own colour become empty (never one under
    an arm: the window's mean is then the arm's).

    A lamp of another colour on one side of the board pushes the bare floor there out of
    the floor class, so those cells are read as unknown; the floor fitted to the rest of
    the board still predicts them.  The proof is the one :func:`prove_empty` asks for, and
    no species colour.
    """
    proven = shows_floor(colour, floor, windows) & (species_share <= stray_max)
    return ["." if c == "?" and proven[i] and i not in hidden else c for i, c in enumerate(cells)]


def admit_floor_like_its_neighbours(
    cells: list[str],
    colour: CellColour,
    slots: Sequence[Sequence[int]],
    species_share: FloatArray,
    stray_max: float,
    hidden: frozenset[int] = frozenset(),
) -> list[str]:
    """Slots left unread whose cells each show the chroma of the bare cells around them
    in the same light become empty (see ``NEIGHBOUR_REACH_CELLS``).

    The proof is the floor's colour, as for :func:`admit_floor`, taken from the floor
    nearby instead of the plane fitted to the whole board; no cell with a species colour,
    washed out or under an arm counts, and a tile covers its whole slot: all of the
    slot's cells must be bare already or proven so.

    Every cell read bare is a witness, a bonus cell too: its window is the ring of floor
    around the icon.  (Plain witnesses alone, as the plane fit takes, proved 4 bare slots
    fewer and 1 more over 524 generated and photoreal frames.)
    """
    eligible = (species_share <= stray_max) & ~washed_out(colour)
    candidates = [i for i, c in enumerate(cells) if c == "?" and i not in hidden and eligible[i]]
    bare = np.flatnonzero(np.array([c == "." for c in cells]))
    if not candidates or len(bare) < NEIGHBOURS_MIN:
        return list(cells)
    light = np.log(lab_scale(colour.lightness))
    bare_light = light[bare]
    rows, cols = np.divmod(bare, GRID)
    like: set[int] = set()
    for i in candidates:
        row, col = divmod(i, GRID)
        reach = np.maximum(np.abs(rows - row), np.abs(cols - col)) <= NEIGHBOUR_REACH_CELLS
        lit_alike = np.abs(bare_light - light[i]) <= LOG_LIGHT_RATIO
        near = bare[reach & lit_alike]
        if len(near) < NEIGHBOURS_MIN:
            continue
        step_a = colour.a[i] - float(np.median(colour.a[near]))
        step_b = colour.b[i] - float(np.median(colour.b[near]))
        if np.hypot(step_a, step_b) <= FLOOR_MATCH_MAX:
            like.add(i)
    out = list(cells)
    for slot in slots:
        if like.intersection(slot) and all(i in like or out[i] == "." for i in slot):
            for i in slot:
                out[i] = "."
    return out


__all__ = [
    "CellColour",
    "CellWindows",
    "FloorModel",
    "ShadedFloor",
    "ToAnalysis",
    "admit_floor",
    "admit_floor_like_its_neighbours",
    "clipped",
    "doubt_floor_beside_an_arm",
    "doubt_lone_clipped_floor",
    "fit_floor",
    "floor_chroma",
    "floor_colour",
    "keeps_floor_hue",
    "prove_empty",
    "shows_floor",
    "washed_out",
]
