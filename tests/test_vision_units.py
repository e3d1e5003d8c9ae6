"""Small pieces of the reader checked on their own: geometry, sizes, colour classes."""

from __future__ import annotations

import numpy as np
import pytest

from companion.boards import load_profile
from companion.vision.colour import ColourModel, PixelClass, classify, hex_to_bgr
from companion.vision.localize import estimate_pose
from companion.vision.render import Shot, random_camera
from companion.vision.workers import WorkerRules, expected_area, frame_boundary

PROFILE = load_profile("troia")


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_camera_position_recovered_from_the_homography(seed: int) -> None:
    camera = random_camera(PROFILE, Shot(seed), np.random.default_rng(seed))
    centre = -camera.r.T @ camera.t
    pose = estimate_pose(camera.homography, (1280, 960))
    assert pose.ground_mm == pytest.approx((centre[0], centre[1]), abs=5.0)
    assert pose.height_mm == pytest.approx(abs(centre[2]), rel=0.02)


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
