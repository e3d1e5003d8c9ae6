# mypy: disable-error-code="arg-type,assignment,no-any-return,union-attr,return-value"
# mypy: disable-error-code="list-item,call-overload"
"""Reading the 32 worker spaces: empty, unreadable, or colour + vilicus/dominus.

A standing meeple, seen from an angle, appears in the top-down view as its footprint plus
its body stretched away from the camera's ground point.  Presence and colour come from a
small core near the base (always covered by a piece of either size); size comes from the
area of the piece's colour near the space, compared with what a vilicus and a dominus of
that height would cover from this camera position.  Between the two, the answer is ``?``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.boards import LINES
from companion.vision.canonical import CanonicalLayout
from companion.vision.colour import PixelClass
from companion.vision.localize import CameraPose

SPECIES_ORDER = "BGYR"


@dataclass(frozen=True)
class WorkerRules:
    core_radius_mm: float = 3.5
    present_min: float = 0.6  # species pixels in the core of an occupied space
    colour_purity: float = 0.85  # share of the leading colour among them
    empty_min: float = 0.7  # neutral pixels in the core of an empty space
    # Fill of a meeple's silhouette compared with its bounding box (head and arms).
    fill: float = 1.0
    size_margin: float = 0.08  # relative band around the vilicus/dominus boundary


@dataclass(frozen=True)
class WorkerObservation:
    code: str | None  # "Gv", "Rd", "?" or None
    area_mm2: float
    lean: tuple[float, float]


def _predicted_area(width: float, depth: float, height: float, lean_per_mm: float) -> float:
    """Mean top-down silhouette area of a box over all yaws (mm²)."""
    mean_width = (width + depth) * 2 / math.pi  # mean projected width of a rectangle
    return width * depth + height * lean_per_mm * mean_width


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
    vil, dom = g.vilicus, g.dominus
    out: list[WorkerObservation] = []
    for line in range(LINES):
        cx, cy = g.worker_space_centre_mm(line)
        unit = pose.lean((cx, cy), 1.0)
        lean_mag = math.hypot(*unit)
        # Core: just above the base, a little along the lean.
        core_mm = (cx + unit[0] * 3.0, cy + unit[1] * 3.0)
        core = _disc(classes, core_mm, rules.core_radius_mm, s)
        if blocked is not None and _disc_any(blocked, core_mm, rules.core_radius_mm + 6, s):
            out.append(WorkerObservation("?", 0.0, unit))
            continue
        counts = np.bincount(core, minlength=len(PixelClass)).astype(np.float64)
        total = max(float(counts.sum()), 1.0)
        species = counts[PixelClass.B : PixelClass.R + 1] / total
        neutral = counts[PixelClass.NEUTRAL] / total
        lead = int(np.argmax(species))
        if neutral >= rules.empty_min and species.max() < 0.15:
            out.append(WorkerObservation(None, 0.0, unit))
            continue
        if species.sum() < rules.present_min or species[lead] < rules.colour_purity * species.sum():
            out.append(WorkerObservation("?", 0.0, unit))
            continue
        colour = SPECIES_ORDER[lead]
        area = _piece_area(classes, layout, line, PixelClass[colour], unit, dom.width_mm)
        v_area = rules.fill * _predicted_area(vil.width_mm, vil.depth_mm, vil.height_mm, lean_mag)
        d_area = rules.fill * _predicted_area(dom.width_mm, dom.depth_mm, dom.height_mm, lean_mag)
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


def _disc_any(
    mask: NDArray[np.bool_], centre_mm: tuple[float, float], radius_mm: float, s: float
) -> bool:
    return bool(_disc(mask.view(np.uint8), centre_mm, radius_mm, s).any())


def _piece_area(
    classes: NDArray[np.uint8],
    layout: CanonicalLayout,
    line: int,
    colour: PixelClass,
    unit_lean: tuple[float, float],
    reach_mm: float,
) -> float:
    """Area (mm²) of ``colour`` connected to the space's base, within its own lane."""
    g = layout.profile.geometry
    s = layout.px_per_mm
    cx, cy = g.worker_space_centre_mm(line)
    tip = (cx + unit_lean[0] * reach_mm * 1.2, cy + unit_lean[1] * reach_mm * 1.2)
    half = reach_mm * 0.6
    x0 = max(int((min(cx, tip[0]) - half) * s), 0)
    x1 = min(int((max(cx, tip[0]) + half) * s) + 1, classes.shape[1])
    y0 = max(int((min(cy, tip[1]) - half) * s), 0)
    y1 = min(int((max(cy, tip[1]) + half) * s) + 1, classes.shape[0])
    patch = (classes[y0:y1, x0:x1] == colour).astype(np.uint8)
    # Only the blob touching the base counts; neighbours' pieces of another lane are cut off
    # at the midpoint between spaces.
    pitch_half = g.cell_mm / 2
    yy, xx = np.mgrid[y0:y1, x0:x1]
    if line < 16:  # row worker: lane is a band of fish-row height around cy
        lane = np.abs(yy / s - cy) <= pitch_half + abs(unit_lean[1]) * reach_mm
    else:
        lane = np.abs(xx / s - cx) <= pitch_half + abs(unit_lean[0]) * reach_mm
    patch &= lane.astype(np.uint8)
    _, labels = cv2.connectedComponents(patch, connectivity=8)
    bx, by = int(cx * s) - x0, int(cy * s) - y0
    r = int(3 * s)
    base = labels[max(by - r, 0) : by + r + 1, max(bx - r, 0) : bx + r + 1]
    ids = np.unique(base[base > 0])
    if len(ids) == 0:
        return 0.0
    area_px = int(np.isin(labels, ids).sum())
    return area_px / (s * s)
