"""Garum's simulated game for the harnesses: what the camera would see of seeded players.

The moves are stable sightings of a random legal game (:func:`simulate_game`); asked to be
hostile, every few turns a player first puts a tile in the wrong vat and then fixes it, a
reading repeats, and one comes with a cell the camera cannot read.  The script depends on
the game's setup alone (the aureus the table drew included), so a resumed table is given
the same sightings.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from companion.boards import load_profile
from companion.games.garum.referee import GarumReferee, SetupRequest
from companion.games.garum.replay import export_lines
from companion.games.garum.rules import Game
from companion.games.garum.setup import GameSetup
from companion.games.garum.sighting import Sighting
from companion.games.garum.simulate import random_setup, simulate_game
from companion.games.garum.sources import misplaced
from companion.games.garum.state import BoardState
from companion.games.simulation_seam import Move, Seen, check_choices
from companion.games.table_seam import Match

#: With no player count asked for: the crash test's two-player game, seats fixed.
TWO_SEATS = SetupRequest("troia", "standard", (("Ana", ("B", "G")), ("Ben", ("Y", "R"))))
CHOICES = {"board": "troia", "variant": "standard"}


def readings_for(setup: GameSetup, seed: int, turns: int | None) -> list[Sighting]:
    """The camera's stable readings for ``turns`` turns, with every few turns a flagged move
    (later fixed by the player), a repeated reading and an unreadable one."""
    rng = random.Random(seed)
    game = Game.new(setup)
    out: list[Sighting] = []
    for number, state in enumerate(simulate_game(setup, rng)[:turns]):
        frame = f"frame-{number}".encode()
        if number % 5 == 2:
            out.append(Sighting(misplaced(game, state), frame + b"-bad"))
        if number % 7 == 3:
            out.append(Sighting(BoardState("?" + state.cells[1:], state.workers)))
        out.append(Sighting(state, frame))
        if number % 4 == 1:
            out.append(Sighting(state, frame))
        game = game.advance(state)
    return out


def illegal_after(board: BoardState) -> BoardState | None:
    """The board with a worker where none may stand yet: a move the rules refuse (``None``
    when every line already holds one)."""
    workers = list(board.workers)
    if None not in workers:
        return None
    workers[workers.index(None)] = "Bv"
    return replace(board, workers=tuple(workers))


class GarumSimulation:
    """See the module docstring; ``players=None`` plays :data:`TWO_SEATS`."""

    def __init__(
        self,
        seed: int,
        *,
        players: int | None = None,
        hostile: bool = False,
        choices: Mapping[str, str] | None = None,
    ) -> None:
        self.seed = seed
        self.players = players
        self.hostile = hostile
        self.choices = check_choices(choices, CHOICES)
        self._plans: dict[int, list[BoardState]] = {}  # game number -> the boards to show

    def referee(self) -> GarumReferee:
        return GarumReferee()  # its one draw, the aureus, comes from the session's generator

    def setup_request(self) -> SetupRequest:
        board, variant = self.choices["board"], self.choices["variant"]
        if self.players is None and (board, variant) == (TWO_SEATS.board, TWO_SEATS.variant):
            return TWO_SEATS
        setup = random_setup(
            load_profile(board), self.players or 2, variant, random.Random(self.seed)
        )
        return SetupRequest(
            board=board,
            variant=variant,
            seats=tuple((s.name, s.colours) for s in setup.seats),
            ghost=setup.ghost,
            first_seat=setup.first_seat,
        )

    def script(self, match: Match, turns: int | None = None) -> list[Move]:
        setup = _position(match).setup
        if self.hostile:
            return [Seen(s) for s in readings_for(setup, self.seed, turns)]
        boards = simulate_game(setup, random.Random(self.seed))[:turns]
        return [Seen(Sighting(board)) for board in boards]

    def next_move(self, match: Match, rng: random.Random) -> Move | None:
        """The next turn of a random game played from the match's setup, drawn once per
        game (after a correction it may no longer fit, and the table flags it)."""
        game = _position(match)
        plan = self._plans.get(match.game)
        if plan is None:
            plan = self._plans[match.game] = simulate_game(game.setup, rng)
        return Seen(Sighting(plan[game.turn_index])) if game.turn_index < len(plan) else None

    def dispute(self, match: Match) -> Move | None:
        board = illegal_after(_position(match).state)
        return Seen(Sighting(board)) if board is not None else None

    def digest(self, match: Match) -> dict[str, Any]:
        game, history = _position(match), match.history
        flag = history.flag
        return {
            "board": game.state.to_dict(),
            "turn": game.turn.number if game.turn else None,
            "boards": history.boards,
            "vats": list(game.vats),
            "flag": [flag.outcome, flag.reading.board, [v["code"] for v in flag.violations]]
            if flag
            else None,
        }

    def export(self, match: Match) -> list[str]:
        return export_lines(match.history)


def _position(match: Match) -> Game:
    game = match.position
    if not isinstance(game, Game):
        raise TypeError(f"not a Garum match: {type(match).__name__}")
    return game
