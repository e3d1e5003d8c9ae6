"""A reading names the unread cells glare clipped, and only those: the table can then tell
the players to move the lamp rather than wait for a view that will not come."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from companion.boards import load_profile
from companion.cli import main
from companion.games.garum.camera import CameraReadings
from companion.vision.colour import hex_to_bgr
from companion.vision.reader import BoardReader, Reading
from companion.vision.render import Photo
from companion.vision.sources import ImageSource
from tests.vision_helpers import photo_for, slot_outline

PROFILE = load_profile("troia")
SKIN_BGR = (120, 150, 215)  # lit skin, as the other arm tests paint it


def _photo_with_a_tile() -> tuple[Photo, tuple[int, ...]]:
    """The first clear generated photo holding a tile in a slot clear of bonus icons."""
    for seed in range(1, 40):
        photo = photo_for(PROFILE, seed)
        for slot in PROFILE.slots:
            plain = not any(i in PROFILE.bonus_kind for i in slot)
            if plain and all(photo.state.cells[i] != "." for i in slot):
                return photo, slot
    raise AssertionError("no generated photo holds a tile")


def _painted(photo: Photo, slot: tuple[int, ...], paint: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """The photo with the slot's tile, a little inside its outline, replaced by ``paint``
    (an image of the photo's size)."""
    outline = slot_outline(PROFILE, slot, photo.homography).astype(np.float64)
    centre = outline.mean(axis=0)
    inset = np.round(centre + 0.9 * (outline - centre)).astype(np.int32)
    mask = np.zeros(photo.image.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, inset, 1)
    image = photo.image.copy()
    image[mask > 0] = paint[mask > 0]
    return image


def _flat(photo: Photo, bgr: tuple[int, int, int]) -> NDArray[np.uint8]:
    return np.full_like(photo.image, bgr)


def _stripes(photo: Photo, first: str, second: str, pitch_px: int = 3) -> NDArray[np.uint8]:
    """Upright stripes of two species' printed inks, finer than a cell."""
    inks = [np.array(hex_to_bgr(PROFILE.colours.species[c]), np.uint8) for c in (first, second)]
    paint = np.empty_like(photo.image)
    columns = (np.arange(paint.shape[1]) // pitch_px) % 2
    paint[:, columns == 0] = inks[0]
    paint[:, columns == 1] = inks[1]
    return paint


def _read(image: NDArray[np.uint8]) -> Reading:
    reading = BoardReader(PROFILE).read(image)
    assert reading.state is not None and not reading.occluded
    return reading


def test_a_clear_photo_names_no_glare() -> None:
    photo, _ = _photo_with_a_tile()
    assert _read(photo.image).glare == frozenset()


def test_a_tile_glare_clipped_white_is_unread_and_named_glare() -> None:
    photo, slot = _photo_with_a_tile()
    reading = _read(_painted(photo, slot, _flat(photo, (255, 255, 255))))
    assert reading.state is not None
    assert [reading.state.cells[i] for i in slot] == ["?"] * 4
    assert set(slot) <= reading.glare
    # Only unread cells are named, whatever else the sensor clipped.
    assert all(reading.state.cells[i] == "?" for i in reading.glare)


def test_a_slot_unread_for_want_of_one_colour_is_no_glare() -> None:
    """Unread for another reason, nothing clipped (each cell shows two inks): there a
    clearer view may well come."""
    photo, slot = _photo_with_a_tile()
    reading = _read(_painted(photo, slot, _stripes(photo, "R", "G")))
    assert reading.state is not None
    assert [reading.state.cells[i] for i in slot] == ["?"] * 4
    assert not reading.glare & set(slot)


def test_the_camera_hands_the_table_the_glare_it_read(tmp_path: Path) -> None:
    """From a still camera's file to the table's sighting, the glare travels with it."""
    photo, slot = _photo_with_a_tile()
    path = tmp_path / "washed.png"
    cv2.imwrite(str(path), _painted(photo, slot, _flat(photo, (255, 255, 255))))
    ticks = iter(range(100))
    camera = CameraReadings(
        ImageSource(path, loop=True), PROFILE, still_s=1.0, max_fps=1e6, clock=lambda: next(ticks)
    )
    sighting = next(s for s in camera.readings() if s is not None)
    camera.close()
    assert set(slot) <= sighting.glare
    assert all(sighting.state.cells[i] == "?" for i in sighting.glare)


def test_recognize_names_the_glare_apart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    photo, slot = _photo_with_a_tile()
    path = tmp_path / "washed.png"
    cv2.imwrite(str(path), _painted(photo, slot, _flat(photo, (255, 255, 255))))
    assert main(["recognize", str(path), "--json"]) == 0
    line = json.loads(capsys.readouterr().out)
    assert set(slot) <= set(line["glare"])
    assert all(line["cells"][i // 16][i % 16] == "?" for i in line["glare"])
    assert main(["recognize", str(path)]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    vat = PROFILE.vat_of_cell[slot[0]]
    assert last.startswith(f"glare: {len(line['glare'])} unread cell(s) washed out in vat(s) ")
    assert str(vat) in last.split("vat(s) ")[1].split(":")[0].split(", ")


def test_skin_clipped_under_an_arm_is_the_arms_not_glare() -> None:
    """Lit skin clips as glare does; under an arm the cells are the arm's, and the table
    waits for the arm to leave, not for a lamp to move."""
    photo, slot = _photo_with_a_tile()
    g = PROFILE.geometry
    row, col = divmod(slot[0], 16)
    x0, y0 = g.cell_corner_mm(row, col)
    side = 2 * g.cell_mm
    # A forearm from beyond the sheet's left edge to past the slot, a glint on it there.
    arm = np.array(
        [
            [-100.0, y0 - 25],
            [x0 + side + 30, y0 - 25],
            [x0 + side + 30, y0 + side + 25],
            [-100.0, y0 + side + 25],
        ]
    )
    quad = cv2.perspectiveTransform(arm.reshape(-1, 1, 2), photo.homography).reshape(-1, 2)
    image = photo.image.copy()
    cv2.fillConvexPoly(image, np.round(quad).astype(np.int32), SKIN_BGR, cv2.LINE_AA)
    reading = BoardReader(PROFILE).read(
        _painted(replace(photo, image=image), slot, _flat(photo, (255, 255, 255)))
    )
    assert reading.state is not None and reading.occluded
    assert all(reading.state.cells[i] == "?" for i in slot)
    assert not reading.glare & set(slot)
