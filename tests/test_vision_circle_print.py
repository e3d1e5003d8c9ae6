"""An empty worker space is proven by its printed circle; a standing piece hides it."""

from __future__ import annotations

import cv2
import numpy as np

from companion.boards import LINES, load_profile
from companion.vision.bench import generated_frame
from companion.vision.canonical import CanonicalLayout
from companion.vision.circle_print import CirclePrint
from companion.vision.colour import PixelClass
from companion.vision.localize import CameraPose
from companion.vision.reader import BoardReader
from companion.vision.render import random_state, render, shot_for
from companion.vision.workers import (
    CoreReadings,
    WorkerObservation,
    WorkerRules,
    _doubt_empty_beside_the_arm,
    _empty_where_the_circle_shows,
    core_centre_mm,
)

PROFILE = load_profile("troia")


def _view(seed: int) -> tuple[np.ndarray, tuple[str | None, ...]]:
    truth = random_state(PROFILE, np.random.default_rng(seed + 7_919))
    photo = render(PROFILE, truth, shot_for(seed, False, False))
    reader = BoardReader(PROFILE)
    gray = cv2.cvtColor(photo.image, cv2.COLOR_BGR2GRAY)
    view = reader.layout.warp(photo.image, reader._locator.locate(gray).homography)
    return view, truth.workers


def test_the_circle_shows_round_an_empty_space_and_not_under_a_piece() -> None:
    reader = BoardReader(PROFILE)
    circles = CirclePrint(PROFILE, reader.layout.px_per_mm, reader.slot_print.correlation)
    rules = WorkerRules()
    empty, held = [], []
    for seed in (3, 4):
        view, workers = _view(seed)
        # A warm lamp's orange: the print keeps its contrast, so the proof stands.
        warm = np.asarray(np.clip(view * np.array([0.55, 0.8, 1.0]), 0, 255), np.uint8)
        for image in (view, warm):
            for line in range(LINES):
                (held if workers[line] else empty).append(circles.shown(image, line))
    assert held and empty
    assert max(held) < rules.circle_shown_min
    assert np.median(empty) >= rules.circle_shown_min


def test_an_unread_space_showing_its_circle_and_no_colour_is_empty() -> None:
    """A colourless core too dark for colour (a piece's shaded faces, or a deep shadow)
    needs its circle to show well; one mostly pale (the sheet in an odd light) less so."""
    rules = WorkerRules()
    bare = np.zeros(len(PixelClass))
    bare[PixelClass.UNKNOWN] = 1.0  # a lamp's tint: no class for the sheet
    coloured = bare.copy()
    coloured[PixelClass.Y], coloured[PixelClass.UNKNOWN] = 0.5, 0.5
    dark = np.zeros(len(PixelClass))
    dark[PixelClass.DARK] = 0.9  # a deep shadow, or a piece's shaded faces
    dark[PixelClass.NEUTRAL] = 0.1
    fractions = {0: bare, 1: bare, 2: coloured, 3: dark, 4: dark, 5: bare}
    cores = CoreReadings(
        ["?"] * LINES, [(0.0, 0.0)] * LINES, [False] * LINES, fractions, np.zeros((LINES, 2))
    )
    out = [WorkerObservation("?", 0.0, (0.0, 0.0)) for _ in range(LINES)]
    between = (rules.pale_core_circle_min + rules.circle_shown_min) / 2
    below_both = rules.pale_core_circle_min - 0.05
    shown = {0: 0.8, 1: below_both, 2: 0.8, 3: 0.8, 4: between, 5: between}
    settled = _empty_where_the_circle_shows(out, cores, rules, lambda line: shown.get(line, 0.0))
    assert [obs.code for obs in settled[:6]] == [None, "?", "?", None, "?", None]


def test_empty_spaces_in_a_hard_shadow_over_a_strip_are_read_empty() -> None:
    """The clear frame of ``bench vision --conditions --seed 96001`` numbered 96004: a hard
    shadow over the top strip leaves its empty spaces' cores pale but of no class, their
    circles at 0.38 to 0.49; the red vilicus among them, its core dark, is read with the
    shadow lifted."""
    frame = generated_frame(PROFILE, 96004, False, True)
    truth = frame.truth.workers[16:24]
    assert truth == (None, None, None, None, "Rv", None, None, None)
    state = BoardReader(PROFILE).read(frame.image).state
    assert state is not None
    assert state.workers[16:24] == truth


def test_empty_spaces_in_a_persons_deep_shadow_are_read_empty() -> None:
    """The clear frame of ``bench vision --conditions --seed 86001`` numbered 86257: a
    person's shadow leaves the first four row spaces, all empty, too dark for colour in
    one of the two balances the light asks for; their circles show all round."""
    frame = generated_frame(PROFILE, 86257, False, True)
    assert frame.truth.workers[:4] == (None,) * 4
    state = BoardReader(PROFILE).read(frame.image).state
    assert state is not None
    assert state.workers[:4] == (None,) * 4


def test_beside_an_arm_an_empty_space_needs_its_circle_to_show() -> None:
    """A piece beside an arm can lose its colour to the sheet's class or to the region's
    margin, but its base still hides its circle: near the arm, empty needs the circle."""
    layout = CanonicalLayout(PROFILE)
    s = layout.px_per_mm
    pose = CameraPose((250.0, 250.0), 700.0)
    centres = np.array([core_centre_mm(layout, pose, line) for line in range(LINES)]) * s
    blocked = np.zeros(layout.cell_labels.shape, dtype=bool)
    x, y = centres[4]
    blocked[round(y) - 5 : round(y) + 5, round(x) + round(20 * s) :] = True  # 20 mm away
    cores = CoreReadings([None] * LINES, [(0.0, 0.0)] * LINES, [False] * LINES, {}, centres)
    out = [WorkerObservation(None, 0.0, (0.0, 0.0)) for _ in range(LINES)]
    out[5] = WorkerObservation("Gv", 200.0, (0.0, 0.0))
    shown = {3: 0.6}  # the rest show no circle
    rules = WorkerRules()
    doubted = _doubt_empty_beside_the_arm(
        out, cores, layout, rules, blocked, lambda line: shown.get(line, 0.1)
    )
    codes = [obs.code for obs in doubted]
    assert codes[4] == "?"  # near the arm, its circle hidden
    assert codes[3] is None  # near the arm, its circle in view
    assert codes[5] == "Gv"  # a piece is left as read
    far = [line for line in range(LINES) if np.hypot(*(centres[line] - centres[4])) > 100 * s]
    assert far and all(codes[line] is None for line in far)
