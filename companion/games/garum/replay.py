"""Rules positions rebuilt from a game's history: for resuming, replay pages and export."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from companion.games.garum.history import History
from companion.games.garum.record import header_dict, parse_record, record_lines
from companion.games.garum.rules import Game
from companion.games.garum.setup import GameSetup
from companion.games.garum.state import BoardState
from companion.games.table_seam import canonical_json


def header_of(setup: GameSetup) -> dict[str, Any]:
    """The game-record header of a setup, as stored in the ``game_started`` event."""
    return header_dict(setup)


def setup_from_header(header: Mapping[str, Any]) -> GameSetup:
    return parse_record([canonical_json(dict(header))], "game log").setup


def game_at(history: History, steps: int | None = None) -> Game:
    """The position after the first ``steps`` accepted steps (all of them by default)."""
    game = Game.new(setup_from_header(history.header))
    for step in history.steps[:steps]:
        if step.vat is not None:
            game = game.choose_vat(step.vat)
        elif step.board is not None:
            game = game.advance(BoardState.from_dict(step.board))
    return game


def export_lines(history: History) -> list[str]:
    """The game as a game record (JSON Lines); an Emperor game lists the vats chosen."""
    game = game_at(history)
    setup = replace(game.setup, aureus=game.vats)
    return record_lines(setup, (BoardState.from_dict(b) for b in history.boards))
