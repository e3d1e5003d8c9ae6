"""Colour classes of board pixels, robust to the light's colour and to shading.

Pixels are first white-balanced against the printed sheet seen in the same frame, then
classified by their Lab chroma only (brightness is ignored, so shadows and gradients do not
matter): close to the vat floor's chroma is *neutral*; far from it, in the hue sector of one
species, is that species; everything else (skin, glare on the edge of a colour, mixtures
along blurred edges) is *unknown*.  A pixel between two classes is never forced into one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import IntEnum
from typing import Any, TypeVar

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.boards import SPECIES, BoardProfile

# An 8-bit channel at or above this is at the sensor's limit (JPEG and blur keep a true
# 255 from reading exactly 255).
SENSOR_LIMIT = 245

# Hue sector (degrees of the Lab a-b angle) between yellow and green into which a bright
# sheet or floor drifts when its red channel clips.
CLIPPED_DRIFT_HUE_DEG = (88.0, 125.0)


class PixelClass(IntEnum):
    NEUTRAL = 0
    B = 1
    G = 2
    Y = 3
    R = 4
    UNKNOWN = 5
    DARK = 6


FloatT = TypeVar("FloatT", np.float32, np.float64)
LightnessT = TypeVar("LightnessT", float, NDArray[np.float32], NDArray[np.float64])

SPECIES_CLASS = {letter: PixelClass[letter] for letter in SPECIES}
# Chroma distance (Lab units) from the floor within which a pixel is neutral.
NEUTRAL_RADIUS = 7.0
# Minimum chroma distance from the floor for a species pixel (yellow shares the floor's hue,
# so it needs a larger step along the same direction).
SPECIES_MIN_DISTANCE = 11.0
YELLOW_MIN_DISTANCE = 14.0
# Minimum chroma of any species pixel: greys and whites (glare, shadows) have a noisy hue.
SPECIES_MIN_CHROMA = 12.0
# Half-width of a species' hue sector is the gap to its neighbour minus this margin (degrees).
HUE_MARGIN_DEG = 9.0
MAX_HALF_SECTOR_DEG = 30.0
DARK_L = 30  # 8-bit Lab lightness below which chroma is noise
# Near white, a clipped sensor channel bends the hue (glare on the floor turns greenish):
# above this lightness a species pixel needs real chroma.
BRIGHT_L = 225
BRIGHT_MIN_CHROMA = 24.0
BRIGHT_NEUTRAL_RADIUS = 13.0
YELLOW_DRIFT_MIN_DISTANCE = 7.0
# How far (degrees) towards green a glossy yellow tile's hue bends under glare: a
# physically rendered glare spot turns it pale lemon, half-way to green.
YELLOW_DRIFT_MAX_DEG = 36.0
# In its own shade a yellow piece keeps its hue but loses chroma with its lightness, down to
# the sheet's: what still tells it apart is saturation (chroma for its lightness), about 1
# for yellow at any shade against 0.3 for the sheet, the floor and the walls.
YELLOW_MIN_SATURATION = 0.8
# Lightness bands (8-bit Lab L) below SKIN_MIN_L in which the saturation rule applies.
SHADE_BAND_STEP = 15
# Skin (a hand or arm): light, moderately saturated, between red and yellow.  Pale red
# tiles share this colour; only the shape of the region tells a hand apart.  Light
# yellowish skin reaches a hue of 65 degrees or so; the sheet and the floor sit near 90.
SKIN_CHROMA = (12.0, 45.0)
SKIN_HUE_DEG = (15.0, 66.0)
SKIN_MIN_L = 150
SHADED_SKIN_MIN_CHROMA = 20.0
SHADED_SKIN_MAX_CHROMA = 50.0
# When the balance lifts more than this share of a frame's pixels past the 8-bit limit
# (a frame lit past the sensor's range), all its pixels are rescaled at once: one pass
# over the image is then faster than picking them out.
LIFTED_WHOLE_FRAME_SHARE = 1 / 16


def hex_to_bgr(text: str) -> tuple[int, int, int]:
    return (int(text[5:7], 16), int(text[3:5], 16), int(text[1:3], 16))


def _as_floats(bgr: tuple[int, int, int]) -> tuple[float, float, float]:
    return (float(bgr[0]), float(bgr[1]), float(bgr[2]))


def bgr_to_ab(bgr: tuple[float, float, float]) -> tuple[float, float]:
    """Lab (a, b) of one BGR colour, in OpenCV's 8-bit Lab units with 128 removed."""
    px = np.array([[bgr]], dtype=np.float32) / 255.0
    lab = cv2.cvtColor(px, cv2.COLOR_BGR2Lab)[0, 0]
    return (float(lab[1]), float(lab[2]))


@dataclass(frozen=True)
class ColourModel:
    """Reference colours: the sheet (for white balance), floor and species chroma."""

    sheet_bgr: tuple[float, float, float]
    floor_ab: tuple[float, float]
    species_ab: dict[str, tuple[float, float]]

    @classmethod
    def from_profile(cls, profile: BoardProfile) -> ColourModel:
        """The profile's calibration when present, else its printed colours."""
        cal = profile.calibration
        if cal is not None and "sheet_bgr" in cal:
            return cls.from_dict(cal)
        colours = profile.colours
        return cls(
            sheet_bgr=_as_floats(hex_to_bgr(colours.sheet)),
            floor_ab=bgr_to_ab(hex_to_bgr(colours.vat_floor)),
            species_ab={k: bgr_to_ab(hex_to_bgr(colours.species[k])) for k in SPECIES},
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ColourModel:
        sheet = data["sheet_bgr"]
        floor = data["floor_ab"]
        species = data["species_ab"]
        return cls(
            sheet_bgr=(float(sheet[0]), float(sheet[1]), float(sheet[2])),
            floor_ab=(float(floor[0]), float(floor[1])),
            species_ab={k: (float(species[k][0]), float(species[k][1])) for k in SPECIES},
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "sheet_bgr": [round(v, 1) for v in self.sheet_bgr],
            "floor_ab": [round(v, 2) for v in self.floor_ab],
            "species_ab": {k: [round(v, 2) for v in ab] for k, ab in self.species_ab.items()},
        }

    def species_hues_deg(self) -> dict[str, float]:
        """Each species' printed hue: the angle (degrees) of its Lab chroma."""
        return {k: math.degrees(math.atan2(v[1], v[0])) for k, v in self.species_ab.items()}

    def lookup_table(self) -> NDArray[np.uint8]:
        """Class of every (lightness band, a, b): one 256 x 256 table per band.

        Bit 7 flags lit skin, bit 6 skin lit or shaded; the low bits hold the class.

        Lightness bands: too dark for colour, shade bands (where a shaded yellow is told
        from the sheet by its saturation), light (where skin lives), very bright
        (where a clipped channel bends the hue, so species need real chroma).
        """
        fa, fb = self.floor_ab
        sa, sb = bgr_to_ab(self.sheet_bgr)
        grid = np.arange(256, dtype=np.float32) - 128.0
        a, b = np.meshgrid(grid, grid, indexing="ij")
        dist = np.hypot(a - fa, b - fb)
        # Neutral: near the segment from the floor's chroma to the sheet's (the print's
        # beige family, walls included).
        seg_a, seg_b = sa - fa, sb - fb
        seg_len2 = max(seg_a * seg_a + seg_b * seg_b, 1e-6)
        t = np.clip(((a - fa) * seg_a + (b - fb) * seg_b) / seg_len2, 0.0, 1.0)
        neutral_dist = np.hypot(a - fa - t * seg_a, b - fb - t * seg_b)
        hue = np.degrees(np.arctan2(b, a))
        table = np.full((256, 256), PixelClass.UNKNOWN, dtype=np.uint8)
        angles = self.species_hues_deg()
        floor_chroma = math.hypot(fa, fb)
        chroma = np.hypot(a, b)
        sectors: dict[str, NDArray[np.bool_]] = {}  # each species' hue sector
        for letter, angle in angles.items():
            gaps = [abs(_angle_diff(angle, other)) for k, other in angles.items() if k != letter]
            half = min(min(gaps) / 2 - HUE_MARGIN_DEG, MAX_HALF_SECTOR_DEG)
            sectors[letter] = np.abs(hue_difference(hue, angle)) <= half
            inside = sectors[letter].copy()
            need = YELLOW_MIN_DISTANCE if letter == "Y" else SPECIES_MIN_DISTANCE
            inside &= (dist >= need) & (neutral_dist >= need) & (chroma >= SPECIES_MIN_CHROMA)
            if letter == "Y":
                # Yellow lies along the floor's own hue: demand more chroma than the sheet.
                inside &= chroma >= max(floor_chroma, math.hypot(sa, sb)) + need
            table[inside] = SPECIES_CLASS[letter]
        neutral = neutral_dist <= NEUTRAL_RADIUS
        table[neutral] = PixelClass.NEUTRAL
        bright = table.copy()
        is_species = (table >= PixelClass.B) & (table <= PixelClass.R)
        bright[is_species & (chroma < BRIGHT_MIN_CHROMA)] = PixelClass.UNKNOWN
        # A bright sheet or floor whose red channel clipped drifts towards green: still
        # neutral, but only in the sector between yellow and green (pale tiles keep their
        # own hue and stay unknown).
        low_deg, high_deg = CLIPPED_DRIFT_HUE_DEG
        drift = (neutral_dist <= BRIGHT_NEUTRAL_RADIUS) & (hue >= low_deg) & (hue <= high_deg)
        bright[drift & (bright == PixelClass.UNKNOWN)] = PixelClass.NEUTRAL
        # The same drift bends a light, clearly saturated yellow towards green.
        y_angle = angles["Y"]
        y_drift = (hue_difference(hue, y_angle) > 0) & (
            hue_difference(hue, y_angle) <= YELLOW_DRIFT_MAX_DEG
        )
        y_drift &= chroma >= max(floor_chroma, math.hypot(sa, sb)) + YELLOW_DRIFT_MIN_DISTANCE
        y_drift &= neutral_dist > BRIGHT_NEUTRAL_RADIUS
        bright[y_drift & (bright == PixelClass.UNKNOWN)] = PixelClass.Y
        lit = table.copy()
        lit[y_drift & (lit == PixelClass.UNKNOWN)] = PixelClass.Y
        skin = (
            (chroma >= SKIN_CHROMA[0])
            & (chroma <= SKIN_CHROMA[1])
            & (hue >= SKIN_HUE_DEG[0])
            & (hue <= SKIN_HUE_DEG[1])
            & ~neutral
        )
        # Skin in the shade of the hand itself: darker and a little more saturated, close
        # to a red tile, so it only extends a hand already found, never starts one.
        shaded = (
            (chroma >= SHADED_SKIN_MIN_CHROMA)
            & (chroma <= SHADED_SKIN_MAX_CHROMA)
            & (hue >= SKIN_HUE_DEG[0])
            & (hue <= SKIN_HUE_DEG[1])
            & ~neutral
        )
        both = (skin.astype(np.uint8) << 7) | (skin.astype(np.uint8) << 6)
        light = lit | both
        bright = bright | both
        normal = table | (shaded.astype(np.uint8) << 6)
        dark = np.full_like(table, PixelClass.DARK)
        shades = []
        for top in _SHADE_TOPS:
            # The band's brightest pixel sets the bar, so no neutral pixel in it passes.
            need = max(SPECIES_MIN_CHROMA, YELLOW_MIN_SATURATION * top * 100.0 / 255.0)
            pick = sectors["Y"] & (chroma >= need)
            pick &= (table == PixelClass.NEUTRAL) | (table == PixelClass.UNKNOWN)
            band = normal.copy()
            band[pick] = PixelClass.Y | (normal[pick] & 0x40)
            shades.append(band)
        return np.stack([dark, *shades, light, bright])


def _angle_diff(a: float, b: float) -> float:
    return (a - b + 180.0) % 360.0 - 180.0


def hue_difference(a: NDArray[FloatT], b: float) -> NDArray[FloatT]:
    """Signed difference ``a - b`` of hues (degrees), wrapped to -180..180."""
    return np.asarray((a - b + 180.0) % 360.0 - 180.0, dtype=a.dtype)


def dark_inks_named(
    chroma: NDArray[np.float64],
    printed_hues: dict[str, float],
    chroma_min: float,
    hue_max_deg: float,
    inks: str = "BGR",
) -> list[str | None]:
    """Per row of mean chroma (a*, b* centred on 0) of something too dark for any pixel's
    colour, the ink it shows among ``inks``, whose printed hue lies within
    ``hue_max_deg`` when the chroma reaches ``chroma_min``; else ``None``.  Yellow only
    where no bare sheet or floor can be: a shadow on them keeps their own yellowish hue."""
    hue = np.degrees(np.arctan2(chroma[:, 1], chroma[:, 0]))
    off = np.abs(np.stack([hue_difference(hue, printed_hues[ink]) for ink in inks], axis=1))
    nearest = np.argmin(off, axis=1)
    named = (np.hypot(chroma[:, 0], chroma[:, 1]) >= chroma_min) & (
        off[np.arange(len(off)), nearest] <= hue_max_deg
    )
    return [inks[k] if ok else None for k, ok in zip(nearest.tolist(), named.tolist(), strict=True)]


def white_balance(
    image: NDArray[np.uint8],
    observed_sheet: NDArray[np.float64],
    model: ColourModel,
    whole: bool | None = None,
) -> NDArray[np.uint8]:
    """Scales each channel so the sheet seen in this frame takes its reference colour.

    A pixel the gains lift past the 8-bit limit in some channel is scaled down whole,
    keeping its hue: clipping that channel alone would bend it. Where a hard shadow darkens
    much of the sheet the balance lifts the lit sheet that far, and its clipped red and
    green would read as a yellow; lit skin's as the floor.

    ``whole`` says whether the frame ``image`` is part of lifts so many pixels that all
    are rescaled at once (see :func:`lifts_whole_frame`); asked of ``image`` itself when
    ``None``.  Each pixel's value depends on it and on the pixel alone, so part of a frame
    balanced with its frame's answer is that part of the balanced frame.
    """
    gains = _balance_gains(observed_sheet, model)
    over = _lifted(image, gains)
    lifted_px = cv2.countNonZero(over)
    if whole is None:
        whole = _lifts_most(lifted_px, over.size)
    if whole:
        lifted = cv2.transform(image.astype(np.float32), np.diag(gains).astype(np.float32))
        return within_limit(np.asarray(lifted, np.float32))
    out = np.asarray(cv2.transform(image, np.diag(gains)), dtype=np.uint8)
    if lifted_px:  # most frames lift none: the search for them costs a millisecond
        # Flat indices of a boolean mask: far faster than 2-D ones, and numpy finds those of
        # a boolean mask ten times faster than those of an 8-bit one (0.04 against 0.4 ms).
        at = np.flatnonzero(over.view(np.bool_))
        flat = out.reshape(-1, 3)
        flat[at] = within_limit(image.reshape(-1, 3)[at][:, None, :] * gains)[:, 0, :]
    return out


def lifts_whole_frame(
    image: NDArray[np.uint8], observed_sheet: NDArray[np.float64], model: ColourModel
) -> bool:
    """Whether :func:`white_balance` lifts so many of ``image``'s pixels past the 8-bit
    limit that it rescales all of them in one pass (faster than picking them out)."""
    # Counted from the pixels kept within the limit: no mask of the lifted ones is needed.
    within = _within_limit(image, _balance_gains(observed_sheet, model))
    return _lifts_most(within.size - cv2.countNonZero(within), within.size)


def _lifts_most(lifted_px: int, pixels: int) -> bool:
    """Whether so many pixels are lifted past the limit that rescaling all is faster."""
    return bool(lifted_px > LIFTED_WHOLE_FRAME_SHARE * pixels)


def _balance_gains(observed_sheet: NDArray[np.float64], model: ColourModel) -> NDArray[np.float64]:
    return np.asarray(model.sheet_bgr, np.float64) / np.maximum(observed_sheet, 1.0)


def _lifted(image: NDArray[np.uint8], gains: NDArray[np.float64]) -> NDArray[np.uint8]:
    """1 where the ``gains`` lift a pixel of ``image`` past the 8-bit limit, else 0 (so
    that it may be read as a boolean mask)."""
    _, over = cv2.threshold(_within_limit(image, gains), 0, 1, cv2.THRESH_BINARY_INV)
    return np.asarray(over, dtype=np.uint8)


def _within_limit(image: NDArray[np.uint8], gains: NDArray[np.float64]) -> NDArray[np.uint8]:
    """255 where the ``gains`` keep every channel of a pixel of ``image`` within the 8-bit
    limit, else 0."""
    # Only a gain above one lifts a pixel past the limit: each channel's highest level
    # that stays within it, and one pass over the image for all three channels.
    highest = tuple(int(np.floor(255.0 / g)) if g > 1.0 else 255 for g in gains.tolist())
    return np.asarray(cv2.inRange(image, (0, 0, 0), highest), dtype=np.uint8)


def lab_scale(lightness_8bit: LightnessT) -> LightnessT:
    """``L* + 16`` of OpenCV's 8-bit Lab lightness: a light dimmed by a factor ``k``
    scales it, and the chroma ``a*``, ``b*``, by the cube root of ``k``."""
    return lightness_8bit * (100.0 / 255.0) + 16.0


def within_limit(lifted: NDArray[FloatT]) -> NDArray[np.uint8]:
    """An 8-bit image from a balanced one (float, BGR, rows x columns x 3), each pixel
    scaled down whole, keeping its hue, as far as its largest channel needs to fit."""
    planes = cv2.split(lifted)
    largest = cv2.max(cv2.max(planes[0], planes[1]), planes[2])
    scale = np.minimum(255.0 / np.maximum(largest, 1e-6), 1.0).astype(lifted.dtype)
    out = [cv2.convertScaleAbs(cv2.multiply(plane, scale)) for plane in planes]
    return np.asarray(cv2.merge(out), dtype=np.uint8)


# Upper bounds (8-bit L) of the shade bands between too dark and light.
_SHADE_TOPS = [*range(DARK_L + SHADE_BAND_STEP, SKIN_MIN_L, SHADE_BAND_STEP), SKIN_MIN_L]


def _lightness_bands() -> NDArray[np.uint8]:
    """Table band of every 8-bit lightness: dark, the shade bands, light, bright."""
    levels = np.arange(256)
    bands = np.zeros(256, np.uint8)
    for k, top in enumerate(_SHADE_TOPS):
        bottom = DARK_L if k == 0 else _SHADE_TOPS[k - 1]
        bands[(levels >= bottom) & (levels < top)] = 1 + k
    bands[levels >= SKIN_MIN_L] = 1 + len(_SHADE_TOPS)
    bands[levels >= BRIGHT_L] = 2 + len(_SHADE_TOPS)
    return bands


_BANDS = _lightness_bands()


def drop_cool_where_red_clipped(classes: NDArray[np.uint8], view_bgr: NDArray[np.uint8]) -> None:
    """Green and blue pixels whose red reached the sensor's limit become unknown (in place).

    Red is the weakest channel of both inks, so neither clips it first. A warm bright
    surface does: the sheet lit until red clips keeps its green and blue, and the balance,
    scaling red down, turns it green, enough to pass for a piece or an arm on the sheet.
    """
    # Masks by OpenCV on the whole view: this runs on every frame.  Blue and green are
    # neighbouring classes, so one range takes both.
    red_clipped = cv2.inRange(cv2.extractChannel(view_bgr, 2), SENSOR_LIMIT, 255)
    if cv2.countNonZero(red_clipped) == 0:  # half the frames: no glare, nothing to drop
        return
    cool = cv2.inRange(classes, int(PixelClass.B), int(PixelClass.G))
    classes[cv2.bitwise_and(red_clipped, cool).view(bool)] = PixelClass.UNKNOWN


def classify(
    lab: NDArray[np.uint8], table: NDArray[np.uint8]
) -> tuple[NDArray[np.uint8], NDArray[np.bool_], NDArray[np.bool_]]:
    """Per pixel of an 8-bit Lab image: its class, lit skin, and skin lit or shaded."""
    # The table index (band << 16 | a << 8 | b), packed as four bytes read little-endian:
    # b, a, the lightness's band and a spare zero.  Split and merged: OpenCV's merge of
    # whole planes takes half the time its mixChannels takes to pick the same bytes.
    lightness, a, b = cv2.split(lab)
    band = cv2.LUT(lightness, _BANDS)
    packed = np.asarray(cv2.merge([b, a, band, np.zeros_like(band)]), dtype=np.uint8)
    key = packed.view("<u4")[..., 0]
    flagged = table.ravel().take(key)
    return (flagged & 0x3F).astype(np.uint8, copy=False), flagged >= 0x80, (flagged & 0x40) > 0
