"""The table as the room sees it, folded straight out of the game log.

The publisher does not ask the running session for its state: it reads the log, so what the
broker is told is always what the log holds, even for a table whose session has crashed.
The table's story (disputes, the end) is folded here; the game's position is followed by
the game named in the log's opening event (:mod:`companion.games.cafe_seam`).
"""

from __future__ import annotations

from typing import Any

from companion.errors import CompanionError
from companion.games.cafe_seam import CafePosition
from companion.games.registry import DEFAULT_GAME, UnknownGame, game
from companion.games.story import Story
from companion.table.log import Event, EventKind, GameLog


def game_kind_of(header: dict[str, Any]) -> str:
    """The game a log's opening event starts (the default game if it does not say)."""
    kind = header.get("game")
    return kind if isinstance(kind, str) else DEFAULT_GAME


class TableFold:
    """The latest game of one table, kept current event by event."""

    def __init__(self) -> None:
        self.history: Story | None = None
        self.position: CafePosition | None = None
        self.game_kind = DEFAULT_GAME
        self.seq = 0
        self.at_s: float | None = None

    @classmethod
    def from_log(cls, log: GameLog) -> TableFold:
        """The fold of the log as it stands: only the last game matters."""
        folded = cls()
        game_id = log.last_game()
        if game_id is not None:
            for event in log.events(game_id):
                folded.apply(event)  # a game's events are the last ones of the log
        return folded

    def apply(self, event: Event) -> None:
        if event.seq <= self.seq:
            return
        self.seq = event.seq
        self.at_s = event.at_s
        if event.kind is EventKind.GAME_STARTED:
            self.history = Story(event.game)
            self.game_kind = game_kind_of(event.payload)
            try:
                self.position = game(self.game_kind).cafe().follow(event.payload)
            except (CompanionError, ValueError, TypeError, KeyError, NotImplementedError):
                self.position = None  # a game the café cannot follow: its story only
            return
        if self.history is None or event.game != self.history.game:
            return  # an event of an older game: the table has moved on
        self.history = self.history.apply(event)
        if self.position is not None:
            self.position.apply(event.kind.value, event.payload)

    def status(self) -> str:
        h = self.history
        if h is None:
            return "setup"
        if h.ended is not None:
            return "ended"
        if h.outcome is not None:
            return "desync" if h.outcome == "desync" else "dispute"
        return "playing"

    def snapshot(self, table: str, dashboard_url: str | None) -> dict[str, Any]:
        """The retained ``state`` message: everything the hub shows for this table."""
        state: dict[str, Any] = {
            "table": table,
            "seq": self.seq,
            "at_s": self.at_s,
            "status": self.status(),
            "dashboard": dashboard_url,
            "game": None,
        }
        h, position = self.history, self.position
        if h is None or position is None:
            return state
        state.update(game=h.game, game_kind=self.game_kind)
        state.update(position.summary())
        state.update(
            ended=h.ended,
            dispute=h.outcome is not None and h.outcome != "desync",
            desync=h.outcome == "desync",
            violations=list(h.violations),
        )
        if h.end_hash is not None:  # what the players saw at the end, for the room to keep
            state["chain_head"] = h.end_hash
        return state

    def public_payload(self, event: Event) -> dict[str, Any]:
        """``event``'s payload as the room may read it: the broker is open to the café, so
        what the game keeps from the players goes out only as far as the table has revealed
        it (the fold must already hold ``event``)."""
        h, position = self.history, self.position
        if h is None or position is None or event.game != h.game or h.ended is not None:
            return event.payload
        return position.public_payload(event.kind.value, event.payload)


def event_message(table: str, event: Event, fold: TableFold | None = None) -> dict[str, Any]:
    """One log event as published: its seq and hash let a subscriber spot a repeat.  With the
    table's ``fold``, what the room may not know yet is left out of the payload.

    The café may learn what the table reveals as it is revealed, never what is still to
    come: without the fold to say how far the table has got, a game's start says only what
    its game allows at any time.
    """
    if fold is not None:
        payload = fold.public_payload(event)
    elif event.kind is EventKind.GAME_STARTED:
        payload = _public_opening(event.payload)
    else:
        payload = event.payload
    return {
        "table": table,
        "seq": event.seq,
        "hash": event.hash,
        "prev": event.prev,
        "game": event.game,
        "kind": event.kind.value,
        "payload": payload,
        "photo": event.photo,
        "at_s": event.at_s,
    }


def _public_opening(header: dict[str, Any]) -> dict[str, Any]:
    try:
        return game(game_kind_of(header)).cafe().public_opening(header)
    except (UnknownGame, NotImplementedError):
        return {"game": header.get("game")}  # nothing of a game no one here can read
