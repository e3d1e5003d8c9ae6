"""``BoardReader``: one camera frame in, one board reading (or a reason) out."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import NamedTuple

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.boards import GRID, BoardProfile
from companion.games.garum.state import BoardState
from companion.vision.blas import keep_blas_on_one_thread
from companion.vision.canonical import CanonicalLayout
from companion.vision.cells import (
    SPECIES_ORDER,
    CellRules,
    LabelledPixels,
    apply_tile_constraint,
    fill_covered_cells,
    fill_open_slots,
    name_dark_cells,
    read_cells,
)
from companion.vision.circle_print import CirclePrint
from companion.vision.colour import (
    ColourModel,
    PixelClass,
    bgr_to_ab,
    classify,
    drop_cool_where_red_clipped,
    hex_to_bgr,
    lifts_whole_frame,
    white_balance,
)
from companion.vision.exemplars import ExemplarRules, fill_by_exemplars
from companion.vision.first_clipped import FirstClippedRules, first_clipped_species
from companion.vision.floor import (
    CellColour,
    CellWindows,
    FloorModel,
    admit_floor,
    admit_floor_like_its_neighbours,
    doubt_floor_beside_an_arm,
    doubt_lone_clipped_floor,
    fit_floor,
    floor_colour,
    floor_offset_in_shade,
    prove_empty,
    washed_out,
)
from companion.vision.gaps import GapRules, SlotGaps
from companion.vision.illumination import (
    SheetLight,
    grouped_medians,
    sheet_clipped,
    sheet_colour,
    sheet_strips,
)
from companion.vision.localize import (
    BoardLocator,
    BoardNotFound,
    CameraPose,
    Localization,
    estimate_pose,
)
from companion.vision.occlusion import (
    LIT_SKIN_REACH_MM,
    REDUCE,
    hand_mask,
    reduced_hand_mask,
    traced_under_fit,
    within_reach,
)
from companion.vision.outline import (
    OutlineRules,
    SlotOutlines,
    doubt_floor_by_walls,
    prove_floor_by_outline,
)
from companion.vision.pastel import (
    PastelRules,
    fill_pastel_slots,
    fill_washed_tiles,
    pastel_cells,
)
from companion.vision.pixels import every_nth, pixel_coords
from companion.vision.shade import ShadeRules, lift_shadows
from companion.vision.shaded_floor import ShadedFloorRules, prove_shaded_floor_by_hue
from companion.vision.shadows import PrintUnderShadow, ShadowRules
from companion.vision.slot_print import (
    SlotPrint,
    SlotPrintRules,
    no_tile_colour,
    prove_floor_by_print,
)
from companion.vision.surround import SheetSurround
from companion.vision.walls import CellWalls, WallRules
from companion.vision.workers import (
    WorkerObservation,
    WorkerRules,
    adjacent,
    core_centre_mm,
    no_second_dominus,
    read_workers,
)

RECENTRE_MIN = 2  # Lab units of sheet chroma offset worth correcting
SKIN_SATURATION_MAX = 0.6
# A cell's red pixels this dark (8-bit L) and grey (Lab chroma), at the median, may be the
# darkest skins, lit: the two darkest of SKIN_TONES_BGR under a lamp show L 37-72 and
# chroma 13-26 (conditions frames), where lit red tiles keep 43 and more; red tiles deep
# in an arm's shadow show the same, and are given up with it (over the stored arm frames,
# 71 right red cells of 4415).
DARK_SKIN_LIGHTNESS_MAX = 75.0
DARK_SKIN_CHROMA_MAX = 27.0
# Within reach of an arm, a cell named blue, green or yellow (inks no skin shares, where
# a red's pixels fall among skin's colours) with this share of its window skin-coloured
# shows the arm's lit fingers, not the ink it was named from (conditions 12080: a
# third, over a green).
SKIN_OVER_INK_MIN = 0.3
SKINLESS_INKS = frozenset("BGY")
# Under the single balance a warm lamp can light a patch of the sheet's edge like skin; an
# arm hidden by the place-by-place balance reaches over the grid, over this many cells (two
# slots) at least beyond what that balance showed of it.
ARM_OVER_GRID_CELLS = 8
# Share of a cell's window the arm's region (widened by its margin) may cover and the cell
# still be read from the rest: what shows beside the arm is read without the arm's pixels.
# Over the 196 arm frames of the photoreal and conditions sets, no cell read wrong for it
# up to 0.6; at 0.8 the blurred edge of an arm in a dim corner read as a tile.
ARM_COVER_MAX = 0.6
# A slot the arm hides this many cells of (half or more) lies mostly under it: a cell of it
# the arm's region still touches shows the arm's shaded fingers as often as bare floor.
# Over 469 stored arm frames, every tile read as floor beside the arm (3 cells, in two
# frames) lay so; 1,056 bare cells did too, and are left unread with them.
ARM_HIDDEN_IN_SLOT_MIN = 2
# An arm matters where it may hide what the board reads: a cell's window, or a piece
# standing on a worker space, which reaches this far (mm) from the space's centre (its
# footprint and its lean, see workers.REACH_MM).  A region over neither, with every
# marker whole, lies on the sheet's margin: a tablecloth of skin's colour the lens bows
# in at a corner (conditions 90616: taken for an arm, it kept the cells in a lamp arm's
# shadow from being named).
PIECE_REACH_MM = 23.0


@dataclass(frozen=True)
class Reading:
    """What one frame showed: a state, or an error saying why there is none."""

    state: BoardState | None
    error: str | None = None
    occluded: bool = False
    timings_ms: dict[str, float] = field(default_factory=dict)
    markers: tuple[int, ...] = ()
    # Unread cells the sensor clipped in two channels or more over most of their window:
    # glare, whose white leaves a washed yellow and a washed green (or any ink washed
    # white) the same colour.  A still camera under the same lamp sees them so in every
    # frame: the players must move the lamp or the camera, or say what lies there.
    glare: frozenset[int] = frozenset()

    @property
    def ok(self) -> bool:
        return self.state is not None


@dataclass(frozen=True)
class _Classified:
    """One balance of a view: the light it balanced for, its analysis Lab, the chroma shift
    applied, its classes."""

    light: SheetLight
    balanced: NDArray[np.uint8]  # the view, white-balanced under ``light`` (BGR)
    lab: NDArray[np.uint8]
    shift: NDArray[np.uint8] | None
    classes: NDArray[np.uint8]
    skin: NDArray[np.bool_]
    skin_any: NDArray[np.bool_]


class _BalancedPart(NamedTuple):
    """Every ``REDUCE``-th pixel of a view, as it comes and under the single balance, with
    what the whole view's balance decides: the chroma shift and whether every pixel is
    rescaled at once."""

    view: NDArray[np.uint8]
    balanced: NDArray[np.uint8]
    shift: NDArray[np.uint8] | None
    whole: bool


class BoardReader:
    """Reads frames of one board; keeps the last good homography between frames."""

    def __init__(self, profile: BoardProfile) -> None:
        keep_blas_on_one_thread()  # its systems are small: threads only slow them
        self.profile = profile
        self.layout = CanonicalLayout(profile)
        self.colours = ColourModel.from_profile(profile)
        self._printed_hues = self.colours.species_hues_deg()
        self._table = self.colours.lookup_table()
        # The floor as printed: where too little bare floor shows to measure it (a crowded
        # board), its brightening path is traced from the print instead.
        self._printed_floor_bgr = np.asarray(hex_to_bgr(profile.colours.vat_floor), np.float64)
        self._sheet_ab = bgr_to_ab(self.colours.sheet_bgr)
        self._sheet_lab = (_lightness(self.colours.sheet_bgr), *self._sheet_ab)
        # Every 7th pixel of the bare sheet ring, as flat indices (a mask is slow to apply).
        self._ring_samples = np.flatnonzero(self.layout.ring_mask)[::7]
        self._locator = BoardLocator(profile)
        self._windows = CellWindows(self.layout.cell_labels, profile, self.layout.bonus_rings)
        self._cell_pixels = LabelledPixels(self.layout.cell_labels)
        g = profile.geometry
        self._cell_centres_px = self.layout.px_per_mm * np.array(
            [g.cell_centre_mm(i // GRID, i % GRID) for i in range(GRID * GRID)]
        )
        self._ring_pixels = LabelledPixels(self.layout.bonus_rings)
        self.cell_rules = CellRules()
        self.worker_rules = WorkerRules()
        self.pastel_rules = PastelRules()
        self.outlines = SlotOutlines(profile, OutlineRules())
        self.walls = CellWalls(profile, self.layout.px_per_mm, WallRules())
        self.gaps = SlotGaps(profile, self.layout.px_per_mm, GapRules())
        self.shade_rules = ShadeRules()
        self.shadows = PrintUnderShadow(profile, self.layout.px_per_mm, ShadowRules())
        self.slot_print = SlotPrint(profile, self.layout.px_per_mm, SlotPrintRules())
        self.circles = CirclePrint(profile, self.layout.px_per_mm, self.slot_print.correlation)
        self.shaded_floor_rules = ShadedFloorRules()
        self.exemplar_rules = ExemplarRules()
        self.first_clipped_rules = FirstClippedRules()
        self._read_area = self.layout.cell_mask | _around_worker_spaces(self.layout, PIECE_REACH_MM)

    def _arm_or_shadow(
        self, region: NDArray[np.bool_] | None, view: NDArray[np.uint8]
    ) -> tuple[NDArray[np.bool_] | None, NDArray[np.bool_] | None]:
        """``region`` (an arm found by its colour) as the arm, or as a shadow where the
        board's print shows through it (then there is no arm)."""
        if region is not None and self.shadows.shows_through(region, view):
            return None, region
        return region, None

    def _ring_of(self, view: NDArray[np.uint8]) -> NDArray[np.uint8]:
        """The sheet's samples around the grid in ``view`` (samples x 1 x channels)."""
        return np.take(view.reshape(-1, 3), self._ring_samples, axis=0)[:, None, :]

    def _chroma_shift(self, ring_lab: NDArray[np.uint8]) -> NDArray[np.uint8] | None:
        """The lookup table that moves a balanced view's chroma so the bare sheet sits at
        its reference, or ``None`` when it already does; ``ring_lab`` is the Lab of the
        sheet's samples in that view.

        White balance by channel gains cannot undo a channel clipped on the bright sheet
        (warm light on a camera with locked white balance); a shift in Lab can.
        """
        da, db = _sheet_ab_offset(ring_lab[:, 0], self._sheet_ab)
        if max(abs(da), abs(db)) < RECENTRE_MIN:
            return None
        # One lookup table per channel: the same clipped shift, without a 16-bit copy.
        levels = np.arange(256, dtype=np.int16)[:, None]
        shift = np.array([0, -da, -db], dtype=np.int16)
        return np.asarray(np.clip(levels + shift, 0, 255), dtype=np.uint8).reshape(256, 1, 3)

    def _sorted(
        self,
        lab: NDArray[np.uint8],
        view: NDArray[np.uint8],
        shift: NDArray[np.uint8] | None,
    ) -> tuple[NDArray[np.uint8], NDArray[np.uint8], NDArray[np.bool_], NDArray[np.bool_]]:
        """A balanced view's Lab (or part of one, ``view`` being the same part unbalanced)
        re-centred by ``shift``, and its classes, lit skin and any skin."""
        if shift is not None:
            lab = np.asarray(cv2.LUT(lab, shift), dtype=np.uint8)
        classes, skin, skin_any = classify(lab, self._table)
        drop_cool_where_red_clipped(classes, view)
        return lab, classes, skin, skin_any

    def _classified(
        self,
        view: NDArray[np.uint8],
        light: SheetLight,
        balance: tuple[NDArray[np.uint8], NDArray[np.uint8] | None] | None = None,
    ) -> _Classified:
        """``view`` balanced under ``light`` (or as ``balance`` already has it: the balanced
        view and its chroma shift), in Lab re-centred on the sheet, classified."""
        if balance is None:
            # The shift is measured on the sheet's samples of the balanced view's own Lab:
            # one conversion serves both.
            balanced = light.balance(view, self.colours)
            unshifted = _lab(balanced)
            shift = self._chroma_shift(self._ring_of(unshifted))
        else:
            balanced, shift = balance
            unshifted = _lab(balanced)
        lab, classes, skin, skin_any = self._sorted(unshifted, view, shift)
        return _Classified(light, balanced, lab, shift, classes, skin, skin_any)

    def _reduced_classes(
        self, part: _BalancedPart
    ) -> tuple[NDArray[np.uint8], NDArray[np.bool_], NDArray[np.bool_]]:
        """Classes, lit skin and any skin of ``part``, as :meth:`_classified` gives them
        there under the same balance, for an arm search alone: a quarter of the view
        converted and classified."""
        _, classes, skin, skin_any = self._sorted(_lab(part.balanced), part.view, part.shift)
        return classes, skin, skin_any

    def _single_balance_of_part(
        self, view: NDArray[np.uint8], sheet: NDArray[np.float64]
    ) -> _BalancedPart:
        """Every ``REDUCE``-th pixel of ``view`` under the single balance of ``sheet``, as
        the whole view's balance gives them: only the arm search's quarter of the view and
        the sheet's samples are balanced."""
        whole = lifts_whole_frame(view, sheet, self.colours)
        part = every_nth(view, REDUCE)
        balanced = white_balance(part, sheet, self.colours, whole)
        ring = white_balance(self._ring_of(view), sheet, self.colours, whole)
        shift = self._chroma_shift(_lab(ring))
        return _BalancedPart(part, balanced, shift, whole)

    def _unread_out_of_shadow(
        self,
        workers: list[WorkerObservation],
        classes: NDArray[np.uint8],
        lab: NDArray[np.uint8],
        pose: CameraPose,
        hand: NDArray[np.bool_] | None,
        shadow: NDArray[np.bool_] | None,
    ) -> list[WorkerObservation]:
        """``workers``, where a space left unread in a hard shadow over its strip is read
        again with the shadow lifted (see :mod:`companion.vision.shade`), and with it any
        other space left unread, out of the shadow, whose piece was doubted or left
        unsized for the sake of the pieces the shadow hid: once they are read, the same
        passes settle it in the frame's own light (conditions 97052: a blue vilicus in a
        shadow, read as a dominus, had the blue dominus outside it doubted).

        Only spaces left unread: a lift follows the sheet's light only roughly, and the
        pieces it lifts are sized less surely than those the frame's own light shows.
        Only pieces: a lift proves no space empty, as a piece's darkest faces lifted pass
        for the sheet.  Only a piece with both spaces beside it read, in the frame's light
        or the lifted one.  A piece crowded by its neighbours is taken too: over 90
        rendered strips under a broad shadow the lift sized 16 more such pieces, and none
        wrong.  A pale piece (its core read bare, see :attr:`WorkerObservation.pale`) is
        taken only as a dominus: the parts of it the classes still take for the sheet
        leave any piece looking smaller.
        """
        s = self.layout.px_per_mm
        centres = {
            line: np.round(np.array(core_centre_mm(self.layout, pose, line)) * s).astype(int)
            for line, obs in enumerate(workers)
            if obs.code == "?"
        }
        if hand is not None:  # spaces under the arm stay unread whatever the light
            centres = {line: c for line, c in centres.items() if not hand[c[1], c[0]]}
        if not centres:
            return workers
        around = np.array(list(centres.values()), np.float64)
        lifted = lift_shadows(lab, self.layout, self._sheet_lab, around, self.shade_rules)
        if lifted is None:
            return workers
        lab, changed = lifted
        if not any(changed[c[1], c[0]] for c in centres.values()):
            return workers  # the lift left every unread space's core as it was
        ys, xs = np.nonzero(changed)
        classes = classes.copy()
        relit, _, _ = classify(np.ascontiguousarray(lab[ys, xs][:, None, :]), self._table)
        classes[ys, xs] = relit[:, 0]
        again = read_workers(
            classes, lab, self.layout, pose, self.worker_rules, self._sheet_lab, hand, shadow
        )
        out = list(workers)
        taken: set[int] = set()
        for line in centres:
            seen = again[line]
            # A neighbour counts as read in the frame's own light or in the lifted one: the
            # lift, laid round the unread spaces only, may leave a neighbour the frame
            # itself read (its circle showing, say) unread (conditions 96004).
            resolved = all(again[j].code != "?" or workers[j].code != "?" for j in adjacent(line))
            # A pale piece's pixels undercount it, lifted or not: only a dominus is sure.
            undercounted = workers[line].pale and not str(seen.code).endswith("d")
            if seen.code is not None and resolved and not undercounted:
                out[line] = seen
                taken.add(line)
        return no_second_dominus(out, taken)

    def _read_washed_tiles(
        self,
        cells: list[str],
        colour: CellColour,
        floor: FloorModel,
        view: NDArray[np.uint8],
        balanced: NDArray[np.uint8],
        gains: NDArray[np.float64],
        shows_edge: Callable[[tuple[int, ...]], bool],
        near: frozenset[int],
        shows_own_edge: Callable[[tuple[int, ...]], bool],
    ) -> list[str]:
        """Tiles glare washed too pale for their pixels' classes, read by their mean
        colours, the channel glare clipped first and the frame's own tiles
        (:func:`~companion.vision.pastel.fill_washed_tiles`)."""

        @functools.cache  # asked of one cell by several tests, in both pastel passes
        def first_clipped(cell: int) -> str | None:
            return first_clipped_species(
                view, balanced, self._windows, cell, self.first_clipped_rules
            )

        @functools.cache  # asked only of a slot glare shows at the floor's hue alone
        def clipped_sheet() -> float:
            return sheet_clipped(view, self.layout)

        def pastel(chars: list[str]) -> list[str]:
            return fill_pastel_slots(
                chars,
                colour,
                floor,
                self.colours,
                self.profile,
                self.pastel_rules,
                shows_edge,
                near,
                first_clipped,
                shows_own_edge,
                clipped_sheet,
            )

        def exemplars(chars: list[str]) -> list[str]:
            return fill_by_exemplars(
                chars,
                colour,
                view,
                self._windows,
                self._printed_floor_bgr,
                self.profile,
                self.exemplar_rules,
                shows_edge,
                near,
                gains,
                shows_own_edge,
            )

        return fill_washed_tiles(cells, pastel, exemplars)

    def _cells_under(self, region: NDArray[np.bool_] | None) -> int:
        """How many cells a region (an arm) touches; none for no region."""
        return 0 if region is None else len(_cells_covered(region, self._cell_pixels, 0.0))

    def forget_pose(self) -> None:
        """Forgets where the last frame placed the board: the next frame is located by its
        own markers alone (the camera was moved on purpose)."""
        self._locator.reset()

    def read(self, frame_bgr: NDArray[np.uint8]) -> Reading:
        """Reads one BGR frame (any size) into a :class:`Reading`."""
        t0 = time.perf_counter()
        if frame_bgr.ndim != 3 or frame_bgr.shape[2] != 3:
            return Reading(None, error="frame is not a 3-channel BGR image")
        gray = np.asarray(cv2.cvtColor(frame_bgr, cv2.COLOR_BGR2GRAY), dtype=np.uint8)
        try:
            loc = self._locator.locate(gray, frame_bgr)
        except BoardNotFound as exc:
            return Reading(None, error=str(exc), timings_ms={"total": _ms(t0)})
        reading = self._read_located(frame_bgr, loc, t0)
        if reading.occluded:
            return reading
        # A marker unseen with no arm over the board (in shadow, glare or blur): the
        # sheet's edges place its corner better than the other three markers do (with an
        # arm, its straight side may pass for an edge).  Read again so placed.  An arm
        # found then, and not before, is kept: the marker may be unseen because an arm
        # hides it, one the first placement's balance took for a lamp (conditions 83160:
        # a dark sleeve over a corner, missed, read as 32 cells of tiles).  Waiting for a
        # clear view costs a moment; a missed arm costs a wrong board.
        tied = self._locator.tied_by_edges(frame_bgr, loc)
        if tied is None:
            return reading
        return self._read_located(frame_bgr, tied, t0)

    def _read_located(self, frame_bgr: NDArray[np.uint8], loc: Localization, t0: float) -> Reading:
        """The reading of a frame whose board ``loc`` placed (located since ``t0``: for a
        frame read again, its first reading counts in the time taken to locate it)."""
        t1 = time.perf_counter()
        height, width = frame_bgr.shape[:2]
        pose = estimate_pose(loc.homography, (width, height), min(self.profile.geometry.sheet_mm))
        view = self.layout.warp(frame_bgr, loc.homography)
        strips = sheet_strips(view, self.layout)
        sheet = sheet_colour(strips)
        light = SheetLight.measure(view, self.layout, sheet, strips)
        sorted_ = self._classified(view, light)
        surround = SheetSurround(
            frame_bgr,
            loc.homography,
            self.profile.geometry.sheet_mm,
            self.layout.px_per_mm / REDUCE,
        )

        @functools.cache  # asked of each dark body the arm search weighs, rarely at all
        def undecoded() -> NDArray[np.bool_]:
            """The view but the decoded markers' squares.  A marker that decoded shows
            its print whatever lies beside it: joined to a dark arm ending by it (their
            black is alike), it would make the arm a shadow (conditions 79335).  Its
            square says nothing either way."""
            return ~self.layout.marker_squares(loc.marker_ids)

        def hides_print(reduced: NDArray[np.bool_]) -> bool:
            """Whether a region of the arm search's reduced view hides the print."""
            region = cv2.resize(
                reduced.view(np.uint8), view.shape[1::-1], interpolation=cv2.INTER_NEAREST
            )
            return self.shadows.hides(region.view(bool) & undecoded(), view)

        def arm(without_skin: bool = False) -> NDArray[np.bool_] | None:
            return hand_mask(
                sorted_.classes,
                sorted_.skin,
                sorted_.skin_any,
                self.layout,
                sorted_.lab,
                self._sheet_ab,
                surround,
                hides_print,
                without_skin,
            )

        hand, shadow = self._arm_or_shadow(arm(), view)
        if shadow is not None:
            # What skin or colour led to was a shadow: an arm that shows neither may still
            # reach in elsewhere (the darkest skin, lit, is as dark as a red in shadow).
            hand, _ = self._arm_or_shadow(arm(without_skin=True), view)
        other: _Classified | None = None  # the balance set aside: tiles must show in it too
        hidden_marker = len(loc.marker_ids) < len(self.profile.markers.centres_mm)
        covered = light.set_aside > 0 or hidden_marker
        if light.varies and covered:
            # Something covered part of the sheet (the light's fit set some of its
            # samples aside, or a marker is hidden) while its colour seemed to change: an
            # arm can pass for a second lamp, and the balance fitted to it can hide the
            # arm's skin, all of it or all but its edge (conditions 81125: an arm over a
            # corner's marker, fitted as a lamp with no sample set aside, was missed).
            # Under the single balance, look for its skin again, and keep whichever
            # balance shows more of an arm over the grid.  (A second lamp's tint along
            # the sheet's edge is no arm's colour to follow, and under one balance a warm
            # lamp's tint can reach the view's edge like a body: conditions 82148.)
            single_light = SheetLight(sheet, None)
            part = self._single_balance_of_part(view, sheet)
            single_hand, single_shadow = self._arm_or_shadow(
                reduced_hand_mask(
                    *self._reduced_classes(part),
                    view.shape[:2],
                    self.layout,
                    surround=surround,
                ),
                view,
            )
            shadow = single_shadow if shadow is None else shadow

            def single() -> _Classified:
                balanced = white_balance(view, sheet, self.colours, part.whole)
                return self._classified(view, single_light, (balanced, part.shift))

            more = self._cells_under(single_hand) - self._cells_under(hand)
            if (
                single_hand is not None
                and more >= ARM_OVER_GRID_CELLS
                # Shown by the single balance alone, it may be a warm lamp's tint that
                # the fitted balance followed whole (conditions 77378, 77392).  A tint
                # leaves the board's print showing; an arm the fit followed as well
                # hides it (conditions 90510: print shown in 6 of 77 parts, against 100
                # of 139 and 144 of 240 under those tints).
                and (
                    hand is not None
                    or traced_under_fit(single_hand, sorted_.classes, self.layout)
                    or self.shadows.hides(single_hand, view)
                )
            ):
                other, sorted_ = sorted_, single()
                hand = single_hand if hand is None else hand | single_hand
            elif hand is not None:
                if single_hand is not None:
                    # Each balance shows part of an arm: all of it is the arm's, kept
                    # unread (photoreal 3201 occ053: the place-by-place one missed the arm
                    # over the worker strip, and four pieces under it read as empty spaces).
                    hand = hand | single_hand
                # The arm found under the balance fitted place by place may itself be the
                # second lamp it was fitted to, tinting tiles far from it (conditions
                # 59095: greens read as yellow all over the board): a tile's colour must
                # show under the single balance as well.
                other = single()
        if (
            hand is not None
            and not hidden_marker
            and not loc.partly_hidden
            and not np.any(hand & self._read_area)
        ):
            hand = None  # over the sheet's margin alone: it hides nothing read
        lab, classes, shift = sorted_.lab, sorted_.classes, sorted_.shift

        def to_analysis(balanced: NDArray[np.uint8]) -> NDArray[np.uint8]:
            lab = cv2.cvtColor(balanced, cv2.COLOR_BGR2Lab)
            return np.asarray(lab if shift is None else cv2.LUT(lab, shift), dtype=np.uint8)

        t2 = time.perf_counter()
        fractions = self._cell_pixels.fractions(classes, hand)
        rings = self._ring_pixels.fractions(classes, hand)
        cells = read_cells(fractions, self.cell_rules, self.profile.bonus_kind, rings)
        colour = CellColour.measure(lab, view, sorted_.balanced, self._windows)
        hidden, touched = _arm_cells(hand, self._cell_pixels)
        seen = _hide(cells, hidden)
        gains = sorted_.light.gains(self._cell_centres_px, self.colours)
        floor = fit_floor(
            seen,
            colour,
            _measured_or(floor_colour(seen, view, gains, self._windows), self._printed_floor_bgr),
            gains,
            to_analysis,
            self._windows,
            self.colours.floor_ab,
        )
        cells = prove_empty(cells, colour, floor, self._windows)
        species = fractions[:, PixelClass.B : PixelClass.R + 1].sum(axis=1)
        cells = admit_floor(
            cells, colour, floor, self._windows, species, self.cell_rules.stray_max, hidden
        )
        cells = admit_floor_like_its_neighbours(
            cells, colour, self.profile.slots, species, self.cell_rules.stray_max, hidden
        )
        colourless = no_tile_colour(fractions, self.cell_rules, self.profile.bonus_kind)
        cells = prove_floor_by_outline(
            cells, colour, floor, self.outlines, frame_bgr, loc.homography, hidden, colourless
        )
        cells = prove_floor_by_print(
            cells, colourless, colour, floor, self.slot_print, view, hidden
        )
        cells = prove_shaded_floor_by_hue(
            cells,
            fractions,
            colour,
            floor,
            self.cell_rules,
            self.profile,
            self.shaded_floor_rules,
            hidden,
        )
        cells = fill_covered_cells(
            cells, fractions, self.profile, self.cell_rules, floor_offset_in_shade(colour, floor)
        )
        if hand is None:  # with an arm over the board, a dark cell may be its shadow
            cells = name_dark_cells(
                cells,
                fractions,
                np.stack([colour.a, colour.b], axis=1),
                self._printed_hues,
                self.profile,
                self.cell_rules,
            )
        cells = doubt_lone_clipped_floor(cells, colour, floor, self.profile.slots, hidden)

        @functools.cache  # few frames have a slot that needs them
        def pastel() -> list[str | None]:
            return pastel_cells(colour, floor, self.colours, self.pastel_rules)

        cells = fill_open_slots(cells, fractions, self.profile, self.cell_rules, pastel)
        cells = doubt_floor_by_walls(
            cells, self.outlines, view, self.layout.px_per_mm, colour.lightness
        )
        edge_min = self.outlines.rules.edge_min

        @functools.cache  # the pastel and exemplar passes may ask of the same slot
        def shows_edge(slot: tuple[int, ...]) -> bool:
            edge = self.outlines.strongest_edge(frame_bgr, loc.homography, slot)
            return edge >= edge_min

        @functools.cache  # both pastel passes may ask of a slot still unread
        def shows_own_edge(slot: tuple[int, ...]) -> bool:
            edge = self.outlines.own_edge(frame_bgr, loc.homography, slot)
            return edge >= self.outlines.rules.own_edge_min

        near: frozenset[int] = frozenset()  # cells within reach of an arm's lit skin
        if hand is not None:
            cells = _hide(cells, hidden)
            cells = _hide(
                cells, floor_at_a_covered_slots_edge(cells, self.profile.slots, hidden, touched)
            )
            slots = self.profile.slots
            pale = skin_toned_red(lab, classes, self.layout.cell_labels)
            cells = _hide(cells, with_bare_slot_mates(cells, pale, slots))
            reach = within_reach(hand, self.layout.px_per_mm, LIT_SKIN_REACH_MM)
            near = _cells_covered(reach, self._cell_pixels, 0.0)
            skin = self._cell_pixels.covered(sorted_.skin_any) / self._cell_pixels.sizes
            cells = _hide(
                cells, with_bare_slot_mates(cells, skin_over_ink(cells, skin, near), slots)
            )
            cells = doubt_floor_beside_an_arm(
                cells, near, lambda asked: self.walls.shown(view, asked), slots
            )
        cells = self._read_washed_tiles(
            cells, colour, floor, view, sorted_.balanced, gains, shows_edge, near, shows_own_edge
        )
        if other is not None:
            # An arm over the board under light that seemed to vary: either balance may be
            # the wrong one, and a colour one shows and the other does not may be the
            # light's, not a tile's.
            shown = self._cell_pixels.fractions(other.classes, hand)
            cells = _agreeing(
                cells, read_cells(shown, self.cell_rules, self.profile.bonus_kind, None)
            )
        cells = self.gaps.doubt_washed_vats(cells, view)
        cells = apply_tile_constraint(cells, self.profile)

        def pieces(seen: _Classified) -> list[WorkerObservation]:
            return read_workers(
                seen.classes,
                seen.lab,
                self.layout,
                pose,
                self.worker_rules,
                self._sheet_lab,
                hand,
                shadow,
                functools.partial(self.circles.shown, view),
            )

        workers = pieces(sorted_)
        if any(obs.code == "?" for obs in workers):
            workers = self._unread_out_of_shadow(workers, classes, lab, pose, hand, shadow)
        if other is not None:  # as for the tiles: a piece must show as itself in both
            workers = [
                mine if mine.code == theirs.code else replace(mine, code="?")
                for mine, theirs in zip(workers, pieces(other), strict=True)
            ]
        t3 = time.perf_counter()
        state = BoardState("".join(cells), tuple(w.code for w in workers))
        # Lit skin clips too: the cells under an arm are its, not glare's.
        clipped = washed_out(colour)
        glare = (i for i, ch in enumerate(cells) if ch == "?" and clipped[i] and i not in hidden)
        return Reading(
            state,
            glare=frozenset(glare),
            # Markers found only in part lie under something: the table waits for a
            # clear view even where no arm shows over the board (conditions 79210: an
            # arm along the sheet's edge, over its markers and strip, barely over cells).
            occluded=hand is not None or loc.partly_hidden,
            markers=loc.marker_ids,
            timings_ms={
                "locate": (t1 - t0) * 1000,
                "classify": (t2 - t1) * 1000,
                "read": (t3 - t2) * 1000,
                "total": (t3 - t0) * 1000,
            },
        )


def _around_worker_spaces(layout: CanonicalLayout, reach_mm: float) -> NDArray[np.bool_]:
    """The view's pixels within ``reach_mm`` of a worker space's centre."""
    g = layout.profile.geometry
    s = layout.px_per_mm
    width, height = layout.size_px
    mask = np.zeros((height, width), dtype=np.uint8)
    for line in range(2 * GRID):
        x, y = g.worker_space_centre_mm(line)
        cv2.circle(mask, (round(x * s), round(y * s)), round(reach_mm * s), 1, -1)
    return mask > 0


def _lab(bgr: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """An 8-bit BGR image in 8-bit Lab."""
    return np.asarray(cv2.cvtColor(bgr, cv2.COLOR_BGR2Lab), dtype=np.uint8)


def _measured_or(
    measured: NDArray[np.float64] | None, printed: NDArray[np.float64]
) -> NDArray[np.float64]:
    return printed if measured is None else measured


def _cells_covered(
    region: NDArray[np.bool_], cells: LabelledPixels, share_max: float
) -> frozenset[int]:
    """The cells whose window a region (an arm) covers by more than ``share_max`` (0: any
    cell it touches)."""
    return _covered_beyond(cells.covered(region), cells, share_max)


def _covered_beyond(
    covered: NDArray[np.int64], cells: LabelledPixels, share_max: float
) -> frozenset[int]:
    """The cells of which more than ``share_max`` of the window is ``covered`` (pixel
    counts per cell)."""
    return frozenset(np.flatnonzero(covered > share_max * np.maximum(cells.sizes, 1)).tolist())


def _agreeing(cells: list[str], other: list[str]) -> list[str]:
    """``cells``, where a tile must show its colour in ``other`` too and an empty cell must
    show no tile there; ``?`` elsewhere."""
    return [
        c if c == o or (c == "." and o == "?") else "?" for c, o in zip(cells, other, strict=True)
    ]


def _arm_cells(
    hand: NDArray[np.bool_] | None, cells: LabelledPixels
) -> tuple[frozenset[int], frozenset[int]]:
    """The cells the arm's region hides (covers over ARM_COVER_MAX of their window) and
    those it touches at all, from one count of its pixels in each; none without an arm."""
    if hand is None:
        return frozenset(), frozenset()
    covered = cells.covered(hand)
    return _covered_beyond(covered, cells, ARM_COVER_MAX), _covered_beyond(covered, cells, 0.0)


def with_bare_slot_mates(
    cells: list[str], doubted: Iterable[int], slots: Iterable[tuple[int, ...]]
) -> frozenset[int]:
    """The ``doubted`` cells (an ink an arm's skin may have shown) and, in the slot of one
    read as a tile's ink, the cells read empty: were the ink the tile's, its slot holds
    no bare cell (photoreal 4101 ``occ054``: a washed yellow cell read as floor beside a
    pale red doubted as skin)."""
    doubted = frozenset(doubted)
    inked = {i for i in doubted if cells[i] in SPECIES_ORDER}
    mates = {i for slot in slots if inked.intersection(slot) for i in slot if cells[i] == "."}
    return doubted | mates


def floor_at_a_covered_slots_edge(
    cells: list[str],
    slots: Iterable[tuple[int, ...]],
    hidden: frozenset[int],
    touched: frozenset[int],
) -> frozenset[int]:
    """Cells read empty that the arm's region ``touched``, in a slot of which it hides
    ARM_HIDDEN_IN_SLOT_MIN cells or more (``hidden``): bare floor there proves nothing."""
    return frozenset(
        i
        for slot in slots
        if sum(j in hidden for j in slot) >= ARM_HIDDEN_IN_SLOT_MIN
        for i in slot
        if cells[i] == "." and i in touched
    )


def _hide(cells: list[str], hidden: frozenset[int]) -> list[str]:
    """``cells`` with the ``hidden`` ones unread."""
    return ["?" if i in hidden else c for i, c in enumerate(cells)]


def _sheet_ab_offset(ring: NDArray[np.uint8], reference_ab: tuple[float, float]) -> tuple[int, int]:
    """How far the sheet's chroma in this frame (``ring``: Lab of its samples, n x 3) sits
    from where it should."""
    one_group = np.zeros(len(ring), dtype=np.intp)
    a, b = (grouped_medians(ring[:, 1:], one_group, 1)[0] - 128.0).tolist()
    return (round(a - reference_ab[0]), round(b - reference_ab[1]))


def skin_toned_red(
    lab: NDArray[np.uint8], classes: NDArray[np.uint8], cell_labels: NDArray[np.int32]
) -> list[int]:
    """Cells whose red is as pale as skin, or as dark and grey as the darkest skins: with
    a hand in view, part of it may be unseen.

    A red tile is far more saturated (chroma for its lightness) than skin, lit or shaded;
    only tiles washed out by glare come close, and those are given up while a hand is over
    the board.  The darkest skins, lit, show the colour of a red tile deep in shadow (dark,
    with little chroma): the two cannot be told apart while a hand is over the board.
    """
    red = (classes == PixelClass.R) & (cell_labels >= 0)
    ys, xs = pixel_coords(red)
    if len(xs) == 0:
        return []
    px = lab[ys, xs].astype(np.float32)
    chroma = np.hypot(px[:, 1] - 128.0, px[:, 2] - 128.0)
    saturation = np.asarray(chroma / np.maximum(px[:, 0] * (100.0 / 255.0), 1.0), np.float32)
    cells = cell_labels[ys, xs]
    found, pale = _cell_medians(cells, saturation)
    _, lightness = _cell_medians(cells, px[:, 0])
    _, grey = _cell_medians(cells, np.asarray(chroma, np.float32))
    dark = (lightness <= DARK_SKIN_LIGHTNESS_MAX) & (grey <= DARK_SKIN_CHROMA_MAX)
    return [int(cell) for cell in found[(pale < SKIN_SATURATION_MAX) | dark]]


def _cell_medians(
    cells: NDArray[np.int32], values: NDArray[np.float32]
) -> tuple[NDArray[np.int64], NDArray[np.float32]]:
    """The cells present and each one's median of ``values`` (never negative), at once."""
    # Sorted by cell, then by value, as one 64-bit key, the cell above the bits of the
    # value (a float32 never negative, whose bits order as its value does): a sort of
    # values, far faster than a lexsort.
    keys = np.sort(
        (cells.astype(np.uint64) << np.uint64(32)) | values.view(np.uint32).astype(np.uint64)
    )
    ranked = (keys & np.uint64(0xFFFFFFFF)).astype(np.uint32).view(np.float32)
    owner = (keys >> np.uint64(32)).astype(np.int64)
    found, start, count = np.unique(owner, return_index=True, return_counts=True)
    middle = (ranked[start + (count - 1) // 2] + ranked[start + count // 2]) / 2
    return found, np.asarray(middle, np.float32)


def skin_over_ink(
    cells: list[str], skin_share: NDArray[np.float64], near: frozenset[int]
) -> list[int]:
    """Cells ``near`` an arm named an ink no skin shares, with a good share of their
    window skin-coloured (``skin_share``): the arm's lit fingers, which the balance can
    take into a tile class, not the tile under them."""
    return [
        i for i in sorted(near) if cells[i] in SKINLESS_INKS and skin_share[i] >= SKIN_OVER_INK_MIN
    ]


def _lightness(bgr: tuple[float, float, float]) -> float:
    """8-bit Lab lightness of one BGR colour."""
    px = np.clip(np.array([[bgr]]), 0, 255).astype(np.uint8)
    return float(cv2.cvtColor(px, cv2.COLOR_BGR2Lab)[0, 0, 0])


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000


__all__ = ["BoardReader", "Reading"]
