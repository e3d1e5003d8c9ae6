"""Every bound on outside input, in one place.

A file, a photo or a request that exceeds one of these is refused with a plain message
before it can cost the table memory, time or a crash.  The numbers are generous for any
real game (a full record of the longest game is about 30 KB, a phone photo about 50 megapixels).
"""

from __future__ import annotations

import unicodedata

MAX_JSON_DEPTH = 32
"""Nesting of arrays and objects; the deepest real document (a board profile) uses 5."""

MAX_NUMBER_CHARS = 40
"""Characters in one JSON number: enough for any float, far below Python's int limit."""

MAX_TEXT_FILE_BYTES = 8 * 1024 * 1024
"""A game record, board state, profile or configuration file."""

MAX_NAME_CHARS = 40
"""A player's name, at the table's setup and in a game record."""

MAX_IMAGE_FILE_BYTES = 128 * 1024 * 1024
"""A photo file, read only after its header has passed the pixel bounds below."""

MAX_IMAGE_PIXELS = 64_000_000
"""Width times height of a photo: a 48-megapixel phone camera fits, a decompression bomb
declaring 60000 x 60000 does not."""

MIN_IMAGE_SIDE_PX = 64
"""Below this a photo cannot show the board's markers at all."""

MAX_IMAGE_ASPECT = 8.0
"""Longer side over shorter side; a strip of pixels holds no board."""

MAX_MESSAGE_CHARS = 400
"""An error line on the terminal; a value quoted from a hostile file is cut to fit."""


# Characters a player's name may not hold: controls, lone surrogates (not text at all:
# they cannot be written as UTF-8), unassigned and private-use code points, and the
# bidirectional overrides that let a name display as another.
_NAME_REFUSED_CATEGORIES = frozenset({"Cc", "Cs", "Co", "Cn"})
_BIDI_OVERRIDES = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def name_problem(name: object) -> str | None:
    """Why ``name`` cannot be a player's name, or ``None`` when it can."""
    if not isinstance(name, str) or not name.strip():
        return f"expected a name of 1-{MAX_NAME_CHARS} characters"
    if len(name.strip()) > MAX_NAME_CHARS:
        return f"a name of {len(name.strip())} characters (at most {MAX_NAME_CHARS})"
    for ch in name:
        if ch in _BIDI_OVERRIDES or unicodedata.category(ch) in _NAME_REFUSED_CATEGORIES:
            return f"a name may not hold the character {ch.encode('unicode_escape').decode()}"
    return None
