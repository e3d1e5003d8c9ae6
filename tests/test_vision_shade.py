"""Worker spaces and tiles in a hard shadow: pieces and tiles keep their colours."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray
from vision_helpers import confident_wrong_cells

from companion.boards import load_profile
from companion.games.garum.state import BoardState
from companion.vision.artwork import BoardTexture
from companion.vision.bench import generated_frame
from companion.vision.canonical import CanonicalLayout
from companion.vision.cells import CellRules
from companion.vision.colour import ColourModel, bgr_to_ab
from companion.vision.conditions import CastShadow, Conditions
from companion.vision.illumination import sheet_colour, sheet_strips
from companion.vision.localize import BoardLocator
from companion.vision.reader import BoardReader
from companion.vision.render import Shot, random_state, render
from companion.vision.shade import ShadeRules, lift_shadows

PROFILE = load_profile("troia")
LAYOUT = CanonicalLayout(PROFILE)
S = LAYOUT.px_per_mm
SHEET_W, SHEET_H = PROFILE.geometry.sheet_mm
WORKERS_X = PROFILE.geometry.row_workers_x_mm
BLUE_BGR = (170, 80, 20)


def _lab(view_bgr: NDArray[np.uint8]) -> NDArray[np.uint8]:
    return np.asarray(cv2.cvtColor(view_bgr, cv2.COLOR_BGR2Lab), np.uint8)


def _sheet_lab() -> tuple[float, float, float]:
    sheet = ColourModel.from_profile(PROFILE).sheet_bgr
    lab = _lab(np.array([[sheet]], np.uint8))[0, 0]
    return (float(lab[0]), *bgr_to_ab(sheet))


def _view_with_piece() -> tuple[NDArray[np.uint8], tuple[int, int]]:
    """The bare board's canonical view with a blue disc (a piece's top) on space 5."""
    texture = BoardTexture(PROFILE, 2 * S).image
    view = np.asarray(cv2.resize(texture, LAYOUT.size_px, interpolation=cv2.INTER_AREA))
    x, y = PROFILE.geometry.worker_space_centre_mm(5)
    centre = (round(x * S), round(y * S))
    cv2.circle(view, centre, round(4 * S), BLUE_BGR, -1)
    return view, centre


def _shaded(view: NDArray[np.uint8], light_left: float, right_mm: float) -> NDArray[np.uint8]:
    """``view`` under a hard shadow from the sheet's left edge to ``right_mm``: linear light
    scaled by ``light_left`` (the 8-bit values are gamma encoded)."""
    linear = (view.astype(np.float32) / 255.0) ** 2.2
    linear[:, : round(right_mm * S)] *= light_left
    return np.asarray(np.round(255.0 * linear ** (1 / 2.2)), np.uint8)


@pytest.mark.parametrize("light_left", [0.2, 0.4])
def test_a_lift_gives_back_the_colours_seen_in_the_light(light_left: float) -> None:
    view, (x, y) = _view_with_piece()
    lit = _lab(view)
    lifted = lift_shadows(
        _lab(_shaded(view, light_left, 120.0)),
        LAYOUT,
        _sheet_lab(),
        np.array([[x, y]], np.float64),
        ShadeRules(),
    )
    assert lifted is not None
    out, changed = lifted
    assert changed[y, x]
    piece = out[y, x].astype(float)
    seen = lit[y, x].astype(float)
    assert abs(piece[0] - seen[0]) <= 0.15 * seen[0]
    assert np.hypot(*(piece[1:] - seen[1:])) <= 8.0  # blue still, not the sheet's beige
    sheet = (round((x / S - 12.0) * S), y)  # bare sheet beside the piece
    assert abs(int(out[sheet[1], sheet[0], 0]) - int(lit[sheet[1], sheet[0], 0])) <= 15


def test_a_lit_strip_is_left_as_it_is() -> None:
    view, (x, y) = _view_with_piece()
    around = np.array([[x, y]], np.float64)
    assert lift_shadows(_lab(view), LAYOUT, _sheet_lab(), around, ShadeRules()) is None
    # Under a shadow elsewhere on the sheet, the strip is still lit.
    shaded_far = _shaded(view[:, ::-1].copy(), 0.3, 120.0)[:, ::-1]
    assert lift_shadows(_lab(shaded_far), LAYOUT, _sheet_lab(), around, ShadeRules()) is None


def _strip_shadow(right_mm: float, light_left: float, left_mm: float = -20.0) -> CastShadow:
    """A hard shadow over the row workers' strip, from ``left_mm`` to ``right_mm``."""
    corners = (
        (left_mm, -20.0),
        (right_mm, -20.0),
        (right_mm, SHEET_H + 20),
        (left_mm, SHEET_H + 20),
    )
    return CastShadow(corners, light_left, 1.5)


def _read_rows(state: BoardState, seed: int, shadow: CastShadow) -> list[str | None]:
    photo = render(PROFILE, state, Shot(seed, conditions=Conditions(shadows=(shadow,))))
    reading = BoardReader(PROFILE).read(photo.image)
    assert reading.state is not None
    return list(reading.state.workers[:16])


def test_pieces_in_a_broad_dark_shadow_are_read() -> None:
    """A person's shadow over the whole strip, at 0.3 of the light: 14 of these 64 spaces
    stayed unread before the lift (pieces too dark for any colour), 3 after while pieces
    beside others of their colour were left unread, none now."""
    unread = 0
    for seed in range(4):
        state = random_state(PROFILE, np.random.default_rng(seed + 99))
        got = _read_rows(state, seed, _strip_shadow(60.0, 0.3))
        truth = list(state.workers[:16])
        assert all(g in ("?", t) for g, t in zip(got, truth, strict=True)), (seed, got, truth)
        unread += got.count("?")
    assert unread <= 1


def test_bare_spaces_under_a_narrow_dark_shadow_read_bare() -> None:
    """A lamp arm's narrow shadow along the spaces, the sheet beside them lit: the cores
    are far darker than the sheet beside, and so is their chroma."""
    empty = BoardState("." * 256, (None,) * 32)
    unread = 0
    for seed in range(4):
        got = _read_rows(empty, seed, _strip_shadow(WORKERS_X + 8.0, 0.25, WORKERS_X - 8.0))
        assert all(g in ("?", None) for g in got), got
        unread += got.count("?")
    assert unread <= 2  # 23 of these 64 before the chroma was shrunk with the light


def test_tiles_under_a_hard_shadow_band_keep_their_colours() -> None:
    """A lamp arm's shadow, 30 mm wide and at a quarter of the light, across the grid:
    cells of tiles too dark for any pixel's colour are named by their mean hue (9 of these
    four boards' cells stayed unread before)."""
    unread = 0
    for seed in range(4):
        rng = np.random.default_rng(seed + 500)
        state = random_state(PROFILE, rng)
        x0, tilt = float(rng.uniform(60, SHEET_W - 60)), float(rng.uniform(-60, 60))
        band = (
            (x0 - 15.0, -20.0),
            (x0 + 15.0, -20.0),
            (x0 + 15.0 + tilt, SHEET_H + 20),
            (x0 - 15.0 + tilt, SHEET_H + 20),
        )
        shot = Shot(seed, conditions=Conditions(shadows=(CastShadow(band, 0.25, 1.5),)))
        reading = BoardReader(PROFILE).read(render(PROFILE, state, shot).image)
        assert reading.state is not None
        got = reading.state.cells
        assert all(g in ("?", t) for g, t in zip(got, state.cells, strict=True)), seed
        unread += got.count("?")
    assert unread <= 2


def test_a_mostly_yellow_tile_wholly_in_a_hard_shadow_is_read() -> None:
    """The clear frame of ``bench vision --conditions --seed 78101`` numbered 78168: a
    tile of three yellow cells and a blue one inside a person's hard shadow.  No cell
    shows enough of its colour to be read, the blue one alone is too little to show a
    tile, and the yellow ones lie 17 to 20 Lab units off the shadowed floor."""
    frame = generated_frame(PROFILE, 78168, False, True)
    truth = frame.truth
    slot = [10 * 16 + 14, 10 * 16 + 15, 11 * 16 + 14, 11 * 16 + 15]
    assert "".join(truth.cells[i] for i in slot) == "YBYY"

    def read(rules: CellRules) -> str:
        reader = BoardReader(PROFILE)
        reader.cell_rules = rules
        reading = reader.read(frame.image)
        assert reading.state is not None
        assert confident_wrong_cells(reading.state, truth) == []
        return "".join(reading.state.cells[i] for i in slot)

    assert read(CellRules()) == "YBYY"
    assert read(replace(CellRules(), pastel_yellow_offset_min=1e9)) == "????"  # as before


def _sleeve_over(image: NDArray[np.uint8], grey: float, rng: np.random.Generator) -> None:
    """Paints a dark neutral sleeve (``grey``: its 8-bit level under white light) from the
    image's left edge to its middle, lit by the same lamp as the board."""
    view = LAYOUT.warp(image, BoardLocator(PROFILE).locate(_grey(image)).homography)
    lamp = sheet_colour(sheet_strips(view, LAYOUT)) / np.asarray(
        ColourModel.from_profile(PROFILE).sheet_bgr
    )
    h, w = image.shape[:2]
    mask = np.zeros((h, w), np.uint8)
    y = int(rng.uniform(0.3, 0.7) * h)
    cv2.line(mask, (0, y), (w // 2, y + int(rng.uniform(-0.2, 0.2) * h)), 255, int(0.12 * h))
    weave = 1.0 + rng.normal(0.0, 0.15, (h, w, 1))
    fabric = np.clip(grey * lamp[None, None, :] * weave, 0, 255).astype(np.uint8)
    image[mask > 0] = fabric[mask > 0]


def _grey(image: NDArray[np.uint8]) -> NDArray[np.uint8]:
    return np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), np.uint8)


@pytest.mark.parametrize("grey", [15.0, 40.0])
def test_a_dark_sleeve_is_no_shadow_over_bare_floor(grey: float) -> None:
    """Dark and nearly colourless, a sleeve looks like bare floor in a deep shadow, whose
    chroma shrinks with its light: the floor's colour is no proof that dark.  Traced down
    to a fifth of its brightness, the floor's colour took 4 tile cells of these four
    boards under the sleeve for floor, at either grey."""
    for seed in range(4):
        rng = np.random.default_rng(seed + 700)
        state = random_state(PROFILE, rng)
        image = render(PROFILE, state, Shot(seed)).image.copy()
        _sleeve_over(image, grey, rng)
        reading = BoardReader(PROFILE).read(image)
        assert reading.state is not None
        pairs = enumerate(zip(reading.state.cells, state.cells, strict=True))
        wrong = [i for i, (got, true) in pairs if got not in ("?", true)]
        assert not wrong, (seed, wrong)


def test_bare_floor_beside_two_hard_shadows_over_the_sheets_strips_is_no_yellow() -> None:
    """Two hard shadows over the sheet's strips, the rest of the board lit: balanced
    against the shadowed strips, the lit floor clipped white and the floor in the shadows
    kept a tint read as yellow (26 cells of one generated frame)."""
    empty = BoardState("." * 256, (None,) * 32)
    top = ((-20.0, -20.0), (SHEET_W + 20, -20.0), (SHEET_W + 20, 90.0), (-20.0, 90.0))
    bottom = tuple((x, SHEET_H - y) for x, y in top)
    shadows = (CastShadow(top, 0.35, 1.5), CastShadow(bottom, 0.35, 1.5))
    for seed in range(2):
        photo = render(PROFILE, empty, Shot(seed, conditions=Conditions(shadows=shadows)))
        reading = BoardReader(PROFILE).read(photo.image)
        assert reading.state is not None
        cells = reading.state.cells
        assert set(cells) <= {".", "?"}, seed
        assert cells.count("?") <= 16, seed  # 32 and 33 before


def test_a_generated_frame_with_two_shadows_over_the_strips_reads_no_cell_wrong() -> None:
    """The frame of ``bench vision --conditions --seed 22001`` that read 26 bare cells as
    yellow: two hard shadows over three of the sheet's strips."""
    frame = generated_frame(PROFILE, 22009, False, True)
    reading = BoardReader(PROFILE).read(frame.image)
    assert reading.state is not None
    assert confident_wrong_cells(reading.state, frame.truth) == []
    assert reading.state.cells.count("?") <= 4
