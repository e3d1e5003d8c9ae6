"""Fish tiles: 2 x 2 cells whose owner is the strictly predominant colour."""

from __future__ import annotations

from collections import Counter
from itertools import product

from companion.boards.profile import SPECIES


def _predominant(cells: str) -> str | None:
    counts = Counter(cells).most_common()
    if len(counts) > 1 and counts[0][1] == counts[1][1]:
        return None
    return counts[0][0]


# Every face of four fish, looked up rather than counted: scoring asks this for each bonus.
_OWNERS = {"".join(face): _predominant("".join(face)) for face in product(SPECIES, repeat=4)}


def tile_owner(cells: str) -> str | None:
    """The colour holding strictly more cells than any other, or None.

    A legal face is 4, 3+1 or 2+1+1; 2+2, 1+1+1+1 and any face with an empty or
    unreadable cell has no owner.
    """
    return _OWNERS.get(cells)


def legal_faces(colour: str) -> tuple[str, ...]:
    """Every face a tile of ``colour`` may show (cells in order TL, TR, BL, BR)."""
    return tuple(
        "".join(face) for face in product(SPECIES, repeat=4) if tile_owner("".join(face)) == colour
    )
