"""An image's width and height read from its file header, before any pixel is decoded.

Decoding is where a hostile photo costs memory (a small PNG may declare 60000 x 60000
pixels), so the size is checked first against :mod:`companion.limits`.  Only the formats
the camera and the command line use are recognised: PNG, JPEG, BMP, TIFF and WebP.
"""

from __future__ import annotations

import struct

from companion.errors import InputError
from companion.limits import MAX_IMAGE_ASPECT, MAX_IMAGE_PIXELS, MIN_IMAGE_SIDE_PX

FORMATS = "PNG, JPEG, BMP, TIFF or WebP"
# JPEG start-of-frame markers: every 0xC0-0xCF except DHT, JPG and DAC.
_JPEG_FRAMES = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}
_JPEG_STANDALONE = frozenset({0x01, *range(0xD0, 0xD9)})


class HeaderError(ValueError):
    """The header is missing, truncated or of an unknown format."""


def image_size(data: bytes) -> tuple[int, int]:
    """``(width, height)`` declared by the header, or :class:`HeaderError`."""
    try:
        if data.startswith(b"\x89PNG\r\n\x1a\n"):
            return _png(data)
        if data.startswith(b"\xff\xd8"):
            return _jpeg(data)
        if data.startswith(b"BM"):
            return _bmp(data)
        if data[:4] in (b"II*\x00", b"MM\x00*"):
            return _tiff(data)
        if data.startswith(b"RIFF") and data[8:12] == b"WEBP":
            return _webp(data)
    except (struct.error, IndexError):
        raise HeaderError("its header is cut short") from None
    raise HeaderError(f"not a {FORMATS} image")


def check_image_size(width: int, height: int, source: str) -> None:
    """Refuses sizes that cannot be a photo of the board or would not fit in memory."""
    if width < MIN_IMAGE_SIDE_PX or height < MIN_IMAGE_SIDE_PX:
        raise InputError(
            f"{width} x {height} pixels is too small to show the board "
            f"(at least {MIN_IMAGE_SIDE_PX} pixels a side)",
            source=source,
        )
    if width * height > MAX_IMAGE_PIXELS:
        raise InputError(
            f"{width} x {height} pixels is more than the limit of "
            f"{MAX_IMAGE_PIXELS / 1e6:g} megapixels",
            source=source,
        )
    if max(width, height) > MAX_IMAGE_ASPECT * min(width, height):
        raise InputError(
            f"{width} x {height} pixels is too narrow to show the board "
            f"(sides at most {MAX_IMAGE_ASPECT:g} to 1)",
            source=source,
        )


def _png(data: bytes) -> tuple[int, int]:
    if data[12:16] != b"IHDR":
        raise HeaderError("a PNG without its IHDR header")
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def _jpeg(data: bytes) -> tuple[int, int]:
    at = 2
    while True:
        if data[at] != 0xFF:
            raise HeaderError("a JPEG with a damaged header")
        while data[at] == 0xFF:  # fill bytes
            at += 1
        marker = data[at]
        at += 1
        if marker in _JPEG_STANDALONE:
            continue
        (length,) = struct.unpack(">H", data[at : at + 2])
        if marker in _JPEG_FRAMES:
            height, width = struct.unpack(">HH", data[at + 3 : at + 7])
            return width, height
        if marker == 0xDA or length < 2:
            raise HeaderError("a JPEG without a frame header")
        at += length


def _bmp(data: bytes) -> tuple[int, int]:
    (header_size,) = struct.unpack("<I", data[14:18])
    if header_size == 12:
        width, height = struct.unpack("<HH", data[18:22])
        return width, height
    width, height = struct.unpack("<ii", data[18:26])
    return abs(width), abs(height)


def _tiff(data: bytes) -> tuple[int, int]:
    order = "<" if data[:2] == b"II" else ">"
    (ifd,) = struct.unpack(f"{order}I", data[4:8])
    (count,) = struct.unpack(f"{order}H", data[ifd : ifd + 2])
    size: dict[int, int] = {}
    for i in range(count):
        entry = data[ifd + 2 + 12 * i : ifd + 14 + 12 * i]
        tag, kind = struct.unpack(f"{order}HH", entry[:4])
        if tag in (256, 257):
            fmt = f"{order}H" if kind == 3 else f"{order}I"
            size[tag] = struct.unpack(fmt, entry[8 : 10 if kind == 3 else 12])[0]
    if len(size) != 2:
        raise HeaderError("a TIFF without its width and height")
    return size[256], size[257]


def _webp(data: bytes) -> tuple[int, int]:
    chunk = data[12:16]
    if chunk == b"VP8 ":
        width, height = struct.unpack("<HH", data[26:30])
        return width & 0x3FFF, height & 0x3FFF
    if chunk == b"VP8L":
        (bits,) = struct.unpack("<I", data[21:25])
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X":
        width = int.from_bytes(data[24:27], "little") + 1
        height = int.from_bytes(data[27:30], "little") + 1
        return width, height
    raise HeaderError("a WebP of an unknown kind")
