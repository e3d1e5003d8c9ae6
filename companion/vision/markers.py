"""The printable marker sheet: the board's ArUco markers at true size.

Written as a PNG whose header states its resolution (pHYs chunk), so printing at 100 %
gives markers of exactly the profile's side length.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.boards import BoardProfile

MM_PER_INCH = 25.4


def marker_sheet(profile: BoardProfile, dpi: int = 300) -> NDArray[np.uint8]:
    """The sheet (white, with each marker and its quiet zone) as a grey image at ``dpi``."""
    g, m = profile.geometry, profile.markers
    px_per_mm = dpi / MM_PER_INCH
    width, height = round(g.sheet_mm[0] * px_per_mm), round(g.sheet_mm[1] * px_per_mm)
    sheet = np.full((height, width), 255, np.uint8)
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, m.dictionary))
    side = round(m.side_mm * px_per_mm)
    for mid, (cx, cy) in m.centres_mm.items():
        marker = cv2.aruco.generateImageMarker(dictionary, mid, side)
        x, y = round((cx - m.side_mm / 2) * px_per_mm), round((cy - m.side_mm / 2) * px_per_mm)
        sheet[y : y + side, x : x + side] = marker
    return sheet


def write_png(path: Path, image: NDArray[np.uint8], dpi: int) -> None:
    """Writes ``image`` as PNG with its physical resolution in the pHYs chunk."""
    ok, buf = cv2.imencode(".png", image)
    if not ok:
        raise OSError("PNG encoding failed")
    data = buf.tobytes()
    ppm = round(dpi / MM_PER_INCH * 1000)
    body = b"pHYs" + struct.pack(">IIB", ppm, ppm, 1)
    chunk = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    ihdr_end = 8 + 25  # signature + IHDR chunk
    path.write_bytes(data[:ihdr_end] + chunk + data[ihdr_end:])


def png_dpi(path: Path) -> float | None:
    """The resolution a PNG states, or ``None``."""
    data = path.read_bytes()
    at = data.find(b"pHYs")
    if at < 0:
        return None
    ppx, _, unit = struct.unpack(">IIB", data[at + 4 : at + 13])
    return ppx * MM_PER_INCH / 1000 if unit == 1 else None
