"""Bare floor proven by the dashes printed inside its slot, in any light; a tile hides them."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray
from vision_helpers import confident_wrong_cells, quadrant_shadow

from companion.boards import load_profile
from companion.games.garum.state import BoardState
from companion.vision import reader as reader_module
from companion.vision.artwork import BoardTexture
from companion.vision.bench import generated_frame
from companion.vision.canonical import CanonicalLayout
from companion.vision.colour import hex_to_bgr
from companion.vision.conditions import Conditions
from companion.vision.reader import BoardReader
from companion.vision.render import Shot, random_state, render
from companion.vision.shaded_floor import ShadedFloorRules
from companion.vision.slot_print import SlotPrint, SlotPrintRules

PROFILE = load_profile("troia")
LAYOUT = CanonicalLayout(PROFILE)
S = LAYOUT.px_per_mm
SLOTS = SlotPrint(PROFILE, S, SlotPrintRules())
SHOWN = SLOTS.rules.shown_min
NO_HUE_PROOF = ShadedFloorRules(offset_max=0.0)
# What hides the dashes stays at least this far under the bar (synthetic tiles of one
# colour reach about 0.11, tiles the camera saw with no colour of their own 0.16).
HIDDEN_MARGIN = 0.04


def _bare_view(seed: int) -> NDArray[np.uint8]:
    """The bare board's canonical view, blurred and noisy as a camera sees it."""
    texture = BoardTexture(PROFILE, 2 * S).image
    view = cv2.resize(texture, LAYOUT.size_px, interpolation=cv2.INTER_AREA)
    view = cv2.GaussianBlur(view, (0, 0), 0.6)
    noise = np.random.default_rng(seed).normal(0.0, 2.0, view.shape)
    return np.asarray(np.clip(view + noise, 0, 255), np.uint8)


def _dimmed(view: NDArray[np.uint8], light: float) -> NDArray[np.uint8]:
    """``view`` under a shadow letting ``light`` of the light through (linear light)."""
    linear = (view.astype(np.float32) / 255.0) ** 2.2 * light
    return np.asarray(np.round(255.0 * linear ** (1 / 2.2)), np.uint8)


@pytest.mark.parametrize("light", [1.0, 0.3, 0.12])
def test_the_dashes_of_a_bare_slot_show_in_any_light(light: float) -> None:
    view = _dimmed(_bare_view(1), light)
    shown = [SLOTS.correlation(view, box) for box in SLOTS.boxes.values()]
    assert min(shown) >= SHOWN, sorted(shown)[:4]


def test_a_tile_of_one_colour_or_a_sleeve_hides_the_dashes() -> None:
    view = _bare_view(2)
    rng = np.random.default_rng(3)
    inks = [hex_to_bgr(c) for c in PROFILE.colours.species.values()]
    inset = round(SLOTS.rules.inset_mm * S)  # a tile covers its whole slot
    for k, (top, bottom, left, right) in enumerate(SLOTS.boxes.values()):
        view[top - inset : bottom + inset, left - inset : right + inset] = inks[k % len(inks)]
    view = np.asarray(np.clip(view + rng.normal(0.0, 2.0, view.shape), 0, 255), np.uint8)
    tiles = [SLOTS.correlation(view, box) for box in SLOTS.boxes.values()]
    assert max(tiles) < SHOWN - HIDDEN_MARGIN, sorted(tiles)[-4:]
    sleeve = np.asarray(np.clip(rng.normal(30.0, 3.0, view.shape), 0, 255), np.uint8)
    covered = [SLOTS.correlation(sleeve, box) for box in SLOTS.boxes.values()]
    assert max(covered) < SHOWN - HIDDEN_MARGIN


def _read(state: BoardState, seed: int, light: float, rules: SlotPrintRules) -> BoardState:
    shot = Shot(seed, conditions=Conditions(shadows=(quadrant_shadow(PROFILE, light),)))
    reader = BoardReader(PROFILE)
    reader.slot_print = SlotPrint(PROFILE, S, rules)
    reader.shaded_floor_rules = NO_HUE_PROOF  # the dashes alone
    reading = reader.read(render(PROFILE, state, shot).image)
    assert reading.state is not None
    return reading.state


def test_bare_floor_in_a_deep_shadow_is_proven_by_its_dashes() -> None:
    """At a tenth of the light, bare floor lies deeper than the floor's colour is
    followed; its dashes still show where the shadow's edge does not cross the slot."""
    empty = BoardState("." * 256, (None,) * 32)
    before = after = 0
    for seed in range(3):
        off = SlotPrintRules(shown_min=2.0, clear_shown_min=2.0)  # no dashes ever prove
        before += _read(empty, seed, 0.1, off).cells.count("?")
        got = _read(empty, seed, 0.1, SlotPrintRules()).cells
        assert set(got) <= {".", "?"}
        after += got.count("?")
    assert before >= 100  # 108 on these three boards
    assert after <= before - 8  # 92


@pytest.mark.parametrize("light", [0.12, 0.2])
def test_tiles_in_a_deep_shadow_are_never_proven_bare(light: float) -> None:
    """Cells of different colours meet along the dashes; in a deep shadow their steps can
    pass for them, but not their inks' colour."""
    for seed in range(4):
        rng = np.random.default_rng(seed + 40)
        state = random_state(PROFILE, rng)
        wrong = confident_wrong_cells(_read(state, seed, light, SlotPrintRules()), state)
        assert not wrong, (seed, wrong)


def test_dashes_shown_clearly_prove_floor_a_warm_lamp_moved_further_off() -> None:
    """Faint dashes prove bare floor only near the floor's colour; dashes as clear as no
    tile shows prove it further off (a warm lamp's glare), but not at any colour."""
    from companion.vision.slot_print import _print_proves_floor

    rules = SlotPrintRules()
    warm = rules.floor_offset_max + 2.0
    assert _print_proves_floor(rules.shown_min, rules.floor_offset_max, rules)
    assert not _print_proves_floor(rules.shown_min, warm, rules)
    assert not _print_proves_floor(rules.shown_min - 0.01, 0.0, rules)
    assert _print_proves_floor(rules.clear_shown_min, warm, rules)
    assert not _print_proves_floor(1.0, rules.clear_floor_offset_max + 0.5, rules)


def _bench_slot(seed: int, first: tuple[int, int], rules: SlotPrintRules) -> str:
    """How the bench's clear conditions frame ``seed`` reads the slot whose first cell is
    at ``first`` (row, column), which is bare, with ``rules`` for its dashes; no cell of
    the board may be read wrong."""
    frame = generated_frame(PROFILE, seed, False, True)
    truth = frame.truth
    row, col = first
    slot = [row * 16 + col, row * 16 + col + 1, (row + 1) * 16 + col, (row + 1) * 16 + col + 1]
    assert all(truth.cells[i] == "." for i in slot)
    reader = BoardReader(PROFILE)
    reader.slot_print = SlotPrint(PROFILE, S, rules)
    reading = reader.read(frame.image)
    assert reading.state is not None
    assert confident_wrong_cells(reading.state, truth) == []
    return "".join(reading.state.cells[i] for i in slot)


def _without_the_outline_proof(monkeypatch: pytest.MonkeyPatch) -> None:
    """Leaves the reader's outline proof out, so that the print proof is judged alone:
    a quiet outline proves a bare slot showing no tile's colour in a fair light too."""
    monkeypatch.setattr(reader_module, "prove_floor_by_outline", lambda cells, *_a, **_k: cells)


def test_bare_floor_in_a_second_lamps_corner_is_proven_by_blurred_dashes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The clear frame of ``bench vision --conditions --seed 89001`` numbered 89181: a
    cool lamp on one side, a warm one on the other, and the far corner's bare slot lies
    5 to 6 Lab units off the floor fitted to the board and 4 off the bare cells around
    it.  Its dashes show at 0.32: no tile showing no colour of its own shows them so."""
    assert _bench_slot(89181, (0, 14), SlotPrintRules()) == "...."
    _without_the_outline_proof(monkeypatch)
    assert _bench_slot(89181, (0, 14), SlotPrintRules()) == "...."
    assert _bench_slot(89181, (0, 14), SlotPrintRules(shown_min=0.4)) == "????"  # as before


def test_bare_floor_under_a_hard_shadows_blur_is_proven_by_its_faint_dashes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The clear frame of ``bench vision --conditions --seed 78101`` numbered 78167: a
    bare slot whose dashes the light blurs to 0.25, under the bar asked before, and
    still well above the 0.16 at most of any tile showing no colour of its own."""
    assert _bench_slot(78167, (6, 4), SlotPrintRules()) == "...."
    _without_the_outline_proof(monkeypatch)
    assert _bench_slot(78167, (6, 4), SlotPrintRules()) == "...."
    assert _bench_slot(78167, (6, 4), SlotPrintRules(shown_min=0.25)) == "????"  # as before


def test_bare_floor_the_sensor_clipped_is_proven_by_clear_dashes_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The clear frame of ``bench vision --conditions --seed 90601`` numbered 90728: a
    bare slot under a bright warm spot, red clipped in all four cells, whose balanced
    colour the clipped channel put 10 to 12 Lab units off the floor.  Its dashes show at
    0.45, as no slot holding a tile did; the colour of clipped cells proves nothing."""
    assert _bench_slot(90728, (12, 4), SlotPrintRules()) == "...."
    _without_the_outline_proof(monkeypatch)  # nearly white, its quiet outline proves it too
    assert _bench_slot(90728, (12, 4), SlotPrintRules()) == "...."
    unclear = SlotPrintRules(clipped_shown_min=0.5)  # the dashes asked as clearly as before
    assert _bench_slot(90728, (12, 4), unclear) == "????"


def test_the_clearer_the_dashes_the_further_off_the_floor_they_prove() -> None:
    from companion.vision.slot_print import _print_proves_floor

    rules = SlotPrintRules()
    midway = (rules.shown_min + rules.clear_shown_min) / 2
    between = (rules.floor_offset_max + rules.clear_floor_offset_max) / 2
    assert _print_proves_floor(midway, between - 0.1, rules)
    assert not _print_proves_floor(midway, between + 0.1, rules)
    assert not _print_proves_floor(midway - 0.05, between, rules)


def test_bare_floor_in_a_warm_bright_corner_is_proven_by_fairly_clear_dashes() -> None:
    """The clear frame of ``bench vision --conditions --seed 93201`` numbered 93372: a
    bare slot in a warm lamp's bright corner, 7 to 9 Lab units off the floor, its cells
    below the sensor's limit.  Its dashes show at 0.39, more than any slot holding a tile
    did, less than the clear proof asked."""
    assert _bench_slot(93372, (14, 14), SlotPrintRules()) == "...."
    flat = SlotPrintRules(clear_floor_offset_max=SlotPrintRules().floor_offset_max)
    assert _bench_slot(93372, (14, 14), flat) == "????"  # one bar below clear dashes


def test_dashes_clearer_than_any_tile_shows_prove_floor_a_bright_warm_lamp_moved() -> None:
    """The clear frame of ``bench vision --conditions --seed 100201`` numbered 100283: a
    bare slot under a bright warm lamp, its two lower cells red clipped, the two others
    7 and 11 Lab units off the floor.  Its dashes show at 0.42: clearer than any slot
    holding a tile (0.31 at most), short of the bar for the full allowance before."""
    assert _bench_slot(100283, (10, 8), SlotPrintRules()) == "...."
    before = SlotPrintRules(clear_shown_min=0.5)
    assert _bench_slot(100283, (10, 8), before) == "????"
