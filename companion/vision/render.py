"""A synthetic camera: the reference board photographed from a random pose.

Used by the tests, the benchmark and the demo camera.  Everything comes from a seed, so a
frame is reproducible.  The scene: the printed sheet (markers, worker circles, vats, bonus
icons), tiles a little offset and rotated in their slots with a fish icon per cell in a
lighter or darker shade, standing meeples drawn as extruded silhouettes with rounded
edges in true perspective, an optional arm reaching over the board with its shadow, then
light colour (2700-6500 K), gradients, soft shadows, a glare spot, blur, sensor noise and
JPEG.  Conditions of real tables (two lamps, hard shadows, tablecloths, lens distortion,
sensor modes, exposure errors) are opt-in: see :mod:`companion.vision.conditions` and
:func:`shot_for`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.boards import GRID, BoardProfile
from companion.games.garum.state import BoardState
from companion.vision.artwork import BoardTexture, draw_tiles
from companion.vision.colour import hex_to_bgr
from companion.vision.conditions import (
    SENSOR_MODES_PX,
    Conditions,
    barrel,
    cloth_image,
    expose,
    lamps_tint,
    shadow_gain,
)

SKIN_BGR = (150, 180, 235)
# Share of a meeple face's colour left in its own shadow (the rest is direct light).
AMBIENT = 0.4
# Radius (mm) of the rounded edges of a wooden meeple.  With sharp edges and brighter
# shading, pieces covered about 20 % more of the top-down view than in physically
# rendered photographs taken from the same pose; with these, within about 5 %.
EDGE_ROUND_MM = 2.5
# The whole board shows with this share of the frame's width to spare at each edge...
BOARD_MARGIN_SHARE = 0.03
# ... and spans at least this share of the width (of a 4:3 crop): the reader's working range.
MIN_BOARD_SPAN_SHARE = 0.45
# Shadows are cast as if the light stood at least this high (z of its unit direction), so a
# grazing light does not throw them across the whole board.
MIN_LIGHT_ELEVATION = 0.3
# Parts of the arm nearer the lens than this (mm) are not drawn: they would fill the frame.
NEAR_PLANE_MM = 10.0
# Points projected this far (px) off the frame are skipped: OpenCV's integer drawing overflows.
FAR_OFF_FRAME_PX = 1e5
FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class Shot:
    """Options of one synthetic photograph."""

    seed: int
    width: int = 1280
    height: int = 960
    hand: bool = False
    distance_mm: tuple[float, float] = (500.0, 1000.0)
    max_tilt_deg: float = 35.0
    kelvin: tuple[float, float] = (2700.0, 6500.0)
    degrade: bool = True
    conditions: Conditions | None = None  # a real table's conditions; None: the default scene


@dataclass(frozen=True)
class Photo:
    """A rendered frame with what it shows."""

    image: NDArray[np.uint8]
    state: BoardState
    occluded: bool
    homography: FloatArray  # board mm -> image px
    meta: dict[str, float] = field(default_factory=dict)


def kelvin_to_bgr(kelvin: float) -> tuple[float, float, float]:
    """Approximate colour of a black body light, normalised to its green channel."""
    t = kelvin / 100.0
    red = 255.0 if t <= 66 else 329.7 * (t - 60) ** -0.1332
    green = 99.47 * math.log(t) - 161.1 if t <= 66 else 288.1 * (t - 60) ** -0.0755
    blue = 255.0 if t >= 66 else (0.0 if t <= 19 else 138.5 * math.log(t - 10) - 305.0)
    return (blue / green, 1.0, red / green)


@dataclass(frozen=True)
class Camera:
    """Pinhole camera: ``k`` intrinsics, ``r`` rotation, ``t`` translation (board mm)."""

    k: FloatArray
    r: FloatArray
    t: FloatArray

    def project(self, points: FloatArray) -> FloatArray:
        cam = (self.r @ np.asarray(points, np.float64).T).T + self.t
        uv = (self.k @ cam.T).T
        return np.asarray(uv[:, :2] / uv[:, 2:3], dtype=np.float64)

    def depth(self, points: FloatArray) -> FloatArray:
        cam = (self.r @ np.asarray(points, np.float64).T).T + self.t
        return np.asarray(cam[:, 2], dtype=np.float64)

    @property
    def homography(self) -> FloatArray:
        h = self.k @ np.column_stack([self.r[:, 0], self.r[:, 1], self.t])
        return np.asarray(h / h[2, 2], dtype=np.float64)


def random_camera(profile: BoardProfile, shot: Shot, rng: np.random.Generator) -> Camera:
    """A pose 50-100 cm from the board, tilted up to 35 degrees, any rotation, board in view."""
    w, h = profile.geometry.sheet_mm
    corners = np.array([[0, 0, 0], [w, 0, 0], [w, h, 0], [0, h, 0]], np.float64)
    for _ in range(200):
        dist = float(rng.uniform(*shot.distance_mm))
        tilt = math.radians(float(rng.uniform(0, shot.max_tilt_deg)))
        azimuth = float(rng.uniform(0, 2 * math.pi))
        roll = float(rng.uniform(0, 2 * math.pi))
        target = np.array([w / 2 + rng.uniform(-30, 30), h / 2 + rng.uniform(-30, 30), 0.0])
        # Board frame: x right, y down, z into the table; the camera sits at negative z.
        direction = np.array(
            [
                math.sin(tilt) * math.cos(azimuth),
                math.sin(tilt) * math.sin(azimuth),
                -math.cos(tilt),
            ]
        )
        centre = target + direction * dist
        forward = (target - centre) / dist
        up_hint = np.array([math.cos(roll), math.sin(roll), 0.0])
        right = np.cross(forward, up_hint)
        if np.linalg.norm(right) < 1e-6:
            continue
        right /= np.linalg.norm(right)
        down = np.cross(forward, right)
        r = np.stack([right, down, forward])
        t = -r @ centre
        fov_scale = float(rng.uniform(0.85, 1.35))
        # Of the width of a 4:3 frame: a 16:9 mode is a wider view of the same lens.
        focal = fov_scale * min(shot.width, shot.height * 4 / 3)
        k = np.array([[focal, 0, shot.width / 2], [0, focal, shot.height / 2], [0, 0, 1]])
        cam = Camera(k, r, t)
        uv = cam.project(corners)
        margin = BOARD_MARGIN_SHARE * shot.width
        inside = (uv[:, 0] > margin) & (uv[:, 0] < shot.width - margin)
        inside &= (uv[:, 1] > margin) & (uv[:, 1] < shot.height - margin)
        span = np.ptp(uv, axis=0).max()
        # The board fills a good part of the frame: of its width, or of a 4:3 crop of a
        # wider sensor mode.
        if inside.all() and span > MIN_BOARD_SPAN_SHARE * min(shot.width, shot.height * 4 / 3):
            return cam
    raise RuntimeError("no camera pose found that shows the board")


def _meeple_outline(width: float, height: float) -> FloatArray:
    """Front silhouette of a meeple (x across, y up), centred on x = 0, feet at y = 0."""
    w, h = width / 2, height
    pts = [
        (-w * 0.95, 0),
        (-w * 0.2, 0),
        (0, h * 0.22),
        (w * 0.2, 0),
        (w * 0.95, 0),
        (w * 0.55, h * 0.5),
        (w, h * 0.62),
        (w * 0.85, h * 0.75),
        (w * 0.3, h * 0.72),
        (w * 0.38, h * 0.95),
        (0, h),
        (-w * 0.38, h * 0.95),
        (-w * 0.3, h * 0.72),
        (-w * 0.85, h * 0.75),
        (-w, h * 0.62),
        (-w * 0.55, h * 0.5),
    ]
    return np.array(pts, np.float64)


def draw_meeple(
    image: NDArray[np.uint8],
    camera: Camera,
    base_mm: tuple[float, float],
    size: tuple[float, float, float],
    yaw: float,
    colour: tuple[int, int, int],
    light: FloatArray,
) -> None:
    """An upright meeple (width, height, depth) standing at ``base_mm``, drawn in place.

    Wooden meeples have rounded edges: the front and back faces are inset by
    ``EDGE_ROUND_MM`` and joined to the full outline by a bevel, which turns away from
    the light and the camera like the rounded edge of a real piece.
    """
    width, height, depth = size
    outline = _meeple_outline(width, height)
    inset = _meeple_outline(width - 2 * EDGE_ROUND_MM, height - EDGE_ROUND_MM)
    c, s = math.cos(yaw), math.sin(yaw)
    across = np.array([c, s, 0.0])
    through = np.array([-s, c, 0.0])
    up = np.array([0.0, 0.0, -1.0])
    base = np.array([base_mm[0], base_mm[1], 0.0])

    def ring(points: FloatArray, offset: float) -> FloatArray:
        return np.array([base + across * x + up * y + through * offset for x, y in points])

    half = depth / 2
    band = max(half - EDGE_ROUND_MM, 0.0)
    front, back = ring(inset, half), ring(inset, -half)
    front_edge, back_edge = ring(outline, band), ring(outline, -band)
    faces: list[tuple[FloatArray, FloatArray]] = [(front, through), (back, -through)]
    n = len(outline)
    for i in range(n):
        j = (i + 1) % n
        for a, b in ((front_edge, back_edge), (front, front_edge), (back_edge, back)):
            quad = np.array([a[i], a[j], b[j], b[i]])
            normal = np.cross(quad[1] - quad[0], quad[3] - quad[0])
            norm = np.linalg.norm(normal)
            if norm <= 1e-9:
                continue
            normal = normal / norm
            # Outward: away from the piece's axis.
            centre = base + up * (height / 2)
            if np.dot(normal, quad.mean(axis=0) - centre) < 0:
                normal = -normal
            faces.append((quad, normal))
    cam_centre = -camera.r.T @ camera.t
    drawn = []
    for poly, normal in faces:
        centroid = poly.mean(axis=0)
        if np.dot(normal, cam_centre - centroid) <= 0:
            continue
        drawn.append((float(np.linalg.norm(cam_centre - centroid)), poly, normal))
    drawn.sort(key=lambda item: -item[0])
    for _, poly, normal in drawn:
        lit = max(float(np.dot(normal, -light)), 0.0)
        brightness = AMBIENT + (1 - AMBIENT) * lit
        shade = tuple(int(min(255, ch * brightness)) for ch in colour)
        uv = camera.project(poly)
        cv2.fillPoly(image, [np.round(uv * 4).astype(np.int32)], shade, cv2.LINE_AA, shift=2)


def render(
    profile: BoardProfile, state: BoardState, shot: Shot, camera: Camera | None = None
) -> Photo:
    """One photograph of ``state`` on ``profile``'s board, deterministic from ``shot.seed``."""
    rng = np.random.default_rng(shot.seed)
    texture = _texture(profile)
    board = draw_tiles(texture, state, rng)
    cam = camera or random_camera(profile, shot, rng)
    s = texture.s
    to_tex = np.array([[1 / s, 0, 0], [0, 1 / s, 0], [0, 0, 1]])
    conditions = shot.conditions or Conditions()
    table = _table(shot, rng)
    if conditions.cloth is not None:
        table = cloth_image(conditions.cloth, shot.width, shot.height)
    hom = cam.homography
    frame = np.asarray(
        cv2.warpPerspective(
            board,
            hom @ to_tex,
            (shot.width, shot.height),
            dst=table,
            borderMode=cv2.BORDER_TRANSPARENT,
            flags=cv2.INTER_AREA,
        ),
        dtype=np.uint8,
    )
    light_dir = np.array([rng.uniform(-0.6, 0.6), rng.uniform(-0.6, 0.6), 1.0])
    light_dir /= np.linalg.norm(light_dir)
    illum = _illumination(shot, rng, conditions, hom)
    g = profile.geometry
    sizes = {
        "v": (g.vilicus.width_mm, g.vilicus.height_mm, g.vilicus.depth_mm),
        "d": (g.dominus.width_mm, g.dominus.height_mm, g.dominus.depth_mm),
    }
    species = {k: hex_to_bgr(v) for k, v in profile.colours.species.items()}
    order = sorted(
        range(len(state.workers)),
        key=lambda i: -float(cam.depth(np.array([[*g.worker_space_centre_mm(i), 0.0]]))[0]),
    )
    for line in order:
        code = state.workers[line]
        if code is None or code == "?":
            continue
        cx, cy = g.worker_space_centre_mm(line)
        base = (cx + float(rng.uniform(-1.0, 1.0)), cy + float(rng.uniform(-1.0, 1.0)))
        _shadow(frame, cam, base, sizes[code[1]], light_dir)
        draw_meeple(
            frame,
            cam,
            base,
            sizes[code[1]],
            float(rng.uniform(0, math.pi)),
            species[code[0]],
            light_dir,
        )
    occluded = False
    if shot.hand:
        skin = conditions.skin_bgr or SKIN_BGR
        occluded = _draw_hand(frame, cam, profile, rng, light_dir, skin)
    tint = illum[illum.shape[0] // 2, illum.shape[1] // 2] / max(
        float(illum[illum.shape[0] // 2, illum.shape[1] // 2, 1]), 1e-3
    )
    lit = (frame.astype(np.float32) * illum).clip(0, 255)
    lit = expose(lit, conditions.exposure_stops)
    if conditions.barrel_k1 != 0.0:
        lit = barrel(lit, conditions.barrel_k1, float(cam.k[0, 0]))
    if shot.degrade:
        lit = _degrade(lit, shot, rng, tint)
    image = lit.astype(np.uint8)
    meta = {"seed": float(shot.seed)}
    if shot.conditions is not None:
        meta |= {
            "barrel_k1": conditions.barrel_k1,
            "focal_px": float(cam.k[0, 0]),
            "exposure_stops": conditions.exposure_stops,
        }
    return Photo(image, state, occluded, hom, meta)


# A stream of random numbers for the conditions, apart from the scene's own (whose draws
# keep every default frame as it was).
CONDITIONS_STREAM = 104_729


def shot_for(seed: int, hand: bool, conditions: bool) -> Shot:
    """The bench's shot for ``seed``: the default scene, or with a real table's conditions
    (a Pi camera sensor mode, a cloth, a lens, exposure, maybe two lamps and hard shadows)."""
    if not conditions:
        return Shot(seed, hand=hand)
    rng = np.random.default_rng([seed, CONDITIONS_STREAM])
    width, height = SENSOR_MODES_PX[int(rng.integers(len(SENSOR_MODES_PX)))]
    return Shot(seed, width, height, hand=hand, conditions=Conditions.real_table(rng))


_TEXTURES: dict[int, tuple[BoardProfile, BoardTexture]] = {}


def _texture(profile: BoardProfile) -> BoardTexture:
    """The profile's artwork, drawn once per profile object (a cache, not state)."""
    cached = _TEXTURES.get(id(profile))
    if cached is None or cached[0] is not profile:
        cached = (profile, BoardTexture(profile))
        _TEXTURES[id(profile)] = cached
    return cached[1]


def _table(shot: Shot, rng: np.random.Generator) -> NDArray[np.uint8]:
    base = np.array([60, 95, 140], np.float32) * float(rng.uniform(0.7, 1.2))
    small = rng.normal(0, 12, (shot.height // 32 + 1, shot.width // 32 + 1, 1)).astype(np.float32)
    noise = cv2.resize(small, (shot.width, shot.height), interpolation=cv2.INTER_CUBIC)[..., None]
    return np.asarray((base + noise).clip(0, 255), dtype=np.uint8)


def _lamp_tint(kelvin: float) -> NDArray[np.float32]:
    tint = np.array(kelvin_to_bgr(kelvin), np.float32)
    tint /= float(tint.max())  # auto exposure: the strongest channel is not overdriven
    return tint


def _illumination(
    shot: Shot, rng: np.random.Generator, conditions: Conditions, board_to_image: FloatArray
) -> NDArray[np.float32]:
    """Light colour, a gradient across the frame and a few soft shadows, as a gain image
    (with a real table's conditions: two lamps' colours and hard shadows)."""
    h, w = shot.height, shot.width
    tint = _lamp_tint(float(rng.uniform(*shot.kelvin)))
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    angle = rng.uniform(0, 2 * math.pi)
    ramp = (xx / w - 0.5) * math.cos(angle) + (yy / h - 0.5) * math.sin(angle)
    gain = float(rng.uniform(0.85, 1.1)) + ramp * float(rng.uniform(0.0, 0.35))
    for _ in range(int(rng.integers(0, 3))):
        mask = np.zeros((h, w), np.float32)
        centre = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
        axes = (int(rng.uniform(60, 250)), int(rng.uniform(40, 160)))
        cv2.ellipse(mask, centre, axes, float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
        mask = np.asarray(
            cv2.GaussianBlur(mask, (0, 0), float(rng.uniform(15, 40))), dtype=np.float32
        )
        gain = gain * (1 - mask * float(rng.uniform(0.15, 0.4)))
    if conditions.shadows:
        gain = gain * shadow_gain(conditions.shadows, board_to_image, w, h)
    if conditions.lamps_kelvin is not None:
        first, second = (_lamp_tint(k) for k in conditions.lamps_kelvin)
        mixed = lamps_tint(first, second, conditions, w, h)
        return np.asarray(gain[..., None] * mixed, dtype=np.float32)
    return np.asarray(gain[..., None] * tint[None, None, :], dtype=np.float32)


def _shadow(
    frame: NDArray[np.uint8],
    cam: Camera,
    base: tuple[float, float],
    size: tuple[float, float, float],
    light: FloatArray,
) -> None:
    width, height, _ = size
    offset = light[:2] / max(light[2], MIN_LIGHT_ELEVATION) * height * 0.6
    pts = np.array(
        [
            [base[0] + offset[0] + dx, base[1] + offset[1] + dy, 0.0]
            for dx, dy in (
                (-width / 2, -width / 2),
                (width / 2, -width / 2),
                (width / 2, width / 2),
                (-width / 2, width / 2),
            )
        ]
    )
    uv = cam.project(pts)
    x0, y0 = np.floor(uv.min(axis=0)).astype(int) - 12
    x1, y1 = np.ceil(uv.max(axis=0)).astype(int) + 12
    x0, y0 = max(x0, 0), max(y0, 0)
    x1, y1 = min(x1, frame.shape[1]), min(y1, frame.shape[0])
    if x1 <= x0 or y1 <= y0:
        return
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(mask, [np.round(uv - (x0, y0)).astype(np.int32)], 255)
    mask = np.asarray(cv2.GaussianBlur(mask, (0, 0), 3), dtype=np.uint8)
    roi = frame[y0:y1, x0:x1]
    roi[:] = (roi * (1 - mask[..., None] / 255.0 * 0.35)).astype(np.uint8)


def _draw_hand(
    frame: NDArray[np.uint8],
    cam: Camera,
    profile: BoardProfile,
    rng: np.random.Generator,
    light: FloatArray,
    skin_bgr: tuple[int, int, int],
) -> bool:
    """An arm of ``skin_bgr`` reaching from outside the sheet to a point above the board."""
    w, h = profile.geometry.sheet_mm
    tip = np.array([rng.uniform(80, w - 80), rng.uniform(80, h - 80), -rng.uniform(20, 120)])
    angle = rng.uniform(0, 2 * math.pi)
    start = tip + np.array([math.cos(angle) * 700, math.sin(angle) * 700, -rng.uniform(50, 250)])
    radius = float(rng.uniform(30, 45))
    # Shadow on the board along the light.
    shadow_pts = []
    for p3 in (tip, start):
        k = -p3[2] / max(light[2], MIN_LIGHT_ELEVATION)
        shadow_pts.append([p3[0] + light[0] * k, p3[1] + light[1] * k, 0.0])
    mask = np.zeros(frame.shape[:2], np.uint8)
    _capsule(mask, cam, np.array(shadow_pts), radius, 255)
    mask = np.asarray(cv2.GaussianBlur(mask, (0, 0), 12), dtype=np.uint8)
    frame[:] = (frame * (1 - mask[..., None] / 255.0 * 0.45)).astype(np.uint8)
    steps = 12
    for k in range(steps):
        t = k / (steps - 1)
        tone = 0.75 + 0.25 * math.sin(t * math.pi)
        colour = [int(c * tone * float(rng.uniform(0.95, 1.05))) for c in skin_bgr]
        _capsule(frame, cam, np.array([tip, start]), radius * (1 - 0.6 * t), colour)
    return True


def _capsule(
    image: NDArray[np.uint8],
    cam: Camera,
    seg: FloatArray,
    radius_mm: float,
    colour: list[int] | int,
) -> None:
    a, b = seg
    n = 24
    for t in np.linspace(0, 1, n):
        p3 = a + (b - a) * t
        depth = float(cam.depth(p3[None])[0])
        if depth <= NEAR_PLANE_MM:
            continue
        uv = cam.project(p3[None])[0]
        r_px = max(int(cam.k[0, 0] * radius_mm / depth), 1)
        if abs(uv[0]) > FAR_OFF_FRAME_PX or abs(uv[1]) > FAR_OFF_FRAME_PX:
            continue
        cv2.circle(image, (int(uv[0]), int(uv[1])), r_px, colour, -1, cv2.LINE_AA)


def _degrade(
    frame: NDArray[np.float32], shot: Shot, rng: np.random.Generator, tint: NDArray[np.float32]
) -> NDArray[np.float32]:
    """Glare (a reflection of the light, so in its colour), blur, sensor noise and JPEG."""
    h, w = frame.shape[:2]
    glare = np.zeros((h, w), np.float32)
    cv2.circle(
        glare, (int(rng.uniform(0, w)), int(rng.uniform(0, h))), int(rng.uniform(20, 90)), 1.0, -1
    )
    glare = np.asarray(cv2.GaussianBlur(glare, (0, 0), float(rng.uniform(10, 30))), np.float32)
    frame = frame + glare[..., None] * tint[None, None, :] * float(rng.uniform(0, 70))
    sigma = float(rng.uniform(0.0, 1.2))
    if sigma > 0.2:
        frame = np.asarray(cv2.GaussianBlur(frame, (0, 0), sigma), dtype=np.float32)
    frame = frame + rng.normal(0, float(rng.uniform(1, 5)), frame.shape).astype(np.float32)
    quality = int(rng.integers(60, 96))
    ok, buf = cv2.imencode(
        ".jpg", frame.clip(0, 255).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, quality]
    )
    decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else None
    return frame if decoded is None else np.asarray(decoded, dtype=np.float32)


def random_state(profile: BoardProfile, rng: np.random.Generator) -> BoardState:
    """A possible board: some slots hold tiles with a strictly predominant colour, some
    workers out of the box."""
    cells = ["."] * (GRID * GRID)
    fill = float(rng.uniform(0.0, 1.0))
    for slot in profile.slots:
        if rng.random() > fill:
            continue
        owner = str(rng.choice(list("BGYR")))
        pattern = [owner] * 4
        kind = int(rng.integers(0, 3))
        others = [c for c in "BGYR" if c != owner]
        if kind >= 1:
            pattern[0] = str(rng.choice(others))
        if kind == 2:
            pattern[1] = str(rng.choice(others))
            if pattern[1] == pattern[0]:
                pattern[1] = owner
        order = rng.permutation(4)
        for k, i in enumerate(slot):
            cells[i] = pattern[int(order[k])]
    # Workers come from the box: each colour has five vilici and one dominus.
    box = [colour + size for colour in "BGYR" for size in "vvvvvd"]
    workers: list[str | None] = []
    density = float(rng.uniform(0.0, 0.7))
    for _ in range(2 * GRID):
        if box and rng.random() < density:
            workers.append(box.pop(int(rng.integers(len(box)))))
        else:
            workers.append(None)
    return BoardState("".join(cells), tuple(workers))
