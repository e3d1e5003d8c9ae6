"""Worker spaces in a hard shadow: bare spaces read bare."""

from __future__ import annotations

from companion.boards import load_profile
from companion.games.garum.state import BoardState
from companion.vision.conditions import CastShadow, Conditions
from companion.vision.reader import BoardReader
from companion.vision.render import Shot, render

PROFILE = load_profile("troia")
SHEET_W, SHEET_H = PROFILE.geometry.sheet_mm
WORKERS_X = PROFILE.geometry.row_workers_x_mm


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
