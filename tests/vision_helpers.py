"""Shared helpers for the vision tests: rendered photos and truth comparisons."""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.boards import GRID, BoardProfile
from companion.games.garum.state import BoardState
from companion.vision.bench import generated_photo
from companion.vision.conditions import CastShadow
from companion.vision.render import Photo


def quadrant_shadow(profile: BoardProfile, light: float) -> CastShadow:
    """A person's hard shadow over a quarter of the board, the grid's and the sheet's
    top-left, letting ``light`` of the light through."""
    width, height = profile.geometry.sheet_mm
    corners = ((-20.0, -20.0), (width / 2, -20.0), (width / 2, height / 2), (-20.0, height / 2))
    return CastShadow(corners, light, 1.5)


def confident_wrong_cells(got: BoardState, truth: BoardState) -> list[int]:
    return [
        i for i, (a, b) in enumerate(zip(got.cells, truth.cells, strict=True)) if a not in ("?", b)
    ]


def cover_marker(
    image: NDArray[np.uint8], homography: NDArray[np.float64], profile: BoardProfile, marker: int
) -> NDArray[np.uint8]:
    """A copy of ``image`` with one marker (and its quiet zone) painted over in grey."""
    m = profile.markers
    cx, cy = m.centres_mm[marker]
    half = m.side_mm / 2 + m.quiet_zone_mm
    corners = np.array(
        [
            [cx - half, cy - half],
            [cx + half, cy - half],
            [cx + half, cy + half],
            [cx - half, cy + half],
        ],
        np.float64,
    ).reshape(-1, 1, 2)
    quad = cv2.perspectiveTransform(corners, homography).reshape(-1, 2)
    out = image.copy()
    cv2.fillConvexPoly(out, np.round(quad).astype(np.int32), (90, 110, 140))
    return out


def slot_outline(
    profile: BoardProfile, slot: tuple[int, ...], homography: NDArray[np.float64]
) -> NDArray[np.int32]:
    """The image polygon of one 2 x 2 slot (its top-left cell is ``slot[0]``)."""
    g = profile.geometry
    row, col = divmod(slot[0], 16)
    x0 = g.grid_origin_mm[0] + g.cell_start_mm(col)
    y0 = g.grid_origin_mm[1] + g.cell_start_mm(row)
    side = 2 * g.cell_mm
    corners = np.array(
        [[x0, y0], [x0 + side, y0], [x0 + side, y0 + side], [x0, y0 + side]], np.float64
    ).reshape(-1, 1, 2)
    return np.round(cv2.perspectiveTransform(corners, homography).reshape(-1, 2)).astype(np.int32)


def wash_slots(
    image: NDArray[np.uint8],
    homography: NDArray[np.float64],
    profile: BoardProfile,
    slots: list[tuple[int, ...]],
    towards_bgr: NDArray[np.float64],
    strength: float,
) -> NDArray[np.uint8]:
    """A copy of ``image`` with the given slots blended towards one colour, as glare on a
    glossy tile pales it towards the light's colour."""
    out = image.copy()
    for slot in slots:
        mask = np.zeros(image.shape[:2], np.uint8)
        cv2.fillConvexPoly(mask, slot_outline(profile, slot, homography), 1)
        sel = mask > 0
        blended = out[sel] * (1 - strength) + towards_bgr * strength
        out[sel] = np.clip(blended, 0, 255).astype(np.uint8)
    return out


def linear_to_8bit(linear: NDArray[np.float64]) -> NDArray[np.uint8]:
    """Linear light (0 to 1, clipped at the sensor's limit) to 8-bit sRGB levels."""
    c = np.clip(linear, 0.0, 1.0)
    encoded = np.where(c <= 0.0031308, 12.92 * c, 1.055 * c ** (1 / 2.4) - 0.055)
    return np.asarray(np.round(encoded * 255.0), dtype=np.uint8)


def gray(image: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """A BGR frame in grey, as the locator takes it."""
    return np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), np.uint8)


def worst_cell_error_mm(
    profile: BoardProfile, placed: NDArray[np.float64], truth: NDArray[np.float64]
) -> float:
    """How far (mm) the farthest cell centre lies from where ``placed`` (a board-to-image
    homography) puts it, against the ``truth`` homography."""
    g = profile.geometry
    centres = np.array([g.cell_centre_mm(i // GRID, i % GRID) for i in range(GRID * GRID)])
    seen = cv2.perspectiveTransform(centres.reshape(-1, 1, 2), placed)
    back = cv2.perspectiveTransform(seen, np.linalg.inv(truth)).reshape(-1, 2)
    return float(np.max(np.linalg.norm(back - centres, axis=1)))


def photo_for(profile: BoardProfile, seed: int, conditions: bool = False) -> Photo:
    """The generated bench's clear photo numbered ``seed``, under a real table's
    conditions when ``conditions``."""
    return generated_photo(profile, seed, False, conditions)
