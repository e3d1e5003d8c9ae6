"""The demo's simulated players: people at the table who treat the companion as the referee.

They play a legal move from whatever position the table holds, take a tile from the wrong
pile at planned turns of the demo's first game (a game the operator starts plays clean, so
it can be watched through without a flag), and follow the operator: an accepted move stays
on the board, a rejected or undone move is taken back, a corrected board is arranged as
the operator stated it, and a new game starts from a cleared board.  The planned mistake
is a tile of the wrong colour in the right slot, so a game where the operator accepts it
plays on legally.

When the table flags a move they either wait for the operator (``patience_s=None``) or,
after ``patience_s``, settle it themselves: they fix their own mistake on the board, or tell
the table what is really there when the camera misread it (logged as the demo's
correction, never as the operator's).  A misread that raised no flag is put right even
when they wait for the operator, who would never hear of it.

Everything is decided in :meth:`SimulatedPlayers.step`, called with the time, so tests drive
a game step by step and the camera or reading source only shows the boards it returns.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any, Protocol

from companion.boards.profile import SPECIES, BoardProfile
from companion.errors import CompanionError
from companion.games.garum.history import History
from companion.games.garum.rules import Game, legal_worker_lines
from companion.games.garum.state import BoardState
from companion.games.garum.tiles import legal_faces
from companion.games.simulated import DEFAULT_PACE_S, DEFAULT_PATIENCE_S, DEMO_MISTAKES

DEMO_AUTHOR = "demo"  # the ``by`` of what the demo itself does at the table
WORKER_CHANCE = 0.35


class WatchedTable(Protocol):
    """What the players see of the table and may do at it (a :class:`TableSession`)."""

    def position(self) -> tuple[History | None, Game | None]: ...

    def operate(self, kind: str, timeout_s: float = 10.0, **args: Any) -> Any: ...


@dataclass(frozen=True)
class Move:
    """The board after the players' hands leave it, and why they changed it."""

    board: BoardState
    why: str  # play, mistake, fix, take back, follow, clear
    profile: BoardProfile


@dataclass(frozen=True)
class PlayersPlan:
    """How the simulated players behave; the defaults leave a newcomer time to act."""

    pace_s: float = DEFAULT_PACE_S  # the board stays still this long after a move is taken
    patience_s: float | None = DEFAULT_PATIENCE_S  # None: wait for the operator, always
    mistakes_at: tuple[int, ...] = DEMO_MISTAKES


class SimulatedPlayers:
    def __init__(
        self, table: WatchedTable, plan: PlayersPlan, rng: random.Random | None = None
    ) -> None:
        self._table = table
        self.plan = plan
        self._rng = rng or random.Random()
        self.board = BoardState()  # what really lies on the table
        self.profile: BoardProfile | None = None
        self._game_id: int | None = None
        self._placed: BoardState | None = None  # the last board put down as a move
        self._placed_steps = 0  # accepted steps when it was put down
        self._placed_after_seq = 0  # the table's last reading when it was put down
        self._intended: BoardState | None = None  # the legal move behind a planned mistake
        self._mistakes_made: set[int] = set()
        self._games_seen = 0  # the planned mistakes belong to the first game only
        self._moves = 0
        self._stuck_turn: int | None = None  # a turn with no legal move, already reported
        self._wait_key: Hashable = None
        self._wait_since_s = 0.0

    def step(self, now_s: float) -> Move | None:
        """Looks at the table and acts: the new board if the players changed it."""
        history, game = self._table.position()
        if history is None or game is None:
            return None
        if history.game != self._game_id:
            return self._start(history, game)
        if history.ended is not None or game.is_over:
            return None
        if self._pending(history, game):
            if self._waited(("pending", self._moves), self._unseen_patience_s, now_s):
                self._tell_the_table(history)
            return None
        flag = history.flag
        if flag is None:
            if game.state == self.board:
                self._intended = None
                if self._waited(("play", self._moves), self.plan.pace_s, now_s):
                    return self._play(game, history)
                return None
            if self._misread_accepted(history):
                if self._waited(("misread", self._moves), self._unseen_patience_s, now_s):
                    self._tell_the_table(history)
                return None
            self._intended = None  # the operator rejected, undid or corrected: follow
            why = "follow" if self._adds_pieces(game.state) else "take back"
            return self._put(game.state, why, game, history)
        if not self._waited(("flag", flag.reading.seq, self._moves), self.plan.patience_s, now_s):
            return None
        if BoardState.from_dict(flag.reading.board) == self.board:  # their own move: fix it
            target = self._intended if self._intended is not None else game.state
            self._intended = None
            return self._put(target, "fix", game, history)
        self._operate("correct", board=self.board.to_dict())  # the camera misread the board
        return None

    @property
    def _unseen_patience_s(self) -> float:
        """How long before the demo puts right a misread that raised no flag (an operator
        waiting for flags would never hear of it)."""
        return DEFAULT_PATIENCE_S if self.plan.patience_s is None else self.plan.patience_s

    # -- what the players do -------------------------------------------------------------

    def _start(self, history: History, game: Game) -> Move | None:
        """A new game (or the one the table resumed): the board is laid out as the table has it."""
        same_board = self.profile is None or self.profile.name == game.board.name
        self._game_id, self.profile = history.game, game.board
        self._placed = self._intended = None
        self._mistakes_made = set()
        self._games_seen += 1
        self._wait_key = None
        if game.state == self.board and same_board:
            return None
        why = "clear" if game.state == BoardState() else "follow"
        return self._put(game.state, why, game, history)

    def _play(self, game: Game, history: History) -> Move | None:
        turn = game.turn
        assert turn is not None
        legal = legal_move(game, self._rng)
        if legal is None:  # e.g. the operator accepted a board that left no free slot
            if self._stuck_turn != turn.number:
                self._stuck_turn = turn.number
                print(
                    f"demo players: turn {turn.number} has no legal move; waiting for the operator",
                    file=sys.stderr,
                )
            return None
        planned = self._games_seen == 1 and turn.number in self.plan.mistakes_at
        if planned and turn.number not in self._mistakes_made:
            self._mistakes_made.add(turn.number)
            self._intended = legal
            return self._put(wrong_tile(game, legal, self._rng), "mistake", game, history)
        return self._put(legal, "play", game, history)

    def _put(self, board: BoardState, why: str, game: Game, history: History) -> Move:
        self.board = board
        self._placed = board if board != game.state else None
        self._placed_steps = len(history.steps)
        self._placed_after_seq = _last_reading_seq(history)
        self._moves += 1
        return Move(board, why, game.board)

    def _adds_pieces(self, board: BoardState) -> bool:
        """Whether arranging ``board`` adds pieces (a correction) rather than only removing."""
        return any(a != "." and b != a for a, b in zip(board.cells, self.board.cells, strict=True))

    # -- waiting for the table -----------------------------------------------------------

    def _pending(self, history: History, game: Game) -> bool:
        """The table has not judged the board the players put down: no reading since."""
        placed = self._placed
        return (
            placed is not None
            and game.state != placed
            and _last_reading_seq(history) <= self._placed_after_seq
        )

    def _misread_accepted(self, history: History) -> bool:
        """The camera accepted, after the players' move, a board other than theirs."""
        steps = history.steps
        return len(steps) > self._placed_steps and steps[-1].by == "camera"

    def _waited(self, key: Hashable, duration_s: float | None, now_s: float) -> bool:
        """True once the situation ``key`` has lasted ``duration_s`` (never for None)."""
        if key != self._wait_key:
            self._wait_key, self._wait_since_s = key, now_s
        return duration_s is not None and now_s - self._wait_since_s >= duration_s

    def _tell_the_table(self, history: History) -> None:
        """The table never took the board the players put down (a view it cannot read, or a
        misread taken for another move): the demo states the true board, as an operator
        would."""
        if len(history.steps) > self._placed_steps:
            self._operate("undo")
        self._operate("correct", board=self.board.to_dict())

    def _operate(self, kind: str, **args: Any) -> None:
        self._wait_key = None  # a failed attempt is retried only after patience again
        try:
            self._table.operate(kind, by=DEMO_AUTHOR, **args)
        except CompanionError as exc:
            print(f"demo players: could not {kind} at the table: {exc}", file=sys.stderr)


def _last_reading_seq(history: History | None) -> int:
    """The sequence number of the table's last readable reading: one with unreadable cells
    (say, a hand resting over the board) is held by the table, not judged."""
    reading = history.last_reading if history is not None else None
    if reading is None or not BoardState.from_dict(reading.board).is_certain:
        return 0
    return reading.seq


def legal_move(game: Game, rng: random.Random) -> BoardState | None:
    """A random legal result of the turn to play: a tile of the turn's colour in a free slot
    of the round's vat (of an open vat while an Emperor has not chosen), sometimes a worker;
    None when no slot is free."""
    turn = game.turn
    slots = game.legal_slots()
    if turn is None or not slots:
        return None
    slot = rng.choice(slots)
    faces = legal_faces(turn.colour)
    cells = list(game.state.cells)
    for cell, fish in zip(slot.cells, rng.choice(faces), strict=True):
        cells[cell] = fish
    workers = list(game.state.workers)
    vilicus_left, dominus_left = game.workers_left(turn.colour)
    if turn.seat is not None and (vilicus_left or dominus_left) and rng.random() < WORKER_CHANCE:
        lines = legal_worker_lines(game.board, slot.vat, game.state.workers, game.full_vats())
        if lines:
            dominus = dominus_left > 0 and (not vilicus_left or rng.random() < 0.2)
            workers[rng.choice(lines)] = turn.colour + ("d" if dominus else "v")
    return BoardState("".join(cells), tuple(workers))


def wrong_tile(game: Game, legal: BoardState, rng: random.Random) -> BoardState:
    """``legal`` with its new tile showing another colour (a tile taken from the wrong pile)."""
    turn = game.turn
    assert turn is not None
    other = rng.choice([c for c in SPECIES if c != turn.colour])
    face = iter(rng.choice(legal_faces(other)))
    cells = "".join(
        next(face) if before == "." and after != "." else after
        for before, after in zip(game.state.cells, legal.cells, strict=True)
    )
    return BoardState(cells, legal.workers)
