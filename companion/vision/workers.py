# mypy: disable-error-code="arg-type,assignment,no-any-return,union-attr,return-value"
# mypy: disable-error-code="list-item,call-overload"
"""Reading the 32 worker spaces: empty, unreadable, or colour + vilicus/dominus.

A standing meeple, seen from an angle, appears in the top-down view as its footprint plus
its body stretched away from the camera's ground point.  Presence and colour come from a
small core near the base (always covered by a piece of either size).  Size comes from the
area of the piece's colour inside the space's own lane (half-way to the neighbouring spaces,
short of the fish grid), compared with the area a vilicus and a dominus would cover there
from this camera position, averaged over all turns of the piece.  Between the two: ``?``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.boards import GRID, LINES
from companion.boards.profile import PieceSize
from companion.vision.canonical import CanonicalLayout
from companion.vision.colour import PixelClass
from companion.vision.localize import CameraPose

SPECIES_ORDER = "BGYR"
YAWS = np.radians(np.arange(0.0, 180.0, 22.5))


@dataclass(frozen=True)
class WorkerRules:
    core_radius_mm: float = 3.5
    present_min: float = 0.6  # species pixels in the core of an occupied space
    colour_purity: float = 0.85  # share of the leading colour among them
    empty_min: float = 0.7  # neutral pixels in the core of an empty space
    empty_species_max: float = 0.15
    size_margin: float = 0.08  # relative band around the vilicus/dominus boundary


@dataclass(frozen=True)
class WorkerObservation:
    code: str | None  # "Gv", "Rd", "?" or None
    area_mm2: float
    lean: tuple[float, float]  # displacement on the board per mm of height


def lane_mm(layout: CanonicalLayout, line: int) -> tuple[float, float, float, float]:
    """The rectangle (x0, y0, x1, y1) in mm that belongs to one worker space."""
    g = layout.profile.geometry
    grid_edge = g.grid_origin_mm[0] - g.wall_mm, g.grid_origin_mm[1] - g.wall_mm
    index = line % GRID
    centres = [g.cell_centre_mm(i, i)[0] for i in range(GRID)]
    lo = (centres[index - 1] + centres[index]) / 2 if index > 0 else centres[0] - g.cell_mm
    hi = (centres[index] + centres[index + 1]) / 2 if index < GRID - 1 else centres[-1] + g.cell_mm
    if line < GRID:  # row worker: lane runs across the left strip
        return (0.0, lo, grid_edge[0], hi)
    return (lo, 0.0, hi, grid_edge[1])


def predicted_areas(
    piece: PieceSize,
    base: tuple[float, float],
    lean: tuple[float, float],
    lane: tuple[float, float, float, float],
) -> list[float]:
    """Areas (mm²) a standing box of ``piece``'s size covers inside ``lane``, per yaw."""
    x0, y0, x1, y1 = lane
    rect = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)
    shift = np.array([lean[0] * piece.height_mm, lean[1] * piece.height_mm])
    areas: list[float] = []
    half_w, half_d = piece.width_mm / 2, piece.depth_mm / 2
    for yaw in YAWS:
        c, s = math.cos(yaw), math.sin(yaw)
        foot = np.array(
            [
                (base[0] + c * dx - s * dy, base[1] + s * dx + c * dy)
                for dx, dy in (
                    (-half_w, -half_d),
                    (half_w, -half_d),
                    (half_w, half_d),
                    (-half_w, half_d),
                )
            ]
        )
        hull = cv2.convexHull(np.vstack([foot, foot + shift]).astype(np.float32))
        area, _ = cv2.intersectConvexConvex(hull, rect)
        areas.append(float(area))
    return areas


def read_workers(
    classes: NDArray[np.uint8],
    layout: CanonicalLayout,
    pose: CameraPose,
    rules: WorkerRules,
    blocked: NDArray[np.bool_] | None = None,
) -> list[WorkerObservation]:
    """One observation per worker space (rows 0-15 then columns 0-15)."""
    g = layout.profile.geometry
    s = layout.px_per_mm
    out: list[WorkerObservation] = []
    for line in range(LINES):
        cx, cy = g.worker_space_centre_mm(line)
        unit = pose.lean((cx, cy), 1.0)
        core_mm = (cx + unit[0] * 3.0, cy + unit[1] * 3.0)
        if blocked is not None and _disc(blocked.view(np.uint8), core_mm, 12.0, s).any():
            out.append(WorkerObservation("?", 0.0, unit))
            continue
        core = _disc(classes, core_mm, rules.core_radius_mm, s)
        counts = np.bincount(core, minlength=len(PixelClass)).astype(np.float64)
        total = max(float(counts.sum()), 1.0)
        species = counts[PixelClass.B : PixelClass.R + 1] / total
        neutral = counts[PixelClass.NEUTRAL] / total
        lead = int(np.argmax(species))
        if neutral >= rules.empty_min and species.max() < rules.empty_species_max:
            out.append(WorkerObservation(None, 0.0, unit))
            continue
        if species.sum() < rules.present_min or species[lead] < rules.colour_purity * species.sum():
            out.append(WorkerObservation("?", 0.0, unit))
            continue
        colour = SPECIES_ORDER[lead]
        lane = lane_mm(layout, line)
        area = _piece_area(classes, layout, (cx, cy), PixelClass[colour], lane)
        v_area = float(np.mean(predicted_areas(g.vilicus, (cx, cy), unit, lane)))
        d_area = float(np.mean(predicted_areas(g.dominus, (cx, cy), unit, lane)))
        boundary = math.sqrt(v_area * d_area)
        if area < boundary * (1 - rules.size_margin):
            code: str = colour + "v"
        elif area > boundary * (1 + rules.size_margin):
            code = colour + "d"
        else:
            code = "?"
        out.append(WorkerObservation(code, area, unit))
    return out


def _disc(
    image: NDArray[np.uint8], centre_mm: tuple[float, float], radius_mm: float, s: float
) -> NDArray[np.uint8]:
    x, y, r = centre_mm[0] * s, centre_mm[1] * s, radius_mm * s
    x0, x1 = max(int(x - r), 0), min(int(x + r) + 1, image.shape[1])
    y0, y1 = max(int(y - r), 0), min(int(y + r) + 1, image.shape[0])
    patch = image[y0:y1, x0:x1]
    yy, xx = np.mgrid[y0:y1, x0:x1]
    return patch[(xx - x) ** 2 + (yy - y) ** 2 <= r * r]


def _piece_area(
    classes: NDArray[np.uint8],
    layout: CanonicalLayout,
    base: tuple[float, float],
    colour: PixelClass,
    lane: tuple[float, float, float, float],
) -> float:
    """Area (mm²) of ``colour`` in the lane, connected to the space's base."""
    s = layout.px_per_mm
    x0, y0 = max(int(lane[0] * s), 0), max(int(lane[1] * s), 0)
    x1, y1 = int(lane[2] * s), int(lane[3] * s)
    patch = (classes[y0:y1, x0:x1] == colour).astype(np.uint8)
    patch = cv2.morphologyEx(patch, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    _, labels = cv2.connectedComponents(patch, connectivity=8)
    bx, by = int(base[0] * s) - x0, int(base[1] * s) - y0
    r = int(4 * s)
    near = labels[max(by - r, 0) : by + r + 1, max(bx - r, 0) : bx + r + 1]
    ids = np.unique(near[near > 0])
    if len(ids) == 0:
        return 0.0
    return float(np.isin(labels, ids).sum()) / (s * s)
