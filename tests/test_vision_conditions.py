"""The synthetic camera's real-table conditions each change the image as they should."""

from __future__ import annotations

import hashlib
import math

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from companion.boards import load_profile
from companion.games.garum.state import BoardState
from companion.vision.conditions import (
    BARREL_K1_RANGE,
    CLOTH_KINDS,
    EXPOSURE_STOPS_MAX,
    SENSOR_MODES_PX,
    SKIN_TONES_BGR,
    CastShadow,
    Cloth,
    Conditions,
    distort_points,
)
from companion.vision.localize import BoardLocator
from companion.vision.render import Photo, Shot, random_state, render, shot_for

PROFILE = load_profile("troia")
GREY_CLOTH = Cloth("plain", (128, 128, 128), (128, 128, 128), 20, 0.0, 1)
SHEET_W, SHEET_H = PROFILE.geometry.sheet_mm


def _truth(seed: int) -> BoardState:
    return random_state(PROFILE, np.random.default_rng(seed + 7_919))


def _clean(seed: int, conditions: Conditions | None, size: tuple[int, int] = (1280, 960)) -> Photo:
    """A frame without glare, blur, noise or JPEG, so differences come from the conditions."""
    shot = Shot(seed, size[0], size[1], degrade=False, conditions=conditions)
    return render(PROFILE, _truth(seed), shot)


def _board_mask(photo: Photo, inset_mm: float) -> NDArray[np.bool_]:
    """Pixels of the sheet, ``inset_mm`` inside its edge (outside it when negative)."""
    corners = np.array(
        [
            [inset_mm, inset_mm],
            [SHEET_W - inset_mm, inset_mm],
            [SHEET_W - inset_mm, SHEET_H - inset_mm],
            [inset_mm, SHEET_H - inset_mm],
        ],
        np.float64,
    ).reshape(-1, 1, 2)
    quad = cv2.perspectiveTransform(corners, photo.homography).reshape(-1, 2)
    mask = np.zeros(photo.image.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, np.round(quad).astype(np.int32), 1)
    return mask > 0


def test_default_shot_keeps_its_pixels() -> None:
    # Hashes of frames rendered before conditions existed: published figures depend on them.
    photo = render(PROFILE, _truth(1), Shot(1))
    assert hashlib.sha256(photo.image.tobytes()).hexdigest()[:16] == "a280761f1a549d41"
    with_hand = render(PROFILE, _truth(4), Shot(4, hand=True))
    assert hashlib.sha256(with_hand.image.tobytes()).hexdigest()[:16] == "44cbf32fe901def4"


def test_shot_for_is_the_default_shot_without_conditions() -> None:
    assert shot_for(5, True, False) == Shot(5, hand=True)
    shot = shot_for(5, True, True)
    assert shot == shot_for(5, True, True)  # reproducible from the seed
    assert shot.hand and shot.conditions is not None
    assert (shot.width, shot.height) in SENSOR_MODES_PX


def test_real_table_draws_every_condition_within_its_range() -> None:
    drawn = [Conditions.real_table(np.random.default_rng(seed)) for seed in range(200)]
    low, high = BARREL_K1_RANGE
    assert all(low <= c.barrel_k1 <= high for c in drawn)
    assert all(abs(c.exposure_stops) <= EXPOSURE_STOPS_MAX for c in drawn)
    assert {c.cloth.kind for c in drawn if c.cloth} == set(CLOTH_KINDS)
    assert 40 < sum(c.lamps_kelvin is not None for c in drawn) < 160
    assert 40 < sum(bool(c.shadows) for c in drawn) < 160
    for c in drawn:
        if c.lamps_kelvin is not None:
            assert abs(c.lamps_kelvin[0] - c.lamps_kelvin[1]) >= 1800
    assert {c.skin_bgr for c in drawn} == set(SKIN_TONES_BGR)


def test_the_arm_has_the_players_skin_tone() -> None:
    # The arm of a darker-skinned player is darker over the board: the same scene, the
    # same arm, only the skin changed.
    truth = _truth(4)
    light, dark = SKIN_TONES_BGR[0], SKIN_TONES_BGR[-1]
    pale = render(PROFILE, truth, Shot(4, hand=True, conditions=Conditions(skin_bgr=light)))
    deep = render(PROFILE, truth, Shot(4, hand=True, conditions=Conditions(skin_bgr=dark)))
    changed = np.abs(pale.image.astype(int) - deep.image.astype(int)).sum(axis=2) > 30
    assert changed.mean() > 0.02  # the arm covers a good part of the frame
    assert pale.image[changed].mean() > deep.image[changed].mean() + 60
    # Without an arm the skin tone changes nothing.
    bare = Conditions(skin_bgr=dark)
    assert np.array_equal(
        render(PROFILE, truth, Shot(4, conditions=bare)).image,
        render(PROFILE, truth, Shot(4, conditions=Conditions())).image,
    )


@pytest.mark.parametrize("size", SENSOR_MODES_PX)
def test_sensor_modes_give_their_frame_size_with_the_whole_board(size: tuple[int, int]) -> None:
    photo = _clean(3, Conditions(), size)
    assert photo.image.shape == (size[1], size[0], 3)
    gray = cv2.cvtColor(photo.image, cv2.COLOR_BGR2GRAY)
    assert len(BoardLocator(PROFILE).detect(gray)) == len(PROFILE.markers.centres_mm)


def test_conditions_leave_the_truth_alone() -> None:
    shot = shot_for(11, False, True)
    photo = render(PROFILE, _truth(11), shot)
    assert photo.state == _truth(11)
    assert not photo.occluded


def test_tablecloth_changes_the_table_and_not_the_board() -> None:
    plain = _clean(2, None)
    cloth = Cloth("checks", (40, 40, 200), (200, 60, 20), 30, 20.0, 7)
    clothed = _clean(2, Conditions(cloth=cloth))
    inside = _board_mask(plain, 3.0)
    outside = ~_board_mask(plain, -10.0)
    diff = np.abs(plain.image.astype(np.int16) - clothed.image.astype(np.int16)).max(axis=2)
    assert np.array_equal(plain.image[inside], clothed.image[inside])
    assert float(np.mean(diff[outside] > 30)) > 0.8
    # Checks: both colours show (each tints a good share of the table).
    reds = clothed.image[outside][:, 2] > clothed.image[outside][:, 0]
    assert 0.3 < float(np.mean(reds)) < 0.7


def test_two_lamps_light_two_sides_in_two_colours() -> None:
    one = _clean(6, Conditions(cloth=GREY_CLOTH))
    # Warm lamp on the left of the frame, cool on the right.
    two = _clean(6, Conditions(cloth=GREY_CLOTH, lamps_kelvin=(2700.0, 6500.0)))

    def blue_over_red(image: NDArray[np.uint8], columns: slice) -> float:
        strip = image[:, columns].reshape(-1, 3).astype(np.float64)
        return float(np.median(strip[:, 0] / np.maximum(strip[:, 2], 1.0)))

    left, right = slice(0, 120), slice(1160, 1280)
    assert blue_over_red(one.image, left) == pytest.approx(blue_over_red(one.image, right), 0.05)
    assert blue_over_red(two.image, left) < 0.55  # 2700 K: a warm, orange light
    assert blue_over_red(two.image, right) > 0.85  # 6500 K: about neutral


def test_a_hard_shadow_darkens_only_where_it_falls() -> None:
    band = ((-50.0, 180.0), (SHEET_W + 50, 180.0), (SHEET_W + 50, 220.0), (-50.0, 220.0))
    shadow = CastShadow(band, light_left=0.5, edge_sigma_px=1.5)
    lit = _clean(8, Conditions(cloth=GREY_CLOTH))
    shaded = _clean(8, Conditions(cloth=GREY_CLOTH, shadows=(shadow,)))
    assert not shaded.occluded  # a shadow, not an occluder
    pts = np.array([[[x, y]] for x in np.linspace(20, SHEET_W - 20, 40) for y in (195.0, 205.0)])
    uv = np.round(cv2.perspectiveTransform(pts, lit.homography).reshape(-1, 2)).astype(int)
    before = lit.image[uv[:, 1], uv[:, 0]].astype(np.float64).sum(axis=1)
    after = shaded.image[uv[:, 1], uv[:, 0]].astype(np.float64).sum(axis=1)
    assert float(np.median(after / np.maximum(before, 1.0))) == pytest.approx(0.5, abs=0.05)
    far = np.array([[[x, y]] for x in np.linspace(20, SHEET_W - 20, 40) for y in (60.0, 380.0)])
    uv_far = np.round(cv2.perspectiveTransform(far, lit.homography).reshape(-1, 2)).astype(int)
    assert np.array_equal(
        lit.image[uv_far[:, 1], uv_far[:, 0]], shaded.image[uv_far[:, 1], uv_far[:, 0]]
    )


def test_half_a_stop_scales_linear_light() -> None:
    base = _clean(9, Conditions(cloth=GREY_CLOTH)).image.astype(np.float64)
    for stops in (0.5, -0.5):
        exposed = _clean(9, Conditions(cloth=GREY_CLOTH, exposure_stops=stops)).image
        pick = (base > 30) & (base < 150)
        ratio = float(np.median(exposed.astype(np.float64)[pick] / base[pick]))
        assert ratio == pytest.approx(2 ** (stops / 2.2), abs=0.03)


def test_barrel_distortion_moves_markers_as_the_lens_model_says() -> None:
    k1 = -0.08
    photo = _clean(12, Conditions(barrel_k1=k1))
    focal = photo.meta["focal_px"]
    found = BoardLocator(PROFILE).detect(cv2.cvtColor(photo.image, cv2.COLOR_BGR2GRAY))
    ideal = _clean(12, Conditions())
    ideal_found = BoardLocator(PROFILE).detect(cv2.cvtColor(ideal.image, cv2.COLOR_BGR2GRAY))
    assert set(found) == set(ideal_found) == set(PROFILE.markers.centres_mm)
    centre = np.array([640.0, 480.0])
    largest_shift = 0.0
    for marker, corners in found.items():
        # Marker centres: the detector's corners are whole pixels, their mean is finer.
        seen = corners.mean(axis=0, keepdims=True)
        straight = ideal_found[marker].mean(axis=0, keepdims=True)
        expected = distort_points(straight, k1, focal, (1280, 960))
        assert np.abs(seen - expected).max() < 1.0
        pulled_in = float(np.linalg.norm(straight - centre) - np.linalg.norm(seen - centre))
        assert pulled_in > 0  # barrel: drawn towards the centre of the frame
        largest_shift = max(largest_shift, pulled_in)
    assert largest_shift > 4.0
    assert math.isclose(photo.meta["barrel_k1"], k1)
