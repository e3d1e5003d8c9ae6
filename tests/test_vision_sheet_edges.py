"""Two markers at opposite corners place the board with the sheet's own edges."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from companion.boards import GRID, load_profile
from companion.vision.conditions import Conditions, distort_points
from companion.vision.localize import BoardLocator
from companion.vision.reader import BoardReader
from companion.vision.render import Photo, Shot, random_state, render
from companion.vision.sheet_edges import SheetEdgePlacer
from tests.vision_helpers import (
    confident_wrong_cells,
    cover_marker,
    gray,
    photo_for,
    worst_cell_error_mm,
)

PROFILE = load_profile("troia")
GEOMETRY = PROFILE.geometry
CELL_CENTRES_MM = np.array(
    [GEOMETRY.cell_centre_mm(i // GRID, i % GRID) for i in range(GRID * GRID)], np.float64
)
SKIN_BGR = (120, 150, 215)


def _photo(seed: int, conditions: bool = False) -> Photo:
    return photo_for(PROFILE, seed, conditions)


@pytest.fixture(scope="module")
def photos() -> list[Photo]:
    return [_photo(seed) for seed in (3, 11)] + [_photo(seed, True) for seed in (5, 8)]


def _arm_over(
    image: NDArray[np.uint8], photo: Photo, markers: tuple[int, int]
) -> NDArray[np.uint8]:
    """A copy of ``image`` with a broad band of skin over two markers and across the board."""
    centres = [PROFILE.markers.centres_mm[m] for m in markers]
    ends = cv2.perspectiveTransform(
        np.array(centres, np.float64).reshape(-1, 1, 2), photo.homography
    )
    a, b = ends.reshape(-1, 2)
    reach = (b - a) / np.linalg.norm(b - a) * 200
    out = image.copy()
    start, stop = np.round(a - reach).astype(int), np.round(b + reach).astype(int)
    cv2.line(out, (int(start[0]), int(start[1])), (int(stop[0]), int(stop[1])), SKIN_BGR, 70)
    return out


def test_opposite_markers_and_the_edges_place_every_cell_within_two_millimetres(
    photos: list[Photo],
) -> None:
    locator = BoardLocator(PROFILE)
    placer = SheetEdgePlacer(GEOMETRY.sheet_mm, locator._corners_mm)
    for photo in photos:
        found = locator.detect(gray(photo.image))
        assert len(found) == 4
        for pair, hidden in (((0, 2), (1, 3)), ((1, 3), (0, 2))):
            two = {m: found[m] for m in pair}
            loose = locator._fit(two)
            assert loose is not None
            # The markers alone are far too loose to read cells from ...
            assert worst_cell_error_mm(PROFILE, loose, photo.homography) > 3.0
            # ... with the edges, every cell is placed, with or without an arm over the
            # two other corners.
            for image in (photo.image, _arm_over(photo.image, photo, hidden)):
                placed = placer.place(image, two, loose)
                assert placed is not None
                assert worst_cell_error_mm(PROFILE, placed, photo.homography) < 2.0


def test_markers_on_one_side_place_nothing(photos: list[Photo]) -> None:
    """The far edge could be an arm's straight side lying along it: no guess."""
    locator = BoardLocator(PROFILE)
    placer = SheetEdgePlacer(GEOMETRY.sheet_mm, locator._corners_mm)
    photo = photos[0]
    found = locator.detect(gray(photo.image))
    for pair in ((0, 1), (1, 2), (2, 3), (3, 0)):
        two = {m: found[m] for m in pair}
        loose = locator._fit(two)
        assert loose is not None
        assert placer.place(photo.image, two, loose) is None


def test_the_edges_must_show_to_place_the_board(photos: list[Photo]) -> None:
    """A sheet whose edges melt into a tablecloth of its own colour is not placed."""
    locator = BoardLocator(PROFILE)
    placer = SheetEdgePlacer(GEOMETRY.sheet_mm, locator._corners_mm)
    photo = photos[0]
    found = locator.detect(gray(photo.image))
    w, h = GEOMETRY.sheet_mm
    sheet = cv2.perspectiveTransform(
        np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64).reshape(-1, 1, 2), photo.homography
    )
    inside = np.zeros(photo.image.shape[:2], np.uint8)
    cv2.fillConvexPoly(inside, np.round(sheet.reshape(-1, 2)).astype(np.int32), 1)
    # The bare sheet's own colour, 5 mm in from its edges, all round it.
    along = np.linspace(60.0, w - 60.0, 40)
    near_edges = np.concatenate(
        [np.stack([along, np.full_like(along, y)], axis=1) for y in (5.0, h - 5.0)]
        + [np.stack([np.full_like(along, x), along], axis=1) for x in (5.0, w - 5.0)]
    )
    at = cv2.perspectiveTransform(near_edges.reshape(-1, 1, 2), photo.homography).reshape(-1, 2)
    bare = np.median(
        photo.image[np.round(at[:, 1]).astype(int), np.round(at[:, 0]).astype(int)], axis=0
    )
    blended = photo.image.copy()
    blended[inside == 0] = np.round(bare).astype(np.uint8)
    two = {m: found[m] for m in (0, 2)}
    loose = locator._fit(two)
    assert loose is not None
    assert placer.place(blended, two, loose) is None
    assert placer.place(photo.image, two, loose) is not None  # the same frame, edges shown


def test_a_reader_finds_the_board_with_two_opposite_markers_covered(photos: list[Photo]) -> None:
    for photo in photos[:2]:
        image = cover_marker(photo.image, photo.homography, PROFILE, 1)
        image = cover_marker(image, photo.homography, PROFILE, 3)
        reading = BoardReader(PROFILE).read(image)
        assert reading.state is not None, reading.error
        assert reading.markers == (0, 2)
        assert confident_wrong_cells(reading.state, photo.state) == []
        assert reading.state.cells.count("?") <= 8


def test_three_markers_and_the_edges_place_the_fourth_corner_under_a_barrel_lens() -> None:
    # The lens bends the markers' squares; a fit through three of them extrapolates its
    # error to the missing corner, which the sheet's edges tie down.
    k1 = -0.08
    seed = 3
    photo = render(
        PROFILE,
        random_state(PROFILE, np.random.default_rng(seed)),
        Shot(seed, conditions=Conditions(barrel_k1=k1)),
    )
    height, width = photo.image.shape[:2]
    straight = cv2.perspectiveTransform(CELL_CENTRES_MM.reshape(-1, 1, 2), photo.homography)
    seen = distort_points(straight.reshape(-1, 2), k1, photo.meta["focal_px"], (width, height))
    pitch_mm = GEOMETRY.cell_centre_mm(0, 1)[0] - GEOMETRY.cell_centre_mm(0, 0)[0]
    px_per_mm = float(np.linalg.norm(seen[1] - seen[0])) / pitch_mm

    def worst_mm(homography: NDArray[np.float64]) -> float:
        placed = cv2.perspectiveTransform(CELL_CENTRES_MM.reshape(-1, 1, 2), homography)
        return float(np.max(np.linalg.norm(placed.reshape(-1, 2) - seen, axis=1))) / px_per_mm

    markers_alone = []
    for hidden in PROFILE.markers.centres_mm:
        image = cover_marker(photo.image, photo.homography, PROFILE, hidden)
        locator = BoardLocator(PROFILE)
        found = locator.detect(gray(image))
        assert sorted(found) == sorted(set(PROFILE.markers.centres_mm) - {hidden})
        three = locator._fit(found)
        assert three is not None
        markers_alone.append(worst_mm(three))
        located = locator.locate(gray(image), image)
        tied = locator.tied_by_edges(image, located)
        assert tied is not None and worst_mm(tied.homography) < 2.0
        # The reader, finding no arm over the board, reads it as the edges place it.
        reader = BoardReader(PROFILE)
        assert not reader.read(image).occluded
        assert worst_mm(reader._locator._last.homography) < 2.0  # type: ignore[union-attr]
    assert max(markers_alone) > 4.0
    # With every marker seen there is nothing to tie down.
    every = BoardLocator(PROFILE)
    assert every.tied_by_edges(photo.image, every.locate(gray(photo.image), photo.image)) is None
