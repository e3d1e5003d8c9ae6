"""Washed tiles named against the frame's own tiles: views painted in linear light, where
glare adds to every channel alike and the sensor clips at its limit."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest
from vision_helpers import linear_to_8bit

from companion.boards import GRID, load_profile
from companion.vision.canonical import CanonicalLayout
from companion.vision.colour import hex_to_bgr
from companion.vision.exemplars import (
    ExemplarRules,
    LinearCells,
    exemplar_species,
    fill_by_exemplars,
    lamp_colour,
    misfit,
    misfits,
    srgb_to_linear,
)
from companion.vision.floor import CellColour, CellWindows

PROFILE = load_profile("troia")
LAYOUT = CanonicalLayout(PROFILE)
WINDOWS = CellWindows(LAYOUT.cell_labels, PROFILE, LAYOUT.bonus_rings)
RULES = ExemplarRules()
FLOOR_BGR = np.array(hex_to_bgr(PROFILE.colours.vat_floor), dtype=np.float64)
PLAIN = [s for s in PROFILE.slots if not any(i in PROFILE.bonus_kind for i in s)]


def _ink(letter: str) -> np.ndarray:
    if letter == ".":
        return srgb_to_linear(FLOOR_BGR)
    return srgb_to_linear(np.array(hex_to_bgr(PROFILE.colours.species[letter]), dtype=float))


def _view(painted: dict[int, tuple[str, float]], light: float = 1.2) -> np.ndarray:
    """Bare floor under ``light`` everywhere, but the ``painted`` cells: (ink, glare)."""
    view = np.empty((*LAYOUT.cell_labels.shape, 3), dtype=np.uint8)
    view[:] = linear_to_8bit(light * _ink("."))
    for i, (letter, glare) in painted.items():
        view[LAYOUT.cell_labels == i] = linear_to_8bit(light * _ink(letter) + glare)
    return view


def _fill(
    view: np.ndarray,
    chars: list[str],
    edge: bool = True,
    rules: ExemplarRules = RULES,
    own_edge: bool = False,
) -> list[str]:
    lab = np.asarray(cv2.cvtColor(view, cv2.COLOR_BGR2Lab), dtype=np.uint8)
    colour = CellColour.measure(lab, view, view, WINDOWS)
    return fill_by_exemplars(
        chars,
        colour,
        view,
        WINDOWS,
        FLOOR_BGR,
        PROFILE,
        rules,
        lambda slot: edge,
        shows_own_edge=lambda slot: own_edge,
    )


def _scene(washed: str, glare: float) -> tuple[np.ndarray, list[str], tuple[int, ...]]:
    """One slot of named tiles of every species, read; one beside it washed by ``glare``,
    unread; the rest bare floor, read."""
    shown, target = PLAIN[0], PLAIN[1]
    painted = {i: (c, 0.0) for i, c in zip(shown, "RGYB", strict=True)}
    painted |= {i: (c, glare) for i, c in zip(target, washed, strict=True)}
    chars = ["."] * 256
    for i, c in zip(shown, "RGYB", strict=True):
        chars[i] = c
    for i in target:
        chars[i] = "?"
    return _view(painted), chars, target


def _no_floor_near(chars: list[str], target: tuple[int, ...]) -> list[str]:
    """``chars`` with no bare floor read within the exemplars' reach of ``target``."""
    rows, cols = zip(*(divmod(t, GRID) for t in target), strict=True)
    far = list(chars)
    for i, c in enumerate(chars):
        row, col = divmod(i, GRID)
        near = min(max(abs(row - r), abs(col - k)) for r, k in zip(rows, cols, strict=True))
        if c == "." and near <= RULES.radius_cells:
            far[i] = "?"
    return far


def test_a_washed_tile_is_named_by_the_tiles_the_frame_read() -> None:
    view, chars, target = _scene("RRGB", 0.55)
    out = _fill(view, chars)
    assert [out[i] for i in target] == list("RRGB")


def test_a_washed_cell_fits_its_own_species_and_not_the_floor() -> None:
    light = 1.2
    red, floor = light * _ink("R"), light * _ink(".")
    washed = np.minimum(red + 0.55, 1.0)  # red clips, green and blue remain
    clipped = washed >= 1.0
    free = np.zeros(3, dtype=bool)
    assert misfit(washed, clipped, red, free, 1.0, RULES) < 1.0
    assert misfit(washed, clipped, floor, free, 1.0, RULES) > RULES.residual_max
    # With one channel left below the limit, any exemplar fits: nothing is told.
    assert misfit(washed, np.array([False, True, True]), red, free, 1.0, RULES) is None


def test_a_cell_washed_white_stays_unread() -> None:
    view, chars, target = _scene("RRGB", 1.0)
    out = _fill(view, chars)
    assert [out[i] for i in target] == ["?"] * 4


def test_a_species_no_tile_nearby_shows_is_not_guessed() -> None:
    shown, target = PLAIN[0], PLAIN[1]
    painted = {i: ("R", 0.0) for i in shown} | {i: ("B", 0.45) for i in target}
    chars = ["."] * 256
    for i in shown:
        chars[i] = "R"
    for i in target:
        chars[i] = "?"
    out = _fill(_view(painted), chars)
    assert [out[i] for i in target] == ["?"] * 4


def test_bare_floor_left_unread_is_no_tile_without_an_edge_or_a_named_cell() -> None:
    # Bare floor in glare: it fits the floor best, and the slot shows no tile at all.
    shown, target = PLAIN[0], PLAIN[1]
    painted = {i: (c, 0.0) for i, c in zip(shown, "RGYB", strict=True)}
    painted |= {i: (".", 0.3) for i in target}
    chars = ["."] * 256
    for i, c in zip(shown, "RGYB", strict=True):
        chars[i] = c
    for i in target:
        chars[i] = "?"
    view = _view(painted)
    assert [_fill(view, chars, edge=False)[i] for i in target] == ["?"] * 4
    assert [_fill(view, chars, edge=True)[i] for i in target] == ["?"] * 4


def test_a_yellow_where_bare_floor_could_be_needs_bare_floor_near_to_compare() -> None:
    # The cream floor is a pale yellow: in a warm lamp's light it fits a washed yellow.
    # A slot no cell of which is named is a tile only by its outline; there a yellow is
    # named only when bare floor nearby was tried and fit clearly worse.
    view, chars, target = _scene("YYYY", 0.3)
    assert [_fill(view, chars)[i] for i in target] == ["Y"] * 4
    far = _no_floor_near(chars, target)
    assert [_fill(view, far)[i] for i in target] == ["?"] * 4
    # The slot's own edge, along its vat's wall, shows: a tile covers it all.
    assert [_fill(view, far, own_edge=True)[i] for i in target] == ["Y"] * 4
    # One cell of the slot named: a tile covers it all, and no cell of it is floor.
    far[target[0]] = "Y"
    assert [_fill(view, far)[i] for i in target] == ["Y"] * 4


def test_the_fit_needs_the_margin_over_the_runner_up() -> None:
    view, chars, target = _scene("RRGB", 0.55)
    strict = ExemplarRules(margin_min=1e6)
    assert [_fill(view, chars, rules=strict)[i] for i in target] == ["?"] * 4


def test_a_slot_with_a_cell_read_empty_is_left_alone() -> None:
    view, chars, target = _scene("RRGB", 0.55)
    chars[target[0]] = "."
    out = _fill(view, chars)
    assert [out[i] for i in target] == [".", "?", "?", "?"]


def test_linear_cells_are_the_windows_mean_linear_light() -> None:
    view, _chars, target = _scene("RRGB", 0.55)
    lab = np.asarray(cv2.cvtColor(view, cv2.COLOR_BGR2Lab), dtype=np.uint8)
    cells = LinearCells.measure(view, CellColour.measure(lab, view, view, WINDOWS), WINDOWS)
    expected = srgb_to_linear(linear_to_8bit(1.2 * _ink("G") + 0.55).astype(float))
    assert np.allclose(cells.light[target[2]], expected, atol=1e-3)
    assert cells.clipped_share[target[0], 2] == 1.0  # the washed red's red clipped


def test_glare_takes_the_lamps_colour_before_the_balance() -> None:
    # Under a warm lamp the camera sees the glare warm: it lifts red most and blue least.
    # Fitted along the lamp's colour, a washed red matches the red seen beside it; fitted
    # as if the glare were grey in the camera's light, it does not.
    lamp = np.array([0.45, 0.75, 1.0])  # linear BGR, as a 2700 K lamp
    red = lamp * 1.2 * _ink("R")
    washed = np.minimum(lamp * (1.2 * _ink("R") + 0.7), 1.0)
    clipped = washed >= 1.0
    free = np.zeros(3, dtype=bool)
    assert clipped.tolist() == [False, False, True]
    warm = misfit(washed, clipped, red, free, 1.0, RULES, lamp)
    grey = misfit(washed, clipped, red, free, 1.0, RULES)
    assert warm is not None and warm < 1.0
    assert grey is not None and grey > RULES.residual_max


def test_the_lamps_colour_comes_from_the_balances_gains() -> None:
    # The balance lifts blue most under a warm lamp: the lamp gave blue least.
    lamp = lamp_colour(np.array([[1.4, 1.1, 0.9], [1.0, 1.0, 1.0]]))
    assert lamp[0].argmin() == 0 and lamp[0].argmax() == 2
    assert lamp[0].max() == 1.0
    assert np.allclose(lamp[1], 1.0)


def _washed_unevenly(view: np.ndarray, cells: tuple[int, ...], rows: int) -> np.ndarray:
    """``view`` with each of ``cells`` washed white but for its window's first ``rows``
    rows, which keep the glare painted there."""
    out = view.copy()
    for i in cells:
        y0, y1 = int(WINDOWS.y0[i]), int(WINDOWS.y1[i])
        x0, x1 = int(WINDOWS.x0[i]), int(WINDOWS.x1[i])
        out[y0 + rows : y1, x0:x1] = 255
    return out


def test_a_cell_washed_unevenly_is_named_at_its_least_glared_pixels() -> None:
    # Most of each cell is washed white: its mean has every channel at the limit.  A
    # fifth of it keeps the ink under lighter glare, and there the cell is named.
    view, chars, target = _scene("RRGB", 0.55)
    uneven = _washed_unevenly(view, target, rows=3)
    assert [_fill(uneven, chars)[i] for i in target] == list("RRGB")
    # Fitted at the cells' brightest pixels instead, nothing is told.
    brightest = ExemplarRules(low_quantile=1.0)
    assert [_fill(uneven, chars, rules=brightest)[i] for i in target] == ["?"] * 4
    # A cell washed white all over stays unread.
    white = _washed_unevenly(view, target, rows=0)
    assert [_fill(white, chars)[i] for i in target] == ["?"] * 4


def test_one_channel_below_the_limit_tells_when_the_others_bound_the_fit() -> None:
    # A yellow washed until red and green clip: blue alone is below the limit.  Fitted
    # with glare on blue, only a yellow also reaches the limit in red and green: the cream
    # floor, its blue close to its green and red, falls short of it.
    light = 1.2
    one = ExemplarRules(free_channels_min=1)
    washed = np.minimum(light * _ink("Y") + 0.5, 1.0)
    clipped = washed >= 1.0
    free = np.zeros(3, dtype=bool)
    assert clipped.tolist() == [False, True, True]
    fits = {c: misfit(washed, clipped, light * _ink(c), free, 1.0, one) for c in "RGBY."}
    assert fits["Y"] is not None and fits["Y"] < 1.0
    for other in "RGB.":
        assert fits[other] is not None and fits[other] > fits["Y"] + RULES.margin_min


def test_a_cell_named_in_a_slot_of_unread_cells_makes_the_rest_tile_too() -> None:
    # No bare floor read near: a yellow of a slot known only by its outline could be the
    # cream floor.  Once the green beside it is named, a tile covers the whole slot.
    view, chars, target = _scene("GYYY", 0.3)
    far = _no_floor_near(chars, target)
    assert [_fill(view, far)[i] for i in target] == list("GYYY")
    # The yellows alone stay unread.
    alone, _, _ = _scene("YYYY", 0.3)
    assert [_fill(alone, far)[i] for i in target] == ["?"] * 4


def test_where_a_tile_covers_the_slot_the_floor_is_no_rival_to_a_washed_yellow() -> None:
    # Glare lifts the yellows until they fit the bare floor nearby as well as a yellow:
    # beside a named cell of their tile they are still yellows, but in a slot nothing of
    # which is named they could be bare floor.
    view, chars, target = _scene("RYYY", 0.7)
    assert [_fill(view, chars)[i] for i in target] == list("RYYY")
    view, chars, target = _scene("YYYY", 0.7)
    assert [_fill(view, chars)[i] for i in target] == ["?"] * 4


def test_the_fits_of_many_exemplars_at_once_are_each_ones_own() -> None:
    # misfits, one exemplar per row, gives what misfit gives of each: nan where too few
    # channels are free in both to tell.
    light = 1.2
    cell = np.minimum(light * _ink("R") + 0.55, 1.0)
    cell_clipped = cell >= 1.0
    inks = np.array([light * _ink(c) for c in "RGBY."])
    clipped = np.zeros_like(inks, dtype=bool)
    clipped[3] = [False, True, True]  # a yellow clipped in green and red
    ratios = np.array([1.0, 0.9, 1.1, 1.0, 1.2])
    lamp = np.array([0.6, 0.8, 1.0])
    batch = misfits(cell, cell_clipped, inks, clipped, ratios, RULES, lamp)
    for k in range(len(inks)):
        one = misfit(cell, cell_clipped, inks[k], clipped[k], float(ratios[k]), RULES, lamp)
        if one is None:
            assert np.isnan(batch[k])
        else:
            assert batch[k] == pytest.approx(one, abs=1e-9)
    assert np.isnan(batch[3]) and not np.isnan(batch[0])


def test_one_channel_names_no_ink_that_no_exemplar_in_reach_could_rival() -> None:
    # A cell clipped in green and red keeps blue alone below the limit (photoreal 5651
    # img011: a washed yellow).  A green exemplar beside it, pale enough to reach the limit
    # under the glare that fits blue, fits it; a red one does not.  With no yellow or
    # blue exemplar in reach, blue alone does not rule those inks out: unread.
    one = replace(RULES, free_channels_min=1)
    cell, green, red, yellow, blue = (3 * GRID + k for k in range(3, 8))
    light = np.zeros((256, 3))
    clipped = np.zeros((256, 3), dtype=bool)
    light[cell], clipped[cell] = [0.45, 1.0, 1.0], [False, True, True]
    light[green] = [0.30, 0.80, 0.75]
    light[red] = [0.05, 0.10, 0.55]
    chars = ["?"] * 256
    chars[green], chars[red] = "G", "R"
    cells = LinearCells(light, clipped.astype(float))
    even = np.ones(256)

    def named(exemplars: list[int]) -> str | None:
        return exemplar_species(cell, cells, clipped, chars, exemplars, even, one)

    assert named([green, red]) is None
    # With a yellow and a blue in reach that fit clearly worse, the green stands.
    light[yellow], chars[yellow] = [0.02, 0.30, 0.80], "Y"
    light[blue], chars[blue] = [0.40, 0.10, 0.03], "B"
    assert named([green, red, yellow, blue]) == "G"
