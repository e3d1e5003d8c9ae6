"""Reading the 32 worker spaces: empty, unreadable, or colour + vilicus/dominus.

A standing meeple, seen from an angle, appears in the top-down view as its footprint swept
away from the camera's ground point by its height times the *lean* (known at every point
from the camera position).  Presence and colour come from a small core near the base,
always covered by a piece of either size.  Size comes from the area of the piece's colour:
pixels of one colour in the worker strips are shared out between the occupied spaces of
that colour (each pixel to the nearest standing piece), and the area is compared with what
a vilicus and a dominus of the measured width would cover from this camera position:

    area(piece) = width x depth + height x lean x width across the lean

A second measure is how far the colour reaches along the lean: a piece's lit top lies its
height times the lean beyond its base, whatever its shaded sides show.  The two are
combined (the reach counting more the larger the lean); between the two sizes, and
wherever a neighbour crowds the piece, the answer is ``?``.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.boards import GRID, LINES, worker_strip
from companion.boards.profile import Geometry, PieceSize
from companion.vision.canonical import CanonicalLayout
from companion.vision.colour import (
    NEUTRAL_RADIUS,
    ColourModel,
    PixelClass,
    dark_inks_named,
    lab_scale,
)
from companion.vision.illumination import grouped_medians
from companion.vision.localize import CameraPose
from companion.vision.pixels import pixel_coords
from companion.vision.silhouettes import SilhouetteRules, decide, rank, rank_pair

SPECIES_ORDER = "BGYR"
# How far (mm) a pixel may lie from a standing piece's axis and still belong to it.
REACH_MM = 15.0
# Pixels about as near (within this, mm) to two pieces' axes of one colour lie on the seam
# between them...
SEAM_MM = 1.5
# How far (mm) from a standing piece's axis a pixel too dark for colour may lie and still
# be taken for one of its shaded faces.
DARK_REACH_MM = 9.0
# The class of a dark pixel that no standing piece owns: none of PixelClass's.
NO_CLASS = 255
# Dark pixels count only within a few pixels of a piece's colour: its faces are attached.
_FACE_KERNEL = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (9, 9))
# A piece's full contrast against the sheet: this quantile of its lit pixels' contrast
# (not the maximum, which one noisy pixel sets).
FULL_CONTRAST_QUANTILE = 0.9
# A piece's width across the lean: between these quantiles of its pixels, so a stray
# pixel of its colour on either side does not widen it.
WIDTH_QUANTILES = (0.01, 0.99)
# How far a piece's colour reaches along the lean: this quantile, for the same reason.
REACH_QUANTILE = 0.98
# Below this lean (mm per mm of height) its direction is noise: widths are taken along x.
LEAN_DIRECTION_MIN = 1e-3
# Another colour covering this much (mm²) within HIDDEN_REACH_MM of a piece's base (where
# its own footprint must show) may hide part of it.
HIDDEN_MM2 = 12.0
HIDDEN_REACH_MM = 9.0
# Beyond this lean, which side of a base a neighbour's colour lies on tells which of the
# two pieces is in front; this far (mm) past the base along the lean still counts as
# the inner side (blur, a piece off centre in its circle).
INNER_LEAN_MIN = 0.15
INNER_SIDE_MM = 2.0
EDGE_LEVEL = 0.5  # a piece's edge: half its full contrast against the sheet
# ... in saturation, a higher share: a pixel blurred between a piece and its own shadow on
# the sheet is darker than either, so it looks more saturated than the mix it is.
SATURATION_LEVEL = 0.75
# ... and this many such pixels (px) mean the two pieces touch (fewer are noise).
SEAM_MIN_PX = 4
# Share of a meeple's side bounding rectangle its outline fills (head, arms, legs).
SIDE_FILL = 0.8
LEVELS = np.array([EDGE_LEVEL, SATURATION_LEVEL])
# A neighbour's predicted silhouette: its axis swept by the taller piece's height, this
# far (mm) either side (half the wider piece plus a margin for blur and a lean in its slot).
SILHOUETTE_RADIUS_MM = 13.0
# A space's core is centred this far (mm) along the lean from the space's centre: within
# the footprint of a piece of either size, a little towards its lit top.
CORE_LEAN_OFFSET_MM = 3.0
# A core this close (mm) to the arm's region is not read: the arm's blur and shadow reach it.
BLOCKED_MARGIN_MM = 2.0
# The bare sheet beside a space: this far (mm) along its strip either side of its centre,
# and this deep from the sheet's edge (the outer band where no piece stands or leans).
SHEET_BESIDE_HALF_MM = 10.0
SHEET_BESIDE_DEPTH_MM = 14.0
# A piece's colour measuring this much (mm) wider across the lean than a dominus is no
# piece's: of 6,123 pieces on 538 stored conditions frames the widest measured 23.3 in
# a clear view, 26.1 beside an arm; a warm lamp's hot spot on the bare sheet, its core
# read yellow, 27.4 (conditions 99431).
WIDER_THAN_A_DOMINUS_MM = 4.5


@dataclass(frozen=True)
class WorkerRules:
    core_radius_mm: float = 3.5  # the core: within the footprint of either size
    present_min: float = 0.6  # species pixels in the core of an occupied space
    colour_purity: float = 0.85  # share of the leading colour among them
    # A blue or red piece's shaded faces may be too dark for any colour: such pixels count
    # towards presence when its colour still covers this much of the core.
    lit_min: float = 0.35
    # Where a neighbour of another colour leans into the core, its colour is set aside;
    # what remains must be this much of the core to decide from.
    remaining_min: float = 0.4
    # An empty space may show a leaning neighbour's colour in part of its core; a piece of
    # that colour standing there covers more of it (nearly always over half).
    set_aside_empty_max: float = 0.35
    remaining_floor_min: float = 0.7  # ... with this share of floor in what remains
    empty_min: float = 0.7  # neutral pixels in the core of an empty space
    empty_species_max: float = 0.15  # ... and no colour above this share (a neighbour's lean)
    # ... or, with no colour at all in the core and nothing too dark for colour, this much
    # floor (the rest a neighbour's shadow, whose light has its own tint).
    bare_min: float = 0.3
    bare_species_max: float = 0.03
    bare_dark_max: float = 0.05
    # A core this dark all over (a blue or red piece in a dim room, its base in its own
    # shade) is too dark for any pixel's colour, but not for the mean of them all: its
    # chroma (Lab units) and hue (degrees off the printed species' hue) name the piece's
    # colour.  Its size is another matter (its dark faces are no measure of it): the
    # colour serves only to name a vilicus beside its colour's dominus.  No sheet's shadow
    # is that dark, and the sheet keeps its own yellowish hue, so no yellow is named.
    dark_core_min: float = 0.9
    dark_core_chroma_min: float = 6.0
    dark_core_hue_max_deg: float = 25.0
    # Part of a core no neighbour's silhouette can cover: an empty space is decided from
    # it when it is this share of the core and holds this much floor and no colour.
    uncovered_min: float = 0.2
    uncovered_empty_min: float = 0.8
    uncovered_species_max: float = 0.02
    # With no arm in view, a core of no colour (a leaning neighbour's at most, as above)
    # and nothing too dark for colour is bare sheet when its mean colour is the sheet's
    # beside the space, towards the sheet's edge where no piece stands: within this much
    # chroma (Lab units, the classes' own neutral radius) ...
    sheet_match_max: float = NEUTRAL_RADIUS
    # ... (against the sheet's chroma shrunk as a dimmer light shrinks it, where the core
    # is darker) and this share of the sheet's lightness, darker (a shadow the sheet
    # beside escapes: a hard shadow's core measured 0.27 to 0.46 of the lit sheet beside)
    # or brighter: a lamp's tint or a shadow's own light moves both alike.
    sheet_darker_max: float = 0.8
    sheet_brighter_max: float = 0.15
    # ... and only where the sheet beside is no redder than the sheet's own colour by more
    # than this (Lab a units): lamps of any colour temperature, and red clipped in glare,
    # move it along yellow-blue or towards green, while an arm missed over both is skin,
    # redder (8 to 9 on the generated arm it was measured on).
    sheet_redder_max: float = 4.0
    # Decision on log(area / geometric mean of the two expectations).  Segmentation of a
    # piece's edge (blur, soft shadows) moves areas by up to about 20 %, hence the bias
    # and the band of doubt.
    size_bias: float = -0.1
    # The combined evidence (see size_evidence) is decided outside this band around
    # size_centre; wider where a neighbour crowds the piece.
    size_centre: float = 0.15
    size_margin: float = 0.2
    # ... and below it, as far as for a crowded piece: a dominus in a hard shadow loses
    # its darkest faces and looks smaller (three read as vilici at -0.17 to -0.23 over
    # 4,242 pieces of 700 frames), while nothing but a neighbour (crowded) or a lamp's
    # tint (unread) makes a vilicus look larger.
    vilicus_margin: float = 0.45
    crowded_margin: float = 0.45
    # Within the band, evidence this far from its centre still leans to one size.
    size_lean_min: float = 0.1
    # Two touching pieces of one colour, on the scale of their summed area where 0, 1 and
    # 2 are what two vilici, one of each and two domini cover.  Blur and the way pieces
    # overlap spread one of each from about 0 to 2, so the sum alone decides only at the
    # ends; in between, one piece must look this much larger (log area) than the other.
    pair_vv_max: float = -0.1
    pair_dd_min: float = 2.0
    pair_mixed_min: float = 0.4
    pair_split: float = 0.3
    area_span: float = 0.225  # half the log area ratio between the two sizes, roughly
    reach_offset_mm: float = 2.0  # the head's far edge beyond the axis
    reach_spread_mm: float = 0.75  # blur of the reach, added to its scale at no lean
    reach_weight: float = 0.5  # weight of the reach per unit of lean, against the area's 1
    # A piece's top lies its height times the lean beyond its base: a colour reaching
    # this far short of a vilicus's top (reach score, where the two sizes sit at -1 and
    # +1) is a neighbour leaning over the space, not a piece standing in it.  Over 11,638
    # pieces of 1,090 stored frames, leaning at least reach_lean_min, one vilicus scored
    # below (at -3.98, left unread by this pass anyway) and 16 spaces holding none.
    reach_implausible: float = 3.5
    reach_lean_min: float = 0.3
    # Evidence added (score units, where the two sizes sit 2 apart) by a width across the
    # lean as large as a dominus's: no vilicus measures wider than its footprint's diagonal.
    width_weight: float = 1.0
    implausible: float = 0.6  # |log area ratio| beyond which a piece is no piece of either size
    # A frame's own boundary: the middle of a gap of at least cluster_gap between its
    # pieces' scores, no further than boundary_shift from the default.
    cluster_gap: float = 0.2
    boundary_shift: float = 0.15
    # ... and only between clusters whose means lie as far apart as the two sizes do
    # (2 x area_span; 0.49 measured over 9,094 pieces of 728 frames), two thirds of it at
    # least: three vilici of a blurred frame, at -0.57, -0.31 and -0.26, are no two sizes.
    cluster_separation_min: float = 0.3
    # ... and further by this much per unit of the camera height's log uncertainty: an
    # unsure height (a view straight down) makes every expected area unsure alike.
    boundary_shift_per_height_sd: float = 1.0
    # Share of a piece's colour allowed on the bare sheet beside its space, where no piece
    # stands or leans: more is the light's colour (a lamp's tint in a corner), which the
    # piece's own pixels then carry too, so neither its colour nor its size can be told.
    sheet_colour_max: float = 0.1
    # ... unless, with no arm in view, a vilicus's core lies further than this (chroma,
    # Lab units) from that tinted sheet, or differs from its lightness by more than
    # ``sheet_brighter_max``: the light alone (no piece) showed 8.2 from its tint and 3 %
    # darker; the nearest real vilicus, 16.2 and 12 % brighter (conditions sets, 560 frames).
    tint_match_max: float = 12.0
    # Each colour has one dominus: when two pieces of a colour read as dominus, the one
    # whose size score leads the other's by this much keeps it (about the distance
    # between the two sizes' clusters); the others, or all when none leads so, are unread.
    dominus_lead_min: float = 0.5
    # An empty space shows the bare sheet, whose saturation (chroma for L* + 16, both of
    # which a light's strength scales alike) a dimmer or brighter light leaves as it is:
    # a core read empty that is this much more saturated than the sheet beside its space
    # holds a piece after all, in a light that took it into the sheet's class (a yellow in
    # its own shade shares the sheet's hue).  Over 5,939 empty cores of generated and
    # photoreal frames 99.9 % lie within 0.08 of the sheet beside and none beyond 0.15; a
    # yellow vilicus in a warm lamp's shade, read empty, 0.32 above.
    empty_saturation_excess_max: float = 0.25
    # Only cores the classes call the sheet's in part at least are weighed, as much as
    # a core read bare needs (a neighbour's colour leaning into an empty core is set aside
    # by the passes before; conditions 74063: a pale yellow dominus in a dim, blurred frame,
    # its core 57 % the sheet's class and the rest of none, 0.44 above the sheet) ...
    empty_sheet_share_min: float = 0.3
    # ... or whose pixels mostly show no colour, the sheet's class or none (conditions
    # 93325: a pale yellow vilicus in a shadow, its core 71 % of no class and 8 % the
    # sheet's, settled empty by its silhouette, 0.39 above the sheet).  Not a core a
    # neighbour's colour fills: empty spaces a yellow or green piece leaned into, two
    # thirds of their cores its colour, are as saturated (conditions 93142, 93334).
    empty_colourless_share_min: float = 0.5
    # ... and only those at least this saturated need the sheet beside them measured
    # (the printed sheet's is about 0.21; the most saturated empty core seen, 0.36).
    empty_saturation_asked_min: float = 0.3
    # A piece sized while a space beside it, later settled empty, seemed to hold a second
    # piece of its colour is sized again by its silhouette only where the best fit
    # disagrees with at most this share of the pixels judged: a size read from the pixels
    # stands against a loose fit (a blue dominus leaning over the next space fit to 0.03;
    # a yellow vilicus in a hard shadow, whose fit turned it into a dominus, 0.2).
    resize_misfit_max: float = 0.1
    # With no arm in view, an unread space whose core shows no piece's colour (as above)
    # is empty where its printed circle shows this well (see circle_print).  Of 16,481
    # pieces in 1,434 clear stored frames, one left its core without colour (a glare
    # washed yellow vilicus, its circle at 0.17); pieces whose colour shows reached 0.65
    # (yellow vilici leaning away), but those never get here.  Empty spaces left unread
    # by every other test measured 0.51 and 0.63 (a dim corner, a shaded strip).  Cores
    # too dark for colour count too: 39 pieces left so, unread, in 560 clear conditions
    # and 1,140 clear photoreal frames measured 0.25 at most, empty spaces in a person's
    # deep shadow 0.52 to 0.65.
    circle_shown_min: float = 0.5
    # ... or this well where no more than this share of the core is too dark for colour:
    # a colourless core mostly pale (of no class, or the sheet's) is the sheet in a
    # shadow or an odd light, while every piece seen to leave its core without colour
    # left it dark (the 43 such pieces of 780 conditions frames, an 0.82 share at least,
    # their circles at 0.25 at most) or glare washed (its circle at 0.17).  Empty spaces
    # in a hard shadow over a strip, their cores 0.2 to 0.55 dark, showed their circles
    # at 0.38 to 0.49 (conditions 96004).
    pale_core_dark_max: float = 0.6
    pale_core_circle_min: float = 0.3
    # With an arm in view, a space read empty this near its region (mm from the core's
    # centre) stays unread unless its printed circle shows this well: beside the arm's
    # lit flank or in its shade a piece can lose its colour to the sheet's class or to
    # the region's margin, while its base still hides its circle.  Over 456 arm frames of
    # photoreal and conditions sets, the 14 pieces so read empty lay within 36 mm and
    # showed it at 0.13 at most; 3 to 8 % of the empty spaces within 40 mm, under 0.2.
    arm_empty_reach_mm: float = 40.0
    arm_empty_circle_min: float = 0.2
    silhouettes: SilhouetteRules = field(default_factory=SilhouetteRules)


@dataclass(frozen=True)
class WorkerObservation:
    code: str | None  # "Gv", "Rd", "?" or None
    area_mm2: float
    lean: tuple[float, float]  # displacement on the board per mm of height
    size_score: float = 0.0  # < 0 looks like a vilicus, > 0 like a dominus
    reach_mm: float = 0.0  # how far the piece's colour reaches along the lean
    crowded: bool = False
    # Its core read bare but more saturated than the sheet beside it: a piece whose colour
    # the classes took, in part, for the sheet's, so its pixels undercount its size.
    pale: bool = False


class PieceMeasure(NamedTuple):
    """What the pixels of one standing piece show."""

    area_mm2: float
    across_mm: float  # width across the lean
    crowded: bool  # touches a piece of its colour, or partly hidden
    reach_mm: float  # how far its colour reaches along the lean
    hidden: bool  # partly hidden by a piece of another colour nearer the camera


MISSING = PieceMeasure(0.0, 0.0, True, 0.0, True)  # a piece with no pixels of its own


@functools.cache  # asked about a hundred times a frame, of the same 32 spaces
def adjacent(line: int) -> tuple[int, ...]:
    """The worker spaces either side of ``line`` in its own strip (rows or columns)."""
    strip = worker_strip(line)
    return tuple(j for j in (line - 1, line + 1) if j in strip)


def expected_area(piece: PieceSize, lean: float, across_mm: float) -> float:
    """Top-down area (mm²) of a standing piece: its footprint plus the sweep of its height.

    A meeple's side outline (head, arms, legs) fills only part of its bounding rectangle.
    """
    return piece.width_mm * piece.depth_mm + SIDE_FILL * piece.height_mm * lean * across_mm


class CoreReadings(NamedTuple):
    """The first pass over the worker spaces: what each one's core shows."""

    codes: list[str | None]
    leans: list[tuple[float, float]]  # displacement on the board per mm of height
    blocked: list[bool]  # under the arm: not read at all
    fractions: dict[int, NDArray[np.float64]]  # class shares in the core, by space
    centres_px: NDArray[np.float64]  # each core's centre in the view (x, y)


def read_workers(
    classes: NDArray[np.uint8],
    lab: NDArray[np.uint8],
    layout: CanonicalLayout,
    pose: CameraPose,
    rules: WorkerRules,
    background: tuple[float, float, float],
    blocked: NDArray[np.bool_] | None = None,
    shadow: NDArray[np.bool_] | None = None,
    circle_shown: Callable[[int], float] | None = None,
) -> list[WorkerObservation]:
    """One observation per worker space (rows 0-15 then columns 0-15).

    ``background`` is the sheet's colour (8-bit Lab lightness, then a and b about 0): a
    piece's edge is where its colour is half-way between its own and the sheet's, wherever
    blur or compression spread it. ``blocked`` is an arm's region, ``shadow`` a region
    the board's print showed to be a shadow.  The passes, in order: presence and colour from each
    core, unreadable cores judged beside their neighbours, the pixels of each piece
    measured, each piece sized (with no arm in view, one standing apart and far smaller
    than both sizes taken as a vilicus), touching pairs sized together, partly hidden pieces
    checked, unread spaces of the bare sheet's colour or whose printed circle shows
    (``circle_shown``, see :mod:`companion.vision.circle_print`) found empty, what is
    still unread
    settled by predicted silhouettes, pieces sized again with their width once the unsure
    spaces beside them are settled, touching pairs of one colour checked against their
    predicted silhouettes, with an arm in view a dominus beside a space it hides
    doubted, a piece whose core shows the sheet's colour beside it or
    whose colour is the light's doubted, a second dominus of a colour doubted, the other
    unsized pieces of a colour whose dominus is read taken as vilici, an empty core far
    more saturated than the sheet beside it doubted, the pieces doubted again as the
    light's, with an arm in view, empty spaces near it whose circle does not show
    doubted, and last, pieces whose core a dominus on an unread space beside, its core
    dark, would lean over doubted.
    """
    cores = _read_cores(classes, layout, pose, rules, blocked)
    codes = _read_beside_neighbours(cores, classes, layout, pose, rules)
    measures = _measure_pieces(classes, lab, layout, codes, cores.leans, background)
    scores, expected = _size_scores(layout, codes, measures, cores.leans)
    colours = [str(codes[line])[0] for line in scores]
    boundary = frame_boundary(list(scores.values()), rules, pose.height_log_sd, colours)
    out = _size_each_piece(layout, codes, measures, cores.leans, scores, boundary, rules)
    if blocked is None:
        out = _vilici_smaller_than_both(out, codes, scores, boundary, layout, rules)
    out = _size_touching_pairs(out, codes, measures, expected, scores, boundary, rules)
    out = _check_hidden(out, measures, classes, layout, pose, rules)
    if blocked is None:
        out = _empty_like_the_sheet_beside(out, cores, lab, layout, rules, background, shadow)
        if circle_shown is not None:
            out = _empty_where_the_circle_shows(out, cores, rules, circle_shown)
    unsized = {line for line, obs in enumerate(out) if obs.code == "?"}
    out = _settle_unreadable(out, codes, cores, classes, layout, pose, rules)
    out = _size_with_settled_neighbours(out, codes, measures, scores, boundary, layout, rules)
    out = _pairs_by_silhouette(out, measures, classes, layout, pose, rules)

    def doubt_what_the_light_made(pieces: list[WorkerObservation]) -> list[WorkerObservation]:
        pieces = _doubt_pieces_like_the_sheet_beside(pieces, cores, lab, layout, rules)
        arm_in_view = blocked is not None
        return doubt_the_lights_colour(pieces, cores, classes, lab, layout, rules, arm_in_view)

    # A dominus the light made must not doubt the colour's real one (conditions 86018: a
    # lamp's yellow corner read as a dominus that led the real one, then named a vilicus):
    # the light's pieces are doubted first, and again once vilici are named.
    out = _doubt_domini_beside_the_arm(out, cores.blocked)
    out = doubt_what_the_light_made(out)
    out = one_dominus_per_colour(out, rules, unsized)
    named = _with_dark_cores_named(codes, cores, lab, layout, rules)
    out = vilici_beside_the_dominus(out, named, layout.profile.geometry, rules, measures)
    out = _doubt_empty_cores_unlike_the_sheet_beside(out, cores, lab, layout, rules)
    out = doubt_what_the_light_made(out)
    if blocked is not None and circle_shown is not None:
        out = _doubt_empty_beside_the_arm(out, cores, layout, rules, blocked, circle_shown)
    return _doubt_pieces_a_dark_neighbour_may_cover(out, cores, layout.profile.geometry, rules)


def _doubt_pieces_a_dark_neighbour_may_cover(
    out: list[WorkerObservation], cores: CoreReadings, geometry: Geometry, rules: WorkerRules
) -> list[WorkerObservation]:
    """A piece whose core a dominus on an unread space beside it would lean over is
    unread where that space's core is dark, as a piece's shaded faces are (see
    :func:`_settle_unreadable`): the colour may be that dominus's top, the piece beneath
    hidden (conditions 94082: a red dominus in a deep shadow, its core all too dark for
    colour, leaning over a yellow vilicus's core, which read as a red one).  Unread
    spaces whose cores show no darkness, or that an arm hides, are left out: over 900
    conditions frames, the pieces beside them so doubted were all read right."""
    result = list(out)
    for line, obs in enumerate(out):
        if obs.code is None or obs.code == "?":
            continue
        if any(
            out[j].code == "?"
            and _dark_at_base(cores, j, rules)
            and _leans_over_core(out[j].lean, j, line, geometry, rules)
            for j in adjacent(line)
        ):
            result[line] = replace(obs, code="?")
    return result


def _dark_at_base(cores: CoreReadings, line: int, rules: WorkerRules) -> bool:
    """Whether the core of ``line``, read (not under the arm), shows pixels too dark for
    colour: darkness at a space's base is a piece's shaded faces, not bare sheet."""
    shares = cores.fractions.get(line)
    return shares is not None and bool(shares[PixelClass.DARK] > rules.bare_dark_max)


def _doubt_domini_beside_the_arm(
    out: list[WorkerObservation], blocked: list[bool]
) -> list[WorkerObservation]:
    """A piece read as a dominus beside a space the arm hides is unread: what shows of
    that space's piece, or of the arm's shade, joins its pixels and its silhouette's
    disagreement alike, and a vilicus so grown passes for a dominus (conditions 93055,
    93275: a vilicus beside its colour's dominus, half under an arm).  Pixels only add
    there, so a vilicus keeps its reading."""
    result = list(out)
    for line, obs in enumerate(out):
        dominus = obs.code is not None and obs.code.endswith("d")
        if dominus and any(blocked[j] for j in adjacent(line)):
            result[line] = replace(obs, code="?")
    return result


def _doubt_empty_beside_the_arm(
    out: list[WorkerObservation],
    cores: CoreReadings,
    layout: CanonicalLayout,
    rules: WorkerRules,
    blocked: NDArray[np.bool_],
    circle_shown: Callable[[int], float],
) -> list[WorkerObservation]:
    """Last pass with an arm in view: a space read empty near the arm's region is unread
    unless its printed circle shows (see ``WorkerRules.arm_empty_circle_min``).  The
    reading is flagged covered anyway; a piece read as an empty space is not worth the
    spaces it would save."""
    empty = [line for line, obs in enumerate(out) if obs.code is None]
    if not empty:
        return out
    reach_px = rules.arm_empty_reach_mm * layout.px_per_mm
    covered, inside = _discs(blocked.view(np.uint8), cores.centres_px[empty], reach_px)
    near = np.any((covered > 0) & inside, axis=(1, 2))
    result = list(out)
    for line, close in zip(empty, near.tolist(), strict=True):
        if close and circle_shown(line) < rules.arm_empty_circle_min:
            result[line] = replace(out[line], code="?")
    return result


def _empty_like_the_sheet_beside(
    out: list[WorkerObservation],
    cores: CoreReadings,
    lab: NDArray[np.uint8],
    layout: CanonicalLayout,
    rules: WorkerRules,
    background: tuple[float, float, float],
    shadow: NDArray[np.bool_] | None = None,
) -> list[WorkerObservation]:
    """After the sizes: an unread space whose core shows no piece, in a light the classes do not
    know, is empty when it has the colour of the bare sheet beside it.

    A hard shadow's own light, or a second lamp, tints the sheet past the floor's class,
    and the core of an empty space there is all unknown.  The sheet between the space and
    the sheet's edge, where no piece stands, is lit alike.  A piece shows its colour or
    its faces too dark for colour.  Only with no arm in view, and never where the sheet
    beside is redder than the sheet and than the sheet beside its strip at large: an arm
    over both would show its own colour in each, while a lamp tints the whole strip.
    Inside a ``shadow`` (a region through which the board's print was seen), no arm is
    over the space, and the redder sheet is the shadow's own light.
    ``background`` is the sheet's colour (8-bit Lab lightness, a and b about 0).
    """
    result = list(out)
    lines = _unread_showing_no_piece(out, cores, rules)
    if not lines:
        return result
    strip_redness: dict[range, float] = {}

    def redder_than_its_strip(line: int, a: float) -> bool:
        """Whether the sheet beside ``line`` (chroma a) is redder than the sheet beside
        its strip as a whole: a lamp's warm light tints the whole strip, an arm only the
        few spaces it reaches over (conditions 83191: a warm lamp from the far side left
        the balanced sheet 6 redder all along the strip, and two empty spaces unread)."""
        strip = worker_strip(line)
        if strip not in strip_redness:
            sheets = [m for m in _sheet_beside_medians(lab, layout, list(strip)) if m]
            strip_redness[strip] = float(np.median([m[1] for m in sheets])) if sheets else 0.0
        return a > strip_redness[strip] + rules.sheet_redder_max

    for line, core, (lightness, a, b) in _cores_and_sheets_beside(lab, cores, layout, rules, lines):
        centre = cores.centres_px[line]
        shaded = shadow is not None and bool(shadow[round(centre[1]), round(centre[0])])
        redder = a - 128.0 > background[1] + rules.sheet_redder_max
        if redder and not shaded and redder_than_its_strip(line, a):
            continue
        step = (core[0] - lightness) / max(lightness, 1.0)
        # A shadow's dimmer light shrinks the sheet's chroma as it does L* + 16.
        dimmer = min(lab_scale(core[0]) / lab_scale(lightness), 1.0)
        if (
            math.hypot(
                core[1] - 128.0 - (a - 128.0) * dimmer, core[2] - 128.0 - (b - 128.0) * dimmer
            )
            <= rules.sheet_match_max
            and -rules.sheet_darker_max <= step <= rules.sheet_brighter_max
        ):
            result[line] = replace(out[line], code=None)
    return result


def _empty_where_the_circle_shows(
    out: list[WorkerObservation],
    cores: CoreReadings,
    rules: WorkerRules,
    circle_shown: Callable[[int], float],
) -> list[WorkerObservation]:
    """An unread space whose core shows no piece's colour is empty where its printed
    circle shows all round: a standing piece hides part of it under its base (see
    :mod:`companion.vision.circle_print`).  So even where the core is too dark for
    colour, as a piece's shaded faces are and as a person's deep shadow leaves the bare
    sheet (conditions 86257: four empty spaces so, their circles at 0.52 to 0.65).  A
    core mostly pale rather than dark is the sheet's, not a piece's faces, and is asked
    less of its circle (``WorkerRules.pale_core_circle_min``).  With no arm in view."""
    result = list(out)
    for line in _unread_showing_no_colour(out, cores, rules):
        pale = cores.fractions[line][PixelClass.DARK] <= rules.pale_core_dark_max
        bar = rules.pale_core_circle_min if pale else rules.circle_shown_min
        if circle_shown(line) >= bar:
            result[line] = replace(out[line], code=None)
    return result


def _unread_showing_no_colour(
    out: list[WorkerObservation], cores: CoreReadings, rules: WorkerRules
) -> list[int]:
    """The unread spaces whose core shows no colour beyond a neighbour's lean."""
    return [
        line
        for line, obs in enumerate(out)
        if obs.code == "?"
        and line in cores.fractions
        and cores.fractions[line][PixelClass.B : PixelClass.R + 1].sum() <= rules.empty_species_max
    ]


def _unread_showing_no_piece(
    out: list[WorkerObservation], cores: CoreReadings, rules: WorkerRules
) -> list[int]:
    """The unread spaces whose core shows no piece: no colour beyond a neighbour's lean,
    and nothing too dark for colour (a piece's shaded faces)."""
    return [
        line
        for line in _unread_showing_no_colour(out, cores, rules)
        if not _dark_at_base(cores, line, rules)
    ]


def _doubt_pieces_like_the_sheet_beside(
    out: list[WorkerObservation],
    cores: CoreReadings,
    lab: NDArray[np.uint8],
    layout: CanonicalLayout,
    rules: WorkerRules,
) -> list[WorkerObservation]:
    """A piece whose core shows the colour of the bare sheet beside its space, as bright,
    is unread: a lamp's hot spot can tip the sheet over a tile class's edge inside a
    printed circle (its ring darkens the core a little), where a piece shows its own
    ink."""
    result = list(out)
    lines = [line for line, obs in enumerate(out) if obs.code not in (None, "?")]
    if not lines:
        return result
    for line, core, (lightness, a, b) in _cores_and_sheets_beside(lab, cores, layout, rules, lines):
        step = (core[0] - lightness) / max(lightness, 1.0)
        if (
            math.hypot(core[1] - a, core[2] - b) <= rules.sheet_match_max
            and -rules.sheet_brighter_max <= step <= rules.sheet_brighter_max
        ):
            result[line] = replace(out[line], code="?")
    return result


def _saturation(lab: NDArray[np.float64]) -> NDArray[np.float64]:
    """Chroma for ``L* + 16`` (8-bit Lab, n x 3): a light's strength scales both alike
    (see :func:`~companion.vision.colour.lab_scale`), so their ratio is the surface's."""
    chroma = np.hypot(lab[:, 1] - 128.0, lab[:, 2] - 128.0)
    return np.asarray(chroma / lab_scale(lab[:, 0]), np.float64)


def _doubt_empty_cores_unlike_the_sheet_beside(
    out: list[WorkerObservation],
    cores: CoreReadings,
    lab: NDArray[np.uint8],
    layout: CanonicalLayout,
    rules: WorkerRules,
) -> list[WorkerObservation]:
    """An empty space whose core the classes call the sheet's, but far more saturated
    than the bare sheet beside the space, is unread: empty needs the sheet as this frame
    shows it there, and a piece in a light the classes do not know can take its core
    into the sheet's class (a yellow's hue is the sheet's own).  Not a core a dominus
    read beside it leans over: the colour there may be that dominus's."""
    result = list(out)
    geometry = layout.profile.geometry
    lines = [
        line
        for line, obs in enumerate(out)
        if obs.code is None
        and line in cores.fractions
        and _sheet_like(cores.fractions[line], rules)
        and not _a_dominus_leans_over(out, line, geometry, rules)
    ]
    if not lines:
        return result
    saturation = _saturation(_core_means(lab, cores, layout, rules, lines))
    asked = np.flatnonzero(saturation >= rules.empty_saturation_asked_min)
    if not len(asked):
        return result  # most frames: every empty core is as pale as the sheet
    sheets = _sheet_beside_medians(lab, layout, [lines[k] for k in asked])
    for k, sheet in zip(asked.tolist(), sheets, strict=True):
        if sheet is None:
            continue  # no bare sheet shows beside the space
        excess = saturation[k] - _saturation(np.array([sheet]))[0]
        if excess >= rules.empty_saturation_excess_max:
            result[lines[k]] = replace(out[lines[k]], code="?", pale=True)
    return result


def _a_dominus_leans_over(
    out: list[WorkerObservation],
    line: int,
    geometry: Geometry,
    rules: WorkerRules,
    colour: str | None = None,
) -> bool:
    """Whether a dominus read on a space beside ``line`` (of ``colour``, or any) can
    cover part of its core."""
    return any(
        (code := out[other].code) is not None
        and code.endswith("d")
        and (colour is None or code[0] == colour)
        and _leans_over_core(out[other].lean, other, line, geometry, rules)
        for other in adjacent(line)
    )


def _sheet_like(fractions: NDArray[np.float64], rules: WorkerRules) -> bool:
    """Whether a core's pixels (class shares) are the sheet's in part, or mostly of no
    colour at all: a core read bare might show either."""
    sheet = float(fractions[PixelClass.NEUTRAL])
    colourless = sheet + float(fractions[PixelClass.UNKNOWN])
    return sheet >= rules.empty_sheet_share_min or colourless >= rules.empty_colourless_share_min


def _cores_and_sheets_beside(
    lab: NDArray[np.uint8],
    cores: CoreReadings,
    layout: CanonicalLayout,
    rules: WorkerRules,
    lines: list[int],
) -> list[tuple[int, NDArray[np.float64], tuple[float, float, float]]]:
    """For each of ``lines`` beside which bare sheet shows: the line, the mean colour of
    its core (Lab) and the median colour of that sheet (see :func:`_sheet_beside`), all
    measured at once."""
    cores_lab = _core_means(lab, cores, layout, rules, lines)
    sheets = _sheet_beside_medians(lab, layout, lines)
    return [
        (line, cores_lab[k], sheet)
        for k, (line, sheet) in enumerate(zip(lines, sheets, strict=True))
        if sheet is not None
    ]


def _core_means(
    lab: NDArray[np.uint8],
    cores: CoreReadings,
    layout: CanonicalLayout,
    rules: WorkerRules,
    lines: list[int],
) -> NDArray[np.float64]:
    """The mean colour (Lab) of each of ``lines``' cores, all measured at once."""
    pixels, inside = _discs(lab, cores.centres_px[lines], rules.core_radius_mm * layout.px_per_mm)
    counts = np.maximum(inside.sum(axis=(1, 2)), 1)[:, None]
    return np.asarray((pixels * inside[..., None]).sum(axis=(1, 2)) / counts, np.float64)


def _sheet_beside_medians(
    lab: NDArray[np.uint8], layout: CanonicalLayout, lines: list[int]
) -> list[tuple[float, float, float] | None]:
    """The median colour of the bare sheet beside each of ``lines`` (see
    :func:`_sheet_beside`), ``None`` where none shows: one histogram pass for all, over
    pixels gathered at once (their places are the same every frame)."""
    chunks: list[NDArray[np.intp]] = []
    groups: list[NDArray[np.intp]] = []
    for k, line in enumerate(lines):
        sheet = layout.outer_pixels(*_sheet_beside(layout, line))
        chunks.append(sheet)
        groups.append(np.full(len(sheet), k, dtype=np.intp))
    pixels = np.take(lab.reshape(-1, 3), np.concatenate(chunks), axis=0)
    medians = grouped_medians(pixels, np.concatenate(groups), len(lines))
    return [
        (float(m[0]), float(m[1]), float(m[2])) if len(chunk) else None
        for m, chunk in zip(medians, chunks, strict=True)
    ]


def _pairs_by_silhouette(
    out: list[WorkerObservation],
    measures: dict[int, PieceMeasure],
    classes: NDArray[np.uint8],
    layout: CanonicalLayout,
    pose: CameraPose,
    rules: WorkerRules,
) -> list[WorkerObservation]:
    """Two touching pieces of one colour whose sizes their predicted silhouettes clearly
    contradict take the sizes the silhouettes show instead.

    Between two pieces of one colour the share of pixels is a guess, and a wrong guess
    swaps their sizes or hides the dominus; the pair's silhouettes judged together do not
    share pixels, the nearer piece covering the other's foot.  Only sizes that leave the
    colour one dominus are weighed (none where its dominus is read elsewhere), and they
    must win by the margin that settles an unread space.
    """
    result = list(out)
    for line in range(LINES - 1):
        other = line + 1
        first, second = result[line].code, result[other].code
        if other not in adjacent(line) or not first or not second or "?" in (first, second):
            continue
        colour = first[0]
        a, b = measures.get(line, MISSING), measures.get(other, MISSING)
        if second[0] != colour or not (a.crowded and b.crowded) or a.hidden or b.hidden:
            continue  # not a pair that only touches, or one partly hidden by another colour
        if any(obs.code == colour + "d" for j, obs in enumerate(result) if j not in (line, other)):
            continue  # its dominus stands elsewhere: one_dominus_per_colour settles it
        allowed = ("vv", "vd", "dv")  # a colour has one dominus
        read = first[1] + second[1]
        codes: list[str | None] = [obs.code for obs in result]
        codes[line] = codes[other] = colour
        costs = rank_pair(classes, codes, layout, pose, line, rules.silhouettes)
        best, runner = sorted(allowed, key=lambda sizes: costs[sizes][0])[:2]
        if best == read:
            continue
        # Sizes read are changed only against their own fit; two domini, against the
        # next best sizes the colour allows.
        rival = read if read in allowed else runner
        ranked: list[tuple[str | None, float, float]] = [
            (best, *costs[best]),
            (rival, *costs[rival]),
        ]
        if decide(ranked, layout.px_per_mm, rules.silhouettes):
            result[line] = replace(result[line], code=colour + best[0])
            result[other] = replace(result[other], code=colour + best[1])
    return result


def one_dominus_per_colour(
    out: list[WorkerObservation], rules: WorkerRules, unsized: Collection[int] = ()
) -> list[WorkerObservation]:
    """A colour read as dominus on two spaces is wrong on one of them at least: the piece
    that looks clearly the larger keeps the reading, the others are doubted.

    A space in ``unsized`` was read by its predicted silhouette, not by the size of its
    pixels: its score says nothing against another piece's, and every dominus of its
    colour is doubted (conditions 77696: a yellow vilicus crowded by the dominus beside
    it, whose space was left unread, measured as large as a dominus and kept the reading
    against the silhouette that named its neighbour).  But one dominus sized from its own
    pixels that no neighbour crowds keeps its reading against those its colour's
    silhouettes named, which are doubted: alone, its pixels are all its own (conditions
    88313: three yellow vilici near the size boundary, each named a dominus by its
    silhouette, had the one dominus read clearly so doubted with them).
    """
    checked = list(out)
    for colour in "BGYR":
        domini = [line for line, obs in enumerate(out) if obs.code == colour + "d"]
        if len(domini) < 2:
            continue
        sized = [line for line in domini if line not in unsized]
        ranked = sorted(domini, key=lambda line: -out[line].size_score)
        lead = out[ranked[0]].size_score - out[ranked[1]].size_score
        if len(sized) == 1 and not out[sized[0]].crowded:
            doubted = [line for line in domini if line != sized[0]]
        elif len(sized) == len(domini) and lead >= rules.dominus_lead_min:
            doubted = ranked[1:]
        else:
            doubted = ranked
        for line in doubted:
            checked[line] = replace(out[line], code="?")
    return checked


def no_second_dominus(workers: list[WorkerObservation], relit: set[int]) -> list[WorkerObservation]:
    """``workers``, where a dominus read on a ``relit`` space (its shadow lifted) meets
    another of its colour: each colour has one (see :func:`one_dominus_per_colour`), and
    sizes read under two lights do not say which is the larger, so every dominus of that
    colour is unread."""
    out = list(workers)
    for colour in "BGYR":
        domini = [line for line, obs in enumerate(workers) if obs.code == colour + "d"]
        if len(domini) > 1 and relit.intersection(domini):
            for line in domini:
                out[line] = replace(out[line], code="?")
    return out


def _with_dark_cores_named(
    codes: list[str | None],
    cores: CoreReadings,
    lab: NDArray[np.uint8],
    layout: CanonicalLayout,
    rules: WorkerRules,
) -> list[str | None]:
    """``codes``, where an unread core too dark for any pixel's colour has the colour its
    mean chroma names (see ``WorkerRules.dark_core_min``)."""
    dark = [
        line
        for line, code in enumerate(codes)
        if code == "?"
        and line in cores.fractions
        and cores.fractions[line][PixelClass.DARK] >= rules.dark_core_min
    ]
    if not dark:
        return codes
    s = layout.px_per_mm
    pixels, inside = _discs(lab, cores.centres_px[dark], rules.core_radius_mm * s)
    means = [core[within][:, 1:].mean(axis=0) for core, within in zip(pixels, inside, strict=True)]
    chroma = np.array(means, np.float64) - 128.0
    printed = ColourModel.from_profile(layout.profile).species_hues_deg()
    inks = dark_inks_named(chroma, printed, rules.dark_core_chroma_min, rules.dark_core_hue_max_deg)
    named = list(codes)
    for line, ink in zip(dark, inks, strict=True):
        if ink is not None:
            named[line] = ink
    return named


def vilici_beside_the_dominus(
    out: list[WorkerObservation],
    codes: list[str | None],
    geometry: Geometry,
    rules: WorkerRules,
    measures: Mapping[int, PieceMeasure] | None = None,
) -> list[WorkerObservation]:
    """Each colour has one dominus: once it is read on one space, a piece of that colour
    whose size is still unsure elsewhere is a vilicus.  ``codes`` hold each space's
    colour as its core showed it (:func:`_read_beside_neighbours`).  Not where that
    dominus leans over the space's core: its own colour shows there (conditions 84009: a
    blue dominus over a green vilicus, read as a blue one).  Nor where the colour
    ``measures`` wider than any piece (``WIDER_THAN_A_DOMINUS_MM``): no piece stands
    there to be a vilicus."""
    domini = {obs.code[0] for obs in out if obs.code is not None and obs.code.endswith("d")}
    widest = geometry.dominus.width_mm + WIDER_THAN_A_DOMINUS_MM
    result = list(out)
    for line, obs in enumerate(out):
        seen = codes[line]
        if obs.code != "?" or seen is None or seen == "?" or seen[0] not in domini:
            continue
        if measures is not None and measures.get(line, MISSING).across_mm > widest:
            continue
        if _a_dominus_leans_over(out, line, geometry, rules, seen[0]):
            continue
        result[line] = replace(obs, code=seen[0] + "v")
    return result


def _leans_over_core(
    lean: tuple[float, float], line: int, other: int, geometry: Geometry, rules: WorkerRules
) -> bool:
    """Whether a dominus standing on ``line`` with ``lean`` can cover part of the core of
    the space ``other``: its top, shifted along the lean, plus half its width reaches past
    the core's near edge."""
    x0, y0 = geometry.worker_space_centre_mm(line)
    x1, y1 = geometry.worker_space_centre_mm(other)
    distance = math.hypot(x1 - x0, y1 - y0)
    towards = (lean[0] * (x1 - x0) + lean[1] * (y1 - y0)) / max(distance, 1e-9)
    piece = geometry.dominus
    reach = towards * piece.height_mm + piece.width_mm / 2
    return reach >= distance - rules.core_radius_mm


def doubt_the_lights_colour(
    out: list[WorkerObservation],
    cores: CoreReadings,
    classes: NDArray[np.uint8],
    lab: NDArray[np.uint8],
    layout: CanonicalLayout,
    rules: WorkerRules,
    arm_in_view: bool,
) -> list[WorkerObservation]:
    """Last pass: a piece whose colour also shows on the bare sheet beside its space (a
    lamp's tinted corner) is unread where the tint can have made it: its core shows the
    tinted sheet itself (the light, no piece), or it reads as a dominus (the tint's pixels
    beside a vilicus make it look larger).  With an arm in view every such piece is
    unread: a hand search may take a lamp's tinted corner for an arm, and a piece beside
    an arm is not worth a guess."""
    result = list(out)
    tints: dict[int, NDArray[np.float64]] = {}
    for line, obs in enumerate(out):
        if obs.code is None or obs.code == "?":
            continue
        rows, cols = _sheet_beside(layout, line)
        bare = layout.outer_mask[rows, cols]
        own = classes[rows, cols][bare] == PixelClass[obs.code[0]]
        if not own.size or np.count_nonzero(own) / own.size <= rules.sheet_colour_max:
            continue
        if arm_in_view or obs.code.endswith("d"):
            result[line] = replace(obs, code="?")
        else:
            tints[line] = np.asarray(lab[rows, cols][bare][own].mean(axis=0), np.float64)
    if not tints:
        return result
    lines = list(tints)
    for line, core in zip(lines, _core_means(lab, cores, layout, rules, lines), strict=True):
        tint = tints[line]
        step = (core[0] - tint[0]) / max(tint[0], 1.0)
        if (
            math.hypot(core[1] - tint[1], core[2] - tint[2]) <= rules.tint_match_max
            and abs(step) <= rules.sheet_brighter_max
        ):
            result[line] = replace(out[line], code="?")
    return result


def _sheet_beside(layout: CanonicalLayout, line: int) -> tuple[slice, slice]:
    """The sheet between a worker space and the sheet's edge, one space wide (rows and
    columns of the canonical view)."""
    s = layout.px_per_mm
    x, y = layout.profile.geometry.worker_space_centre_mm(line)
    middle = y if line < GRID else x
    along = slice(
        max(round((middle - SHEET_BESIDE_HALF_MM) * s), 0),
        round((middle + SHEET_BESIDE_HALF_MM) * s),
    )
    across = slice(0, round(SHEET_BESIDE_DEPTH_MM * s))
    return (along, across) if line < GRID else (across, along)


def core_centre_mm(layout: CanonicalLayout, pose: CameraPose, line: int) -> tuple[float, float]:
    """The centre of a space's core: a little along the lean from the space's centre."""
    cx, cy = layout.profile.geometry.worker_space_centre_mm(line)
    unit = pose.lean((cx, cy), 1.0)
    return (cx + unit[0] * CORE_LEAN_OFFSET_MM, cy + unit[1] * CORE_LEAN_OFFSET_MM)


def _read_cores(
    classes: NDArray[np.uint8],
    layout: CanonicalLayout,
    pose: CameraPose,
    rules: WorkerRules,
    blocked: NDArray[np.bool_] | None,
) -> CoreReadings:
    """Pass 1: empty, a colour or ``?`` from each space's core alone (``?`` under the arm)."""
    g = layout.profile.geometry
    s = layout.px_per_mm
    centres = np.array([core_centre_mm(layout, pose, line) for line in range(LINES)]) * s
    readings = CoreReadings([], [], [False] * LINES, {}, centres)
    under_arm = np.zeros(LINES, dtype=bool)
    if blocked is not None:
        reach_px = (rules.core_radius_mm + BLOCKED_MARGIN_MM) * s
        covered, inside = _discs(blocked.view(np.uint8), centres, reach_px)
        under_arm = np.any((covered > 0) & inside, axis=(1, 2))
    seen, inside = _discs(classes, centres, rules.core_radius_mm * s)
    keys = np.arange(LINES)[:, None, None] * len(PixelClass) + seen
    counts = np.bincount(keys[inside], minlength=LINES * len(PixelClass))
    counts = counts.reshape(LINES, len(PixelClass)).astype(np.float64)
    # Every core's shares in one division (by the same per-core total as one by one).
    shares = counts / np.maximum(counts.sum(axis=1, keepdims=True), 1.0)
    for line in range(LINES):
        readings.leans.append(pose.lean(g.worker_space_centre_mm(line), 1.0))
        if under_arm[line]:
            readings.codes.append("?")
            readings.blocked[line] = True
            continue
        readings.fractions[line] = shares[line]
        readings.codes.append(core_code(shares[line], rules))
    return readings


def _discs(
    image: NDArray[np.uint8], centres_px: NDArray[np.float64], radius_px: float
) -> tuple[NDArray[np.uint8], NDArray[np.bool_]]:
    """The pixels of ``image`` around each centre (n x w x w) and which lie within
    ``radius_px`` of it: every space's core in one pass."""
    height, width = image.shape[:2]
    x, y = centres_px[:, 0], centres_px[:, 1]
    x0 = np.maximum(np.trunc(x - radius_px).astype(np.int64), 0)
    y0 = np.maximum(np.trunc(y - radius_px).astype(np.int64), 0)
    x1 = np.minimum(np.trunc(x + radius_px).astype(np.int64) + 1, width)
    y1 = np.minimum(np.trunc(y + radius_px).astype(np.int64) + 1, height)
    span = np.arange(int(2 * radius_px) + 2)
    xs, ys = x0[:, None] + span, y0[:, None] + span  # n x w each
    dx2 = np.where(xs < x1[:, None], (xs - x[:, None]) ** 2, np.inf)
    dy2 = np.where(ys < y1[:, None], (ys - y[:, None]) ** 2, np.inf)
    inside = dx2[:, None, :] + dy2[:, :, None] <= radius_px * radius_px
    rows = np.minimum(ys, height - 1)[:, :, None]
    cols = np.minimum(xs, width - 1)[:, None, :]
    return image[rows, cols], inside


def _read_beside_neighbours(
    cores: CoreReadings,
    classes: NDArray[np.uint8],
    layout: CanonicalLayout,
    pose: CameraPose,
    rules: WorkerRules,
) -> list[str | None]:
    """Pass 2: an unreadable core judged again knowing what stands next to it."""
    first = cores.codes  # neighbours as first read, whatever this pass decides
    codes = list(first)
    for line, code in enumerate(first):
        if code != "?" or cores.blocked[line]:
            continue
        around = [first[j] for j in adjacent(line)]
        beside = {str(code) for code in around if code is not None}
        if _empty_beside_neighbours(classes, layout, pose, rules, first, line):
            codes[line] = None
        elif beside and "?" not in beside:
            # Only when every neighbour is known: an unreadable one may be of any colour.
            codes[line] = colour_beside(cores.fractions[line], beside, rules)
    return codes


def _size_scores(
    layout: CanonicalLayout,
    codes: list[str | None],
    measures: dict[int, PieceMeasure],
    leans: list[tuple[float, float]],
) -> tuple[dict[int, float], dict[int, tuple[float, float]]]:
    """Pass 4: each standing piece's log area against the geometric mean of what a vilicus
    and a dominus would cover, and those two expected areas (mm²)."""
    g = layout.profile.geometry
    scores: dict[int, float] = {}
    expected: dict[int, tuple[float, float]] = {}
    for line, code in enumerate(codes):
        if code is None or code == "?":
            continue
        area, across, _, _, _ = measures.get(line, MISSING)
        lean = math.hypot(*leans[line])
        v_area = expected_area(g.vilicus, lean, across)
        d_area = expected_area(g.dominus, lean, across)
        expected[line] = (v_area, d_area)
        scores[line] = math.log(max(area, 1.0)) - 0.5 * (math.log(v_area) + math.log(d_area))
    return scores, expected


def _size_each_piece(
    layout: CanonicalLayout,
    codes: list[str | None],
    measures: dict[int, PieceMeasure],
    leans: list[tuple[float, float]],
    scores: dict[int, float],
    boundary: float,
    rules: WorkerRules,
) -> list[WorkerObservation]:
    """Pass 5: vilicus, dominus or unsure for each piece from its own area and reach."""
    g = layout.profile.geometry
    out: list[WorkerObservation] = []
    for line, code in enumerate(codes):
        if code is None or code == "?":
            out.append(WorkerObservation(code, 0.0, leans[line]))
            continue
        area, across, touching, reach, _ = measures.get(line, MISSING)
        area_score = scores[line] - boundary
        lean = math.hypot(*leans[line])
        score = size_evidence(area_score, reach, lean, g.vilicus, g.dominus, rules)
        if all(codes[j] not in (code, "?") for j in adjacent(line)):
            # Only a piece standing apart shows its own width: a piece of its colour (or
            # one whose colour is unsure) beside it widens it, touching or not.
            width = width_evidence(across, g.vilicus, g.dominus, layout.px_per_mm)
            score += rules.width_weight * width
        size = _size_from(score, area_score, touching, rules)
        if _short_of_any_top(reach, lean, g, rules):
            size = None  # no piece's top: a neighbour's lean
        out.append(
            WorkerObservation(
                code + size if size else "?", area, leans[line], score, reach, touching
            )
        )
    return out


def _vilici_smaller_than_both(
    out: list[WorkerObservation],
    codes: list[str | None],
    scores: dict[int, float],
    boundary: float,
    layout: CanonicalLayout,
    rules: WorkerRules,
) -> list[WorkerObservation]:
    """Pass 5b, with no arm in view: a piece left unsized because it shows far less of its
    colour than either size covers, standing apart (no piece of its colour and no unread
    space beside it, nothing crowding or hiding it), is a vilicus.

    Far smaller than both sizes means a neighbour's lean or two pieces merged, neither of
    which a piece standing apart can be; what takes area off such a piece is its own
    shade or blur, and a dominus so darkened still measured far above this (see
    ``vilicus_margin``).  The silhouettes need not settle it: at a few pixels a millimetre
    both sizes of a dark piece fit them alike (conditions 100444: a blue vilicus at -0.61,
    its two sizes 1.8 mm² apart)."""
    g = layout.profile.geometry
    result = list(out)
    for line, obs in enumerate(out):
        code = codes[line]
        if obs.code != "?" or code not in tuple(SPECIES_ORDER) or obs.crowded:
            continue
        small = scores[line] - boundary < -rules.implausible
        below = obs.size_score < rules.size_centre - rules.vilicus_margin
        reached = not _short_of_any_top(obs.reach_mm, math.hypot(*obs.lean), g, rules)
        if small and below and reached and _stands_alone(codes, line):
            result[line] = replace(obs, code=code + "v")
    return result


def _size_from(score: float, area_score: float, touching: bool, rules: WorkerRules) -> str | None:
    """``"v"``, ``"d"`` or ``None`` (unsure) from a piece's size evidence."""
    above = rules.crowded_margin if touching else rules.size_margin
    below = rules.crowded_margin if touching else rules.vilicus_margin
    if abs(area_score) > rules.implausible:
        # Far smaller or larger than either piece: a neighbour leaning over this space,
        # or two pieces merged.
        return None
    if score < rules.size_centre - below:
        return "v"
    if score > rules.size_centre + above:
        return "d"
    return None


def _size_with_settled_neighbours(
    out: list[WorkerObservation],
    codes: list[str | None],
    measures: dict[int, PieceMeasure],
    scores: dict[int, float],
    boundary: float,
    layout: CanonicalLayout,
    rules: WorkerRules,
) -> list[WorkerObservation]:
    """After the silhouettes: a piece standing apart whose width did not count while a
    space beside it was unread (see :func:`_size_each_piece`) is sized again with it, once
    no space beside it is unread or holds a piece of its colour."""
    g = layout.profile.geometry
    result = list(out)
    for line, obs in enumerate(out):
        code = codes[line]
        if code is None or code == "?" or obs.crowded or line not in scores:
            continue
        beside = adjacent(line)
        if all(codes[j] != "?" for j in beside):
            continue  # the width counted, or a piece of its colour stands beside it
        now = [out[j].code for j in beside]
        if any(c is not None and (c == "?" or c[0] == code) for c in now):
            continue
        across = measures.get(line, MISSING).across_mm
        width = width_evidence(across, g.vilicus, g.dominus, layout.px_per_mm)
        score = obs.size_score + rules.width_weight * width
        size = _size_from(score, scores[line] - boundary, obs.crowded, rules)
        if obs.code in (code + "v", "?") and size is not None:
            result[line] = replace(obs, code=code + size, size_score=score)
    return result


def _size_touching_pairs(
    out: list[WorkerObservation],
    codes: list[str | None],
    measures: dict[int, PieceMeasure],
    expected: dict[int, tuple[float, float]],
    scores: dict[int, float],
    boundary: float,
    rules: WorkerRules,
) -> list[WorkerObservation]:
    """Pass 6: pieces left unsized beside one of their colour, sized as a pair."""
    sized = list(out)
    for first_line, sizes in pair_sizes(codes, measures, expected, scores, boundary, rules):
        for line, size in zip((first_line, first_line + 1), sizes, strict=True):
            if sized[line].code == "?":
                sized[line] = replace(sized[line], code=str(codes[line]) + size)
    return sized


def _check_hidden(
    out: list[WorkerObservation],
    measures: dict[int, PieceMeasure],
    classes: NDArray[np.uint8],
    layout: CanonicalLayout,
    pose: CameraPose,
    rules: WorkerRules,
) -> list[WorkerObservation]:
    """Sizes of partly hidden pieces checked against their predicted silhouettes.

    A piece partly behind a neighbour of another colour shows less of its colour than it
    covers, so its measured area may pass for the smaller size; the prediction knows
    which part the neighbour hides.  A size it clearly contradicts is replaced by its
    answer.  Hiding only takes pixels away, so only a piece read as a vilicus is checked.
    """
    current = [o.code for o in out]
    checked = list(out)
    for line, obs in enumerate(out):
        code = obs.code
        if code is None or code[1:] != "v" or not measures.get(line, MISSING).hidden:
            continue
        codes = [*current[:line], code[0], *current[line + 1 :]]
        ranked = rank(classes, codes, layout, pose, line, rules.silhouettes)
        answer = decide(ranked, layout.px_per_mm, rules.silhouettes)
        if answer is not False and answer != code:
            checked[line] = replace(obs, code=answer)
            current[line] = answer
    return checked


def _settle_unreadable(
    out: list[WorkerObservation],
    codes: list[str | None],
    cores: CoreReadings,
    classes: NDArray[np.uint8],
    layout: CanonicalLayout,
    pose: CameraPose,
    rules: WorkerRules,
) -> list[WorkerObservation]:
    """Unreadable spaces settled by predicting every piece's silhouette (see
    :mod:`companion.vision.silhouettes`); each space settled joins the readings the
    others are judged with.  A core with pixels too dark for colour is never settled
    empty: darkness at a space's base is a piece's shaded faces, not bare sheet."""
    blocked_lines = cores.blocked
    current = [o.code if o.code != "?" else codes[i] for i, o in enumerate(out)]
    settled = list(out)
    waiting = [line for line, obs in enumerate(out) if obs.code == "?" and not blocked_lines[line]]
    while waiting:
        line = waiting.pop(0)
        ranked = rank(
            classes, _colour_in_doubt(current, line), layout, pose, line, rules.silhouettes
        )
        shown = current[line]  # the colour its core showed, if any
        favoured = _size_leaning(settled[line], shown, _stands_alone(current, line), rules)
        firm = not settled[line].crowded  # its pixels all its own
        answer = decide(ranked, layout.px_per_mm, rules.silhouettes, favoured, firm)
        if answer is False or (answer is None and _dark_at_base(cores, line, rules)):
            continue
        settled[line] = replace(settled[line], code=answer)
        current[line] = answer
        if answer is None and shown is not None and len(shown) == 1:
            settled, current = _resize_beside_emptied(
                settled, current, classes, layout, pose, line, shown, blocked_lines, rules
            )
        # A space is judged with the readings up to two spaces away: those still unread
        # there are judged again.
        strip = worker_strip(line)
        for j in range(line - 2, line + 3):
            unread = j in strip and settled[j].code == "?" and not blocked_lines[j]
            if unread and j not in waiting:
                waiting.append(j)
    return settled


def _resize_beside_emptied(
    settled: list[WorkerObservation],
    current: list[str | None],
    classes: NDArray[np.uint8],
    layout: CanonicalLayout,
    pose: CameraPose,
    line: int,
    shown: str,
    blocked: list[bool],
    rules: WorkerRules,
) -> tuple[list[WorkerObservation], list[str | None]]:
    """A piece beside ``line``, just settled empty, of the colour that space's core
    ``shown``: the two were measured as touching pieces, sharing the piece's pixels
    between them, so its size is judged again by the silhouettes with the space beside it
    empty (a dominus leaning over the next space read as a vilicus and a second piece)."""
    for j in adjacent(line):
        code = current[j]
        if code is None or len(code) != 2 or code[0] != shown or blocked[j]:
            continue
        codes = [shown if k == j else c for k, c in enumerate(current)]
        ranked = rank(classes, codes, layout, pose, j, rules.silhouettes)
        answer = decide(ranked, layout.px_per_mm, rules.silhouettes)
        _, misfit, judged = ranked[0]
        if misfit > rules.resize_misfit_max * max(judged, 1.0):
            continue  # the size read from the piece's pixels stands against a loose fit
        if isinstance(answer, str) and answer[0] == shown and answer != code:
            settled, current = list(settled), list(current)
            settled[j], current[j] = replace(settled[j], code=answer), answer
    return settled, current


def _colour_in_doubt(codes: list[str | None], line: int) -> list[str | None]:
    """``codes``, with the colour of ``line`` left open (``?``) when a piece of that colour
    stands next to it: its core's colour may be that neighbour's, leaning over the space,
    and the silhouettes are to weigh every colour.  That neighbour's size is left open
    too: it was measured sharing its pixels with this space, which its lean may fill."""
    mine = codes[line]
    if mine is None or len(mine) != 1:
        return codes
    beside = [j for j in adjacent(line) if codes[j] is not None and str(codes[j])[0] == mine]
    if not beside:
        return codes
    opened = [mine if j in beside else c for j, c in enumerate(codes)]
    return [*opened[:line], "?", *opened[line + 1 :]]


def _stands_alone(codes: list[str | None], line: int) -> bool:
    """Whether no space beside ``line`` is unread or holds a piece of its colour."""
    mine = codes[line]
    beside = [codes[j] for j in adjacent(line)]
    return all(c != "?" and (c is None or mine is None or c[0] != mine[0]) for c in beside)


def _size_leaning(
    obs: WorkerObservation, colour: str | None, alone: bool, rules: WorkerRules
) -> str | None:
    """The size the direct measures of an unsized piece lean to, if they clearly do.

    Within the band of doubt; beyond it the piece was left unsized because its area fits
    neither size, which says nothing of its size where a neighbour may lean over it or
    merge with it.  A piece standing ``alone`` (no neighbour of its colour or unread
    beside it, neither crowded nor partly hidden) smaller than both sizes leans vilicus:
    a shadow or a dim ink takes faces off a piece, and over the stored frames all 38
    such pieces were vilici.
    """
    if colour is None or len(colour) != 1 or obs.size_score == 0.0:
        return None
    off = obs.size_score - rules.size_centre
    if off < -rules.crowded_margin and alone and not obs.crowded:
        return colour + "v"
    if not rules.size_lean_min <= abs(off) <= rules.crowded_margin:
        return None
    return colour + ("d" if off > 0 else "v")


def pair_sizes(
    codes: list[str | None],
    measures: dict[int, PieceMeasure],
    expected: dict[int, tuple[float, float]],
    scores: dict[int, float],
    boundary: float,
    rules: WorkerRules,
) -> list[tuple[int, str]]:
    """Sizes of two touching pieces of one colour, decided together.

    Where two pieces of one colour touch, how their pixels are shared is a guess, but not
    their sum: it is compared with what two vilici, two domini or one of each would cover.
    One of each is then told apart by which of the two looks the larger.
    """
    out: list[tuple[int, str]] = []
    for line in range(LINES - 1):
        other = line + 1
        if other not in adjacent(line) or line not in scores or other not in scores:
            continue
        if codes[line] != codes[other]:
            continue
        a, b = measures[line], measures[other]
        if not (a.crowded and b.crowded) or a.hidden or b.hidden:
            continue  # not a pair that only touches, or one of them partly hidden
        if max(abs(scores[line] - boundary), abs(scores[other] - boundary)) > rules.implausible:
            continue  # one of them is no piece of either size (a neighbour's lean)
        (va, da), (vb, db) = expected[line], expected[other]
        bias = boundary + rules.size_centre * rules.area_span
        total = math.log(max(a.area_mm2 + b.area_mm2, 1.0)) - bias
        vv, mixed, dd = math.log(va + vb), math.log((va + db + da + vb) / 2), math.log(da + db)
        # 0 where two vilici are expected, 1 for one of each, 2 for two domini.
        below = (total - vv) / (mixed - vv)
        level = below if total < mixed else 1 + (total - mixed) / (dd - mixed)
        diff = scores[line] - scores[other]
        if level < rules.pair_vv_max:
            out.append((line, "vv"))
        elif level > rules.pair_dd_min:
            out.append((line, "dd"))
        elif level > rules.pair_mixed_min and abs(diff) > rules.pair_split:
            out.append((line, "dv" if diff > 0 else "vd"))
    return out


def core_code(fractions: NDArray[np.float64], rules: WorkerRules) -> str | None:
    """Empty (None), a colour letter, or ``?`` from the class fractions of a space's core."""
    shares = fractions.tolist()  # plain floats: a few scalar tests, 32 spaces a frame
    species = shares[PixelClass.B : PixelClass.R + 1]
    neutral = shares[PixelClass.NEUTRAL]
    dark = shares[PixelClass.DARK]
    lead = species.index(max(species))
    total = sum(species)
    if (neutral >= rules.empty_min and species[lead] < rules.empty_species_max) or (
        neutral >= rules.bare_min and total < rules.bare_species_max and dark <= rules.bare_dark_max
    ):
        return None
    present = total >= rules.present_min or (
        total >= rules.lit_min and total + dark >= rules.present_min
    )
    if not present or species[lead] < rules.colour_purity * total:
        return "?"
    return SPECIES_ORDER[lead]


def colour_beside(
    fractions: NDArray[np.float64], beside: set[str], rules: WorkerRules
) -> str | None:
    """A core's colour once the colours of the pieces standing next to it are set aside.

    A neighbour leaning into the core mixes its colour with this piece's; what is left, if
    enough and of one colour no neighbour has, can only come from a piece on this space.
    Floor in what is left, with the neighbour's colour covering only part of the core,
    means the space is empty.
    """
    kept = np.ones(len(PixelClass), dtype=bool)
    for letter in beside:
        kept[PixelClass[letter]] = False
    remaining = float(fractions[kept].sum())
    if remaining < rules.remaining_min:
        return "?"
    rest = np.where(kept, fractions, 0.0) / remaining
    if (
        1.0 - remaining <= rules.set_aside_empty_max
        and rest[PixelClass.NEUTRAL] >= rules.remaining_floor_min
        and rest[PixelClass.B : PixelClass.R + 1].sum() <= rules.bare_species_max
        and rest[PixelClass.DARK] <= rules.bare_dark_max
    ):
        return None
    code = core_code(rest, rules)
    return code if code is not None and code not in beside else "?"


def size_evidence(
    area_score: float,
    reach_mm: float,
    lean: float,
    vilicus: PieceSize,
    dominus: PieceSize,
    rules: WorkerRules,
) -> float:
    """How much a piece looks like a dominus (> 0) rather than a vilicus (< 0).

    Two measures, each scaled so that the two sizes sit near -1 and +1:

    * the area of its colour against the two expectations (``area_score``), and
    * how far its colour reaches along the lean: the top of a piece lies its height times
      the lean beyond its base, so a dominus reaches (22 - 16) x lean mm further.

    The area is the better measure when the camera looks straight down; from a slant the
    lit top still marks the height while shaded sides may be lost to the sheet, so the
    reach weighs more the larger the lean.
    """
    area = area_score / rules.area_span
    reach = reach_score(reach_mm, lean, vilicus, dominus, rules)
    weight = rules.reach_weight * lean
    return (area + weight * reach) / (1 + weight)


def reach_score(
    reach_mm: float, lean: float, vilicus: PieceSize, dominus: PieceSize, rules: WorkerRules
) -> float:
    """How far a piece's colour reaches along its lean, scaled so that a vilicus's top
    sits near -1 and a dominus's near +1."""
    mid_height = (vilicus.height_mm + dominus.height_mm) / 2
    gap = (dominus.height_mm - vilicus.height_mm) / 2
    return (reach_mm - mid_height * lean - rules.reach_offset_mm) / (
        gap * lean + rules.reach_spread_mm
    )


def _short_of_any_top(reach_mm: float, lean: float, g: Geometry, rules: WorkerRules) -> bool:
    """Whether a colour leaning enough to tell reaches so far short of a vilicus's top
    that no piece stands there (see ``reach_implausible``): a neighbour's lean."""
    return (
        lean >= rules.reach_lean_min
        and reach_score(reach_mm, lean, g.vilicus, g.dominus, rules) < -rules.reach_implausible
    )


def width_evidence(
    across_mm: float, vilicus: PieceSize, dominus: PieceSize, px_per_mm: float
) -> float:
    """How far (0 to 1) a piece's width across the lean goes from the widest a vilicus can
    measure towards a dominus's width.

    Across the lean a standing piece shows its footprint, turned any way: a vilicus
    measures at most its footprint's diagonal (plus the pixel the width counts), a
    dominus up to its full width.  A narrower width tells nothing (a dominus turned
    side on is as narrow as a vilicus), so this is evidence one way only.
    """
    widest_vilicus = math.hypot(vilicus.width_mm, vilicus.depth_mm) + 1 / px_per_mm
    span = dominus.width_mm - widest_vilicus
    if span <= 0:
        return 0.0
    return min(max((across_mm - widest_vilicus) / span, 0.0), 1.0)


def frame_boundary(
    scores: list[float],
    rules: WorkerRules,
    height_log_sd: float = 0.0,
    colours: list[str] | None = None,
) -> float:
    """The vilicus/dominus boundary for this frame.

    How large a piece looks depends on the light, the lens and the exact shape of the
    meeples, by up to about 20 %.  When a frame shows both sizes, its scores form two
    clusters with a clear gap, and the middle of that gap is a better boundary than any
    fixed one, provided the clusters on either side lie about as far apart as the two
    sizes do (a gap among pieces of one size is no boundary however wide).  Otherwise the
    default stands.  A gap that would leave two pieces of one
    colour (``colours``, in the order of ``scores``) above it is no boundary: each colour
    has a single dominus.  By the same count, a default that leaves two pieces of one
    colour above it is no boundary either: then the widest gap that leaves at most one
    is, however narrow (the pieces beside a narrow gap stay unsure by their margins).
    """
    ordered = sorted(
        (s, c)
        for s, c in zip(scores, colours or [""] * len(scores), strict=True)
        if abs(s - rules.size_bias) < rules.implausible
    )
    best_gap, boundary = 0.0, rules.size_bias
    shift_max = rules.boundary_shift + rules.boundary_shift_per_height_sd * height_log_sd
    for k, ((low, _), (high, _)) in enumerate(itertools.pairwise(ordered)):
        gap = high - low
        middle = (low + high) / 2
        if (
            gap > best_gap
            and abs(middle - rules.size_bias) <= shift_max
            and _one_dominus_each(c for _, c in ordered[k + 1 :])
            and _clusters_apart(ordered, k + 1, rules)
        ):
            best_gap, boundary = gap, middle
    if best_gap >= rules.cluster_gap:
        return boundary
    default_holds = _one_dominus_each(c for s, c in ordered if s > rules.size_bias)
    return rules.size_bias if default_holds or best_gap == 0.0 else boundary


def _clusters_apart(ordered: list[tuple[float, str]], split: int, rules: WorkerRules) -> bool:
    """Whether the scores of ``ordered`` below ``split`` and from it on have means as far
    apart as a vilicus's and a dominus's."""
    below = [score for score, _ in ordered[:split]]
    above = [score for score, _ in ordered[split:]]
    return sum(above) / len(above) - sum(below) / len(below) >= rules.cluster_separation_min


def _one_dominus_each(colours: Iterable[str]) -> bool:
    """Whether the pieces above a boundary (their colours; ``""`` when unknown) hold at
    most one of each colour, as a colour's single dominus allows."""
    known = [c for c in colours if c]
    return len(known) == len(set(known))


class StripPixels(NamedTuple):
    """The pixels of the worker strips that may belong to a piece, with what they show."""

    pts_mm: NDArray[np.float64]  # board position of each pixel's centre
    classes: NDArray[np.uint8]
    contrast: NDArray[np.float32]  # chroma and saturation against the sheet (see contrasts)


def _measure_pieces(
    classes: NDArray[np.uint8],
    lab: NDArray[np.uint8],
    layout: CanonicalLayout,
    codes: list[str | None],
    leans: list[tuple[float, float]],
    background: tuple[float, float, float],
) -> dict[int, PieceMeasure]:
    """Pass 3: what the pixels of each standing piece show (see :class:`PieceMeasure`).

    A piece is crowded when it meets a piece of its own colour (the split between them is
    a guess) or when another colour covers part of where it stands (it may be hidden).
    """
    pixels = _strip_pixels(classes, lab, layout, background)
    result: dict[int, PieceMeasure] = {}
    if len(pixels.pts_mm) == 0:
        return result
    occupied = [i for i, c in enumerate(codes) if c is not None and c != "?"]
    hidden = _hidden_pieces(pixels, layout, codes, occupied, leans)
    # The class of the piece each dark pixel is a shaded face of (NO_CLASS for none): a
    # dark pixel goes with the pixels of its owner's colour.
    owner_class = np.full(LINES + 1, NO_CLASS, dtype=np.uint8)  # the last for owner -1
    owner_class[occupied] = [PixelClass[str(codes[i])] for i in occupied]
    dark_class = np.take(owner_class, _dark_pixel_owners(pixels, layout, occupied, leans))
    for colour in {codes[i] for i in occupied}:
        lines = [i for i in occupied if codes[i] == colour]
        own_class = PixelClass[str(colour)]
        pick = (pixels.classes == own_class) | (dark_class == own_class)
        result |= _measure_colour(
            StripPixels(
                np.compress(pick, pixels.pts_mm, axis=0),
                pixels.classes[pick],
                np.compress(pick, pixels.contrast, axis=0),
            ),
            layout,
            lines,
            leans,
            hidden,
        )
    return result


def _strip_pixels(
    classes: NDArray[np.uint8],
    lab: NDArray[np.uint8],
    layout: CanonicalLayout,
    background: tuple[float, float, float],
) -> StripPixels:
    """Species pixels of the worker strips (left and top), never of the fish grid, and
    pixels too dark for any colour (a piece's faces in its own shade, in a dim room)."""
    s = layout.px_per_mm
    limit = layout.worker_strip_px
    left, top = classes[:, :limit], classes[:limit, limit:]
    ys1, xs1 = pixel_coords(_piece_pixels(left))
    ys2, xs2 = pixel_coords(_piece_pixels(top))
    xs = np.concatenate([xs1, xs2 + limit])
    ys = np.concatenate([ys1, ys2])
    pts = np.stack([(xs + 0.5) / s, (ys + 0.5) / s], axis=1).astype(np.float64)
    if len(xs) == 0:
        return StripPixels(pts, classes[ys, xs], np.zeros((0, 2), np.float32))
    flat = ys * classes.shape[1] + xs  # np.take gathers far faster than [ys, xs]
    contrast = np.stack(contrasts(np.take(lab.reshape(-1, 3), flat, axis=0), background), axis=1)
    return StripPixels(pts, np.take(classes, flat), contrast)


def _hidden_pieces(
    pixels: StripPixels,
    layout: CanonicalLayout,
    codes: list[str | None],
    occupied: list[int],
    leans: list[tuple[float, float]],
) -> set[int]:
    """Standing pieces partly covered by another colour on the camera's side of their base."""
    if not occupied:
        return set()
    g = layout.profile.geometry
    s = layout.px_per_mm
    bases = np.array([g.worker_space_centre_mm(line) for line in occupied], dtype=np.float64)
    point, piece = _pairs_in_boxes(pixels.pts_mm, bases - HIDDEN_REACH_MM, bases + HIDDEN_REACH_MM)
    own_class = np.array([PixelClass[str(codes[line])] for line in occupied], dtype=np.uint8)
    classes = pixels.classes[point]
    offsets = np.take(pixels.pts_mm, point, axis=0) - np.take(bases, piece, axis=0)
    other = (classes != own_class[piece]) & (classes != PixelClass.DARK)
    near = other & (np.linalg.norm(offsets, axis=1) <= HIDDEN_REACH_MM)
    # Only a piece nearer the camera hides this one: its colour lies on the inner side
    # of the base (against the lean).  Colour on the outer side is a piece standing
    # behind, which this one hides instead.
    lean = np.array([leans[line] for line in occupied], dtype=np.float64)
    norm = np.linalg.norm(lean, axis=1)
    direction = lean / np.maximum(norm, INNER_LEAN_MIN)[:, None]
    inner_side = (offsets * np.take(direction, piece, axis=0)).sum(axis=1) <= INNER_SIDE_MM
    near &= (norm <= INNER_LEAN_MIN)[piece] | inner_side
    counts = np.bincount(piece[near], minlength=len(occupied))
    return {
        line for line, n in zip(occupied, counts.tolist(), strict=True) if n >= HIDDEN_MM2 * s * s
    }


def _pairs_in_boxes(
    pts_mm: NDArray[np.float64], low: NDArray[np.float64], high: NDArray[np.float64]
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """Every (point, box) pair with the point inside the box (``low`` to ``high``, x and y,
    edges included): the point's index and the box's, as two arrays, box after box."""
    # Sorted by y, the points within each box's band of rows are one run.
    order = np.argsort(pts_mm[:, 1], kind="stable")
    ys = np.take(pts_mm[:, 1], order)
    start = np.searchsorted(ys, low[:, 1], side="left")
    count = np.maximum(np.searchsorted(ys, high[:, 1], side="right") - start, 0)
    box = np.repeat(np.arange(len(low)), count)
    # Every run's positions in the sorted order, all at once.
    offset = np.repeat(start - (np.cumsum(count) - count), count)
    point = order[np.arange(len(box)) + offset]
    xs = np.take(pts_mm[:, 0], point)
    inside = (xs >= low[box, 0]) & (xs <= high[box, 0])
    return point[inside], box[inside]


def _dark_pixel_owners(
    pixels: StripPixels,
    layout: CanonicalLayout,
    occupied: list[int],
    leans: list[tuple[float, float]],
) -> NDArray[np.int64]:
    """The standing piece (of any colour) each dark pixel is a shaded face of, or -1."""
    dark = pixels.classes == PixelClass.DARK
    owner = np.full(len(pixels.pts_mm), -1, dtype=np.int64)
    if not dark.any() or not occupied:
        return owner
    # Each dark pixel goes to the nearest standing piece of any colour, if near enough.
    dark_mm = np.compress(dark, pixels.pts_mm, axis=0)
    dist = _distances_to_pieces(dark_mm, layout, occupied, leans, DARK_REACH_MM)
    nearest = np.argmin(dist, axis=1)
    close = dist[np.arange(len(nearest)), nearest] <= DARK_REACH_MM
    owner[np.flatnonzero(dark)[close]] = np.asarray(occupied)[nearest[close]]
    return owner


def _distances_to_pieces(
    pts_mm: NDArray[np.float64],
    layout: CanonicalLayout,
    lines: list[int],
    leans: list[tuple[float, float]],
    reach_mm: float,
) -> NDArray[np.float64]:
    """Distance (mm) of each point to the axis of each standing piece on ``lines`` (points x
    lines), every piece taken as tall as the mean of the two sizes; ``inf`` where it is
    further than ``reach_mm`` (only points in the axis's reach are measured)."""
    g = layout.profile.geometry
    height = (g.vilicus.height_mm + g.dominus.height_mm) / 2
    bases = np.array([g.worker_space_centre_mm(line) for line in lines], dtype=np.float64)
    axes = np.array([leans[line] for line in lines], dtype=np.float64) * height
    low = np.minimum(bases, bases + axes) - reach_mm
    high = np.maximum(bases, bases + axes) + reach_mm
    # Every (point, piece) pair within the piece's box, measured in one go.
    point, piece = _pairs_in_boxes(pts_mm, low, high)
    offsets = np.take(pts_mm, point, axis=0) - np.take(bases, piece, axis=0)
    measured = _axis_distance(offsets, np.take(axes, piece, axis=0))
    dist = np.full((len(pts_mm), len(lines)), np.inf)
    dist[point, piece] = np.where(measured <= reach_mm, measured, np.inf)
    return dist


def _axis_distance(offsets: NDArray[np.float64], axes: NDArray[np.float64]) -> NDArray[np.float64]:
    """Distance of each offset (from a piece's base) to the segment from 0 to its axis."""
    ox, oy, ax, ay = offsets[:, 0], offsets[:, 1], axes[:, 0], axes[:, 1]
    length2 = ax * ax + ay * ay
    along = (ox * ax + oy * ay) / np.maximum(length2, 1e-9)
    t = np.where(length2 < 1e-9, 0.0, np.clip(along, 0.0, 1.0))
    dx, dy = ox - t * ax, oy - t * ay
    return np.asarray(np.sqrt(dx * dx + dy * dy), dtype=np.float64)


def _measure_colour(
    pixels: StripPixels,
    layout: CanonicalLayout,
    lines: list[int],
    leans: list[tuple[float, float]],
    hidden: set[int],
) -> dict[int, PieceMeasure]:
    """The pixels of one colour shared out between its standing pieces, each measured."""
    g = layout.profile.geometry
    result: dict[int, PieceMeasure] = {}
    if len(pixels.pts_mm) == 0:
        return result
    dist = _distances_to_pieces(pixels.pts_mm, layout, lines, leans, REACH_MM)
    owner = np.argmin(dist, axis=1)
    near = dist[np.arange(len(pixels.pts_mm)), owner] <= REACH_MM
    crowded = hidden | _touching_pieces(dist, owner, lines)
    # Each piece's pixels, in their order, as one slice of the near ones sorted by owner.
    kept = np.flatnonzero(near)
    by_owner = kept[np.argsort(owner[kept], kind="stable")]
    bounds = np.searchsorted(owner[by_owner], np.arange(len(lines) + 1)).tolist()
    shade = pixels.classes[by_owner] == PixelClass.DARK
    contrast = np.take(pixels.contrast, by_owner, axis=0)
    pts_mm = np.take(pixels.pts_mm, by_owner, axis=0)
    for k, line in enumerate(lines):
        mine = slice(bounds[k], bounds[k + 1])
        own = np.compress(_own_pixels(shade[mine], contrast[mine]), pts_mm[mine], axis=0)
        if len(own) == 0:
            result[line] = MISSING
            continue
        result[line] = _piece_measure(
            own, g.worker_space_centre_mm(line), leans[line], layout.px_per_mm
        )._replace(crowded=line in crowded, hidden=line in hidden)
    return result


def _touching_pieces(
    dist: NDArray[np.float64], owner: NDArray[np.intp], lines: list[int]
) -> set[int]:
    """Pieces of one colour whose pixels meet: enough pixels lie about as near to two axes."""
    if len(lines) <= 1:
        return set()
    ordered = np.partition(dist, 1, axis=1)  # the two nearest axes first, in order
    seam = ordered[:, 1] <= REACH_MM  # both axes in reach (the rest are ``inf``)
    seam[seam] = ordered[seam, 1] - ordered[seam, 0] < SEAM_MM
    if int(seam.sum()) < SEAM_MIN_PX:
        return set()
    second = np.argsort(dist[seam], axis=1)[:, 1]  # rows are sorted one by one
    touching = {lines[k] for k in np.unique(owner[seam]).tolist()}
    return touching | {lines[k] for k in np.unique(second).tolist()}


def _own_pixels(shade: NDArray[np.bool_], contrast: NDArray[np.float32]) -> NDArray[np.bool_]:
    """Which of a piece's pixels to keep without the blurred rim: lit ones must reach a
    share of the piece's full contrast against the sheet (its shaded faces are kept as they
    are)."""
    lit = ~shade
    if not lit.any():
        return np.ones(len(shade), dtype=np.bool_)
    lit_contrast = np.compress(lit, contrast, axis=0)
    bar = LEVELS * [_quantile(lit_contrast[:, c], FULL_CONTRAST_QUANTILE) for c in range(2)]
    return np.asarray(
        (contrast[:, 0] >= bar[0]) | (contrast[:, 1] >= bar[1]) | shade, dtype=np.bool_
    )


def _piece_measure(
    own: NDArray[np.float64],
    base_mm: tuple[float, float],
    lean: tuple[float, float],
    px_per_mm: float,
) -> PieceMeasure:
    """Area, width across the lean and reach along it of one piece's pixels (not crowded)."""
    s = px_per_mm
    lean_vec = np.asarray(lean)
    norm = float(np.linalg.norm(lean_vec))
    along = lean_vec / norm if norm > LEAN_DIRECTION_MIN else np.array([1.0, 0.0])
    across = own @ np.array([-along[1], along[0]])
    low, high = _quantiles(across, WIDTH_QUANTILES)
    width = high - low + 1 / s
    reach = _quantile((own - np.asarray(base_mm)) @ along, REACH_QUANTILE)
    return PieceMeasure(len(own) / (s * s), width, False, reach, False)


def contrasts(
    pixels: NDArray[np.uint8], background: tuple[float, float, float]
) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """How far each Lab pixel's colour lies from the sheet's: in chroma, and in saturation.

    A pixel blurred half-way into the sheet lies half-way in chroma, whatever the piece's
    colour.  A piece's shaded faces keep their saturation (chroma per unit of lightness)
    while their chroma falls: a shaded yellow face has no more chroma than the sheet.  A
    pixel belongs to the piece when it is far enough from the sheet in either measure.
    """
    px = pixels.astype(np.float32)
    a, b = px[:, 1] - 128.0, px[:, 2] - 128.0
    chroma = np.hypot(a - background[1], b - background[2])
    lightness = np.maximum(px[:, 0], 20.0)
    ref = max(background[0], 20.0)
    saturation = np.hypot(a / lightness - background[1] / ref, b / lightness - background[2] / ref)
    return chroma, np.asarray(saturation * ref, dtype=np.float32)


def _piece_pixels(classes: NDArray[np.uint8]) -> NDArray[np.bool_]:
    """Species pixels, and pixels too dark for colour that touch them (shaded faces)."""
    # Masks by OpenCV (0 or 255), one pass each over the strip: numpy's comparisons of a
    # strided strip took twice as long.
    species = cv2.inRange(classes, int(PixelClass.B), int(PixelClass.R))
    dark = cv2.inRange(classes, int(PixelClass.DARK), int(PixelClass.DARK))
    faces = cv2.bitwise_and(dark, cv2.dilate(species, _FACE_KERNEL))
    return np.asarray(cv2.bitwise_or(species, faces) > 0, dtype=np.bool_)


def _quantile(values: NDArray[np.floating[Any]], q: float) -> float:
    """The q-quantile (0-1) of a 1-D array, by partial sort (np.percentile is slow)."""
    k = round(q * (len(values) - 1))
    return float(np.partition(values, k)[k])


def _quantiles(values: NDArray[np.float64], qs: tuple[float, float]) -> tuple[float, float]:
    """Two :func:`_quantile` of one array from a single partial sort."""
    ks = [round(q * (len(values) - 1)) for q in qs]
    parted = np.partition(values, ks)
    return float(parted[ks[0]]), float(parted[ks[1]])


def _empty_beside_neighbours(
    classes: NDArray[np.uint8],
    layout: CanonicalLayout,
    pose: CameraPose,
    rules: WorkerRules,
    codes: list[str | None],
    line: int,
) -> bool:
    """Whether an unreadable space is empty, judged from the part of its core that no
    standing neighbour can cover.

    From the camera position each neighbour's silhouette is predicted (its axis swept by
    the taller piece's height along the lean, widened by half the wider piece); a piece
    standing on this space would show its colour in every part of the core, so floor alone
    where no neighbour reaches means the space is empty.
    """
    g = layout.profile.geometry
    s = layout.px_per_mm
    neighbours = [j for j in adjacent(line) if codes[j] is not None]
    if not neighbours:
        return False
    centre = core_centre_mm(layout, pose, line)
    r = rules.core_radius_mm * s
    x0, x1 = max(int(centre[0] * s - r), 0), min(int(centre[0] * s + r) + 1, classes.shape[1])
    y0, y1 = max(int(centre[1] * s - r), 0), min(int(centre[1] * s + r) + 1, classes.shape[0])
    yy, xx = np.mgrid[y0:y1, x0:x1]
    inside = (xx - centre[0] * s) ** 2 + (yy - centre[1] * s) ** 2 <= r * r
    pts = np.stack([(xx[inside] + 0.5) / s, (yy[inside] + 0.5) / s], axis=1)
    free = np.ones(len(pts), dtype=bool)
    for j in neighbours:
        base = g.worker_space_centre_mm(j)
        lean = pose.lean(base, 1.0)
        axis = np.array(lean, dtype=np.float64) * g.dominus.height_mm
        dist = _axis_distance(pts - np.asarray(base), np.broadcast_to(axis, pts.shape))
        free &= dist > SILHOUETTE_RADIUS_MM
    if free.sum() < rules.uncovered_min * len(pts):
        return False
    seen = classes[y0:y1, x0:x1][inside][free]
    counts = np.bincount(seen, minlength=len(PixelClass)).astype(np.float64)
    total = float(counts.sum())
    species = float(counts[PixelClass.B : PixelClass.R + 1].sum()) / total
    neutral = float(counts[PixelClass.NEUTRAL]) / total
    return neutral >= rules.uncovered_empty_min and species <= rules.uncovered_species_max
