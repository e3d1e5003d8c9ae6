"""The printed artwork of the board, drawn top-down: the sheet, markers, vats, bonus icons,
worker circles, and the tiles (each cell with its fish icon in a lighter or darker shade).
"""

from __future__ import annotations

import math

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.boards import GRID, BoardProfile
from companion.games.garum.state import BoardState
from companion.vision.colour import hex_to_bgr

TEXTURE_PX_PER_MM = 2.0


class BoardTexture:
    """The top-down print of the empty board, drawn once per profile."""

    def __init__(self, profile: BoardProfile, px_per_mm: float = TEXTURE_PX_PER_MM) -> None:
        self.profile = profile
        self.s = px_per_mm
        self.image = self._draw()

    def px(self, x_mm: float, y_mm: float) -> tuple[int, int]:
        return (round(x_mm * self.s), round(y_mm * self.s))

    def _draw(self) -> NDArray[np.uint8]:
        p = self.profile
        g = p.geometry
        s = self.s
        w, h = round(g.sheet_mm[0] * s), round(g.sheet_mm[1] * s)
        img = np.empty((h, w, 3), np.uint8)
        img[:] = hex_to_bgr(p.colours.sheet)
        wall = hex_to_bgr(p.colours.wall)
        floor = hex_to_bgr(p.colours.vat_floor)
        x0, y0 = g.grid_origin_mm
        end = g.cell_start_mm(GRID - 1) + g.cell_mm
        cv2.rectangle(
            img,
            self.px(x0 - g.wall_mm, y0 - g.wall_mm),
            self.px(x0 + end + g.wall_mm, y0 + end + g.wall_mm),
            wall,
            -1,
        )
        for vr in range(4):
            for vc in range(4):
                if p.vat_grid[vr][vc] is None:
                    continue
                vx, vy = g.cell_corner_mm(vr * 4, vc * 4)
                side = 4 * g.cell_mm
                cv2.rectangle(img, self.px(vx, vy), self.px(vx + side, vy + side), floor, -1)
                dash = tuple(int(c * 0.85) for c in floor)
                for k in (1, 2, 3):
                    for t in np.arange(0, side, 3.0):
                        a, b = t, min(t + 1.5, side)
                        cv2.line(
                            img,
                            self.px(vx + a, vy + k * g.cell_mm),
                            self.px(vx + b, vy + k * g.cell_mm),
                            dash,
                            1,
                        )
                        cv2.line(
                            img,
                            self.px(vx + k * g.cell_mm, vy + a),
                            self.px(vx + k * g.cell_mm, vy + b),
                            dash,
                            1,
                        )
        for bonus in p.bonus_cells:
            cx, cy = g.cell_centre_mm(bonus.row, bonus.col)
            if bonus.kind == "J":
                _star(img, self.px(cx, cy), 4.0 * s, (60, 170, 225))
            else:
                colour = hex_to_bgr(p.colours.species[bonus.kind])
                cv2.circle(img, self.px(cx, cy), round(5.5 * s), wall, 1, cv2.LINE_AA)
                _fish(img, (cx * s, cy * s), 9.0 * s, colour, 0.0)
        ring = tuple(int(c * 0.7) for c in wall)
        for line in range(2 * GRID):
            cx, cy = g.worker_space_centre_mm(line)
            cv2.circle(
                img,
                self.px(cx, cy),
                round(g.worker_space_diameter_mm / 2 * s),
                ring,
                1,
                cv2.LINE_AA,
            )
        m = p.markers
        dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, m.dictionary))
        quiet = m.quiet_zone_mm
        for mid, (cx, cy) in m.centres_mm.items():
            half = m.side_mm / 2
            cv2.rectangle(
                img,
                self.px(cx - half - quiet, cy - half - quiet),
                self.px(cx + half + quiet, cy + half + quiet),
                (250, 250, 250),
                -1,
            )
            side_px = round(m.side_mm * s)
            marker = cv2.aruco.generateImageMarker(dictionary, mid, side_px)
            x, y = self.px(cx - half, cy - half)
            img[y : y + side_px, x : x + side_px] = np.where(marker[..., None] > 0, 250, 20)
        return img


def _star(
    img: NDArray[np.uint8], centre: tuple[int, int], radius: float, colour: tuple[int, int, int]
) -> None:
    pts = []
    for k in range(10):
        r = radius if k % 2 == 0 else radius * 0.45
        a = -math.pi / 2 + k * math.pi / 5
        pts.append((centre[0] + r * math.cos(a), centre[1] + r * math.sin(a)))
    cv2.fillPoly(img, [np.round(np.array(pts)).astype(np.int32)], colour, cv2.LINE_AA)


def _fish(
    img: NDArray[np.uint8],
    centre: tuple[float, float],
    length: float,
    colour: tuple[int, int, int],
    angle_deg: float,
) -> None:
    """A fish icon: an ellipse body and a triangular tail."""
    cx, cy = centre
    body = cv2.ellipse2Poly(
        (round(cx), round(cy)),
        (round(length * 0.36), round(length * 0.16)),
        round(angle_deg),
        0,
        360,
        15,
    )
    cv2.fillPoly(img, [np.asarray(body, dtype=np.int32)], colour, cv2.LINE_AA)
    a = math.radians(angle_deg)
    ux, uy = math.cos(a), math.sin(a)
    tail_base = (cx - ux * length * 0.32, cy - uy * length * 0.32)
    tip = (cx - ux * length * 0.52, cy - uy * length * 0.52)
    pts = np.array(
        [
            tail_base,
            (tip[0] - uy * length * 0.17, tip[1] + ux * length * 0.17),
            (tip[0] + uy * length * 0.17, tip[1] - ux * length * 0.17),
        ]
    )
    cv2.fillPoly(img, [np.round(pts).astype(np.int32)], colour, cv2.LINE_AA)


def _shade(colour: tuple[int, int, int], factor: float) -> tuple[int, int, int]:
    """Lighter (factor > 0, towards white) or darker (factor < 0) shade of a colour."""
    b, g, r = colour
    if factor >= 0:
        return (
            int(b + (255 - b) * factor),
            int(g + (255 - g) * factor),
            int(r + (255 - r) * factor),
        )
    return (int(b * (1 + factor)), int(g * (1 + factor)), int(r * (1 + factor)))


def draw_tiles(
    texture: BoardTexture, state: BoardState, rng: np.random.Generator
) -> NDArray[np.uint8]:
    """The board print with a tile in every slot whose cells are coloured in ``state``."""
    p = texture.profile
    g = p.geometry
    s = texture.s
    img = texture.image.copy()
    species = {k: hex_to_bgr(v) for k, v in p.colours.species.items()}
    tile_px = round(g.tile_side_mm * s)
    for slot in p.slots:
        chars = [state.cells[i] for i in slot]
        if all(c == "." for c in chars):
            continue
        tile = np.zeros((tile_px, tile_px, 3), np.uint8)
        half = tile_px // 2
        for k, ch in enumerate(chars):
            colour = species.get(ch, (128, 128, 128))
            x, y = (k % 2) * half, (k // 2) * half
            tile[y : y + half, x : x + half] = colour
            shade = _shade(colour, float(rng.choice([0.45, -0.35])))
            _fish(
                tile,
                (x + half / 2, y + half / 2),
                half * 0.85,
                shade,
                float(rng.choice([0, 180, 20, -20])),
            )
        edge = tuple(int(c * 0.6) for c in species.get(chars[0], (128, 128, 128)))
        cv2.rectangle(tile, (0, 0), (tile_px - 1, tile_px - 1), edge, 1)
        top_row, top_col = divmod(slot[0], GRID)
        cx = g.grid_origin_mm[0] + g.cell_start_mm(top_col) + g.cell_mm
        cy = g.grid_origin_mm[1] + g.cell_start_mm(top_row) + g.cell_mm
        cx += float(rng.uniform(-1.2, 1.2))
        cy += float(rng.uniform(-1.2, 1.2))
        angle = float(rng.uniform(-2.5, 2.5))
        pad = tile_px // 2 + 4
        ox, oy = round(cx * s) - pad, round(cy * s) - pad
        size = 2 * pad
        rot = cv2.getRotationMatrix2D((tile_px / 2, tile_px / 2), angle, 1.0)
        rot[:, 2] += np.array([cx * s - ox - tile_px / 2, cy * s - oy - tile_px / 2])
        mask = cv2.warpAffine(np.full((tile_px, tile_px), 255, np.uint8), rot, (size, size))
        warped = cv2.warpAffine(tile, rot, (size, size))
        alpha = mask[..., None].astype(np.float32) / 255
        roi = img[oy : oy + size, ox : ox + size]
        roi[:] = (roi * (1 - alpha) + warped * alpha).astype(np.uint8)
    return img
