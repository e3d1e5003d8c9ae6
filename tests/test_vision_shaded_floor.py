"""Bare floor in a shadow, proven by keeping the floor's hue; a tile or a grey sleeve never is.

The printed dashes are switched off in these tests (``shown_min`` above any correlation)
so that what is measured is the floor's colour alone."""

from __future__ import annotations

import numpy as np
import pytest
from vision_helpers import confident_wrong_cells, quadrant_shadow

from companion.boards import load_profile
from companion.games.garum.state import BoardState
from companion.vision.canonical import CanonicalLayout
from companion.vision.conditions import CastShadow, Conditions
from companion.vision.reader import BoardReader
from companion.vision.render import Shot, random_state, render
from companion.vision.shaded_floor import ShadedFloorRules
from companion.vision.slot_print import SlotPrint, SlotPrintRules

PROFILE = load_profile("troia")
S = CanonicalLayout(PROFILE).px_per_mm
NO_DASHES = SlotPrintRules(shown_min=2.0)
NO_HUE_PROOF = ShadedFloorRules(offset_max=0.0)


def _half_shadow(light: float) -> CastShadow:
    """A hard shadow over the board's left half, past the sheet's edges."""
    width, height = PROFILE.geometry.sheet_mm
    corners = ((-20.0, -20.0), (width / 2, -20.0), (width / 2, height + 20), (-20.0, height + 20))
    return CastShadow(corners, light, 1.5)


def _read(
    state: BoardState,
    seed: int,
    light: float,
    rules: ShadedFloorRules,
    shadow: CastShadow | None = None,
) -> BoardState:
    cast = quadrant_shadow(PROFILE, light) if shadow is None else shadow
    shot = Shot(seed, conditions=Conditions(shadows=(cast,)))
    reader = BoardReader(PROFILE)
    reader.slot_print = SlotPrint(PROFILE, S, NO_DASHES)
    reader.shaded_floor_rules = rules
    reading = reader.read(render(PROFILE, state, shot).image)
    assert reading.state is not None
    return reading.state


def test_bare_floor_in_a_shadow_keeps_the_floors_hue() -> None:
    """In two fifths of the light over half the board, bare floor near the shadow's edge
    misses the colour proof by a little; it keeps the floor's hue."""
    empty = BoardState("." * 256, (None,) * 32)
    before = after = 0
    for seed in range(3):
        shadow = _half_shadow(0.4)
        before += _read(empty, seed, 0.4, NO_HUE_PROOF, shadow).cells.count("?")
        got = _read(empty, seed, 0.4, ShadedFloorRules(), shadow).cells
        assert set(got) <= {".", "?"}
        after += got.count("?")
    assert before >= 30  # 36 on these three boards
    assert after <= before - 16  # 12


@pytest.mark.parametrize("light", [0.12, 0.3])
def test_tiles_in_a_shadow_are_never_proven_bare_by_their_hue(light: float) -> None:
    for seed in range(4):
        state = random_state(PROFILE, np.random.default_rng(seed + 40))
        got = _read(state, seed, light, ShadedFloorRules())
        assert not confident_wrong_cells(got, state), seed


def _crowded(seed: int) -> tuple[BoardState, list[tuple[int, ...]]]:
    """Every slot filled but two: one in the shadowed quarter, one in the light."""
    rng = np.random.default_rng(seed + 90)
    cells = list(rng.choice(list("BGYR"), 256))
    corner = [s for s in PROFILE.slots if max(divmod(min(s), 16)) < 6]
    lit = [s for s in PROFILE.slots if min(divmod(min(s), 16)) > 9]
    bare = [corner[rng.integers(len(corner))], lit[rng.integers(len(lit))]]
    for slot in bare:
        for i in slot:
            cells[i] = "."
    return BoardState("".join(cells), (None,) * 32), bare


def test_a_crowded_boards_floor_is_traced_from_the_print() -> None:
    """Eight bare cells are too few to measure the floor's colour by; traced from the
    print, the floor still follows its light into the shadow."""
    read_bare = 0
    for seed in range(4):
        state, bare = _crowded(seed)
        got = _read(state, seed, 0.5, NO_HUE_PROOF)
        assert not confident_wrong_cells(got, state), seed
        read_bare += sum(all(got.cells[i] == "." for i in slot) for slot in bare)
    assert read_bare == 8


@pytest.mark.parametrize(("seed", "light"), [(10, 0.2), (20, 0.1), (26, 0.1), (38, 0.1)])
def test_a_tile_deeper_in_shadow_than_the_path_reaches_is_no_floor(seed: int, light: float) -> None:
    """In a tenth of the light a yellow tile shows the chroma the floor has at half its
    light, where the brightening path ends; held to the path's end, these four boards
    read 4 to 10 tile cells as bare floor each."""
    state = random_state(PROFILE, np.random.default_rng(seed + 500))
    shot = Shot(seed + 500, conditions=Conditions(shadows=(quadrant_shadow(PROFILE, light),)))
    reading = BoardReader(PROFILE).read(render(PROFILE, state, shot).image)
    assert reading.state is not None
    assert not confident_wrong_cells(reading.state, state)
