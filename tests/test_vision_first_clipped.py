"""The channel glare clips first names the ink: views painted in linear light, where glare
adds the lamp's colour to every channel and the sensor clips at its limit."""

from __future__ import annotations

import numpy as np
from vision_helpers import linear_to_8bit

from companion.boards import load_profile
from companion.vision.canonical import CanonicalLayout
from companion.vision.colour import hex_to_bgr
from companion.vision.exemplars import srgb_to_linear
from companion.vision.first_clipped import (
    FirstClippedRules,
    first_clipped_species,
    species_shares,
)
from companion.vision.floor import CellWindows

PROFILE = load_profile("troia")
LAYOUT = CanonicalLayout(PROFILE)
WINDOWS = CellWindows(LAYOUT.cell_labels, PROFILE, LAYOUT.bonus_rings)
RULES = FirstClippedRules()
CELL = 0


def _washed(letter: str, glare: float, lamp: tuple[float, float, float] = (1.0, 1.0, 1.0)):
    """One pixel of an ink (``.``: the floor) lit by a lamp of the given colour (linear
    BGR) with ``glare`` of the lamp's light added, as the camera gives it and balanced."""
    hex_colour = PROFILE.colours.vat_floor if letter == "." else PROFILE.colours.species[letter]
    ink = srgb_to_linear(np.array(hex_to_bgr(hex_colour), dtype=float))
    colour = np.asarray(lamp)
    raw = linear_to_8bit(colour * (1.1 * ink + glare))
    gains = colour ** (-1 / 2.4) / max(colour ** (-1 / 2.4))  # the balance dims, never lifts
    balanced = np.asarray(np.round(raw * gains), dtype=np.uint8)
    return raw, balanced


def _cell(raw: np.ndarray, balanced: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    shape = (*LAYOUT.cell_labels.shape, 3)
    return np.broadcast_to(raw, shape).copy(), np.broadcast_to(balanced, shape).copy()


def _named(letter: str, glare: float, lamp=(1.0, 1.0, 1.0)) -> str | None:
    raw, balanced = _cell(*_washed(letter, glare, lamp))
    return first_clipped_species(raw, balanced, WINDOWS, CELL, RULES)


def test_each_ink_washed_until_its_brightest_channel_clips_is_named() -> None:
    assert _named("B", 0.75) == "B"
    assert _named("G", 0.82) == "G"
    assert _named("R", 0.55) == "R"
    assert _named("Y", 0.25) == "Y"


def test_a_warm_lamps_glare_keeps_the_order_once_balanced() -> None:
    warm = (0.45, 0.75, 1.0)  # blue dimmed most, as under a 2700 K lamp
    assert _named("R", 0.55, warm) == "R"
    assert _named("Y", 0.25, warm) == "Y"


def test_no_channel_clipped_or_all_of_them_says_nothing() -> None:
    assert _named("B", 0.2) is None  # below the limit: a hue question, not this one
    assert _named("R", 3.0) is None  # washed white


def test_a_clipped_channel_whose_balanced_bound_is_not_above_the_others_proves_nothing() -> None:
    # The floor in a cold light: the camera clips blue first, but balanced, blue's lower
    # bound lies under red and green: blue need not be the ink's brightest.
    raw = np.array([255, 240, 235], dtype=np.uint8)
    balanced = np.array([205, 228, 235], dtype=np.uint8)
    assert species_shares(raw[None, :], balanced[None, :], RULES).max() == 0.0
    assert first_clipped_species(*_cell(raw, balanced), WINDOWS, CELL, RULES) is None


def test_a_cell_two_species_share_stays_unread() -> None:
    blue_raw, blue_bal = _washed("B", 0.75)
    green_raw, green_bal = _washed("G", 0.82)
    raw, balanced = _cell(blue_raw, blue_bal)
    x_mid = (int(WINDOWS.x0[CELL]) + int(WINDOWS.x1[CELL])) // 2
    raw[:, x_mid:] = green_raw  # the right half of the cell's window shows a green
    balanced[:, x_mid:] = green_bal
    assert first_clipped_species(raw, balanced, WINDOWS, CELL, RULES) is None
    assert first_clipped_species(*_cell(blue_raw, blue_bal), WINDOWS, CELL, RULES) == "B"


def test_a_red_and_a_yellow_are_told_apart_by_green_against_blue() -> None:
    red_raw, red_bal = _washed("R", 0.55)
    yellow_raw, yellow_bal = _washed("Y", 0.25)
    red = species_shares(red_raw[None, :], red_bal[None, :], RULES)
    yellow = species_shares(yellow_raw[None, :], yellow_bal[None, :], RULES)
    assert red.tolist() == [0.0, 0.0, 0.0, 1.0]  # BGYR
    assert yellow.tolist() == [0.0, 0.0, 1.0, 0.0]


def _share_of_cell(ink_raw: np.ndarray, ink_bal: np.ndarray, share: float):
    """A cell whose window shows the washed ink over ``share`` of its rows, white (every
    channel clipped, which proves nothing) over the rest."""
    raw, balanced = _cell(np.array([255, 255, 255], np.uint8), np.array([240, 240, 240], np.uint8))
    y0, y1 = int(WINDOWS.y0[CELL]), int(WINDOWS.y1[CELL])
    rows = y0 + round(share * (y1 - y0))
    raw[y0:rows], balanced[y0:rows] = ink_raw, ink_bal
    return raw, balanced


def test_blue_and_green_need_a_smaller_share_than_red_the_floors_own_first() -> None:
    # The cream floor clips red first, never blue or green: a fifth of a window clipped
    # green first names a green, where a red needs the larger share red asks.
    for letter, glare in (("G", 0.82), ("B", 0.75), ("R", 0.55)):
        named = first_clipped_species(
            *_share_of_cell(*_washed(letter, glare), 0.2), WINDOWS, CELL, RULES
        )
        assert named == (letter if letter in "BG" else None)
    assert (
        first_clipped_species(*_share_of_cell(*_washed("G", 0.82), 0.1), WINDOWS, CELL, RULES)
        is None
    )


def test_a_yellows_green_clipped_a_little_first_names_no_green() -> None:
    """A yellow ink holds green about level with red: glare may clip its green first by
    a few levels (photoreal 5001 ``img031``), which a green ink, red far below, beats."""
    # Blue, green, red: green at the sensor's limit, red 8 below it and under the limit.
    raw = np.array([[60, 250, 242]], np.uint8)
    balanced = raw.copy()
    assert species_shares(raw, balanced, RULES).tolist() == [0.0, 0.0, 0.0, 0.0]
    loose = FirstClippedRules(green_lead_min=0)
    assert species_shares(raw, balanced, loose).tolist() == [0.0, 1.0, 0.0, 0.0]  # as before
    assert _named("G", 0.82) == "G"  # a green ink's red lies far below its green
