"""What the camera hands the table for Garum: one stable view of the board."""

from __future__ import annotations

from dataclasses import dataclass

from companion.games.garum.state import BoardState


@dataclass(frozen=True)
class Sighting:
    """A stable sighting of the board, with the camera frame (JPEG) kept as evidence."""

    state: BoardState
    jpeg: bytes | None = None
    # Unread cells glare washed out (see companion.vision.reader.Reading.glare): a lamp
    # the players can move, where waiting for a clearer view would wait for ever.
    glare: frozenset[int] = frozenset()
