"""Fish tiles: 2 x 2 cells whose owner is the strictly predominant colour."""

from __future__ import annotations

from collections import Counter
from itertools import product

from companion.boards.profile import SPECIES


def tile_owner(cells: str) -> str | None:
    """The colour holding strictly more cells than any other, or None.

    A legal face is 4, 3+1 or 2+1+1; 2+2, 1+1+1+1 and any face with an empty or
    unreadable cell has no owner.
    """
    if len(cells) != 4 or any(c not in SPECIES for c in cells):
        return None
    counts = Counter(cells).most_common()
    if len(counts) > 1 and counts[0][1] == counts[1][1]:
        return None
    return counts[0][0]


def legal_faces(colour: str) -> tuple[str, ...]:
    """Every face a tile of ``colour`` may show (cells in order TL, TR, BL, BR)."""
    return tuple(
        "".join(face) for face in product(SPECIES, repeat=4) if tile_owner("".join(face)) == colour
    )
