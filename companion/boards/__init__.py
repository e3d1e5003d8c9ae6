"""Board profiles: the physical board as data (grid, numbering, bonuses, geometry, colours)."""

from companion.boards.profile import (
    BUILTIN,
    GRID,
    LINES,
    SPECIES,
    BoardProfile,
    BonusCell,
    InfluenceArea,
    load_profile,
    profile_from_dict,
    worker_strip,
)

__all__ = [
    "BUILTIN",
    "GRID",
    "LINES",
    "SPECIES",
    "BoardProfile",
    "BonusCell",
    "InfluenceArea",
    "load_profile",
    "profile_from_dict",
    "worker_strip",
]
