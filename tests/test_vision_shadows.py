"""A hard shadow is told from an arm by the board's print, which shows through a shadow only."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray
from vision_helpers import confident_wrong_cells

from companion.boards import load_profile
from companion.vision.artwork import BoardTexture
from companion.vision.canonical import CanonicalLayout
from companion.vision.reader import BoardReader
from companion.vision.render import random_state, render, shot_for
from companion.vision.shadows import PrintUnderShadow, ShadowRules

PROFILE = load_profile("troia")
LAYOUT = CanonicalLayout(PROFILE)
S = LAYOUT.px_per_mm
PRINT = PrintUnderShadow(PROFILE, S, ShadowRules())
SKIN_BGR = (150, 180, 235)


def _bare_view() -> NDArray[np.uint8]:
    """The canonical view of the bare board as a camera gives it: the print, a little blurred."""
    texture = BoardTexture(PROFILE, 2 * S).image
    view = cv2.resize(texture, LAYOUT.size_px, interpolation=cv2.INTER_AREA)
    return np.asarray(cv2.GaussianBlur(view, (0, 0), 0.8), np.uint8)


def _corner_band() -> NDArray[np.bool_]:
    """A broad band across the bottom-left corner: over the worker circles, the sheet and
    the walls there, as a lamp arm's shadow or an arm reaching in would lie."""
    w, h = LAYOUT.size_px
    mask = np.zeros((h, w), np.uint8)
    corner = np.array([[0, h * 0.45], [w * 0.45, h], [w * 0.2, h], [0, h * 0.7]], np.float32)
    cv2.fillConvexPoly(mask, np.round(corner).astype(np.int32), 1)
    return mask > 0


def _darkened(
    view: NDArray[np.uint8], where: NDArray[np.bool_], light_left: float
) -> NDArray[np.uint8]:
    gain = np.where(where, light_left, 1.0).astype(np.float32)
    gain = cv2.GaussianBlur(gain, (0, 0), 1.5)[..., None]
    return np.asarray(np.clip(view * gain, 0, 255), np.uint8)


@pytest.mark.parametrize("light_left", [0.35, 0.6])
def test_the_print_shows_through_a_hard_shadow(light_left: float) -> None:
    band = _corner_band()
    assert PRINT.shows_through(band, _darkened(_bare_view(), band, light_left))


def test_an_arm_over_the_same_band_hides_the_print() -> None:
    band = _corner_band()
    view = _bare_view()
    # Skin, rounded like an arm: brighter along its middle, darker to its sides.
    w, h = LAYOUT.size_px
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    across = np.abs((xx - 0.0) - (yy - h * 0.575) * 1.0) / (w * 0.25)
    shading = np.clip(1.1 - 0.5 * across, 0.5, 1.1)[..., None]
    arm = np.clip(np.array(SKIN_BGR, np.float32) * shading, 0, 255).astype(np.uint8)
    view[band] = arm[band]
    assert not PRINT.shows_through(band, view)


def test_only_a_body_that_hides_the_print_surely_hides_it() -> None:
    """A body too dark for colour is an arm's only where it surely hides the print: not
    under a deep shadow, whose print still shows, nor where too little print lies to tell."""
    band = _corner_band()
    view = _bare_view()
    assert not PRINT.hides(band, _darkened(view, band, 0.2))
    solid = view.copy()
    solid[band] = (28, 38, 62)  # the darkest skin, flat
    assert PRINT.hides(band, solid)
    w, h = LAYOUT.size_px
    print_free = np.zeros((h, w), bool)
    print_free[h // 3 : h // 2, w - round(10 * S) :] = True
    solid[print_free] = (28, 38, 62)
    assert not PRINT.hides(print_free, solid)


def test_the_darkest_shade_whose_print_shows_faintly_does_not_hide_it() -> None:
    """Where two lamps' shadows overlap, a tenth of the light is left and sensor noise
    drowns most of the print's detail: few parts correlate clearly, but most still do
    faintly, where a solid body as noisy shows none of it."""
    band = _corner_band()
    noise = np.random.default_rng(1).normal(0.0, 2.0, (*LAYOUT.size_px[::-1], 3))

    def noisy(view: NDArray[np.uint8]) -> NDArray[np.uint8]:
        return np.asarray(np.clip(view.astype(np.float32) + noise, 0, 255), np.uint8)

    umbra = noisy(_darkened(_bare_view(), band, 0.1))
    assert not PRINT.hides(band, umbra)
    without_faint = PrintUnderShadow(PROFILE, S, replace(ShadowRules(), faint_shown_share_max=1.0))
    assert without_faint.hides(band, umbra)  # the clear correlations alone call it solid
    solid = _bare_view()
    solid[band] = (28, 38, 62)  # the darkest skin, flat
    assert PRINT.hides(band, noisy(solid))


def test_the_print_a_pixel_or_two_off_still_shows() -> None:
    """A lens's barrel distortion moves the print off where the homography puts it."""
    band = _corner_band()
    moved = np.roll(_darkened(_bare_view(), band, 0.4), (2, -2), axis=(0, 1))
    assert PRINT.shows_through(band, moved)
    exact = PrintUnderShadow(PROFILE, S, replace(ShadowRules(), misplaced_mm=0.0))
    assert not exact.shows_through(band, moved)


def test_an_arm_inside_a_broad_shadow_is_still_an_arm() -> None:
    """The print shows almost everywhere in a shadow over two whole strips of the sheet,
    but not under the arm lying across one of them (24 mm wide): nine parts together."""
    w, h = LAYOUT.size_px
    strips = np.zeros((h, w), bool)
    strips[:, : round(100 * S)] = True
    strips[: round(100 * S), :] = True
    view = _darkened(_bare_view(), strips, 0.4)
    assert PRINT.shows_through(strips, view)
    top = round(200 * S)
    view[top : top + round(24 * S), : round(100 * S)] = SKIN_BGR
    parts = PRINT.parts_seen(strips, view)
    assert parts is not None
    judged, shown = parts
    assert shown.sum() >= 0.9 * judged.sum()
    assert not PRINT.shows_through(strips, view)


def test_a_region_on_print_free_sheet_proves_nothing() -> None:
    """The outer band along the right edge has no print: too few parts to tell a shadow."""
    w, h = LAYOUT.size_px
    band = np.zeros((h, w), bool)
    band[h // 3 : h // 2, w - round(10 * S) :] = True
    assert not PRINT.shows_through(band, _darkened(_bare_view(), band, 0.5))


def test_a_lamp_arms_shadow_is_read_through_and_an_arm_beside_it_still_found() -> None:
    """A generated real-table frame whose hard shadow crosses a corner of the board, its
    sheet there as warm as skin: read in full, with the shadow's empty worker spaces; the
    same frame with an arm reaching in is still taken as covered."""
    seed = 58
    truth = random_state(PROFILE, np.random.default_rng(seed + 7_919))
    clear = render(PROFILE, truth, shot_for(seed, False, True))
    assert clear.occluded is False and shot_for(seed, False, True).conditions.shadows
    reader = BoardReader(PROFILE)
    reading = reader.read(clear.image)
    assert reading.state is not None and not reading.occluded
    assert reading.state.cells == truth.cells
    assert reading.state.workers == truth.workers
    covered = render(PROFILE, truth, shot_for(seed, True, True))
    reading = reader.read(covered.image)
    assert reading.state is not None and reading.occluded
    assert confident_wrong_cells(reading.state, truth) == []
