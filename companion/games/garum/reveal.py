"""How much of the aureus order the table may know: the rule of revelation, in one place."""

from __future__ import annotations


def revealed_vats(variant: str, round_number: int | None) -> int | None:
    """How many aureus vats anyone at the table may know in ``round_number``: those turned
    face up so far, and in the Haruspex variant the next one too; ``None`` means all (no
    round in play: the game is over)."""
    if round_number is None:
        return None
    return round_number + (1 if variant == "haruspex" else 0)
