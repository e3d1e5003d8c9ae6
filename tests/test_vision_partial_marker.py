"""A board found from two markers of one side and what shows of the others beside an arm."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from companion.boards import load_profile
from companion.vision.localize import BoardLocator, BoardNotFound
from companion.vision.partial_marker import MarkerPrint, PartialMarkerFinder, white_chroma
from companion.vision.reader import BoardReader
from companion.vision.render import Photo
from tests import vision_helpers as helpers

PROFILE = load_profile("troia")
GEOMETRY = PROFILE.geometry
MARKERS = PROFILE.markers
SKIN_BGR = (120, 150, 215)
# Markers 0-3 sit at the sheet's corners in order round it: (2, 3) share its bottom side.
BOTTOM, TOP = (2, 3), (0, 1)


def _photo(seed: int, conditions: bool = False) -> Photo:
    return helpers.photo_for(PROFILE, seed, conditions)


@pytest.fixture(scope="module")
def photos() -> list[Photo]:
    return [_photo(3), _photo(11), _photo(5, conditions=True)]


def _arm_along_the_bottom(
    image: NDArray[np.uint8],
    photo: Photo,
    from_x_mm: float = -80.0,
    colour: tuple[int, int, int] = SKIN_BGR,
) -> NDArray[np.uint8]:
    """A copy of ``image`` with an arm of skin lying along the sheet's bottom side from
    ``from_x_mm`` to past its right-hand end: over the outer half of both its markers
    (and of the sheet's bottom edge) by default."""
    y = max(MARKERS.centres_mm[m][1] for m in BOTTOM)
    right = GEOMETRY.sheet_mm[0] + 80.0
    band = np.array([[from_x_mm, y], [right, y], [right, y + 90.0], [from_x_mm, y + 90.0]])
    quad = cv2.perspectiveTransform(band.reshape(-1, 1, 2), photo.homography).reshape(-1, 2)
    out = image.copy()
    cv2.fillConvexPoly(out, np.round(quad).astype(np.int32), colour, cv2.LINE_AA)
    return out


def test_two_markers_of_one_side_and_half_of_each_other_place_every_cell(
    photos: list[Photo],
) -> None:
    for photo in photos:
        image = _arm_along_the_bottom(photo.image, photo)
        locator = BoardLocator(PROFILE)
        assert sorted(locator.detect(helpers.gray(image))) == list(TOP)  # the two others hidden
        located = locator.locate(helpers.gray(image), image)
        assert located.marker_ids == TOP  # only the decoded ones count as found
        assert helpers.worst_cell_error_mm(PROFILE, located.homography, photo.homography) < 2.0


def test_one_marker_wholly_hidden_leaves_the_far_side_to_the_sheets_edges(
    photos: list[Photo],
) -> None:
    """The corners of one partly hidden marker tie one far corner, loosely; with the
    sheet's edges, led to from it and from the markers found, the board is placed."""
    left = BOTTOM[1]  # marker 2 at the bottom right, 3 at the bottom left
    for photo in photos:
        # An arm from the right over half of marker 2, the bottom edge showing beside it.
        half = _arm_along_the_bottom(photo.image, photo, from_x_mm=360.0)
        image = helpers.cover_marker(half, photo.homography, PROFILE, left)
        located = BoardLocator(PROFILE).locate(helpers.gray(image), image)
        assert helpers.worst_cell_error_mm(PROFILE, located.homography, photo.homography) < 2.0
        # With the sheet's bottom edge hidden too, nothing ties the far side down.
        hidden = helpers.cover_marker(
            _arm_along_the_bottom(photo.image, photo), photo.homography, PROFILE, left
        )
        with pytest.raises(BoardNotFound):
            BoardLocator(PROFILE).locate(helpers.gray(hidden), hidden)


def test_nothing_of_the_other_two_showing_places_nothing(photos: list[Photo]) -> None:
    photo = photos[0]
    image = photo.image
    for marker in BOTTOM:
        image = helpers.cover_marker(image, photo.homography, PROFILE, marker)
    with pytest.raises(BoardNotFound, match="or two with a corner of each other showing"):
        BoardLocator(PROFILE).locate(helpers.gray(image), image)


def _finder(marker: int) -> PartialMarkerFinder:
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, MARKERS.dictionary))
    cx, cy = MARKERS.centres_mm[marker]
    half = MARKERS.side_mm / 2
    bits = cv2.aruco.generateImageMarker(dictionary, marker, dictionary.markerSize + 2)
    return PartialMarkerFinder(
        MarkerPrint(marker, MARKERS.side_mm, MARKERS.quiet_zone_mm, (cx - half, cy - half), bits)
    )


def test_a_marker_found_from_its_print_gives_only_the_corners_that_show(
    photos: list[Photo],
) -> None:
    photo = photos[0]
    image = _arm_along_the_bottom(photo.image, photo)
    locator = BoardLocator(PROFILE)
    found = locator.detect(helpers.gray(image))
    loose = locator._fit(found)
    assert loose is not None
    white = white_chroma(image, list(found.values()))
    for marker in BOTTOM:
        shown = _finder(marker).find(image, loose, white)
        assert shown is not None
        board, seen = shown
        # The arm hides the marker's outer (bottom) corners: only the inner two are given,
        # each within a pixel and a half of where it truly is.
        assert len(board) == 2
        assert np.all(board[:, 1] < MARKERS.centres_mm[marker][1])
        truth = cv2.perspectiveTransform(board.reshape(-1, 1, 2), photo.homography).reshape(-1, 2)
        assert float(np.max(np.linalg.norm(seen - truth, axis=1))) < 1.5


def test_a_marker_whose_square_is_hidden_is_not_found_from_its_quiet_zone(
    photos: list[Photo],
) -> None:
    """White paper round a hidden square agrees with the print's quiet zone, but shows
    none of its square: no placement."""
    photo = photos[0]
    m = BOTTOM[0]
    cx, cy = MARKERS.centres_mm[m]
    half = MARKERS.side_mm / 2
    square = np.array([[-half, -half], [half, -half], [half, half], [-half, half]])
    square += np.array([cx, cy])
    quad = cv2.perspectiveTransform(square.reshape(-1, 1, 2), photo.homography).reshape(-1, 2)
    image = photo.image.copy()
    cv2.fillConvexPoly(image, np.round(quad).astype(np.int32), SKIN_BGR)
    locator = BoardLocator(PROFILE)
    found = {k: v for k, v in locator.detect(helpers.gray(image)).items() if k in TOP}
    loose = locator._fit(found)
    assert loose is not None
    assert _finder(m).find(image, loose, white_chroma(image, list(found.values()))) is None


def test_a_reader_reads_a_board_whose_one_side_lies_under_an_arm(photos: list[Photo]) -> None:
    for photo in photos[:2]:
        image = _arm_along_the_bottom(photo.image, photo)
        reading = BoardReader(PROFILE).read(image)
        assert reading.state is not None, reading.error
        assert reading.markers == TOP
        assert helpers.confident_wrong_cells(reading.state, photo.state) == []
        # The arm covers the bottom rows' edge at most: most cells are read.
        assert reading.state.cells.count("?") < 64


def test_a_board_placed_by_markers_found_in_part_is_read_as_covered(
    photos: list[Photo],
) -> None:
    """Whatever hides half of two markers lies over the sheet, arm or not: the reading
    is flagged, so the table waits for a clear view (a grey sleeve over the sheet's
    margin shows no skin, and reaches no cell)."""
    photo = photos[1]
    sleeve = _arm_along_the_bottom(photo.image, photo, colour=(70, 75, 80))
    reader = BoardReader(PROFILE)
    reading = reader.read(sleeve)
    assert reading.state is not None, reading.error
    assert reading.occluded
    # The camera still, the next frame reuses the placement: the sleeve is still there.
    again = reader.read(sleeve)
    assert again.state is not None and again.occluded
    clear = BoardReader(PROFILE).read(photo.image)
    assert clear.state is not None and not clear.occluded
