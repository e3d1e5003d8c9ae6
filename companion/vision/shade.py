"""Worker strips lifted out of a hard shadow, so pieces standing in it keep their colours.

The frame's balance sets the sheet's lit majority to its reference; a person's or a lamp
arm's hard shadow over a worker strip leaves the sheet there at half its lightness or
less, and the blue and red pieces standing in it too dark for any colour (darker than
8-bit L 30 all over the core).  A shadow is a
dimmer light: it scales lightness and chroma alike (in Lab, ``L* + 16`` and ``a*``, ``b*``
scale by the cube root of the light), so scaling them back by the sheet's own loss
restores the colours the pieces show in the light.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.vision.canonical import CanonicalLayout
from companion.vision.colour import lab_scale


@dataclass(frozen=True)
class ShadeRules:
    """Where the sheet's light is dim enough to lift, and how it is followed."""

    # A pixel's light is that of the brightest sheet within this reach (mm): a piece
    # stands about 10 mm wide, so the sheet shows beside any pixel of it, and a pixel this
    # close to a shadow's edge is left as it is.
    reach_mm: float = 8.0
    # Sheet below this share of its reference lightness is lifted: a hard shadow or a
    # lamp's dim corner (the sheet beside some space of one frame in twenty lies at half
    # the reference or below, on photoreal frames and ours), where blue and red faces
    # turn too dark for any colour.
    shadow_below: float = 0.7
    # The sheet's pixels are those no more saturated than this many times the sheet.
    saturation_max: float = 1.6
    # Lifted within this far (mm) of a space: the silhouettes of it and its neighbours.
    around_mm: float = 25.0


def lift_shadows(
    lab: NDArray[np.uint8],
    layout: CanonicalLayout,
    sheet_lab: tuple[float, float, float],
    around_px: NDArray[np.float64],
    rules: ShadeRules,
) -> tuple[NDArray[np.uint8], NDArray[np.bool_]] | None:
    """``lab`` with the sheet's hard shadows lifted to its reference lightness around
    each of the points ``around_px`` (x, y), and the pixels changed; ``None`` when no
    sheet there is in a shadow.  ``sheet_lab`` is the sheet's reference colour (8-bit L,
    then a and b about 0)."""
    s = layout.px_per_mm
    reach = round(rules.reach_mm * s)
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (2 * reach + 1, 2 * reach + 1))
    half = round(rules.around_mm * s)
    height, width = lab.shape[:2]
    out: NDArray[np.uint8] | None = None
    changed = np.zeros((height, width), dtype=bool)
    limit = rules.shadow_below * sheet_lab[0]
    gain_top = np.float32(lab_scale(sheet_lab[0]))
    # Sheet-like: no more saturated (chroma for its L* + 16) than the sheet by far, which
    # leaves out every piece, yellow ones too (about three times the sheet's).
    most = rules.saturation_max * math.hypot(sheet_lab[1], sheet_lab[2]) / lab_scale(sheet_lab[0])
    for x, y in np.round(around_px).astype(int).tolist():
        # The box around the point, and the reach around it that sets its light.
        top, left = max(y - half - reach, 0), max(x - half - reach, 0)
        bottom, right = min(y + half + reach, height), min(x + half + reach, width)
        crop = lab[top:bottom, left:right].astype(np.float32)
        chroma = cv2.magnitude(crop[..., 1] - 128.0, crop[..., 2] - 128.0)
        sheet = layout.ring_mask[top:bottom, left:right] & (
            chroma <= most * lab_scale(crop[..., 0])
        )
        lightness = np.where(sheet, crop[..., 0], np.float32(0.0))
        light = cv2.dilate(lightness, kernel)
        dark = (light > 0) & (light < limit)
        inner = np.zeros_like(dark)
        inner[
            max(y - half, 0) - top : y + half - top, max(x - half, 0) - left : x + half - left
        ] = True
        dark &= inner
        if not dark.any():
            continue
        if out is None:
            out = lab.copy()
        gain = gain_top / lab_scale(np.asarray(light[dark], np.float32))
        pixels = crop[dark]
        lifted = np.empty(pixels.shape, np.float32)
        lifted[:, 0] = (lab_scale(pixels[:, 0]) * gain - 16.0) * np.float32(255.0 / 100.0)
        lifted[:, 1:] = (pixels[:, 1:] - 128.0) * gain[:, None] + 128.0
        region = out[top:bottom, left:right]
        region[dark] = np.clip(lifted, 0, 255).astype(np.uint8)
        changed[top:bottom, left:right] |= dark
    return None if out is None else (out, changed)
