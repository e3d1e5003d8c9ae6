"""Garum rules: a pure, typed core with no I/O.

Build a :class:`GameSetup`, start a :class:`Game`, and feed it observed board states:
:meth:`Game.judge` returns a :class:`Verdict` with stable :class:`ViolationCode` values and
:meth:`Game.advance` moves on.  :func:`score_state` scores any board.
"""

from companion.games.garum.record import GameRecord, parse_record, record_lines
from companion.games.garum.rules import Game, GameOver, Slot, Turn, line_name
from companion.games.garum.scoring import (
    ColourScore,
    LineScore,
    ScoreSheet,
    SeatScore,
    line_points,
    score_state,
    winner_reason,
)
from companion.games.garum.setup import (
    GameSetup,
    PlannedTurn,
    Seat,
    SetupError,
    Variant,
    draw_aureus,
)
from companion.games.garum.simulate import random_setup, simulate_game
from companion.games.garum.state import BoardState
from companion.games.garum.supply import impossible_board
from companion.games.garum.tiles import legal_faces, tile_owner
from companion.games.garum.violations import Verdict, Violation, ViolationCode

__all__ = [
    "BoardState",
    "ColourScore",
    "Game",
    "GameOver",
    "GameRecord",
    "GameSetup",
    "LineScore",
    "PlannedTurn",
    "ScoreSheet",
    "Seat",
    "SeatScore",
    "SetupError",
    "Slot",
    "Turn",
    "Variant",
    "Verdict",
    "Violation",
    "ViolationCode",
    "draw_aureus",
    "impossible_board",
    "legal_faces",
    "line_name",
    "line_points",
    "parse_record",
    "random_setup",
    "record_lines",
    "score_state",
    "simulate_game",
    "tile_owner",
    "winner_reason",
]
