"""Small pieces of the reader checked on their own: geometry, sizes, colour classes."""

from __future__ import annotations

import itertools
import math
from dataclasses import replace

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from companion.boards import LINES, load_profile
from companion.vision.bench import generated_frame
from companion.vision.canonical import CanonicalLayout
from companion.vision.cells import CELLS, N_CLASSES, CellRules, LabelledPixels, read_cells
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
from companion.vision.floor import (
    CellColour,
    CellWindows,
    FloorModel,
    admit_floor,
    admit_floor_like_its_neighbours,
    doubt_floor_beside_an_arm,
    fit_floor,
    floor_chroma,
    prove_empty,
)
from companion.vision.illumination import (
    BLOCK_MIN_CLEAR,
    BLOCKS_PER_STRIP,
    CLIPPED,
    PIXEL_STEP,
    _sheet_blocks,
    grouped_medians,
    sheet_strips,
)
from companion.vision.localize import CameraPose, estimate_pose
from companion.vision.occlusion import SKIN_ALONE_MM2, hand_mask, within_reach
from companion.vision.reader import (
    SKIN_SATURATION_MAX,
    BoardReader,
    floor_at_a_covered_slots_edge,
    skin_over_ink,
    skin_toned_red,
    with_bare_slot_mates,
)
from companion.vision.render import Shot, random_camera
from companion.vision.workers import (
    CoreReadings,
    PieceMeasure,
    WorkerObservation,
    WorkerRules,
    _discs,
    _doubt_domini_beside_the_arm,
    _doubt_pieces_a_dark_neighbour_may_cover,
    _size_each_piece,
    _size_from,
    _size_leaning,
    _size_with_settled_neighbours,
    _stands_alone,
    _vilici_smaller_than_both,
    _with_dark_cores_named,
    core_centre_mm,
    doubt_the_lights_colour,
    expected_area,
    frame_boundary,
    no_second_dominus,
    one_dominus_per_colour,
    read_workers,
    size_evidence,
    vilici_beside_the_dominus,
    width_evidence,
)

PROFILE = load_profile("troia")
GEOMETRY = PROFILE.geometry


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_camera_position_recovered_from_the_homography(seed: int) -> None:
    camera = random_camera(PROFILE, Shot(seed), np.random.default_rng(seed))
    centre = -camera.r.T @ camera.t
    pose = estimate_pose(camera.homography, (1280, 960), min(PROFILE.geometry.sheet_mm))
    assert pose.ground_mm == pytest.approx((centre[0], centre[1]), abs=5.0)
    assert pose.height_mm == pytest.approx(abs(centre[2]), rel=0.02)


def _top_of_dominus_error_mm(pose: CameraPose, centre: np.ndarray) -> float:
    """How far (mm) the predicted top of a dominus on any worker space lies from the truth."""
    g = PROFILE.geometry
    worst = 0.0
    for line in range(32):
        base = g.worker_space_centre_mm(line)
        true = CameraPose((float(centre[0]), float(centre[1])), float(abs(centre[2])))
        a, b = pose.lean(base, 22.0), true.lean(base, 22.0)
        worst = max(worst, math.hypot(a[0] - b[0], a[1] - b[1]))
    return worst


def test_a_straight_down_view_keeps_pieces_upright_despite_corner_noise() -> None:
    # Seen straight down, the focal length is barely measurable: a fraction of a pixel on
    # the board's corners could make the camera look twice as high or low, and every
    # piece's predicted lean with it.
    noise = np.random.default_rng(0)
    w, h = PROFILE.geometry.sheet_mm
    board = np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float32)
    for seed in range(12):
        camera = random_camera(PROFILE, Shot(seed, max_tilt_deg=4.0), np.random.default_rng(seed))
        seen = camera.project(np.hstack([board, np.zeros((4, 1), np.float32)]))
        noisy = (seen + noise.normal(0.0, 0.5, seen.shape)).astype(np.float32)
        pose = estimate_pose(cv2.getPerspectiveTransform(board, noisy), (1280, 960), w)
        assert _top_of_dominus_error_mm(pose, -camera.r.T @ camera.t) < 2.0, seed


def test_a_dominus_always_covers_more_than_a_vilicus() -> None:
    g = PROFILE.geometry
    # Seen straight down only the footprints show: 22 x 10 against 16 x 8.
    assert expected_area(g.dominus, 0.0, 16.0) / expected_area(g.vilicus, 0.0, 16.0) > 1.7
    for lean in (0.3, 0.9):
        for across in (10.0, 16.0, 22.0):
            assert expected_area(g.dominus, lean, across) > expected_area(g.vilicus, lean, across)


def test_frame_boundary_follows_a_clear_gap_only() -> None:
    rules = WorkerRules()
    two_sizes = [-0.45, -0.4, -0.38, 0.05, 0.1]
    middle = (-0.38 + 0.05) / 2
    assert frame_boundary(two_sizes, rules) == pytest.approx(middle)
    one_size = [-0.45, -0.4, -0.35, -0.3]
    assert frame_boundary(one_size, rules) == rules.size_bias
    assert frame_boundary([], rules) == rules.size_bias


def test_a_gap_among_pieces_of_one_size_is_no_boundary() -> None:
    # Three vilici of a blurred frame: the widest gap (0.26) is as wide as a boundary asks
    # and within reach of an unsure height, but the pieces above it sit only 0.29 above
    # the one below, where a dominus sits about 0.45 above a vilicus.
    rules = WorkerRules()
    scores = [-0.57, -0.31, -0.26]
    assert frame_boundary(scores, rules, 0.2, ["B", "R", "Y"]) == rules.size_bias
    # The same gap with the upper pieces as much larger as domini are: a boundary.
    larger = [-0.57, -0.1, -0.05]
    assert frame_boundary(larger, rules, 0.2, ["B", "R", "Y"]) == pytest.approx(-0.335)


def test_a_second_dominus_of_a_colour_is_doubted() -> None:
    # Each colour has one dominus.  An arm's shadow or a crowded neighbour can make a
    # vilicus look large: the clearly larger piece keeps the reading, the other is doubted.
    rules = WorkerRules()
    pieces = [
        WorkerObservation("Rd", 290.0, (0.0, 0.0), 1.8),
        WorkerObservation("Rd", 180.0, (0.0, 0.0), -0.1),
        WorkerObservation("Yd", 230.0, (0.0, 0.0), 0.7),
        WorkerObservation("Yd", 240.0, (0.0, 0.0), 0.9),
        WorkerObservation("Bd", 260.0, (0.0, 0.0), 1.9),
        WorkerObservation("Bv", 150.0, (0.0, 0.0), -0.8),
    ]
    codes = [o.code for o in one_dominus_per_colour(pieces, rules)]
    # Two yellows alike: neither can be trusted.  One blue dominus stands as read.
    assert codes == ["Rd", "?", "?", "?", "Bd", "Bv"]
    # A dominus read by its predicted silhouette has no size to weigh against the other's,
    # which a crowding neighbour may have made look large ...
    crowded = [replace(pieces[0], crowded=True), *pieces[1:]]
    codes = [o.code for o in one_dominus_per_colour(crowded, rules, unsized={1})]
    assert codes == ["?", "?", "?", "?", "Bd", "Bv"]
    # ... while, standing alone, its pixels are its own: it keeps its reading.
    codes = [o.code for o in one_dominus_per_colour(pieces, rules, unsized={1})]
    assert codes == ["Rd", "?", "?", "?", "Bd", "Bv"]
    codes = [o.code for o in one_dominus_per_colour(pieces, rules, unsized={5})]
    assert codes == ["Rd", "?", "?", "?", "Bd", "Bv"]


def test_once_a_colours_dominus_is_read_its_unsized_pieces_are_vilici() -> None:
    # Each colour has one dominus.  A yellow whose size stayed unsure elsewhere is a
    # vilicus, unless the yellow dominus beside it leans over its core: the yellow its
    # core shows may be the dominus's own.  A red with no red dominus read stays unsure, and so
    # does a space whose core showed no colour at all.
    def seen(code: str | None) -> WorkerObservation:
        return WorkerObservation(code, 0.0, (0.0, 0.0))

    rest = LINES - 7
    out = [seen("Yd"), seen("?"), seen("?"), seen("?"), seen("Rv"), seen(None), seen("?")]
    out += [seen(None)] * rest
    cores: list[str | None] = ["Y", "Y", "R", "?", "R", None, "Y"] + [None] * rest
    upright = [o.code for o in vilici_beside_the_dominus(out, cores, GEOMETRY, WorkerRules())]
    assert upright[:7] == ["Yd", "Yv", "?", "?", "Rv", None, "Yv"]
    out[0] = WorkerObservation("Yd", 0.0, (0.0, 0.8))  # leaning far over its neighbour
    codes = [o.code for o in vilici_beside_the_dominus(out, cores, GEOMETRY, WorkerRules())]
    assert codes[:7] == ["Yd", "?", "?", "?", "Rv", None, "Yv"]
    out[0] = WorkerObservation("Yd", 0.0, (0.0, -0.8))  # leaning away from it
    away = [o.code for o in vilici_beside_the_dominus(out, cores, GEOMETRY, WorkerRules())]
    assert away[1] == "Yv"
    # Yellow wider than any piece (a warm lamp's hot spot on the sheet) is no vilicus;
    # a vilicus's width is.
    wide = {1: PieceMeasure(160.0, 27.5, False, 8.0, False)}
    spot = vilici_beside_the_dominus(out, cores, GEOMETRY, WorkerRules(), wide)
    assert spot[1].code == "?"
    narrow = {1: PieceMeasure(160.0, 15.0, False, 8.0, False)}
    assert vilici_beside_the_dominus(out, cores, GEOMETRY, WorkerRules(), narrow)[1].code == "Yv"


def test_a_core_too_dark_for_colour_is_named_by_its_mean_chroma() -> None:
    # A blue piece and a red one in their own shade, and a deep shadow on the sheet: every
    # pixel too dark for colour.  Averaged, the pieces' chroma still points at their inks;
    # the shadow keeps the sheet's yellowish hue, which names nothing.
    layout = CanonicalLayout(PROFILE)
    pose = CameraPose((250.0, 250.0), 700.0)
    s = layout.px_per_mm
    centres = np.array([core_centre_mm(layout, pose, line) for line in range(LINES)]) * s
    lab = np.zeros((*layout.cell_labels.shape, 3), dtype=np.uint8)
    lab[:] = (210, 128, 150)  # the sheet
    dark = {3: (14, 130, 116), 4: (20, 145, 135), 5: (16, 129, 136)}  # blue, red, shadow
    for line, colour in dark.items():
        x, y = centres[line]
        cv2.circle(lab, (round(x), round(y)), round(5 * s), colour, -1)
    shares = np.zeros(len(PixelClass))
    shares[PixelClass.DARK] = 1.0
    codes: list[str | None] = [None] * LINES
    for line in dark:
        codes[line] = "?"
    cores = CoreReadings(codes, [(0.0, 0.0)] * LINES, [False] * LINES, {}, centres)
    cores.fractions.update({line: shares for line in dark})
    named = _with_dark_cores_named(codes, cores, lab, layout, WorkerRules())
    assert [named[line] for line in dark] == ["B", "R", "?"]
    # A core only half dark is left to the other passes.
    half = shares.copy()
    half[PixelClass.DARK], half[PixelClass.UNKNOWN] = 0.5, 0.5
    cores.fractions[3] = half
    assert _with_dark_cores_named(codes, cores, lab, layout, WorkerRules())[3] == "?"


def test_an_unsure_camera_height_lets_the_boundary_move_further() -> None:
    # Seen straight down, the camera's height rests on a typical lens and every piece may
    # look larger than expected alike: the gap between the sizes then lies further off.
    rules = WorkerRules()
    shifted = [-0.3, -0.2, -0.1, 0.0, 0.25, 0.45, 0.5]
    assert frame_boundary(shifted, rules) == rules.size_bias
    assert frame_boundary(shifted, rules, height_log_sd=0.3) == pytest.approx(0.125)


def test_a_piece_alone_smaller_than_both_sizes_leans_vilicus() -> None:
    # A blue piece far smaller than either size: beside nothing of its colour and no
    # unread space, a shadow or dim ink took faces off it, and it leans vilicus for the
    # silhouettes to confirm.  Beside a blue or an unread space, or crowded, the small
    # area may be a neighbour's lean and says nothing; within the band of doubt the
    # measures lean as before.
    rules = WorkerRules()
    small = WorkerObservation("?", 120.0, (0.0, 0.0), size_score=-2.9)
    codes: list[str | None] = [None] * LINES
    codes[19], codes[21] = "B", "Yv"
    assert _stands_alone(codes, 19)
    assert _size_leaning(small, "B", True, rules) == "Bv"
    for beside in ("Bd", "?"):
        crowded = list(codes)
        crowded[20] = beside
        assert not _stands_alone(crowded, 19)
    assert _size_leaning(small, "B", False, rules) is None
    assert _size_leaning(replace(small, crowded=True), "B", True, rules) is None
    leaning = replace(small, size_score=rules.size_centre + 0.3)
    assert _size_leaning(leaning, "B", False, rules) == "Bd"


def test_a_piece_standing_apart_far_smaller_than_both_sizes_is_a_vilicus() -> None:
    # A blue piece showing far less colour than either size (its area score beyond the
    # implausible bound), with no blue and no unread space beside it and nothing crowding
    # it, is a vilicus its own shade shrank.  Beside a blue piece or an unread space, or
    # crowded, or reaching far short of a vilicus's top, it stays unread.
    rules = WorkerRules()
    layout = CanonicalLayout(PROFILE)
    line = 19
    lean = (0.0, 0.5)
    reach = GEOMETRY.vilicus.height_mm * 0.5 + rules.reach_offset_mm
    small = WorkerObservation("?", 120.0, lean, size_score=-1.9, reach_mm=reach)
    out = [WorkerObservation(None, 0.0, lean)] * LINES
    out[line] = small
    codes: list[str | None] = [None] * LINES
    codes[line], codes[21] = "B", "Yv"
    scores = {line: -(rules.implausible + 0.05)}

    def read(
        observed: list[WorkerObservation], shown: list[str | None], score: float
    ) -> str | None:
        changed = _vilici_smaller_than_both(observed, shown, {line: score}, 0.0, layout, rules)
        return changed[line].code

    assert read(out, codes, scores[line]) == "Bv"
    assert read(out, codes, -(rules.implausible - 0.05)) == "?"  # within bounds: unsure
    for beside in ("B", "?"):
        crowded_codes = list(codes)
        crowded_codes[20] = beside
        assert read(out, crowded_codes, scores[line]) == "?"
    crowded = list(out)
    crowded[line] = replace(small, crowded=True)
    assert read(crowded, codes, scores[line]) == "?"
    short = list(out)
    short[line] = replace(small, reach_mm=0.0)
    assert read(short, codes, scores[line]) == "?"
    unread_core = list(codes)
    unread_core[line] = "?"  # no colour named: nothing to size
    assert _vilici_smaller_than_both(out, unread_core, {}, 0.0, layout, rules)[line].code == "?"


def test_no_boundary_makes_two_pieces_of_one_colour_dominus() -> None:
    # The widest gap leaves one small piece below it; above it would be two red dominus,
    # and a colour has one: the next gap is the boundary.
    rules = WorkerRules()
    scores = [-0.65, -0.22, -0.15, -0.12, 0.27, 0.33, 0.35]
    colours = ["Y", "R", "G", "B", "R", "G", "B"]
    assert frame_boundary(scores, rules, 0.2) == pytest.approx(-0.435)
    assert frame_boundary(scores, rules, 0.2, colours) == pytest.approx((-0.12 + 0.27) / 2)


def test_a_default_that_makes_two_pieces_of_one_colour_dominus_gives_way() -> None:
    # Crowded vilici blurred larger: no gap is as clear as a frame's own boundary asks,
    # and the default boundary would leave two reds and two yellows above it.  A colour
    # has one dominus: the widest gap that leaves one of each above is the boundary.
    rules = WorkerRules()
    scores = [-0.25, -0.2, -0.13, -0.05, -0.04, 0.03, 0.2, 0.33, 0.4, 0.42]
    colours = ["G", "B", "Y", "R", "B", "Y", "R", "B", "Y", "G"]
    assert frame_boundary(scores, rules, 0.3) == rules.size_bias
    assert frame_boundary(scores, rules, 0.3, colours) == pytest.approx((0.03 + 0.2) / 2)
    # Every colour at most once above the default, and no clear gap: the default stands.
    even = [-0.3, -0.25, -0.2, -0.12, 0.0, 0.05, 0.15, 0.25]
    assert frame_boundary(even, rules, 0.3, ["R", "G", "B", "Y", "R", "G", "B", "Y"]) == (
        rules.size_bias
    )


def test_from_a_slant_the_reach_of_the_top_tells_the_size() -> None:
    g, rules = PROFILE.geometry, WorkerRules()
    lean = 0.8
    offset = rules.reach_offset_mm
    as_vilicus = g.vilicus.height_mm * lean + offset
    as_dominus = g.dominus.height_mm * lean + offset
    # An area half-way between the two expectations: the reach decides.
    assert size_evidence(0.0, as_vilicus, lean, g.vilicus, g.dominus, rules) < -rules.size_margin
    assert size_evidence(0.0, as_dominus, lean, g.vilicus, g.dominus, rules) > rules.size_margin
    # Straight down there is no reach to speak of: only the area counts.
    assert size_evidence(-0.3, 0.0, 0.0, g.vilicus, g.dominus, rules) < 0
    assert size_evidence(0.3, 0.0, 0.0, g.vilicus, g.dominus, rules) > 0


def test_a_colour_reaching_far_short_of_a_vilicus_top_is_no_piece() -> None:
    # Seen from a slant, a dominus leans over the next space: its colour covers that
    # space's core, as small as a vilicus, but reaches no further than the space's base.
    # A piece standing there would show its top a vilicus's height times the lean beyond.
    g, rules, layout = PROFILE.geometry, WorkerRules(), CanonicalLayout(PROFILE)
    line, lean = 8, 0.65
    leans = [(0.0, 0.0)] * LINES
    leans[line] = (0.0, lean)

    def size(reach_mm: float) -> str | None:
        codes: list[str | None] = [None] * LINES
        codes[line] = "B"
        measures = {line: PieceMeasure(180.0, 11.0, False, reach_mm, False)}
        scores = {line: -1.5 * rules.area_span}
        return _size_each_piece(layout, codes, measures, leans, scores, 0.0, rules)[line].code

    as_vilicus = g.vilicus.height_mm * lean + rules.reach_offset_mm
    assert size(as_vilicus) == "Bv"
    assert size(as_vilicus - 4.0) == "Bv"  # a top lost in part to blur or shade
    assert size(2.2) == "?"  # the neighbour's lean (conditions frame 35161)


def test_a_piece_a_little_smaller_than_the_sizes_midway_is_left_unsure() -> None:
    # A dominus in a hard shadow loses its darkest faces and looks smaller: just below
    # the band of doubt it is no vilicus yet, and the silhouettes settle it.  Above the
    # band nothing but a neighbour or a tint makes a vilicus look larger.
    rules = WorkerRules()
    centre = rules.size_centre
    assert _size_from(centre - 0.35, 0.0, False, rules) is None
    assert _size_from(centre - 0.5, 0.0, False, rules) == "v"
    assert _size_from(centre + 0.15, 0.0, False, rules) is None
    assert _size_from(centre + 0.25, 0.0, False, rules) == "d"
    # A piece crowded by its neighbours keeps its own, wider band on both sides.
    assert _size_from(centre + 0.35, 0.0, True, rules) is None


def test_a_piece_standing_apart_as_wide_as_a_dominus_is_one() -> None:
    # Across the lean a piece shows its footprint, turned any way: a vilicus measures at
    # most its diagonal, so a width beyond it is a dominus's, but only where no piece of
    # the same (or an unsure) colour stands beside it to widen it.
    g, rules = PROFILE.geometry, WorkerRules()
    layout = CanonicalLayout(PROFILE)
    s = layout.px_per_mm
    widest = math.hypot(g.vilicus.width_mm, g.vilicus.depth_mm) + 1 / s
    for across in (g.vilicus.depth_mm, g.vilicus.width_mm, widest):
        assert width_evidence(across, g.vilicus, g.dominus, s) == 0.0
    assert width_evidence(g.dominus.width_mm, g.vilicus, g.dominus, s) == pytest.approx(1.0)
    assert 0.0 < width_evidence((widest + g.dominus.width_mm) / 2, g.vilicus, g.dominus, s) < 1.0

    line, beside = 14, 15
    leans = [(0.0, 0.0)] * LINES  # straight down: only the area and the width speak
    area_score = -0.5 * rules.area_span  # a little small, as a shaded dominus can look

    def size(across: float, neighbour: str | None) -> str | None:
        codes: list[str | None] = [None] * LINES
        codes[line], codes[beside] = "B", neighbour
        measures = {line: PieceMeasure(250.0, across, False, 0.0, False)}
        scores = {line: area_score, beside: area_score}
        out = _size_each_piece(layout, codes, measures, leans, scores, 0.0, rules)
        return out[line].code

    assert size(g.vilicus.width_mm, None) == "Bv"
    assert size(g.dominus.width_mm, None) == "Bd"
    assert size(g.dominus.width_mm, "G") == "Bd"
    assert size(g.dominus.width_mm, "B") == "Bv"
    assert size(g.dominus.width_mm, "?") == "Bv"

    # Once the unsure neighbour is settled (by the silhouettes), the width counts after all.
    def settled(neighbour_now: str | None) -> str | None:
        codes: list[str | None] = [None] * LINES
        codes[line], codes[beside] = "B", "?"
        measures = {line: PieceMeasure(250.0, g.dominus.width_mm, False, 0.0, False)}
        scores = {line: area_score}
        out = _size_each_piece(layout, codes, measures, leans, scores, 0.0, rules)
        out[beside] = replace(out[beside], code=neighbour_now)
        again = _size_with_settled_neighbours(out, codes, measures, scores, 0.0, layout, rules)
        return again[line].code

    assert settled(None) == "Bd"
    assert settled("Gv") == "Bd"
    assert settled("Bv") == "Bv"
    assert settled("?") == "Bv"


def _one_cell(fractions: dict[PixelClass, float]) -> np.ndarray:
    table = np.zeros((CELLS, N_CLASSES))
    table[:, PixelClass.NEUTRAL] = 1.0
    table[0] = 0.0
    for cls, share in fractions.items():
        table[0, cls] = share
    return table


def test_a_tile_may_show_its_pale_icon_but_not_floor() -> None:
    rules = CellRules()
    pale_icon = _one_cell({PixelClass.Y: 0.62, PixelClass.UNKNOWN: 0.38})
    assert read_cells(pale_icon, rules, {})[0] == "Y"
    with_floor = _one_cell({PixelClass.Y: 0.6, PixelClass.UNKNOWN: 0.3, PixelClass.NEUTRAL: 0.1})
    assert read_cells(with_floor, rules, {})[0] == "?"
    red = _one_cell({PixelClass.R: 0.67, PixelClass.UNKNOWN: 0.33})
    assert read_cells(red, rules, {})[0] == "R"
    # Only yellow, which shares the floor's hue, may lose that much of itself.
    pale_red = _one_cell({PixelClass.R: 0.62, PixelClass.UNKNOWN: 0.38})
    assert read_cells(pale_red, rules, {})[0] == "?"


def test_an_empty_bonus_cell_shows_floor_beside_its_icon_and_around_it() -> None:
    rules = CellRules()
    empty = _one_cell({PixelClass.NEUTRAL: 0.42, PixelClass.G: 0.3, PixelClass.UNKNOWN: 0.28})
    ring = _one_cell({PixelClass.NEUTRAL: 0.63, PixelClass.R: 0.17, PixelClass.UNKNOWN: 0.2})
    assert read_cells(empty, rules, {0: "G"}, ring)[0] == "."
    # A green tile on its own bonus cell covers the ring too.
    tile = _one_cell({PixelClass.G: 0.8, PixelClass.UNKNOWN: 0.2})
    covered = _one_cell({PixelClass.G: 0.9, PixelClass.UNKNOWN: 0.1})
    assert read_cells(tile, rules, {0: "G"}, covered)[0] == "G"
    # Without floor in the ring, the same cell could be a tile washed by glare.
    hidden = _one_cell({PixelClass.NEUTRAL: 0.2, PixelClass.UNKNOWN: 0.8})
    assert read_cells(empty, rules, {0: "G"}, hidden)[0] == "?"
    # A tile washed out by glare, cell and ring alike, shows no icon.
    washed = _one_cell({PixelClass.NEUTRAL: 0.52, PixelClass.UNKNOWN: 0.48})
    assert read_cells(washed, rules, {0: "G"}, washed)[0] == "?"


def test_printed_colours_fall_in_their_own_class() -> None:
    import cv2

    model = ColourModel.from_profile(PROFILE)
    table = model.lookup_table()
    samples = {
        PROFILE.colours.vat_floor: PixelClass.NEUTRAL,
        PROFILE.colours.sheet: PixelClass.NEUTRAL,
        **{PROFILE.colours.species[k]: PixelClass[k] for k in "BGYR"},
    }
    for colour, expected in samples.items():
        pixel = np.array([[hex_to_bgr(colour)]], np.uint8)
        classes, skin, _ = classify(cv2.cvtColor(pixel, cv2.COLOR_BGR2Lab), table)
        assert classes[0, 0] == expected, colour
        assert not skin[0, 0]
    # Grey (glare, shadow) is never a species.
    for level in (60, 128, 200, 250):
        grey = np.full((1, 1, 3), level, np.uint8)
        classes, _, _ = classify(cv2.cvtColor(grey, cv2.COLOR_BGR2Lab), table)
        assert classes[0, 0] not in (PixelClass.B, PixelClass.G, PixelClass.Y, PixelClass.R)


def _strip_view(
    layout: CanonicalLayout, pose: CameraPose, blue_within_mm: float, piece_on_17: bool
) -> list[str | None]:
    """Column spaces 17 empty (or not) and 18 holding a blue piece leaning towards 17."""
    g = layout.profile.geometry
    s = layout.px_per_mm
    width, height = layout.size_px
    classes = np.full((height, width), PixelClass.NEUTRAL, dtype=np.uint8)
    yy, xx = np.mgrid[0:height, 0:width]
    pts = np.stack([(xx.ravel() + 0.5) / s, (yy.ravel() + 0.5) / s], axis=1)
    base = np.asarray(g.worker_space_centre_mm(18))
    top = base + np.asarray(pose.lean(tuple(base), g.dominus.height_mm))
    t = np.clip(((pts - base) @ (top - base)) / float((top - base) @ (top - base)), 0.0, 1.0)
    dist = np.linalg.norm(pts - (base + t[:, None] * (top - base)), axis=1)
    classes.ravel()[dist <= blue_within_mm] = PixelClass.B
    if piece_on_17:
        centre = np.asarray(g.worker_space_centre_mm(17))
        classes.ravel()[np.linalg.norm(pts - centre, axis=1) <= 8.0] = PixelClass.B
    lab = np.full((height, width, 3), 128, dtype=np.uint8)
    observed = read_workers(classes, lab, layout, pose, WorkerRules(), (200.0, 0.0, 0.0))
    return [w.code for w in observed]


def test_an_empty_space_under_a_leaning_neighbour_is_read_from_its_uncovered_part() -> None:
    layout = CanonicalLayout(load_profile("troia"))
    # Camera far to the right: pieces lean towards lower column numbers.
    pose = CameraPose((400.0, 52.0), 900.0)
    codes = _strip_view(layout, pose, 10.0, piece_on_17=False)
    assert codes[17] is None
    assert codes[18] is not None and codes[18][0] in "B?"
    # A piece standing on the space shows its colour where no neighbour reaches.
    assert _strip_view(layout, pose, 10.0, piece_on_17=True)[17] is not None
    # Colour reaching beyond any neighbour's possible silhouette is not explained away.
    assert _strip_view(layout, pose, 16.0, piece_on_17=False)[17] is not None


def test_an_empty_bonus_cell_may_show_shading_but_no_colour_around_its_icon() -> None:
    rules = CellRules()
    bonus = {0: "G"}
    cell = _one_cell({PixelClass.NEUTRAL: 0.55, PixelClass.G: 0.25, PixelClass.UNKNOWN: 0.2})
    shaded_ring = _one_cell({PixelClass.NEUTRAL: 0.6, PixelClass.UNKNOWN: 0.4})
    assert read_cells(cell, rules, bonus, shaded_ring)[0] == "."
    # A neighbour's colour spills a little into the ring, never this much.
    tinted_ring = _one_cell({PixelClass.NEUTRAL: 0.5, PixelClass.R: 0.25, PixelClass.UNKNOWN: 0.25})
    assert read_cells(cell, rules, bonus, tinted_ring)[0] == "?"
    too_little_floor = _one_cell({PixelClass.NEUTRAL: 0.35, PixelClass.UNKNOWN: 0.65})
    assert read_cells(cell, rules, bonus, too_little_floor)[0] == "?"


def _core(shares: dict[PixelClass, float]) -> np.ndarray:
    fractions = np.zeros(len(PixelClass))
    for cls, share in shares.items():
        fractions[cls] = share
    return fractions


def test_a_core_half_in_the_dark_still_shows_its_piece() -> None:
    from companion.vision.workers import core_code

    rules = WorkerRules()
    assert core_code(_core({PixelClass.R: 0.57, PixelClass.DARK: 0.43}), rules) == "R"
    # Darkness alone is no piece.
    assert core_code(_core({PixelClass.R: 0.2, PixelClass.DARK: 0.8}), rules) == "?"


def test_a_neighbours_colour_leaning_into_a_core_is_set_aside() -> None:
    from companion.vision.workers import colour_beside, core_code

    rules = WorkerRules()
    mixed = _core({PixelClass.G: 0.68, PixelClass.Y: 0.18, PixelClass.UNKNOWN: 0.14})
    assert core_code(mixed, rules) == "?"
    assert colour_beside(mixed, {"Y"}, rules) == "G"
    # Without a yellow neighbour, the yellow has no explanation.
    assert colour_beside(mixed, {"B"}, rules) == "?"
    # Only the neighbour's colour: nothing is known of this space.
    covered = _core({PixelClass.B: 0.56, PixelClass.UNKNOWN: 0.39, PixelClass.NEUTRAL: 0.05})
    assert colour_beside(covered, {"B"}, rules) == "?"
    edge = _core({PixelClass.Y: 0.32, PixelClass.NEUTRAL: 0.58, PixelClass.UNKNOWN: 0.1})
    assert colour_beside(edge, {"Y"}, rules) is None
    assert colour_beside(edge, {"G"}, rules) == "?"


def test_two_touching_pieces_of_one_colour_are_sized_together() -> None:
    from companion.vision.workers import PieceMeasure, pair_sizes

    rules = WorkerRules()
    codes: list[str | None] = [None] * 32
    codes[3] = codes[4] = "R"
    expected = {3: (200.0, 400.0), 4: (200.0, 400.0)}
    bias = rules.size_centre * rules.area_span

    def sized(area_3: float, area_4: float, crowded: bool = True) -> list[tuple[int, str]]:
        measures = {
            3: PieceMeasure(area_3 * math.exp(bias), 15.0, crowded, 10.0, False),
            4: PieceMeasure(area_4 * math.exp(bias), 15.0, crowded, 10.0, False),
        }
        middle = 0.5 * math.log(200.0 * 400.0)
        scores = {k: math.log(m.area_mm2) - middle for k, m in measures.items()}
        return pair_sizes(codes, measures, expected, scores, 0.0, rules)

    assert sized(170.0, 180.0) == [(3, "vv")]
    assert sized(420.0, 430.0) == [(3, "dd")]
    # One of each: the sum says so, the larger share says which.
    assert sized(380.0, 220.0) == [(3, "dv")]
    assert sized(220.0, 380.0) == [(3, "vd")]
    # One of each by the sum, but no clear difference between the shares: undecided.
    assert sized(300.0, 300.0) == []
    # Pieces that do not touch are sized alone.
    assert sized(170.0, 180.0, crowded=False) == []


def test_a_washed_out_cell_inside_a_seen_tile_takes_its_only_colour() -> None:
    from companion.vision.cells import fill_covered_cells

    rules = CellRules()
    slot = next(iter(PROFILE.vat_slots.values()))[0]
    fractions = np.zeros((CELLS, N_CLASSES))
    fractions[:, PixelClass.NEUTRAL] = 1.0
    washed = {PixelClass.NEUTRAL: 0.35, PixelClass.Y: 0.45, PixelClass.UNKNOWN: 0.2}
    fractions[slot[1]] = 0.0
    for cls, share in washed.items():
        fractions[slot[1], cls] = share
    cells = ["."] * CELLS
    for i in slot:
        cells[i] = "Y"
    cells[slot[1]] = "?"
    assert fill_covered_cells(cells, fractions, PROFILE, rules)[slot[1]] == "Y"
    # Two colours left: still unknown.
    fractions[slot[1], PixelClass.B] = 0.05
    assert fill_covered_cells(cells, fractions, PROFILE, rules)[slot[1]] == "?"
    fractions[slot[1], PixelClass.B] = 0.0
    # ... unless the other is the green glare bends a glossy yellow into, well behind it.
    fractions[slot[1], PixelClass.G] = 0.08
    assert fill_covered_cells(cells, fractions, PROFILE, rules)[slot[1]] == "Y"
    fractions[slot[1], PixelClass.G] = 0.2
    assert fill_covered_cells(cells, fractions, PROFILE, rules)[slot[1]] == "?"
    fractions[slot[1], PixelClass.G] = 0.0
    # Over half the cell one colour, far ahead of a neighbour's edge blurred in: that one.
    fractions[slot[1], PixelClass.Y] = 0.55
    fractions[slot[1], PixelClass.NEUTRAL] = 0.0
    fractions[slot[1], PixelClass.UNKNOWN] = 0.35
    fractions[slot[1], PixelClass.B] = 0.1
    assert fill_covered_cells(cells, fractions, PROFILE, rules)[slot[1]] == "Y"
    fractions[slot[1], PixelClass.B] = 0.2  # not far enough ahead
    assert fill_covered_cells(cells, fractions, PROFILE, rules)[slot[1]] == "?"
    fractions[slot[1], PixelClass.B] = 0.0
    # No tile seen in the slot: the cell may be empty floor.
    alone = ["?" if i in slot else "." for i in range(CELLS)]
    assert fill_covered_cells(alone, fractions, PROFILE, rules)[slot[1]] == "?"


def test_yellow_far_off_the_floor_shows_a_tile_where_no_cell_was_read() -> None:
    """A tile in a hard shadow: one cell half blue, three half yellow, none read.  Two
    pastel cells prove a tile; a yellow one counts only far off the floor's colour."""
    from companion.vision.cells import fill_covered_cells

    rules = CellRules()
    slot = next(s for s in PROFILE.slots if not any(i in PROFILE.bonus_kind for i in s))
    fractions = np.zeros((CELLS, N_CLASSES))
    fractions[:, PixelClass.NEUTRAL] = 1.0
    for i, ink in zip(slot, (PixelClass.Y, PixelClass.B, PixelClass.Y, PixelClass.Y), strict=True):
        fractions[i] = 0.0
        fractions[i, ink] = 0.5
        fractions[i, PixelClass.NEUTRAL] = 0.5
    cells = ["?" if i in slot else "." for i in range(CELLS)]
    offset = np.zeros(CELLS)
    far = rules.pastel_yellow_offset_min + 5.0
    near = rules.pastel_yellow_offset_min - 1.0

    def read(offset_of_yellows: float | None) -> str:
        if offset_of_yellows is None:
            filled = fill_covered_cells(cells, fractions, PROFILE, rules)
        else:
            offset[list(slot)] = offset_of_yellows
            filled = fill_covered_cells(cells, fractions, PROFILE, rules, offset)
        return "".join(filled[i] for i in slot)

    assert read(far) == "YBYY"
    assert read(near) == "????"  # the floor's own hue, a lamp's yellow: one blue cell
    assert read(None) == "????"  # no offsets given: yellow proves nothing
    # Yellow alone, far off: two such cells are a tile.
    fractions[slot[1]] = fractions[slot[0]]
    assert read(far) == "YYYY"
    # A warm lamp's floor near its model: nothing.
    assert read(near) == "????"


def test_a_cell_too_dark_for_its_pixels_inside_a_seen_tile_takes_its_mean_hue() -> None:
    from companion.vision.cells import name_dark_cells

    rules = CellRules()
    hues = ColourModel.from_profile(PROFILE).species_hues_deg()
    slot = next(s for s in PROFILE.slots if not any(i in PROFILE.bonus_kind for i in s))
    fractions = np.zeros((CELLS, N_CLASSES))
    fractions[:, PixelClass.NEUTRAL] = 1.0
    fractions[slot[1]] = 0.0
    fractions[slot[1], PixelClass.DARK] = 0.95
    fractions[slot[1], PixelClass.R] = 0.05
    chroma = np.zeros((CELLS, 2))

    def at_hue(letter: str, offset_deg: float, strength: float) -> None:
        angle = math.radians(hues[letter] + offset_deg)
        chroma[slot[1]] = (strength * math.cos(angle), strength * math.sin(angle))

    cells = ["." if i not in slot else "R" for i in range(CELLS)]
    cells[slot[1]] = "?"

    def named() -> str:
        return name_dark_cells(cells, fractions, chroma, hues, PROFILE, rules)[slot[1]]

    at_hue("R", 10.0, 18.0)
    assert named() == "R"
    at_hue("B", -20.0, 15.0)  # its own tile's colour or another's: each cell has its own
    fractions[slot[1], PixelClass.R] = 0.0
    assert named() == "B"
    at_hue("B", 40.0, 15.0)  # far from every ink's hue: no name
    assert named() == "?"
    at_hue("G", 0.0, 7.0)  # a green tile deep in a lamp arm's shadow keeps this little
    assert named() == "G"
    at_hue("G", 0.0, 4.0)  # too faint a chroma: the shadow's own tint could be that
    assert named() == "?"
    at_hue("Y", 0.0, 30.0)  # inside a seen tile no floor shows: yellow is its own hue
    assert named() == "Y"
    at_hue("R", 0.0, 18.0)
    fractions[slot[1], PixelClass.B] = 0.05  # what light is left shows another colour
    assert named() == "?"
    fractions[slot[1], PixelClass.B] = 0.0
    fractions[slot[1], PixelClass.DARK] = 0.4  # mostly lit and still unread: not a shadow's
    fractions[slot[1], PixelClass.UNKNOWN] = 0.6
    assert named() == "?"
    # In a shadow's soft edge: nearly half dark, the rest but its own colour too dim for
    # a class (conditions 96049: a blue cell left unread, its board's only miss).
    fractions[slot[1], PixelClass.DARK] = 0.47
    fractions[slot[1], PixelClass.UNKNOWN] = 0.41
    fractions[slot[1], PixelClass.R] = 0.12
    assert named() == "R"
    fractions[slot[1], PixelClass.UNKNOWN] = 0.21  # a fifth of it bare-floor grey: lit
    fractions[slot[1], PixelClass.NEUTRAL] = 0.2
    assert named() == "?"
    fractions[slot[1]] = 0.0
    fractions[slot[1], PixelClass.DARK] = 0.95
    fractions[slot[1], PixelClass.UNKNOWN] = 0.0
    # No tile seen in the slot, or a cell of it seen bare: no tile to name the cell for.
    alone = ["?" if i in slot else "." for i in range(CELLS)]
    assert name_dark_cells(alone, fractions, chroma, hues, PROFILE, rules)[slot[1]] == "?"
    opened = list(cells)
    opened[slot[0]] = "."
    assert name_dark_cells(opened, fractions, chroma, hues, PROFILE, rules)[slot[1]] == "?"
    # A tile wholly in the shadow: a second cell as dark and named shows the tile.
    fractions[slot[2]] = fractions[slot[1]]
    chroma[slot[2]] = chroma[slot[1]]
    shadowed = name_dark_cells(alone, fractions, chroma, hues, PROFILE, rules)
    assert [shadowed[i] for i in slot] == ["?", "R", "R", "?"]
    assert name_dark_cells(opened, fractions, chroma, hues, PROFILE, rules)[slot[1]] == "?"
    # Now seen, the tile covers its other cells: one half in the shadow, half lit, shows
    # only its colour in the light left.
    fractions[slot[3]] = 0.0
    fractions[slot[3], PixelClass.R] = 0.55
    fractions[slot[3], PixelClass.DARK] = 0.45
    shadowed = name_dark_cells(alone, fractions, chroma, hues, PROFILE, rules)
    assert [shadowed[i] for i in slot] == ["?", "R", "R", "R"]
    fractions[slot[3]] = 0.0
    fractions[slot[3], PixelClass.NEUTRAL] = 1.0
    # ... but not yellow: that is also the hue of bare floor in a shadow.
    at_hue("Y", 0.0, 30.0)
    chroma[slot[2]] = chroma[slot[1]]
    shadowed = name_dark_cells(alone, fractions, chroma, hues, PROFILE, rules)
    assert [shadowed[i] for i in slot] == ["?", "?", "?", "?"]


def test_a_slot_seen_empty_in_one_cell_holds_no_tile() -> None:
    from companion.vision.cells import fill_open_slots

    rules = CellRules()
    slot = next(iter(PROFILE.vat_slots.values()))[0]
    fractions = np.zeros((CELLS, N_CLASSES))
    fractions[:, PixelClass.NEUTRAL] = 1.0
    # A bright spot: half the cell is floor, half of no measurable colour.
    fractions[slot[1], PixelClass.NEUTRAL] = 0.5
    fractions[slot[1], PixelClass.UNKNOWN] = 0.5
    cells = ["."] * CELLS
    cells[slot[1]] = "?"
    assert fill_open_slots(cells, fractions, PROFILE, rules)[slot[1]] == "."
    # A cell showing a species colour: with the rest of the slot seen as floor, the colour
    # is a neighbour's spill; with a single floor cell, the whole slot stays in doubt, that
    # cell too (a tile washed to the floor's colour in one cell, not in the others).
    fractions[slot[1], PixelClass.R] = 0.2
    fractions[slot[1], PixelClass.UNKNOWN] = 0.3
    assert fill_open_slots(cells, fractions, PROFILE, rules)[slot[1]] == "."
    one_floor = list(cells)
    one_floor[slot[2]] = one_floor[slot[3]] = "?"
    filled = fill_open_slots(one_floor, fractions, PROFILE, rules)
    assert [filled[i] for i in slot] == ["?"] * 4
    # ... but not where the unread cells show no colour: the slot is open.
    fractions[slot[1], PixelClass.R] = 0.0
    filled = fill_open_slots(one_floor, fractions, PROFILE, rules)
    assert [filled[i] for i in slot] == ["."] * 4
    # ... unless glare left a species in one's mean colour: a pale tile washed to the
    # floor's colour in one cell.
    pastel: list[str | None] = [None] * CELLS
    pastel[slot[2]] = "R"
    filled = fill_open_slots(one_floor, fractions, PROFILE, rules, lambda: pastel)
    assert [filled[i] for i in slot] == ["?"] * 4
    # With more than one floor cell, a pastel cell is a neighbour's spill, as a colour is.
    two_floors = list(cells)
    two_floors[slot[2]] = "?"
    filled = fill_open_slots(two_floors, fractions, PROFILE, rules, lambda: pastel)
    assert [filled[i] for i in slot] == ["."] * 4
    # No cell of the slot seen empty: nothing tells the slot is open.
    unread = ["?" if i in slot else "." for i in range(CELLS)]
    assert fill_open_slots(unread, fractions, PROFILE, rules)[slot[1]] == "?"
    # A tile seen in the slot: its washed cell is never read as floor.
    tiled = ["G" if i in slot else "." for i in range(CELLS)]
    tiled[slot[1]] = "?"
    tiled[slot[2]] = "."
    assert fill_open_slots(tiled, fractions, PROFILE, rules)[slot[1]] == "?"


WINDOWS = CellWindows(CanonicalLayout(PROFILE).cell_labels, PROFILE)
UNIT_GAINS = np.ones((256, 3))  # a balance that leaves the camera's colours as they are


def _colour_board(a_at, b_at, lightness: float = 200.0) -> CellColour:  # type: ignore[no-untyped-def]
    g = PROFILE.geometry
    xy = [g.cell_centre_mm(i // 16, i % 16) for i in range(256)]
    return CellColour(
        np.full(256, lightness),
        np.array([a_at(x, y) for x, y in xy], dtype=np.float64),
        np.array([b_at(x, y) for x, y in xy], dtype=np.float64),
        np.zeros(256),
        np.zeros(256),
    )


def _flat_floor() -> FloorModel:
    """The print's nominal floor (a 0, b 15) everywhere, under one light that does not
    drift with brightness."""
    path = np.linspace(0.0, 255.0, 5)[None, :]
    still = np.zeros((1, 5))
    one_light = np.zeros(256, dtype=np.intp)
    return FloorModel(np.zeros(256), np.full(256, 15.0), path, still, still, one_light)


def _no_clipping(raw):  # type: ignore[no-untyped-def]
    return cv2.cvtColor(raw, cv2.COLOR_BGR2Lab)


def test_the_floor_is_followed_across_a_board_lit_warm_on_one_side() -> None:
    # Two lamps: the floor's chroma drifts by 10 units from left to right.  A cell 7 units
    # off that drift is no proof of an empty cell; cells on it are, wherever they are.
    colour = _colour_board(lambda x, y: -4.0 + x / 44.0, lambda x, y: 15.0 + x / 88.0)
    off = 6 * 16 + 9
    colour.a[off] += 7.0
    cells = ["."] * 256
    floor = fit_floor(cells, colour, None, UNIT_GAINS, _no_clipping, WINDOWS, (0.0, 15.0))
    out = prove_empty(cells, colour, floor, WINDOWS)
    assert out[off] == "?"
    assert out.count("?") == 1
    # Against the print's nominal colour alone, the warm side would not be proven empty.
    flat = _flat_floor()
    assert prove_empty(cells, colour, flat, WINDOWS).count("?") > 20


def test_too_few_floor_cells_fall_back_to_the_printed_floor_colour() -> None:
    colour = _colour_board(lambda x, y: 30.0, lambda x, y: -20.0)  # tiles everywhere
    cells = ["B"] * 256
    for i in range(5):
        cells[i * 17] = "."
    floor = fit_floor(cells, colour, None, UNIT_GAINS, _no_clipping, WINDOWS, (0.5, 15.0))
    assert np.allclose(floor.a, 0.5) and np.allclose(floor.b, 15.0)
    out = prove_empty(cells, colour, floor, WINDOWS)
    assert all(out[i * 17] == "?" for i in range(5))


def test_floor_brightened_until_one_channel_clips_is_still_floor() -> None:
    # A bright spot pushes the floor's red channel to the sensor's limit: the floor's
    # chroma bends towards green the way clipping dictates, and is still proven floor.
    # Two channels at the limit leave nothing to measure: never proven empty.
    raw_floor = np.array([120.0, 170.0, 225.0])  # BGR, red the brightest
    spot = np.minimum(raw_floor * 1.6, 255).astype(np.uint8).reshape(1, 1, 3)
    plain = raw_floor.astype(np.uint8).reshape(1, 1, 3)
    lab_spot = cv2.cvtColor(spot, cv2.COLOR_BGR2Lab).reshape(3).astype(float)
    lab_plain = cv2.cvtColor(plain, cv2.COLOR_BGR2Lab).reshape(3).astype(float)
    colour = _colour_board(lambda x, y: lab_plain[1] - 128, lambda x, y: lab_plain[2] - 128)
    colour.lightness[:] = lab_plain[0]
    bright = 10 * 16 + 2
    colour.lightness[bright] = lab_spot[0]
    colour.a[bright] = lab_spot[1] - 128
    colour.b[bright] = lab_spot[2] - 128
    assert np.hypot(lab_spot[1] - lab_plain[1], lab_spot[2] - lab_plain[2]) > 5.0
    cells = ["."] * 256
    floor = fit_floor(cells, colour, raw_floor, UNIT_GAINS, _no_clipping, WINDOWS, (0.0, 15.0))
    assert prove_empty(cells, colour, floor, WINDOWS)[bright] == "."
    colour.washed_out[bright] = 0.9
    assert prove_empty(cells, colour, floor, WINDOWS)[bright] == "?"


def test_each_cell_clips_under_its_own_lamps_balance() -> None:
    # Two lamps: the balance lifts red three times more on the right than on the left.
    # A bright spot on the right clips red at the sensor long before the same brightness
    # would on the left, and the floor there turns green-blue the way only its own
    # balance predicts.
    floor_bgr = np.array([150.0, 175.0, 190.0])  # balanced
    right_gains = np.array([1.5, 1.1, 0.75])
    g = PROFILE.geometry
    right = np.array([g.cell_centre_mm(i // 16, i % 16)[0] > 220 for i in range(256)])
    gains = np.where(right[:, None], right_gains, 1.0)

    def seen(brightening: float, cell_gains: np.ndarray) -> np.ndarray:
        sensor = np.minimum(floor_bgr / cell_gains * brightening, 255.0)
        balanced = np.minimum(sensor * cell_gains, 255.0).round().astype(np.uint8)
        lab = cv2.cvtColor(balanced.reshape(1, 1, 3), cv2.COLOR_BGR2Lab).reshape(3)
        return np.asarray(lab, dtype=np.float64) - [0.0, 128.0, 128.0]

    own = seen(1.0, np.ones(3))
    colour = _colour_board(lambda x, y: own[1], lambda x, y: own[2], lightness=own[0])
    spot = 10 * 16 + 13
    assert right[spot]
    colour.lightness[spot], colour.a[spot], colour.b[spot] = seen(1.3, right_gains)
    cells = ["."] * 256
    floor = fit_floor(cells, colour, floor_bgr, gains, _no_clipping, WINDOWS, (0.0, 15.0))
    assert prove_empty(cells, colour, floor, WINDOWS)[spot] == "."
    # Traced under one balance for the whole board, the spot is no longer the floor.
    one = fit_floor(cells, colour, floor_bgr, UNIT_GAINS, _no_clipping, WINDOWS, (0.0, 15.0))
    assert prove_empty(cells, colour, one, WINDOWS)[spot] == "?"


def test_glare_whitens_each_cell_towards_the_white_its_own_balance_shows() -> None:
    # The sensor's white (every channel at the limit) balanced by a warm lamp's gains on
    # the right turns cyan; on the left, under unit gains, it stays neutral.  That is the
    # colour glare mixes into a tile there, with or without a floor colour measured.
    right_gains = np.array([1.5, 1.1, 0.75])
    g = PROFILE.geometry
    right = np.array([g.cell_centre_mm(i // 16, i % 16)[0] > 220 for i in range(256)])
    gains = np.where(right[:, None], right_gains, 1.0)
    white = np.minimum(255.0 * right_gains, 255.0).round().astype(np.uint8).reshape(1, 1, 3)
    expected = cv2.cvtColor(white, cv2.COLOR_BGR2Lab).reshape(3)[1:].astype(float) - 128.0
    assert expected[0] < -5.0 and expected[1] < -5.0
    colour = _colour_board(lambda x, y: 0.0, lambda x, y: 15.0)
    for floor_bgr in (None, np.array([150.0, 175.0, 190.0])):
        floor = fit_floor(["."] * 256, colour, floor_bgr, gains, _no_clipping, WINDOWS, (0.0, 15.0))
        wa, wb = floor.white()
        left_cell, right_cell = int(np.argmin(right)), int(np.argmax(right))
        assert abs(wa[left_cell]) <= 1.0 and abs(wb[left_cell]) <= 1.0
        assert np.allclose((wa[right_cell], wb[right_cell]), expected, atol=1.0)


def test_a_bonus_cell_is_proven_empty_by_the_floor_around_its_icon() -> None:
    # The icon's own ink is not the floor's: a bonus cell is measured on the ring around
    # its icon, which must show the floor's chroma like any plain cell.
    layout = CanonicalLayout(PROFILE)
    windows = CellWindows(layout.cell_labels, PROFILE, layout.bonus_rings)
    bonus = next(i for i in range(256) if not windows.plain[i])
    floor_bgr = (168, 195, 207)
    view = np.zeros((*layout.cell_labels.shape, 3), dtype=np.uint8)
    view[:] = floor_bgr
    view[layout.cell_labels == bonus] = (200, 60, 40)  # the icon, filling the window
    view[layout.bonus_rings == bonus] = floor_bgr  # bare floor around it
    lab = cv2.cvtColor(view, cv2.COLOR_BGR2Lab)
    colour = CellColour.measure(lab, view, view, windows)
    cells = ["."] * 256
    floor = fit_floor(cells, colour, None, UNIT_GAINS, _no_clipping, windows, (0.0, 15.0))
    assert prove_empty(cells, colour, floor, windows)[bonus] == "."
    view[layout.bonus_rings == bonus] = (40, 200, 230)  # a yellow tile's colour around it
    lab = cv2.cvtColor(view, cv2.COLOR_BGR2Lab)
    colour = CellColour.measure(lab, view, view, windows)
    assert prove_empty(cells, colour, floor, windows)[bonus] == "?"


def test_a_washed_out_cell_is_never_proven_empty() -> None:
    # Two channels at the sensor's limit leave nothing to tell a glossy tile under glare
    # from the floor, even where the whole frame is exposed brightly.
    colour = _colour_board(lambda x, y: 0.0, lambda x, y: 15.0)
    cells = ["."] * 256
    floor = fit_floor(
        cells,
        colour,
        np.array([168.0, 195.0, 207.0]),
        UNIT_GAINS,
        _no_clipping,
        WINDOWS,
        (0.0, 15.0),
    )
    washed = [3 * 16 + 6, 9 * 16 + 6]
    colour.washed_out[washed] = 1.0
    out = prove_empty(cells, colour, floor, WINDOWS)
    assert [out[i] for i in washed] == ["?", "?"]
    assert out.count("?") == 2


def test_the_floor_follows_its_brightening_path_only_as_far_as_the_frame_shows() -> None:
    # A camera's tone curve bends its brightest values less than clipping alone would:
    # across a board lit brighter to the right, the floor drifts along the traced path
    # by a third of it.  Fitted to the empty cells, the path scales down with them.
    g = PROFILE.geometry
    x = np.array([g.cell_centre_mm(i // 16, i % 16)[0] for i in range(256)])
    lightness = 160.0 + 90.0 * (x - x.min()) / np.ptp(x)
    floor_bgr = np.array([120.0, 150.0, 175.0])  # the floor in a dim room

    def board(a: np.ndarray, b: np.ndarray) -> CellColour:
        return CellColour(lightness, a, b, np.zeros(256), np.zeros(256))

    args = (floor_bgr, UNIT_GAINS, _no_clipping, WINDOWS, (0.0, 15.0))
    flat = board(np.zeros(256), np.full(256, 15.0))
    traced = fit_floor(["?"] * 256, flat, *args)  # no empty cell: the path as traced
    ea, eb = traced.expected(lightness)
    colour = board(0.3 * (ea - traced.a), 15.0 + 0.3 * (eb - traced.b))
    assert not floor_chroma(colour, traced).all()  # the traced path overshoots
    fitted = fit_floor(["."] * 256, colour, *args)
    assert floor_chroma(colour, fitted).all()
    # A frame bending further than traced keeps the traced path: the scale stops at 1.
    steep = board(2.0 * (ea - traced.a), 15.0 + 2.0 * (eb - traced.b))
    kept = fit_floor(["."] * 256, steep, *args)
    assert np.allclose(kept.path_da, traced.path_da)


def test_unread_cells_showing_the_floor_fitted_elsewhere_are_empty() -> None:
    # A warm lamp on the right pushes the floor there out of the floor class: those cells
    # come in unread, but the floor fitted across the rest of the board predicts them.
    colour = _colour_board(lambda x, y: -4.0 + x / 30.0, lambda x, y: 15.0 + x / 60.0)
    g = PROFILE.geometry
    right = [
        i for i in range(256) if WINDOWS.plain[i] and g.cell_centre_mm(i // 16, i % 16)[0] > 300
    ]
    cells = ["?" if i in right else "." for i in range(256)]
    floor = fit_floor(cells, colour, None, UNIT_GAINS, _no_clipping, WINDOWS, (0.0, 15.0))
    no_colour = np.zeros(256)
    out = admit_floor(cells, colour, floor, WINDOWS, no_colour, 0.1)
    assert all(out[i] == "." for i in right)
    # No proof without the floor's colour, with a species colour seen, or under glare.
    tinted, coloured, washed = right[:3]
    colour.a[tinted] += 8.0
    with_colour = no_colour.copy()
    with_colour[coloured] = 0.3
    colour.washed_out[washed] = 0.9
    out = admit_floor(cells, colour, floor, WINDOWS, with_colour, 0.1)
    assert [out[i] for i in (tinted, coloured, washed)] == ["?", "?", "?"]
    assert out.count("?") == 3
    # Nor under an arm: the window's mean is the arm's then, whatever it resembles.
    under_arm = right[3]
    out = admit_floor(cells, colour, floor, WINDOWS, no_colour, 0.1, frozenset({under_arm}))
    assert out[under_arm] == "?"


def test_an_unread_slot_with_the_chroma_of_the_bare_cells_around_it_is_empty() -> None:
    # A lamp's warm corner: the floor's chroma bends there more than a plane follows, so a
    # slot in it comes in unread; the bare cells around it, in the same light, match it.
    colour = _colour_board(lambda x, y: 0.0, lambda x, y: 18.0)
    slot = list(PROFILE.slots[0])
    cells = ["."] * 256
    for i in slot:
        cells[i] = "?"
        colour.b[i] = 21.0  # 3 units off the floor beside it
    no_colour = np.zeros(256)
    slots = PROFILE.slots
    out = admit_floor_like_its_neighbours(cells, colour, slots, no_colour, 0.1)
    assert [out[i] for i in slot] == ["."] * 4
    # A tile's ink is far from the floor beside it, whatever the light.
    inked = colour.b.copy()
    colour.b[slot[0]] = 18.0 + 8.0
    out = admit_floor_like_its_neighbours(cells, colour, slots, no_colour, 0.1)
    assert [out[i] for i in slot] == ["?"] * 4  # one cell unproven leaves its slot unread
    colour.b[:] = inked
    # Neighbours in another light (a shadow's edge between them) prove nothing.
    colour.lightness[:] = 120.0
    for i in slot:
        colour.lightness[i] = 200.0
    out = admit_floor_like_its_neighbours(cells, colour, slots, no_colour, 0.1)
    assert [out[i] for i in slot] == ["?"] * 4
    colour.lightness[:] = 200.0
    # Nor with a species colour seen, washed out, or under an arm.
    with_colour = no_colour.copy()
    with_colour[slot[1]] = 0.3
    assert admit_floor_like_its_neighbours(cells, colour, slots, with_colour, 0.1) == cells
    hidden = frozenset({slot[2]})
    assert admit_floor_like_its_neighbours(cells, colour, slots, no_colour, 0.1, hidden) == cells
    colour.washed_out[slot[3]] = 0.9
    assert admit_floor_like_its_neighbours(cells, colour, slots, no_colour, 0.1) == cells


def test_the_arm_takes_its_pale_side_but_not_far_unexplained_patches() -> None:
    # Skin along an arm reaching in from the left edge; beside it, the arm's pale glossy
    # underside shows no skin colour (unknown); far away, a broad unknown patch (a shadow)
    # and a wall-thin unknown line belong to no arm.
    layout = CanonicalLayout(PROFILE)
    width, height = layout.size_px
    classes = np.full((height, width), PixelClass.NEUTRAL, np.uint8)
    skin = np.zeros((height, width), bool)
    skin[300:360, 0:420] = True
    classes[360:410, 0:220] = PixelClass.UNKNOWN  # the pale underside, beside the skin
    classes[80:150, 380:450] = PixelClass.UNKNOWN  # a shadow far from the arm
    classes[200:520, 300:310] = PixelClass.UNKNOWN  # a wall, crossing the arm
    lab = np.full((height, width, 3), 128, np.uint8)
    mask = hand_mask(classes, skin, skin, layout, lab)
    assert mask is not None
    assert mask[385, 100]  # the underside is arm
    assert not mask[115, 415]  # the far shadow is not
    assert not mask[500, 305] and not mask[220, 305]  # nor the wall beyond the arm's reach


def test_the_arm_follows_its_own_colour_where_light_took_it_out_of_skin() -> None:
    # Lit from the side, an arm shows no skin colour at all: where it crosses the sheet's
    # outer band it is a colour no piece has there, and over the grid it keeps that colour.
    # A broad yellow patch of another chroma beside it (tiles) is not arm.
    layout = CanonicalLayout(PROFILE)
    width, height = layout.size_px
    classes = np.full((height, width), PixelClass.NEUTRAL, np.uint8)
    lab = np.full((height, width, 3), 128, np.uint8)
    no_skin = np.zeros((height, width), bool)
    classes[300:360, 0:420] = PixelClass.Y
    lab[300:360, 0:420] = (200, 150, 170)
    classes[385:445, 200:260] = PixelClass.Y
    lab[385:445, 200:260] = (200, 128, 198)
    mask = hand_mask(classes, no_skin, no_skin, layout, lab)
    assert mask is not None
    assert mask[330, 400]  # the arm's far end, over the grid
    assert not mask[430, 230]  # the tiles beside it
    # Where the body is another colour than the patch on the sheet, only the patch is arm.
    lab[300:360, 60:420] = (200, 128, 198)
    mask = hand_mask(classes, no_skin, no_skin, layout, lab)
    assert mask is not None and not mask[330, 400]


def test_an_arm_brightened_out_of_every_class_is_still_found_on_the_sheet() -> None:
    # An arm near the lamp over a sheet in its own shadow: the balance brightens it until
    # red clips, and it shows no class at all, no skin, but a chroma far from the
    # sheet's, more saturated and redder.  Glare on the sheet (paler, or greener where it
    # clipped red) and a shadow (the sheet's own chroma) are no arm.
    layout = CanonicalLayout(PROFILE)
    width, height = layout.size_px
    sheet_ab = bgr_to_ab(ColourModel.from_profile(PROFILE).sheet_bgr)
    classes = np.full((height, width), PixelClass.NEUTRAL, np.uint8)
    lab = np.full((height, width, 3), 128, np.uint8)
    lab[..., 1:] = np.round(np.array(sheet_ab) + 128.0).astype(np.uint8)
    no_skin = np.zeros((height, width), bool)
    classes[300:360, 0:420] = PixelClass.UNKNOWN
    lab[300:360, 0:420] = (225, 139, 161)  # a = +11, b = +33
    mask = hand_mask(classes, no_skin, no_skin, layout, lab, sheet_ab)
    assert mask is not None and mask[330, 60] and mask[330, 400]
    assert hand_mask(classes, no_skin, no_skin, layout, lab) is None  # no sheet chroma given
    lab[300:360, 0:420] = (250, 128, 128)  # glare: far from the sheet, but paler
    assert hand_mask(classes, no_skin, no_skin, layout, lab, sheet_ab) is None
    lab[300:360, 0:420] = (235, 114, 146)  # glare that clipped red: as saturated, but green
    assert hand_mask(classes, no_skin, no_skin, layout, lab, sheet_ab) is None
    lab[300:360, 0:420, 0] = 120  # a shadow: the sheet's own chroma, darker
    lab[300:360, 0:420, 1:] = np.round(np.array(sheet_ab) + 128.0).astype(np.uint8)
    assert hand_mask(classes, no_skin, no_skin, layout, lab, sheet_ab) is None


def _arm_lit_only_over_the_grid(
    layout: CanonicalLayout,
) -> tuple[NDArray[np.uint8], NDArray[np.bool_], NDArray[np.uint8]]:
    """Classes, skin and Lab of an arm reaching in from the left edge: no skin where it
    crosses the sheet (shaded: no known colour), broad lit skin over the grid."""
    width, height = layout.size_px
    classes = np.full((height, width), PixelClass.NEUTRAL, np.uint8)
    skin = np.zeros((height, width), bool)
    classes[300:350, 0:200] = PixelClass.UNKNOWN  # the arm over the sheet, in its shade
    skin[300:350, 200:420] = True  # ... and lit over the grid
    classes[300:350, 200:420] = PixelClass.R
    lab = np.full((height, width, 3), 128, np.uint8)
    return classes, skin, lab


def test_skin_over_the_grid_is_an_arm_only_when_a_broad_way_leads_out() -> None:
    # Joined to the view's edge by the arm's own breadth it is an arm; joined only by a
    # wall's thin line of no known colour, skin no larger than a few tiles is pale tiles.
    layout = CanonicalLayout(PROFILE)
    classes, skin, lab = _arm_lit_only_over_the_grid(layout)
    mask = hand_mask(classes, skin, skin, layout, lab)
    assert mask is not None and mask[325, 400]
    classes[300:350, 0:200] = PixelClass.NEUTRAL
    classes[322:326, 0:200] = PixelClass.UNKNOWN  # a thin line where the arm was
    skin[300:350, 300:420] = False  # 40 by 80 mm left: two slots' worth
    classes[300:350, 300:420] = PixelClass.NEUTRAL
    assert hand_mask(classes, skin, skin, layout, lab) is None


def test_skin_far_larger_than_any_tile_is_an_arm_with_no_way_out() -> None:
    # An arm crossing the sheet's edge in a shadow may leave no broad colour there at all
    # (conditions 97020): lit skin over the grid far larger than tiles show is an arm
    # all the same.
    layout = CanonicalLayout(PROFILE)
    classes, skin, lab = _arm_lit_only_over_the_grid(layout)
    classes[300:350, 0:200] = PixelClass.NEUTRAL
    s = layout.px_per_mm
    side = round(math.sqrt(SKIN_ALONE_MM2) * s * 1.2)
    skin[:] = False
    skin[200 : 200 + side, 200 : 200 + side] = True
    classes[200 : 200 + side, 200 : 200 + side] = PixelClass.R
    mask = hand_mask(classes, skin, skin, layout, lab)
    assert mask is not None and mask[200 + side // 2, 200 + side // 2]
    small = round(math.sqrt(SKIN_ALONE_MM2) * s * 0.8)
    skin[200 + small :, :] = False
    skin[:, 200 + small :] = False
    classes[skin == 0] = PixelClass.NEUTRAL
    assert hand_mask(classes, skin, skin, layout, lab) is None


def test_skin_reaching_in_is_an_arm_even_when_another_patch_on_the_sheet_was_found() -> None:
    # The arm crosses the sheet in a shadow (no known colour) and shows lit skin over the
    # grid, while elsewhere on the sheet's outer band a broad coloured object lies: both
    # are found, the one does not hide the other.
    layout = CanonicalLayout(PROFILE)
    classes, skin, lab = _arm_lit_only_over_the_grid(layout)
    classes[525:550, 100:300] = PixelClass.R  # a coloured object on the outer band
    mask = hand_mask(classes, skin, skin, layout, lab)
    assert mask is not None
    assert mask[537, 200]  # the object
    assert mask[325, 400]  # and the arm's far end over the grid


def test_broad_skin_joined_to_a_hard_shadow_is_still_an_arm() -> None:
    # A hard shadow (no known colour) falls across a corner of the board and reaches the
    # view's edge; the arm's lit skin over the grid joins it.  Shade is then most of the
    # stretch, yet skin as broad as a hand is an arm.  A speck of skin-toned colour in
    # the same shadow is not.
    layout = CanonicalLayout(PROFILE)
    width, height = layout.size_px
    classes = np.full((height, width), PixelClass.NEUTRAL, np.uint8)
    skin = np.zeros((height, width), bool)
    classes[300:550, 0:250] = PixelClass.UNKNOWN  # the shadow
    lab = np.full((height, width, 3), 128, np.uint8)
    skin[400:406, 100:106] = True  # a speck in it
    assert hand_mask(classes, skin, skin, layout, lab) is None
    skin[300:350, 200:420] = True  # the arm's lit skin
    classes[300:350, 250:420] = PixelClass.R
    mask = hand_mask(classes, skin, skin, layout, lab)
    assert mask is not None and mask[325, 400]


def test_an_arm_crossing_the_sheets_edge_in_a_lamp_arms_shadow_is_found() -> None:
    """The frame with a hand of ``bench vision --conditions --seed 97001`` numbered 97020:
    a skin-coloured arm whose shaded part crosses the sheet's edge in a lamp arm's
    shadow.  The reading is flagged covered, and no piece under it is read as empty."""
    frame = generated_frame(PROFILE, 97020, True, True)
    reading = BoardReader(PROFILE).read(frame.image)
    assert reading.occluded and reading.state is not None
    assert frame.truth.workers[29] == "Yv"
    assert reading.state.workers[29] in ("Yv", "?")


def test_reach_around_the_arm_is_measured_in_millimetres() -> None:
    layout = CanonicalLayout(PROFILE)
    width, height = layout.size_px
    hand = np.zeros((height, width), bool)
    hand[270:280, 270:280] = True
    near = within_reach(hand, layout.px_per_mm, 40.0)
    step = round(40.0 * layout.px_per_mm)
    assert near[275, 279 + step - 2] and not near[275, 279 + step + 2]
    assert not near[270 - step - 3, 275]


def test_reach_worked_out_near_the_arm_is_the_whole_views_reach() -> None:
    # Only the arm's box widened by the reach is measured; the answer must be the one
    # the whole view gives, at the view's edges too, and with no arm nothing is near.
    layout = CanonicalLayout(PROFILE)
    width, height = layout.size_px
    rng = np.random.default_rng(5)
    for _ in range(4):
        hand = np.zeros((height, width), bool)
        for _ in range(3):
            y, x = int(rng.integers(0, height)), int(rng.integers(0, width))
            hand[y : y + int(rng.integers(5, 60)), x : x + int(rng.integers(5, 60))] = True
        whole = cv2.distanceTransform((~hand).astype(np.uint8), cv2.DIST_L2, 5)
        assert np.array_equal(within_reach(hand, layout.px_per_mm, 30.0), whole <= 37.5)
    assert not within_reach(np.zeros((height, width), bool), layout.px_per_mm, 30.0).any()


# The first vat's top-left slot, and the slot beside it.
SLOT, NEXT_SLOT = (0, 1, 16, 17), (2, 3, 18, 19)
NO_WALLS = np.zeros(256, dtype=bool)


def test_beside_an_arm_the_floors_colour_proves_no_floor() -> None:
    # Lit skin shows the floor's chroma (all of it, or what is left with red clipped):
    # beside an arm an empty reading needs the print or a bare slot mate beyond it.
    cells = ["."] * 256
    cells[3] = "R"
    near = frozenset({*SLOT, 2, 3})
    out = doubt_floor_beside_an_arm(cells, near, lambda asked: NO_WALLS, PROFILE.slots)
    assert [out[i] for i in SLOT] == ["?"] * 4  # near the arm, the whole slot
    assert out[40] == "."  # far from any arm
    assert out[3] == "R"  # only empty readings are doubted
    assert out[2] == "."  # near, but its slot mates beyond the arm's reach are bare
    assert out.count("?") == 4


def test_beside_an_arm_a_printed_wall_or_a_bare_slot_mate_keeps_the_floor() -> None:
    cells = ["."] * 256
    near = frozenset({*SLOT, *NEXT_SLOT})
    walls = NO_WALLS.copy()
    walls[0] = True  # the wall beside the slot's corner cell shows: no arm over it
    out = doubt_floor_beside_an_arm(cells, near, lambda asked: walls, PROFILE.slots)
    # The corner cell is bare floor, so no tile lies under the rest of its slot.
    assert [out[i] for i in SLOT] == ["."] * 4
    assert [out[i] for i in NEXT_SLOT] == ["?"] * 4
    # One cell of the next slot beyond the arm's reach, seen bare: the slot is open.
    out = doubt_floor_beside_an_arm(cells, near - {19}, lambda asked: walls, PROFILE.slots)
    assert [out[i] for i in NEXT_SLOT] == ["."] * 4


def test_a_lone_clipped_floor_cell_proves_no_open_slot_beside_a_yellow_mate() -> None:
    from companion.vision.floor import doubt_lone_clipped_floor

    # The floor's colour everywhere (a 0, b 15): each slot's one empty reading is proven.
    colour = _colour_board(lambda x, y: 0.0, lambda x, y: 15.0)
    floor = _flat_floor()
    cells = ["."] * 256
    for i in (1, 16, 17, 3, 18, 19):
        cells[i] = "?"
    colour.clipped[[0, 2]] = 0.9
    colour.b[[16, 18]] = 25.0  # a glare-washed yellow cell beside each, 10 units off
    colour.b[19] = 20.0  # ... and one 5 off, as bare floor may lie
    out = doubt_lone_clipped_floor(cells, colour, floor, PROFILE.slots)
    assert [out[i] for i in SLOT] == ["?"] * 4
    assert [out[i] for i in NEXT_SLOT] == ["?"] * 4
    assert out.count("?") == 8
    # Unclipped, the one empty cell's proof stands.
    colour.clipped[2] = 0.2
    out = doubt_lone_clipped_floor(cells, colour, floor, PROFILE.slots)
    assert out[2] == "."
    colour.clipped[2] = 0.9
    # Mates no further off than bare floor lies: the slot is open.
    colour.b[18] = 15.0
    out = doubt_lone_clipped_floor(cells, colour, floor, PROFILE.slots)
    assert out[2] == "."
    # Slot mates unread under an arm say nothing of their colour: the proof stands.
    out = doubt_lone_clipped_floor(cells, colour, floor, PROFILE.slots, frozenset({16}))
    assert out[0] == "."
    # Two cells seen bare: neither stands alone.
    cells[1] = "."
    colour.clipped[1] = 0.9
    out = doubt_lone_clipped_floor(cells, colour, floor, PROFILE.slots)
    assert out[0] == "." and out[1] == "."


def test_a_cell_the_arm_only_grazes_is_still_read() -> None:
    # The arm's region covers one window whole and a sliver of its neighbour: only the
    # first is hidden; the neighbour is read from what shows beside the arm.
    from companion.vision.reader import ARM_COVER_MAX, _cells_covered

    layout = CanonicalLayout(PROFILE)
    labels = layout.cell_labels
    cells = LabelledPixels(labels)
    arm = labels == 5 * 16 + 5
    ys, xs = np.nonzero(labels == 5 * 16 + 6)
    arm[ys.min() : ys.max() + 1, xs.min() : xs.min() + 2] = True  # a sliver of the next
    assert _cells_covered(arm, cells, ARM_COVER_MAX) == frozenset({5 * 16 + 5})
    arm[ys.min() : ys.max() + 1, xs.min() : (xs.min() + xs.max()) // 2] = True
    assert _cells_covered(arm, cells, ARM_COVER_MAX) == frozenset({5 * 16 + 5})  # half shows
    arm[ys.min() : ys.max() + 1, xs.min() : xs.min() + (xs.max() - xs.min()) * 7 // 8] = True
    assert _cells_covered(arm, cells, ARM_COVER_MAX) == frozenset({5 * 16 + 5, 5 * 16 + 6})
    assert _cells_covered(arm, cells, 0.0) == frozenset({5 * 16 + 5, 5 * 16 + 6})


def test_a_slot_of_pastel_cells_holds_a_tile() -> None:
    # Glare turns a glossy tile pastel: no cell reaches the share a clear reading needs,
    # but two cells each showing one species and no other are a tile, never bare floor.
    from companion.vision.cells import fill_covered_cells

    rules = CellRules()
    slot = next(s for s in PROFILE.slots if not any(i in PROFILE.bonus_kind for i in s))
    fractions = np.zeros((CELLS, N_CLASSES))
    fractions[:, PixelClass.NEUTRAL] = 1.0
    pastel = {slot[0]: PixelClass.G, slot[1]: PixelClass.B, slot[2]: PixelClass.B}
    for i, species in pastel.items():
        fractions[i] = 0.0
        fractions[i, species] = 0.45
        fractions[i, PixelClass.UNKNOWN] = 0.55
    fractions[slot[3]] = 0.0
    fractions[slot[3], PixelClass.NEUTRAL] = 0.7
    fractions[slot[3], PixelClass.UNKNOWN] = 0.3
    cells = ["?" if i in slot else "." for i in range(CELLS)]
    out = fill_covered_cells(cells, fractions, PROFILE, rules)
    assert [out[i] for i in slot] == ["G", "B", "B", "?"]
    # One such cell is no proof: it may be a neighbour's piece leaning in.
    fractions[slot[1], PixelClass.B] = 0.0
    fractions[slot[2], PixelClass.B] = 0.0
    out = fill_covered_cells(cells, fractions, PROFILE, rules)
    assert [out[i] for i in slot] == ["?"] * 4


@pytest.mark.parametrize("seed", range(5))
def test_grouped_medians_are_numpys_medians(seed: int) -> None:
    """The light's blocks take their medians from histograms: the same values as
    ``np.median`` per group, even counts (the mean of the two middle values) included."""
    rng = np.random.default_rng(seed)
    count = 9
    sizes = rng.integers(1, 40, count)
    group = np.repeat(np.arange(count), sizes)
    pixels = rng.integers(0, 256, (len(group), 3)).astype(np.uint8)
    shuffled = rng.permutation(len(group))
    got = grouped_medians(pixels[shuffled], group[shuffled], count)
    want = np.array([np.median(pixels[group == k], axis=0) for k in range(count)])
    assert np.array_equal(got, want)


def test_the_light_blocks_match_a_median_per_block() -> None:
    """Blocks gathered once per board give what cutting each block out of the view gives:
    its centre and the median of its unclipped sampled pixels, for blocks clear enough."""
    layout = CanonicalLayout(load_profile("troia"))
    rng = np.random.default_rng(3)
    view = rng.integers(200, 256, (*layout.size_px[::-1], 3)).astype(np.uint8)
    view[:, : layout.size_px[0] // 3] = 255  # clipped: the blocks there are not usable
    want_centres, want_colours = [], []
    for rows, cols in layout.sheet_bands():
        along_x = (cols.stop - cols.start) >= (rows.stop - rows.start)
        span = (cols.start, cols.stop) if along_x else (rows.start, rows.stop)
        edges = np.linspace(span[0], span[1], BLOCKS_PER_STRIP + 1).round().astype(int)
        for lo, hi in itertools.pairwise(edges.tolist()):
            r, c = (rows, slice(lo, hi)) if along_x else (slice(lo, hi), cols)
            sampled = view[r, c].reshape(-1, 3)[::PIXEL_STEP]
            clear = sampled[sampled.max(axis=1) < CLIPPED]
            if len(clear) == 0 or len(clear) < BLOCK_MIN_CLEAR * len(sampled):
                continue
            want_colours.append(np.median(clear, axis=0))
            want_centres.append(((c.start + c.stop) / 2.0, (r.start + r.stop) / 2.0))
    centres, colours = _sheet_blocks(view, layout)
    assert 0 < len(want_centres) < 4 * BLOCKS_PER_STRIP
    assert np.array_equal(centres, np.array(want_centres))
    assert np.array_equal(colours, np.array(want_colours))


def test_the_sheet_strips_match_a_median_per_strip() -> None:
    """Each strip's colour is the median of its unclipped sampled pixels, or of all of them
    when too few are unclipped (a strip washed out by a lamp)."""
    layout = CanonicalLayout(load_profile("troia"))
    rng = np.random.default_rng(5)
    view = rng.integers(180, 256, (*layout.size_px[::-1], 3)).astype(np.uint8)
    rows, cols = layout.sheet_bands()[0]
    view[rows, cols] = 255  # the first strip clipped all over
    want = []
    for rows, cols in layout.sheet_bands():
        sampled = view[rows, cols].reshape(-1, 3)[::PIXEL_STEP]
        clear = sampled[sampled.max(axis=1) < CLIPPED]
        usable = len(clear) > 0 and len(clear) >= BLOCK_MIN_CLEAR * len(sampled)
        want.append(np.median(clear if usable else sampled, axis=0))
    assert np.array_equal(sheet_strips(view, layout), np.array(want))
    assert np.array_equal(sheet_strips(view, layout)[0], [255.0, 255.0, 255.0])


def test_every_core_disc_in_one_pass_is_the_disc_cut_out_alone() -> None:
    """The cores of all spaces gathered at once hold exactly the pixels within the radius of
    each centre, including centres at the image's edges and fractional centres."""
    rng = np.random.default_rng(8)
    image = rng.integers(0, 7, (60, 80)).astype(np.uint8)
    centres = np.array([[0.3, 0.2], [79.6, 59.7], [40.5, 30.5], [12.25, 47.9], [-2.0, 10.0]])
    radius = 4.375
    values, inside = _discs(image, centres, radius)
    for k, (x, y) in enumerate(centres):
        want = sorted(
            int(image[py, px])
            for py in range(60)
            for px in range(80)
            if (px - x) ** 2 + (py - y) ** 2 <= radius * radius
        )
        assert sorted(values[k][inside[k]].tolist()) == want


def test_skin_over_a_cell_near_the_arm_undoes_an_ink_no_skin_shares() -> None:
    # Near the arm, a third of a yellow cell's window in skin's colours is the arm's lit
    # fingers; a red's pixels fall among skin's colours anyway (its own test is
    # skin_toned_red), and away from the arm nothing is undone.
    cells = ["."] * 256
    cells[10], cells[11], cells[12], cells[13], cells[14] = "Y", "G", "R", "B", "Y"
    skin = np.zeros(256)
    skin[[10, 11, 12, 14]] = 0.35
    skin[13] = 0.1
    near = frozenset({10, 11, 12, 13})
    assert skin_over_ink(cells, skin, near) == [10, 11]


def test_floor_beside_the_arm_proves_nothing_in_a_slot_the_arm_mostly_covers() -> None:
    # The arm hides two cells of the first slot: the two others, read as bare floor, show
    # its shaded fingers as often as floor where its region still touches them.  Where it
    # hides one cell, or touches a cell it hides none of the slot beside, floor stands.
    first, second, third = PROFILE.slots[:3]
    cells = ["."] * 256
    hidden = frozenset({first[0], first[1], second[0]})
    touched = hidden | {first[2], second[1], third[0]}
    for i in hidden:
        cells[i] = "?"
    assert floor_at_a_covered_slots_edge(cells, PROFILE.slots, hidden, touched) == {first[2]}
    # A cell already read as a tile is left to the passes that judge inks under skin.
    cells[first[2]] = "R"
    assert floor_at_a_covered_slots_edge(cells, PROFILE.slots, hidden, touched) == frozenset()


def test_a_dominus_read_with_its_shadow_lifted_never_makes_a_second_of_its_colour() -> None:
    # A blue dominus read in the frame's own light on space 23 and another read on space
    # 22 once its shadow was lifted: one is wrong, and sizes from two lights do not say
    # which, so both are unread.  A red dominus read so alone, and a blue vilicus, stand.
    def piece(code: str | None) -> WorkerObservation:
        return WorkerObservation(code, 100.0, (0.0, 0.0))

    workers = [piece(None)] * LINES
    workers[22], workers[23], workers[5], workers[24] = (
        piece("Bd"),
        piece("Bd"),
        piece("Rd"),
        piece("Bv"),
    )
    codes = [obs.code for obs in no_second_dominus(workers, {22, 5})]
    assert (codes[22], codes[23], codes[5], codes[24]) == ("?", "?", "Rd", "Bv")
    # Two domini read in one light are left to the size passes, which compare them.
    assert [obs.code for obs in no_second_dominus(workers, {24})] == [o.code for o in workers]


def test_an_ink_doubted_as_skin_takes_its_slots_cells_read_empty_with_it() -> None:
    # Were the red a tile's, no cell of its slot is bare; were it skin, the slot may be.
    # Either way the cells read empty beside it prove nothing.
    slot, other = PROFILE.slots[0], PROFILE.slots[1]
    cells = ["?"] * 256
    cells[slot[0]], cells[slot[1]], cells[slot[2]] = "R", ".", "Y"
    cells[other[0]] = "."
    assert with_bare_slot_mates(cells, [slot[0]], PROFILE.slots) == {slot[0], slot[1]}
    # A cell doubted while unread or empty tells nothing of its slot mates.
    assert with_bare_slot_mates(cells, [slot[3]], PROFILE.slots) == {slot[3]}
    assert with_bare_slot_mates(cells, [other[0]], PROFILE.slots) == {other[0]}


def test_skin_toned_red_takes_each_cells_median_saturation() -> None:
    """The cells whose red pixels are, at the median, as pale as skin: all cells at once,
    the same cells as one median per cell (even counts included)."""
    rng = np.random.default_rng(12)
    blocks = np.arange(32) // 8
    labels = np.full((40, 40), -1, dtype=np.int32)
    labels[:32, :32] = blocks[:, None] * 4 + blocks[None, :]  # 16 cells of 8 x 8 pixels
    classes = rng.choice([PixelClass.R, PixelClass.NEUTRAL], size=(40, 40)).astype(np.uint8)
    # Cells of even number pale, odd ones saturated; each pixel drawn around its cell's tone.
    spread = np.where(labels % 2 == 0, 8, 60)
    lab = np.stack(
        [
            rng.integers(100, 200, (40, 40)),
            128 + rng.integers(0, 1 + spread),
            128 + rng.integers(0, 1 + spread),
        ],
        axis=2,
    ).astype(np.uint8)
    red = (classes == PixelClass.R) & (labels >= 0)
    px = lab[red].astype(np.float32)
    chroma = np.hypot(px[:, 1] - 128.0, px[:, 2] - 128.0)
    saturation = chroma / np.maximum(px[:, 0] * (100.0 / 255.0), 1.0)
    owners = labels[red]
    want = [
        int(cell)
        for cell in np.unique(owners)
        if float(np.median(saturation[owners == cell])) < SKIN_SATURATION_MAX
    ]
    assert 0 < len(want) < len(np.unique(owners))
    assert skin_toned_red(lab, classes, labels) == want


def test_a_red_as_dark_and_grey_as_the_darkest_skin_is_skin_toned() -> None:
    """A red tile deep in shadow and the darkest skins, lit, share a colour: dark, with
    little chroma, yet as saturated for their lightness as a lit red.  With a hand in view
    such a cell is doubted (a very dark and a dark skin); a lit red, or a dark one that
    keeps its chroma, is not."""
    labels = np.full((8, 32), -1, dtype=np.int32)
    for cell in range(4):
        labels[:, 8 * cell : 8 * cell + 8] = cell
    classes = np.full(labels.shape, PixelClass.R, np.uint8)
    lab = np.zeros((*labels.shape, 3), np.uint8)
    tones = {0: (45, 11, 10), 1: (110, 47, 30), 2: (50, 25, 20), 3: (68, 17, 17)}
    for cell, (lightness, a, b) in tones.items():
        lab[labels == cell] = (lightness, 128 + a, 128 + b)
    assert skin_toned_red(lab, classes, labels) == [0, 3]


@pytest.mark.parametrize("seed", range(4))
def test_dilating_only_around_the_arm_is_dilating_everywhere(seed: int) -> None:
    """The arm's neighbourhood is dilated in a window around it: the same pixels as a
    dilation of the whole view, patches at the view's edges included."""
    from companion.vision.occlusion import _dilated_near, _disc

    rng = np.random.default_rng(seed)
    region = np.zeros((120, 150), np.uint8)
    for _ in range(3):
        y, x = rng.integers(0, 120), rng.integers(0, 150)
        region[y : y + rng.integers(1, 30), x : x + rng.integers(1, 30)] = 1
    region[0:3, 0:3] = 1
    for reach in (1, 6, 11):
        kernel = _disc(2 * reach + 1)
        assert np.array_equal(_dilated_near(region, kernel, reach), cv2.dilate(region, kernel))
    empty = np.zeros_like(region)
    assert not _dilated_near(empty, _disc(9), 4).any()


@pytest.mark.parametrize("seed", range(3))
def test_dilating_row_by_row_is_dilating(seed: int) -> None:
    """A disc's dilation taken row by row of the disc is OpenCV's, to the pixel, sparse or
    dense, at the image's edges too; any other kernel is left to OpenCV."""
    from companion.vision.occlusion import _dilate_by_rows, _disc

    rng = np.random.default_rng(seed)
    for diameter in (1, 3, 5, 9, 15, 37):
        for density in (0.01, 0.2, 0.7):
            shape = (int(rng.integers(1, 90)), int(rng.integers(1, 90)))
            image = (rng.random(shape) < density).astype(np.uint8)
            kernel = _disc(diameter)
            assert np.array_equal(_dilate_by_rows(image, kernel), cv2.dilate(image, kernel))
    square = np.ones((4, 4), np.uint8)
    image = (rng.random((30, 40)) < 0.1).astype(np.uint8)
    assert np.array_equal(_dilate_by_rows(image, square), cv2.dilate(image, square))


def test_a_piece_the_colour_of_the_light_beside_it_is_unread_where_the_tint_can_make_it() -> None:
    # A lamp tints one corner of the sheet green, where no piece stands or leans.  A green
    # core that shows that tinted sheet is the light itself, and a green dominus beside it
    # may be a vilicus sized with the tint: both are unread.  A green vilicus whose core
    # shows its own ink is kept, unless an arm is in view; other colours are kept.
    layout = CanonicalLayout(PROFILE)
    s = layout.px_per_mm
    pose = CameraPose((250.0, 250.0), 700.0)
    centres = np.array([core_centre_mm(layout, pose, line) for line in range(LINES)]) * s
    # The left strip from row 13 down, spaces and the sheet beside them: rows 13 to 15.
    corner = (slice(round(centres[13][1] - 12 * s), None), slice(0, layout.worker_strip_px))
    classes = np.full(layout.cell_labels.shape, PixelClass.NEUTRAL, dtype=np.uint8)
    classes[corner] = PixelClass.G
    lab = np.zeros((*layout.cell_labels.shape, 3), dtype=np.uint8)
    lab[:] = (210, 128, 150)  # the sheet
    lab[corner] = (200, 110, 140)  # tinted green
    ink = (110, 90, 150)  # a green piece's core, far darker and greener than the tint
    for line in (13, 15):
        x, y = centres[line]
        cv2.circle(lab, (round(x), round(y)), round(5 * s), ink, -1)
    cores = CoreReadings([None] * LINES, [(0.0, 0.0)] * LINES, [False] * LINES, {}, centres)
    rules = WorkerRules()
    out = [WorkerObservation(None, 0.0, (0.0, 0.0)) for _ in range(LINES)]
    out[15] = WorkerObservation("Gd", 300.0, (0.0, 0.0))
    out[14] = WorkerObservation("Gv", 200.0, (0.0, 0.0))  # its core shows the tint alone
    out[13] = WorkerObservation("Gv", 200.0, (0.0, 0.0))
    out[3] = WorkerObservation("Gv", 200.0, (0.0, 0.0))  # beside clean sheet

    def read(
        pieces: list[WorkerObservation], seen: NDArray[np.uint8], arm: bool = False
    ) -> list[str | None]:
        doubted = doubt_the_lights_colour(pieces, cores, seen, lab, layout, rules, arm)
        return [o.code for o in doubted]

    assert [read(out, classes)[k] for k in (15, 14, 13, 3)] == ["?", "?", "Gv", "Gv"]
    assert [read(out, classes, arm=True)[k] for k in (15, 14, 13, 3)] == ["?", "?", "?", "Gv"]
    out[15] = WorkerObservation("Bv", 200.0, (0.0, 0.0))
    assert read(out, classes)[15] == "Bv"
    clean = np.full_like(classes, PixelClass.NEUTRAL)
    out[15] = WorkerObservation("Gd", 300.0, (0.0, 0.0))
    assert [read(out, clean)[k] for k in (15, 14, 13)] == ["Gd", "Gv", "Gv"]


@pytest.mark.parametrize(("seed", "hand", "line"), [(86018, False, 19), (86135, True, 18)])
def test_a_dominus_the_light_makes_never_doubts_its_colours_real_one(
    seed: int, hand: bool, line: int
) -> None:
    """Conditions frames where yellow on the bare sheet beside an empty space reads as a
    second yellow dominus (86018: a lamp's yellow corner; 86135: with an arm in view).
    That one is the light's, doubted as such, and the real dominus keeps its reading
    instead of being doubted by it (or, in 86018, named a vilicus)."""
    frame = generated_frame(PROFILE, seed, hand, True)
    assert frame.truth.workers[line] == "Yd"
    state = BoardReader(PROFILE).read(frame.image).state
    assert state is not None
    assert state.workers[line] == "Yd"
    read = zip(state.workers, frame.truth.workers, strict=True)
    assert all(seen == true for seen, true in read if seen != "?")


def test_sheet_lit_until_red_clips_is_no_green_piece_and_a_lit_green_piece_stays_green() -> None:
    # A photoreal frame's sheet under a lamp's glow: red clipped in the camera's pixels,
    # and after the balance scaled red down, this analysis colour, which is green's.
    model = ColourModel.from_profile(PROFILE)
    lab = np.zeros((2, 8, 3), dtype=np.uint8)
    lab[:] = (247, 112, 147)
    classes, _, _ = classify(lab, model.lookup_table())
    assert (classes == PixelClass.G).all()
    raw = np.zeros((2, 8, 3), dtype=np.uint8)
    raw[0] = (200, 250, 255)  # the glowing sheet: red at the sensor's limit
    raw[1] = (150, 240, 200)  # a lit green piece: green strongest, red well short of it
    drop_cool_where_red_clipped(classes, raw)
    assert (classes[0] == PixelClass.UNKNOWN).all()
    assert (classes[1] == PixelClass.G).all()


def test_an_empty_space_in_a_light_the_classes_do_not_know_has_the_sheets_colour() -> None:
    # A hard shadow's own light tints the whole strip past the floor's class: every core
    # is unknown, but each has the colour of the bare sheet beside it, so it is empty.
    layout = CanonicalLayout(load_profile("troia"))
    pose = CameraPose((250.0, 250.0), 700.0)
    width, height = layout.size_px
    classes = np.full((height, width), PixelClass.UNKNOWN, np.uint8)
    lab = np.empty((height, width, 3), np.uint8)
    lab[:] = (150, 126, 150)  # a lamp's yellow tint, in a hard shadow
    background = (200.0, 0.0, 0.0)
    observed = read_workers(classes, lab, layout, pose, WorkerRules(), background)
    assert [o.code for o in observed] == [None] * LINES
    # A core of another colour than the sheet beside it is no proof of an empty space.
    s = layout.px_per_mm
    x, y = core_centre_mm(layout, pose, 5)
    other = lab.copy()
    other[round(y * s) - 8 : round(y * s) + 8, round(x * s) - 8 : round(x * s) + 8] = (
        150,
        128,
        170,
    )
    assert read_workers(classes, other, layout, pose, WorkerRules(), background)[5].code == "?"
    # Skin is redder than the sheet: an arm missed over a few spaces and the sheet beside
    # them leaves them unread, the rest of the strip is read.
    skin = lab.copy()
    skin[int(y * s) - int(30 * s) : int(y * s) + int(30 * s), : int(90 * s)] = (150, 140, 150)
    observed = read_workers(classes, skin, layout, pose, WorkerRules(), background)
    under_skin = [o.code for o in observed]
    assert [under_skin[k] for k in (4, 5, 6)] == ["?", "?", "?"]
    assert under_skin[:2] == [None, None] and under_skin[10:] == [None] * (LINES - 10)
    # A warm lamp tints the whole strip as red: a light, not an arm.
    warm = lab.copy()
    warm[:] = (150, 134, 150)
    assert all(
        o.code is None for o in read_workers(classes, warm, layout, pose, WorkerRules(), background)
    )
    # With an arm in view, it could cover both the space and the sheet beside it.
    arm = np.zeros((height, width), dtype=bool)
    arm[-5:, -5:] = True
    with_arm = read_workers(classes, lab, layout, pose, WorkerRules(), background, arm)
    assert all(o.code == "?" for o in with_arm)


def _core_disc_of_space_5() -> tuple[CanonicalLayout, CameraPose, NDArray[np.bool_]]:
    """A layout, a camera pose, and a disc of 6 mm radius on the core of worker space 5."""
    layout = CanonicalLayout(load_profile("troia"))
    pose = CameraPose((250.0, 250.0), 700.0)
    width, height = layout.size_px
    s = layout.px_per_mm
    x, y = core_centre_mm(layout, pose, 5)
    yy, xx = np.mgrid[0:height, 0:width]
    return layout, pose, (xx + 0.5 - x * s) ** 2 + (yy + 0.5 - y * s) ** 2 <= (6.0 * s) ** 2


def test_a_piece_with_the_colour_of_the_sheet_beside_it_is_unread() -> None:
    # A warm lamp's hot spot tips the sheet inside a printed circle into the yellow class:
    # the pixels make a yellow vilicus, but the core shows the sheet's own colour, as
    # bright.  A yellow piece shows its ink.
    layout, pose, disc = _core_disc_of_space_5()
    classes = np.full(disc.shape, PixelClass.NEUTRAL, np.uint8)
    classes[disc] = PixelClass.Y
    lab = np.full((*disc.shape, 3), (240, 122, 158), np.uint8)  # the sheet, warm-lit
    background = (240.0, 0.0, 0.0)
    assert read_workers(classes, lab, layout, pose, WorkerRules(), background)[5].code == "?"
    lab[disc] = (200, 130, 200)  # a yellow ink
    assert read_workers(classes, lab, layout, pose, WorkerRules(), background)[5].code == "Yv"


def test_a_core_too_dark_for_colour_is_never_settled_empty() -> None:
    # Only darkness at the space's base, no colour: the silhouettes alone would find no
    # piece there, but darkness at a base is a piece's shaded faces, never bare sheet.
    layout, pose, disc = _core_disc_of_space_5()
    classes = np.full(disc.shape, PixelClass.NEUTRAL, np.uint8)
    classes[disc] = PixelClass.DARK
    lab = np.full((*disc.shape, 3), 128, np.uint8)
    observed = read_workers(classes, lab, layout, pose, WorkerRules(), (200.0, 0.0, 0.0))
    assert observed[5].code == "?"
    assert observed[4].code is None and observed[6].code is None


def test_an_empty_core_far_more_saturated_than_the_sheet_beside_it_is_unread() -> None:
    # A yellow vilicus in a warm lamp's shade: its core falls in the sheet's class, but it
    # is half as bright as the sheet beside it and far more saturated.  Bare sheet in the
    # same shade keeps the sheet's saturation and stays empty.
    layout, pose, disc = _core_disc_of_space_5()
    classes = np.full(disc.shape, PixelClass.NEUTRAL, np.uint8)
    lab = np.full((*disc.shape, 3), (206, 127, 139), np.uint8)  # the sheet: 0.11
    background = (206.0, 0.0, 10.0)
    lab[disc] = (106, 126, 150)  # 0.38 (chroma for L* + 16): a yellow's base in shade
    assert read_workers(classes, lab, layout, pose, WorkerRules(), background)[5].code == "?"
    lab[disc] = (106, 127, 134)  # the sheet in the same shade: 0.11
    assert read_workers(classes, lab, layout, pose, WorkerRules(), background)[5].code is None


def test_a_bare_core_half_of_no_class_and_far_more_saturated_than_the_sheet_is_pale() -> None:
    # A pale yellow dominus in a dim, blurred frame: just over half its core falls in the
    # sheet's class, the rest in none, so it reads bare.  Far more saturated than the
    # sheet beside it, it is unread and marked pale: its pixels undercount it.
    layout, pose, disc = _core_disc_of_space_5()
    classes = np.full(disc.shape, PixelClass.NEUTRAL, np.uint8)
    ys, xs = np.nonzero(disc)
    half = slice(0, len(ys) * 43 // 100)
    classes[ys[half], xs[half]] = PixelClass.UNKNOWN
    lab = np.full((*disc.shape, 3), (145, 127, 130), np.uint8)  # the dim sheet
    background = (206.0, 0.0, 10.0)
    lab[disc] = (107, 126, 155)  # the dominus's core: 0.47 against the sheet's 0.03
    seen = read_workers(classes, lab, layout, pose, WorkerRules(), background)[5]
    assert seen.code == "?" and seen.pale
    lab[disc] = (120, 127, 133)  # bare sheet in a darker patch keeps its saturation
    seen = read_workers(classes, lab, layout, pose, WorkerRules(), background)[5]
    assert seen.code is None and not seen.pale


def test_a_core_mostly_of_no_class_far_more_saturated_than_the_sheet_is_never_empty() -> None:
    # A pale yellow vilicus in a shadow (conditions 93325): a fifth of its core yellow,
    # the rest in no class at all, so no colour is read and its silhouette alone found
    # no piece.  Its core is three times as saturated as the sheet beside it: unread.
    layout, pose, disc = _core_disc_of_space_5()
    classes = np.full(disc.shape, PixelClass.NEUTRAL, np.uint8)
    ys, xs = np.nonzero(disc)
    classes[ys, xs] = PixelClass.UNKNOWN
    lab = np.full((*disc.shape, 3), (99, 129, 138), np.uint8)  # the sheet in the shadow
    background = (206.0, 0.0, 10.0)
    lab[disc] = (103, 128, 160)  # 0.57 against the sheet's 0.18
    assert read_workers(classes, lab, layout, pose, WorkerRules(), background)[5].code == "?"
    lab[disc] = (103, 128, 139)  # the sheet's own colour there, its classes aside
    assert read_workers(classes, lab, layout, pose, WorkerRules(), background)[5].code is None


def test_a_piece_a_dark_unread_neighbour_would_lean_over_is_unread() -> None:
    # Pieces lean towards higher rows here (0.3 mm per mm of height): a dominus too dark
    # to read on space 4 would cover the core of 5, whose colour may be its top.  It
    # leans away from 3; the piece on 7 has no unread neighbour, and nothing cascades
    # from a piece only now unread.  An unread core showing no darkness (12) is no
    # shaded piece.
    lean = (0.0, 0.3)
    dark = np.zeros(len(PixelClass))
    dark[PixelClass.DARK] = 1.0
    glare = np.zeros(len(PixelClass))
    glare[PixelClass.UNKNOWN] = 1.0
    cores = CoreReadings(
        ["?"] * LINES,
        [lean] * LINES,
        [False] * LINES,
        {4: dark, 9: dark, 12: glare},
        np.zeros((LINES, 2)),
    )
    out = [WorkerObservation(None, 0.0, lean) for _ in range(LINES)]
    codes = {3: "Bv", 4: "?", 5: "Rv", 6: "Gv", 7: "Yd", 9: "?", 10: "Bd", 12: "?", 13: "Gv"}
    for line, code in codes.items():
        out[line] = WorkerObservation(code, 200.0, lean)
    doubted = _doubt_pieces_a_dark_neighbour_may_cover(out, cores, GEOMETRY, WorkerRules())
    read = [doubted[line].code for line in range(3, 14)]
    assert read == ["Bv", "?", "?", "Gv", "Yd", None, "?", "?", None, "?", "Gv"]
    upright = [replace(obs, lean=(0.0, 0.0)) for obs in out]
    assert (
        _doubt_pieces_a_dark_neighbour_may_cover(upright, cores, GEOMETRY, WorkerRules()) == upright
    )


def test_a_dominus_beside_a_space_the_arm_hides_is_unread() -> None:
    # What shows of a piece half under the arm joins its neighbour's pixels: a vilicus
    # beside its colour's dominus passes for a dominus.  A vilicus keeps its reading, and
    # so does a dominus no hidden space touches.
    cores = CoreReadings(
        ["?"] * LINES, [(0.0, 0.0)] * LINES, [False] * LINES, {}, np.zeros((LINES, 2))
    )
    cores.blocked[4] = cores.blocked[12] = True
    out = [WorkerObservation(None, 0.0, (0.0, 0.0)) for _ in range(LINES)]
    for line, code in {5: "Bd", 11: "Gv", 13: "Rd", 20: "Yd"}.items():
        out[line] = WorkerObservation(code, 200.0, (0.0, 0.0))
    doubted = _doubt_domini_beside_the_arm(out, cores.blocked)
    assert [doubted[line].code for line in (5, 11, 13, 20)] == ["?", "Gv", "?", "Yd"]
    # The last row space and the first column space meet at the corner, not in a strip.
    out[16] = WorkerObservation("Bd", 200.0, (0.0, 0.0))
    cores.blocked[15] = True
    assert _doubt_domini_beside_the_arm(out, cores.blocked)[16].code == "Bd"


@pytest.mark.parametrize("brightness", [150, 245])
def test_part_of_a_frame_balances_as_the_frame_does(brightness: int) -> None:
    # The arm search under the single balance balances only every other pixel: with the
    # whole frame's answer to how it lifts clipped pixels, that part must be the same
    # pixels of the whole frame balanced, in a frame lifting few pixels past the limit
    # and in one lifting most.
    model = ColourModel.from_profile(PROFILE)
    rng = np.random.default_rng(brightness)
    frame = rng.integers(brightness - 100, brightness + 10, (120, 160, 3)).clip(0, 255)
    frame = np.asarray(frame, dtype=np.uint8)
    sheet = np.asarray(model.sheet_bgr, np.float64) * 0.8  # a dim sheet: gains above one
    whole = lifts_whole_frame(frame, sheet, model)
    assert whole == (brightness > 200)
    balanced = white_balance(frame, sheet, model)
    part = np.ascontiguousarray(frame[::2, ::2])
    assert np.array_equal(white_balance(part, sheet, model, whole), balanced[::2, ::2])
