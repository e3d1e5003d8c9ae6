"""Sighting sources that need no camera: a recorded or simulated game, as a table would see it."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Iterator, Sequence

from companion.boards.profile import BoardProfile
from companion.games.garum import Game, GameSetup, simulate_game
from companion.games.garum.players import SimulatedPlayers
from companion.games.garum.sighting import Sighting
from companion.games.garum.state import BoardState


class RecordReadings:
    """Plays board states as stable readings, with a hand over the board between them."""

    def __init__(
        self,
        states: Sequence[BoardState],
        *,
        interval_s: float = 2.0,
        frame: Callable[[BoardState], bytes] | None = None,
    ) -> None:
        self._states = list(states)
        self._interval_s = interval_s
        self._frame = frame
        self._closed = threading.Event()

    def readings(self) -> Iterator[Sighting | None]:
        for state in self._states:
            if self._closed.wait(self._interval_s / 2):
                return
            yield None  # a hand over the board
            if self._closed.wait(self._interval_s / 2):
                return
            yield Sighting(state, self._frame(state) if self._frame else None)
        self._closed.wait()

    def close(self) -> None:
        self._closed.set()


class PlayersReadings:
    """The demo's simulated players seen without a camera: a hand over the board while they
    change it, then the board they leave, as one stable reading."""

    def __init__(
        self,
        players: SimulatedPlayers,
        *,
        hand_s: float = 1.0,
        tick_s: float = 0.05,
        frame: Callable[[BoardProfile, BoardState], bytes] | None = None,
    ) -> None:
        self._players = players
        self._hand_s = hand_s
        self._tick_s = tick_s
        self._frame = frame
        self._closed = threading.Event()

    def readings(self) -> Iterator[Sighting | None]:
        while not self._closed.wait(self._tick_s):
            move = self._players.step(time.monotonic())
            if move is None:
                continue
            yield None  # a hand over the board
            if self._closed.wait(self._hand_s):
                return
            jpeg = self._frame(move.profile, move.board) if self._frame else None
            yield Sighting(move.board, jpeg)

    def close(self) -> None:
        self._closed.set()


def misplaced(game: Game, legal_next: BoardState) -> BoardState:
    """``legal_next`` with an extra tile of the player's colour in another empty vat."""
    assert game.turn is not None
    board = game.setup.board
    cells = list(legal_next.cells)
    for vat in board.vats:
        slot = board.vat_slots[vat][0]
        if vat != game.turn.vat and all(cells[c] == "." for c in slot):
            for c in slot:
                cells[c] = game.turn.colour
            return BoardState("".join(cells), legal_next.workers)
    return legal_next


def simulated_players(
    setup: GameSetup, rng: random.Random, *, mistakes_at: tuple[int, ...] = (4,)
) -> list[BoardState]:
    """A random legal game in which, at the given turn numbers, a player first puts a tile
    in the wrong vat and then corrects it: the board states a camera would settle on."""
    game = Game.new(setup)
    out: list[BoardState] = []
    for state in simulate_game(setup, rng):
        assert game.turn is not None
        if game.turn.number in mistakes_at:
            out.append(misplaced(game, state))
        out.append(state)
        game = game.advance(state)
    return out
