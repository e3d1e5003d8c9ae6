"""The light's colour across the board, on views whose light is known exactly: the
board's own print (``BoardTexture``) lit by a chosen field of light."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from vision_helpers import confident_wrong_cells

from companion.boards import GRID, load_profile
from companion.vision.artwork import BoardTexture
from companion.vision.canonical import CanonicalLayout
from companion.vision.colour import ColourModel, hex_to_bgr
from companion.vision.illumination import (
    SheetLight,
    _wall_blocks,
    _wall_rects,
    sheet_clipped,
    sheet_colour,
    sheet_strips,
)
from companion.vision.reader import BoardReader
from companion.vision.render import random_state, render, shot_for

WARM = np.array([0.55, 0.78, 1.0])  # BGR of a 2800 K lamp, red at full
COLD = np.array([1.0, 0.93, 0.85])  # BGR of a 6300 K lamp


def _board(name: str = "troia") -> tuple[CanonicalLayout, np.ndarray]:
    layout = CanonicalLayout(load_profile(name))
    print_ = BoardTexture(layout.profile, layout.px_per_mm).image
    assert print_.shape[1::-1] == layout.size_px
    return layout, print_


def _two_lamps(layout: CanonicalLayout, angle: float, band_mm: float) -> np.ndarray:
    """Light (BGR gain per pixel) of a warm lamp on one side of a line through the board's
    centre and a cold one on the other, mixing over ``band_mm``."""
    width, height = layout.size_px
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float64) / layout.px_per_mm
    side = (xs - xs.mean()) * np.cos(angle) + (ys - ys.mean()) * np.sin(angle)
    share = 1.0 / (1.0 + np.exp(-side / (band_mm / 4)))
    return np.asarray((1 - share)[..., None] * WARM + share[..., None] * COLD)


def _lit(print_: np.ndarray, light: np.ndarray) -> np.ndarray:
    return np.asarray(np.clip(print_ * light * 0.9, 0, 255).round(), np.uint8)


def _measure(view: np.ndarray, layout: CanonicalLayout) -> SheetLight:
    strips = sheet_strips(view, layout)
    return SheetLight.measure(view, layout, sheet_colour(strips), strips)


def _chroma_error(
    balanced: np.ndarray, print_: np.ndarray, layout: CanonicalLayout, where: np.ndarray
) -> np.ndarray:
    """Per cell window (``where`` of them), how far (log ratio, worse channel against
    green) the balanced view's colour lies from the print's."""
    labels = layout.cell_labels
    out = []
    for cell in np.flatnonzero(where):
        inside = labels == cell
        seen = np.median(balanced[inside].astype(np.float64), axis=0)
        printed = np.median(print_[inside].astype(np.float64), axis=0)
        ratio = np.log(seen / seen[1]) - np.log(printed / printed[1])
        out.append(np.abs(ratio[[0, 2]]).max())
    return np.array(out)


@pytest.mark.parametrize("name", ["troia", "baelo-claudia"])
def test_every_wall_block_lies_on_the_wall_print(name: str) -> None:
    layout, print_ = _board(name)
    wall = np.array(hex_to_bgr(layout.profile.colours.wall))
    profile = layout.profile
    rects = _wall_rects(profile.vat_grid, profile.geometry, layout.px_per_mm)
    # Every side of every vat, cut in two; a wall between two vats is sampled once.
    vats = sum(v is not None for row in layout.profile.vat_grid for v in row)
    assert 2 * 2 * vats < len(rects) <= 4 * 2 * vats
    for top, bottom, left, right in rects:
        assert bottom - top >= 3 and right - left >= 3
        assert (print_[top:bottom, left:right] == wall).all(), (top, left)
    centres, colours = _wall_blocks(print_, layout)
    assert len(centres) == len(rects)
    assert (colours == wall).all()


@pytest.mark.parametrize("angle", [0.4, 2.3, 4.0])
def test_the_band_where_two_lamps_mix_is_followed_inside_the_board(angle: float) -> None:
    # Two lamps whose light mixes over 200 mm through the middle of the board: the sheet's
    # edge alone shows where the band crosses it, the walls show where it runs inside.
    # Every cell's floor comes out of the balance in its printed colour within 5 % (a
    # plane per channel fitted to the sheet's edge leaves 7 %, one balance 24 %).
    layout, print_ = _board()
    view = _lit(print_, _two_lamps(layout, angle, band_mm=200.0))
    light = _measure(view, layout)
    assert light.varies
    assert light.set_aside <= 4
    balanced = light.balance(view, ColourModel.from_profile(layout.profile))
    error = _chroma_error(balanced, print_, layout, np.ones(GRID * GRID, bool))
    assert error.max() < 0.05, error.max()
    # The gains at the cells' centres are the balance's own.
    centres = np.array([[x, y] for y in (100.0, 300.0) for x in (120.0, 400.0)])
    gains = light.gains(centres, ColourModel.from_profile(layout.profile))
    for (x, y), gain in zip(centres.astype(int), gains, strict=True):
        want = balanced[y, x].astype(np.float64)
        assert np.allclose(view[y, x] * gain, want, atol=1.0)


def test_an_arm_across_the_sheet_and_walls_is_set_aside_from_the_light() -> None:
    # A skin-coloured band from the sheet's edge over part of the grid covers sheet blocks
    # and wall blocks: they are not the light's colour, and the cells away from it are
    # balanced as well as without it.
    layout, print_ = _board()
    light_field = _two_lamps(layout, 2.3, band_mm=200.0)
    view = _lit(print_, light_field)
    arm = np.zeros(view.shape[:2], np.uint8)
    s = layout.px_per_mm
    cv2.line(arm, (0, round(150 * s)), (round(220 * s), round(260 * s)), 1, round(60 * s))
    skin = np.array([120.0, 150.0, 215.0])
    view[arm > 0] = np.clip(skin * light_field[arm > 0], 0, 255).astype(np.uint8)
    light = _measure(view, layout)
    assert light.varies
    assert light.set_aside >= 6
    balanced = light.balance(view, ColourModel.from_profile(layout.profile))
    labels = layout.cell_labels
    touched = np.bincount(labels[(arm > 0) & (labels >= 0)], minlength=GRID * GRID) > 0
    grown = cv2.dilate(arm, np.ones((round(40 * s), round(40 * s)), np.uint8))
    near = np.bincount(labels[(grown > 0) & (labels >= 0)], minlength=GRID * GRID) > 0
    assert touched.sum() >= 20
    error = _chroma_error(balanced, print_, layout, ~near)
    assert error.max() < 0.05, error.max()


def test_one_light_with_glare_and_fall_off_keeps_one_balance() -> None:
    # One lamp: its light falls off across the board and leaves a patch of glare. Neither
    # changes the light's colour much; the single balance stands.
    layout, print_ = _board()
    width, height = layout.size_px
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float64)
    fall_off = 1.0 - 0.3 * xs / width
    lit = print_ * WARM * fall_off[..., None] * 0.9
    glare = np.exp(-((xs - 0.7 * width) ** 2 + (ys - 0.3 * height) ** 2) / (2 * (60.0) ** 2))
    lit = lit + 60.0 * glare[..., None]
    view = np.asarray(np.clip(lit, 0, 255).round(), np.uint8)
    light = _measure(view, layout)
    assert not light.varies


def test_a_pixel_lifted_past_the_limit_keeps_its_hue() -> None:
    # A hard shadow over much of the sheet sets the balance by the shaded sheet, and the
    # lit sheet is lifted past 255: clipped channel by channel, its red and green would
    # read as a yellow. Scaled down whole, it keeps the sheet's hue; pixels short of the
    # limit are balanced as before.
    layout, _ = _board()
    model = ColourModel.from_profile(layout.profile)
    sheet = np.array(hex_to_bgr(layout.profile.colours.sheet), np.float64)
    shaded = sheet * 0.6  # the balance's sheet: what the shaded strips show
    view = np.zeros((4, 4, 3), np.uint8)
    view[:2] = np.round(sheet * 0.95).astype(np.uint8)  # lit sheet, 1.6 times as bright
    view[2:] = np.round(shaded).astype(np.uint8)
    balanced = SheetLight(shaded, None).balance(view, model).astype(np.float64)
    reference = np.asarray(model.sheet_bgr, np.float64)
    lit = balanced[0, 0]
    assert lit.max() == 255
    assert np.allclose(lit / lit[1], reference / reference[1], atol=0.02)
    assert np.allclose(balanced[3, 3], reference, atol=1.5)


@pytest.mark.parametrize("lifted_rows", [1, 40])
def test_lifted_pixels_keep_their_hue_picked_out_or_all_at_once(lifted_rows: int) -> None:
    # A few lifted pixels are picked out, a frame lit past the limit is rescaled whole:
    # both give every pixel its balanced colour, scaled down whole where it passes 255.
    model = ColourModel.from_profile(load_profile("troia"))
    rng = np.random.default_rng(lifted_rows)
    view = rng.integers(0, 150, (80, 80, 3)).astype(np.uint8)
    view[:lifted_rows] = rng.integers(150, 256, (lifted_rows, 80, 3))
    shaded = np.array([120.0, 150.0, 170.0])
    balanced = SheetLight(shaded, None).balance(view, model).astype(np.float64)
    want = view * (np.asarray(model.sheet_bgr, np.float64) / shaded)
    largest = want.max(axis=2, keepdims=True)
    want = np.where(largest > 255.0, want * 255.0 / np.maximum(largest, 1.0), want)
    assert (largest > 255.0).any()
    assert np.abs(balanced - np.clip(np.round(want), 0, 255)).max() <= 1.0


def test_the_sheets_colour_is_taken_from_the_lit_strips_when_two_lie_in_shadow() -> None:
    lit, shade = np.array([150.0, 190.0, 220.0]), np.array([60.0, 90.0, 120.0])
    # Two strips in a hard shadow would pull the median halfway into it.
    two = np.stack([lit, lit * 0.95, shade, shade * 1.1])
    assert np.allclose(sheet_colour(two), lit * 0.975)
    # One leaves the median among the lit strips as it is: the median of the four.
    one = np.stack([lit, lit * 0.95, lit * 0.9, shade])
    assert np.allclose(sheet_colour(one), np.median(one, axis=0))


def test_the_share_of_sheet_clipped_counts_two_channels_at_the_limit() -> None:
    layout, print_ = _board()
    lamp = np.array([1.0, 1.0, 1.0])
    assert sheet_clipped(_lit(print_, lamp), layout) == 0.0
    # Overexposed: the cream sheet's red and green reach the limit, its blue does not.
    over = np.asarray(np.clip(print_ * np.array([0.9, 1.6, 1.6]), 0, 255), np.uint8)
    assert sheet_clipped(over, layout) > 0.9
    # Red alone at the limit (a warm lamp) is no overexposure.
    warm = np.asarray(np.clip(print_ * np.array([0.8, 0.95, 1.6]), 0, 255), np.uint8)
    assert sheet_clipped(warm, layout) == 0.0
    # Only the strips count: the top half of the view overexposed clips about half.
    half = _lit(print_, lamp)
    half[: half.shape[0] // 2] = over[: half.shape[0] // 2]
    assert 0.3 < sheet_clipped(half, layout) < 0.7


def test_two_lamps_are_followed_by_the_walls_when_the_sheets_red_clips_all_round() -> None:
    # Half a stop over, both lamps clip the sheet's red on every strip: no sheet block is
    # measured, and only the walls (a darker ink) show the light's colour.  Held at the
    # printed offset between the two inks, they place the band; before, the fit had
    # nothing to anchor the walls' ink and one balance stood for both lamps (a warm
    # lamp's bare floor then read as yellow in two generated frames).
    layout, print_ = _board()
    view = np.asarray(
        np.clip(print_ * _two_lamps(layout, 0.4, band_mm=200.0) * 1.4, 0, 255).round(), np.uint8
    )
    strips = sheet_strips(view, layout)
    assert (strips[:, 2] >= 250).all()
    light = _measure(view, layout)
    assert light.varies
    balanced = light.balance(view, ColourModel.from_profile(layout.profile))
    # Red clips on the floor as well: the blue against green is what the balance can show.
    labels = layout.cell_labels
    errors = []
    for cell in range(GRID * GRID):
        inside = labels == cell
        seen = np.median(balanced[inside].astype(np.float64), axis=0)
        printed = np.median(print_[inside].astype(np.float64), axis=0)
        errors.append(abs(np.log(seen[0] / seen[1]) - np.log(printed[0] / printed[1])))
    assert max(errors) < 0.05, max(errors)


@pytest.mark.parametrize("seed", [24006, 24077])
def test_generated_frames_with_the_sheets_red_clipped_under_two_lamps_read_no_cell_wrong(
    seed: int,
) -> None:
    """The frames of ``bench vision --conditions --seed 24001`` that read 16 bare cells
    each as yellow: a warm and a cold lamp, half a stop over."""
    profile = load_profile("troia")
    truth = random_state(profile, np.random.default_rng(seed + 7_919))
    reading = BoardReader(profile).read(render(profile, truth, shot_for(seed, False, True)).image)
    assert reading.state is not None
    assert confident_wrong_cells(reading.state, truth) == []


@pytest.mark.parametrize(("seed", "line", "code"), [(20018, 23, "Bd"), (25072, 11, "Bd")])
def test_a_dominus_in_a_hard_shadow_is_not_read_as_a_vilicus(
    seed: int, line: int, code: str
) -> None:
    """Clear frames under a real table's conditions (``bench vision --conditions``) whose
    blue dominus, in a hard shadow, looked just small enough to be read as a vilicus."""
    profile = load_profile("troia")
    truth = random_state(profile, np.random.default_rng(seed + 7_919))
    reading = BoardReader(profile).read(render(profile, truth, shot_for(seed, False, True)).image)
    assert reading.state is not None
    assert truth.workers[line] == code
    assert reading.state.workers[line] == code


def test_an_arm_that_passes_for_a_second_lamp_leaves_no_tile_or_piece_read_wrong() -> None:
    """The arm frame of ``bench vision --conditions --seed 59001`` whose balance, fitted
    place by place to a second lamp the arm itself made, turned greens yellow all over
    the board: a colour must show under the single balance too."""
    seed = 59095
    profile = load_profile("troia")
    truth = random_state(profile, np.random.default_rng(seed + 7_919))
    reading = BoardReader(profile).read(render(profile, truth, shot_for(seed, True, True)).image)
    assert reading.state is not None and reading.occluded
    assert confident_wrong_cells(reading.state, truth) == []
    wrong = [
        line
        for line, (got, code) in enumerate(zip(reading.state.workers, truth.workers, strict=True))
        if got not in ("?", code)
    ]
    assert wrong == []
    # Doubting what the balances disagree on leaves the board readable all the same:
    # within the 40 % of cells an arm frame may leave unread.
    assert reading.state.cells.count("?") <= 0.4 * len(reading.state.cells)
