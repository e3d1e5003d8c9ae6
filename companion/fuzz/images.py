"""Image files no camera would give: odd sizes, noise, cut short, or a PNG lying about its size.

The lying PNG declares a huge size in its header but carries a few bytes of pixels, so a
reader that trusts the header before checking it allocates gigabytes; every size declared
here is past OpenCV's own pixel limit, so a run never actually allocates them.
"""

from __future__ import annotations

import random
import struct
import zlib

import cv2
import numpy as np

# (width, height) declared by the lying PNGs: each above 2**30 pixels.
HUGE_SIZES = ((60_000, 60_000), (1_000_000, 2_000), (2_000_000_000, 1), (65_535, 65_535))
ODD_SIZES = ((1, 1), (1, 1000), (1000, 1), (2, 2), (3, 5000), (7, 7), (16, 9), (40, 30))


def _chunk(kind: bytes, body: bytes) -> bytes:
    crc = zlib.crc32(kind + body) & 0xFFFFFFFF
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)


def lying_png(width: int, height: int) -> bytes:
    """A well-formed PNG header declaring ``width`` x ``height``, with one row of pixels."""
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00" + b"\x80" * min(width * 3, 3000))
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", pixels)
        + _chunk(b"IEND", b"")
    )


def encoded(image: np.ndarray, suffix: str) -> bytes:
    ok, data = cv2.imencode(suffix, image)
    if not ok:
        raise ValueError(f"OpenCV could not encode a {suffix} image")
    return bytes(data.tobytes())


def _noise(rng: random.Random, height: int, width: int) -> np.ndarray:
    generator = np.random.default_rng(rng.randrange(2**32))
    return generator.integers(0, 256, (height, width, 3), dtype=np.uint8)


def hostile_image(rng: random.Random) -> tuple[bytes, str, str]:
    """(file bytes, file suffix, what it is)."""
    roll = rng.random()
    if roll < 0.35:
        w, h = rng.choice(ODD_SIZES)
        image = np.full((h, w, 3), rng.randrange(256), np.uint8)
        suffix = rng.choice((".png", ".jpg"))
        return encoded(image, suffix), suffix, f"{w} x {h} image"
    if roll < 0.5:
        w, h = rng.choice(HUGE_SIZES)
        return lying_png(w, h), ".png", f"PNG declaring {w} x {h}"
    if roll < 0.7:
        data = encoded(_noise(rng, 120, 160), ".jpg")
        cut = rng.randrange(1, len(data))
        return data[:cut], ".jpg", f"160 x 120 noise JPEG cut at byte {cut} of {len(data)}"
    if roll < 0.85:
        return encoded(_noise(rng, 48, 64), ".png"), ".png", "64 x 48 noise"
    size = rng.choice((0, 8, 100, 5000))
    data = bytes(rng.randrange(256) for _ in range(size))
    return data, rng.choice((".png", ".jpg", ".bmp", ".tif")), f"{size} random bytes"
