"""Conditions of real café tables, for the synthetic camera (opt-in, see ``Shot.conditions``).

The default renderer shows one lamp, a brown table and an ideal pinhole lens.  Real tables
add what this module draws: two lamps of different colour temperature, hard shadows of a
lamp arm or a person, a tablecloth of any colour or pattern, the barrel distortion of a
Raspberry Pi camera lens, its sensor modes, and exposure that is off by up to half a stop.
All parameters are drawn up front by :meth:`Conditions.real_table`, so a frame stays
reproducible; none of them changes what the board shows (the truth).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]

# The Raspberry Pi cameras' sensor modes (v2, HQ and v3 modules), 4:3 and 16:9.
SENSOR_MODES_PX: tuple[tuple[int, int], ...] = (
    (1280, 720),
    (1536, 864),
    (1640, 1232),
    (1920, 1080),
    (2028, 1520),
    (2304, 1296),
    (1280, 960),
)
# Radial distortion k1 on pinhole-normalised coordinates: Pi lenses show a mild barrel.
BARREL_K1_RANGE = (-0.08, -0.02)
# Exposure error in stops (factor 2 of linear light per stop): auto exposure misled by a
# bright cloth or a dark room.
EXPOSURE_STOPS_MAX = 0.5
# Colour temperatures (K) of a warm bulb and of daylight or a cool LED.
WARM_KELVIN_RANGE = (2700.0, 3200.0)
COOL_KELVIN_RANGE = (5000.0, 6500.0)
# Width (share of the frame's diagonal) of the band where the two lamps' light mixes: each
# lamp's light falls off gradually over a board half a metre or more from it.
LAMP_BLEND_SHARE_RANGE = (0.15, 0.6)
# Light left inside a hard shadow: a lamp's own arm or a person blocks a strong lamp.
SHADOW_LIGHT_LEFT_RANGE = (0.35, 0.65)
# Blur (px, Gaussian sigma) of a hard shadow's edge: sharp-ish, not a soft blob.
SHADOW_EDGE_SIGMA_PX_RANGE = (1.0, 3.5)
# A lamp arm's shadow: a long band this wide (mm) across the board.
ARM_SHADOW_WIDTH_MM_RANGE = (12.0, 40.0)
# A person's shadow: a head-and-shoulders shape this wide (mm) reaching in from one side.
PERSON_SHADOW_WIDTH_MM_RANGE = (180.0, 320.0)
# How far (share of the board's side) a person's shadow reaches over the board.
PERSON_SHADOW_REACH_RANGE = (0.1, 0.45)
CLOTH_KINDS = ("plain", "checks", "stripes", "wood", "noise")
# Players' skin, lit as the renderer lights the arm (BGR, 8-bit): from light to very dark.
# A reader tuned on one tone fails the others (a dark arm in a shadow shows no skin colour).
SKIN_TONES_BGR: tuple[tuple[int, int, int], ...] = (
    (150, 180, 235),
    (100, 140, 200),
    (60, 95, 150),
    (40, 60, 100),
    (28, 38, 62),
)
# Period (px) of a cloth's checks or stripes in the image.
CLOTH_PERIOD_PX_RANGE = (12, 80)
# Gamma of the 8-bit frame: exposure scales linear light, not the encoded values.
SRGB_GAMMA = 2.2


@dataclass(frozen=True)
class CastShadow:
    """A hard shadow on the table plane: a polygon in board millimetres."""

    polygon_mm: tuple[tuple[float, float], ...]
    light_left: float  # share of the light that still reaches inside it (0-1)
    edge_sigma_px: float


@dataclass(frozen=True)
class Cloth:
    """A tablecloth around the board: a kind (see ``CLOTH_KINDS``), two colours (BGR)."""

    kind: str
    colour_bgr: tuple[int, int, int]
    second_bgr: tuple[int, int, int]
    period_px: int
    angle_deg: float
    seed: int  # the pattern's own noise (wood grain, mottled cloth)


@dataclass(frozen=True)
class Conditions:
    """What a real table adds to a synthetic shot; the default adds nothing."""

    sensor_px: tuple[int, int] | None = None  # (width, height); None keeps the shot's size
    lamps_kelvin: tuple[float, float] | None = None  # a second lamp: (this side, that side)
    lamp_angle_rad: float = 0.0  # direction from the first lamp's side to the second's
    lamp_blend_share: float = 0.3  # share of the diagonal over which their light mixes
    shadows: tuple[CastShadow, ...] = ()
    cloth: Cloth | None = None
    barrel_k1: float = 0.0
    exposure_stops: float = 0.0
    skin_bgr: tuple[int, int, int] | None = None  # the arm's skin; None keeps the default

    @classmethod
    def real_table(
        cls, rng: np.random.Generator, sheet_mm: tuple[float, float] = (400.0, 400.0)
    ) -> Conditions:
        """Conditions drawn at random: every frame gets a sensor mode, a cloth, a lens, an
        exposure error and a player's skin tone; half of them a second lamp, half of them
        hard shadows."""
        sensor = SENSOR_MODES_PX[int(rng.integers(len(SENSOR_MODES_PX)))]
        lamps: tuple[float, float] | None = None
        if rng.random() < 0.5:
            warm = float(rng.uniform(*WARM_KELVIN_RANGE))
            cool = float(rng.uniform(*COOL_KELVIN_RANGE))
            lamps = (warm, cool) if rng.random() < 0.5 else (cool, warm)
        angle = float(rng.uniform(0, 2 * math.pi))
        blend = float(rng.uniform(*LAMP_BLEND_SHARE_RANGE))
        shadows: tuple[CastShadow, ...] = ()
        if rng.random() < 0.5:
            count = int(rng.integers(1, 3))
            shadows = tuple(_random_shadow(rng, sheet_mm) for _ in range(count))
        return cls(
            sensor_px=sensor,
            lamps_kelvin=lamps,
            lamp_angle_rad=angle,
            lamp_blend_share=blend,
            shadows=shadows,
            cloth=_random_cloth(rng),
            barrel_k1=float(rng.uniform(*BARREL_K1_RANGE)),
            exposure_stops=float(rng.uniform(-EXPOSURE_STOPS_MAX, EXPOSURE_STOPS_MAX)),
            # Drawn last: every seed keeps the table it had before skin tones were drawn.
            skin_bgr=SKIN_TONES_BGR[int(rng.integers(len(SKIN_TONES_BGR)))],
        )


def _random_shadow(rng: np.random.Generator, sheet_mm: tuple[float, float]) -> CastShadow:
    """A lamp arm's band or a person's head and shoulders, falling across the board."""
    w, h = sheet_mm
    light_left = float(rng.uniform(*SHADOW_LIGHT_LEFT_RANGE))
    sigma = float(rng.uniform(*SHADOW_EDGE_SIGMA_PX_RANGE))
    angle = float(rng.uniform(0, 2 * math.pi))
    along = np.array([math.cos(angle), math.sin(angle)])
    across = np.array([-along[1], along[0]])
    centre = np.array([w / 2, h / 2])
    if rng.random() < 0.5:
        # A lamp arm: a straight band through a point of the board, longer than the board.
        through = centre + np.array([rng.uniform(-0.35, 0.35) * w, rng.uniform(-0.35, 0.35) * h])
        half_width = float(rng.uniform(*ARM_SHADOW_WIDTH_MM_RANGE)) / 2
        half_length = 1.5 * max(w, h)
        corners = [
            through + along * half_length + across * half_width,
            through + along * half_length - across * half_width,
            through - along * half_length - across * half_width,
            through - along * half_length + across * half_width,
        ]
    else:
        # A person beside the table: shoulders and a head reaching in from one side.
        width = float(rng.uniform(*PERSON_SHADOW_WIDTH_MM_RANGE))
        reach = float(rng.uniform(*PERSON_SHADOW_REACH_RANGE)) * max(w, h)
        edge = centre - along * (max(w, h) / 2 + 20.0)  # just outside the board
        start = edge - along * 600.0
        shoulders = edge + along * reach * 0.55
        head = edge + along * reach
        head_half = width * 0.18
        corners = [
            start + across * width / 2,
            shoulders + across * width / 2,
            shoulders + across * head_half * 1.4,
            head + across * head_half,
            head + along * head_half * 0.6,
            head - across * head_half,
            shoulders - across * head_half * 1.4,
            shoulders - across * width / 2,
            start - across * width / 2,
        ]
    polygon = tuple((float(p[0]), float(p[1])) for p in corners)
    return CastShadow(polygon, light_left, sigma)


def _random_cloth(rng: np.random.Generator) -> Cloth:
    """Any colour (saturated ones too, close to the fish colours) in any of the patterns."""
    kind = CLOTH_KINDS[int(rng.integers(len(CLOTH_KINDS)))]
    colour = _random_colour(rng)
    second = _random_colour(rng) if rng.random() < 0.5 else _scaled(colour, 0.55)
    if kind == "wood":
        colour = _scaled((60, 105, 160), float(rng.uniform(0.6, 1.3)))
        second = _scaled(colour, 0.7)
    low, high = CLOTH_PERIOD_PX_RANGE
    return Cloth(
        kind,
        colour,
        second,
        int(rng.integers(low, high + 1)),
        float(rng.uniform(0, 180)),
        int(rng.integers(0, 2**31)),
    )


def _random_colour(rng: np.random.Generator) -> tuple[int, int, int]:
    """A hue at any saturation and lightness; half of them fully saturated."""
    hue = int(rng.integers(0, 180))
    saturation = 255 if rng.random() < 0.5 else int(rng.integers(0, 256))
    value = int(rng.integers(60, 256))
    hsv = np.array([[[hue, saturation, value]]], np.uint8)
    b, g, r = (int(v) for v in cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0])
    return (b, g, r)


def _scaled(colour: tuple[int, int, int], factor: float) -> tuple[int, int, int]:
    """Each channel times ``factor``, kept within 8 bits."""
    b, g, r = colour
    return (min(int(b * factor), 255), min(int(g * factor), 255), min(int(r * factor), 255))


def cloth_image(cloth: Cloth, width: int, height: int) -> NDArray[np.uint8]:
    """The tablecloth filling a ``width`` x ``height`` frame (the board is drawn over it)."""
    rng = np.random.default_rng(cloth.seed)
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    a = math.radians(cloth.angle_deg)
    u = xx * math.cos(a) + yy * math.sin(a)
    v = -xx * math.sin(a) + yy * math.cos(a)
    period = float(cloth.period_px)
    if cloth.kind == "checks":
        mix = ((np.floor(u / period) + np.floor(v / period)) % 2).astype(np.float32)
    elif cloth.kind == "stripes":
        mix = (np.floor(u / period) % 2).astype(np.float32)
    elif cloth.kind == "wood":
        grain = _smooth_noise(rng, width, height, period * 4)
        mix = 0.5 + 0.5 * np.sin(v / (period / 6) + grain * 6.0).astype(np.float32)
    elif cloth.kind == "noise":
        mix = np.clip(0.5 + 1.5 * _smooth_noise(rng, width, height, period), 0.0, 1.0)
    else:
        mix = np.zeros((height, width), np.float32)
    first = np.array(cloth.colour_bgr, np.float32)
    second = np.array(cloth.second_bgr, np.float32)
    image = first * (1 - mix[..., None]) + second * mix[..., None]
    image += rng.normal(0, 4, image.shape).astype(np.float32)  # weave
    return np.asarray(image.clip(0, 255), dtype=np.uint8)


def _smooth_noise(
    rng: np.random.Generator, width: int, height: int, scale_px: float
) -> NDArray[np.float32]:
    small = rng.normal(0, 0.3, (int(height / scale_px) + 2, int(width / scale_px) + 2)).astype(
        np.float32
    )
    return np.asarray(
        cv2.resize(small, (width, height), interpolation=cv2.INTER_CUBIC), dtype=np.float32
    )


def lamps_tint(
    first: NDArray[np.float32],
    second: NDArray[np.float32],
    conditions: Conditions,
    width: int,
    height: int,
) -> NDArray[np.float32]:
    """Per-pixel light colour of two lamps: ``first`` on one side of a line through the
    frame's centre, ``second`` on the other, mixed across a band (``lamp_blend_share``)."""
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    a = conditions.lamp_angle_rad
    side = (xx - width / 2) * math.cos(a) + (yy - height / 2) * math.sin(a)
    blend_px = conditions.lamp_blend_share * math.hypot(width, height)
    # A logistic step whose 10-90 % rise spans about the band's width.
    share = 1.0 / (1.0 + np.exp(-side / max(blend_px / 4, 1.0)))
    return np.asarray(first * (1 - share[..., None]) + second * share[..., None], dtype=np.float32)


def shadow_gain(
    shadows: tuple[CastShadow, ...], board_to_image: FloatArray, width: int, height: int
) -> NDArray[np.float32]:
    """Light left at each pixel under the hard shadows (1 where none falls)."""
    gain = np.ones((height, width), np.float32)
    for shadow in shadows:
        pts = np.array(shadow.polygon_mm, np.float64).reshape(-1, 1, 2)
        uv = cv2.perspectiveTransform(pts, board_to_image).reshape(-1, 2)
        mask = np.zeros((height, width), np.float32)
        cv2.fillPoly(mask, [np.round(uv * 4).astype(np.int32)], 1.0, cv2.LINE_AA, shift=2)
        mask = np.asarray(cv2.GaussianBlur(mask, (0, 0), shadow.edge_sigma_px), dtype=np.float32)
        gain *= 1 - mask * (1 - shadow.light_left)
    return gain


def barrel(image: NDArray[np.float32], k1: float, focal_px: float) -> NDArray[np.float32]:
    """The image as a lens with radial distortion ``k1`` would show it.

    A point at normalised radius r (pixels from the centre over the focal length) is seen
    at r (1 + k1 r²): with k1 < 0 the frame's edges are drawn towards its centre.
    """
    h, w = image.shape[:2]
    cx, cy = w / 2, h / 2
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
    xd, yd = (xx - cx) / focal_px, (yy - cy) / focal_px
    rd2 = xd * xd + yd * yd
    scale = np.ones_like(rd2)
    for _ in range(8):  # solve r_d = r_u (1 + k1 r_u²) for r_u by fixed point
        scale = 1.0 / (1.0 + k1 * rd2 * scale * scale)
    map_x = (xd * scale * focal_px + cx).astype(np.float32)
    map_y = (yd * scale * focal_px + cy).astype(np.float32)
    out = cv2.remap(image, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    return np.asarray(out, dtype=np.float32)


def distort_points(
    points_px: FloatArray, k1: float, focal_px: float, size: tuple[int, int]
) -> FloatArray:
    """Where :func:`barrel` moves image points (pixels of the ideal pinhole image)."""
    w, h = size
    centre = np.array([w / 2, h / 2])
    norm = (np.asarray(points_px, np.float64) - centre) / focal_px
    r2 = (norm**2).sum(axis=1, keepdims=True)
    return np.asarray(norm * (1 + k1 * r2) * focal_px + centre, dtype=np.float64)


def expose(image: NDArray[np.float32], stops: float) -> NDArray[np.float32]:
    """The 8-bit frame with its linear light scaled by 2**stops (highlights clip)."""
    if stops == 0.0:
        return image
    linear = (np.clip(image, 0, 255) / 255.0) ** SRGB_GAMMA * (2.0**stops)
    return np.asarray(np.clip(linear, 0, 1) ** (1 / SRGB_GAMMA) * 255.0, dtype=np.float32)
