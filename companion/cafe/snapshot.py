"""The table as the room sees it, folded straight out of the game log.

The publisher does not ask the running session for its state: it reads the log, so what the
broker is told is always what the log holds, even for a table whose session has crashed.
The rules position is advanced one accepted step at a time and rebuilt only after an undo.
"""

from __future__ import annotations

from typing import Any

from companion.games.garum import Game, score_state
from companion.games.garum.history import History, fold
from companion.games.garum.replay import game_at
from companion.games.garum.state import BoardState
from companion.games.garum.view import revealed_vats
from companion.table.log import Event, EventKind, GameLog


class TableFold:
    """The latest game of one table, kept current event by event."""

    def __init__(self) -> None:
        self.history: History | None = None
        self.game: Game | None = None
        self.seq = 0
        self.at_s: float | None = None

    @classmethod
    def from_log(cls, log: GameLog) -> TableFold:
        """The fold of the log as it stands: only the last game matters."""
        folded = cls()
        game_id = log.last_game()
        if game_id is not None:
            events = list(log.events(game_id))
            folded.history = fold(events)
            folded.game = game_at(folded.history)
            folded.at_s = events[-1].at_s
            folded.seq = events[-1].seq  # a game's events are the last ones of the log
        return folded

    def apply(self, event: Event) -> None:
        if event.seq <= self.seq:
            return
        self.seq = event.seq
        self.at_s = event.at_s
        if event.kind is EventKind.GAME_STARTED:
            self.history = fold([event])
            self.game = game_at(self.history)
            return
        if self.history is None or event.game != self.history.game:
            return  # an event of an older game: the table has moved on
        self.history = self.history.apply(event)
        p = event.payload
        assert self.game is not None
        try:
            if event.kind in (EventKind.ACCEPTED, EventKind.CORRECTION):
                self.game = self.game.advance(BoardState.from_dict(p["board"]))
            elif event.kind is EventKind.VAT_CHOSEN:
                self.game = self.game.choose_vat(int(p["vat"]))
            elif event.kind is EventKind.UNDO:
                self.game = game_at(self.history)
        except Exception:  # the log says it happened: rebuild from the accepted steps
            self.game = game_at(self.history)

    def status(self) -> str:
        h = self.history
        if h is None:
            return "setup"
        if h.ended is not None:
            return "ended"
        if h.flag is not None:
            return "desync" if h.flag.outcome == "desync" else "dispute"
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
        h, game = self.history, self.game
        if h is None or game is None:
            return state
        setup = game.setup
        sheet = score_state(setup.board, game.state, setup.seats, setup.ghost)
        turn = game.turn
        whose = None
        if turn is not None:
            whose = {
                "colour": turn.colour,
                "seat": turn.seat,
                "name": setup.seats[turn.seat].name if turn.seat is not None else "ghost",
            }
        state.update(
            game=h.game,
            board=setup.board.name,
            board_title=setup.board.title,
            variant=setup.variant.value,
            rounds=setup.board.rounds,
            round=turn.round if turn is not None else setup.board.rounds,
            turn=turn.number if turn is not None else None,
            turns_played=len(h.boards),
            whose_turn=whose,
            seats=[
                {"name": s.name, "colours": list(s.colours), "score": s.total} for s in sheet.seats
            ],
            leader=list(sheet.winners),
            ended=h.ended,
            dispute=h.flag is not None and h.flag.outcome != "desync",
            desync=h.flag is not None and h.flag.outcome == "desync",
            violations=[str(v.get("code", "")) for v in h.flag.violations] if h.flag else [],
            position=game.state.to_dict(),
        )
        if h.end_hash is not None:  # what the players saw at the end, for the room to keep
            state["chain_head"] = h.end_hash
        return state

    def public_payload(self, event: Event) -> dict[str, Any]:
        """``event``'s payload as the room may read it: the broker is open to the café, so
        the aureus order goes out only as far as the table has revealed it (the fold must
        already hold ``event``)."""
        h, game = self.history, self.game
        if h is None or game is None or event.game != h.game or h.ended is not None:
            return event.payload
        turn = game.turn
        known = revealed_vats(game.setup.variant.value, turn.round if turn else None)
        if known is None or turn is None:
            return event.payload
        payload = event.payload
        if event.kind is EventKind.GAME_STARTED and isinstance(payload.get("aureus"), list):
            return {**payload, "aureus": payload["aureus"][:known]}
        if event.kind is EventKind.LED and isinstance(payload.get("upcoming_vats"), list):
            keep = max(0, known - turn.round + 1)
            return {**payload, "upcoming_vats": payload["upcoming_vats"][:keep]}
        return payload


def event_message(table: str, event: Event, fold: TableFold | None = None) -> dict[str, Any]:
    """One log event as published: its seq and hash let a subscriber spot a repeat.  With the
    table's ``fold``, what the room may not know yet is left out of the payload.

    The café may learn each vat as it is revealed, never the vats still to come: without
    the fold to say how far the table has got, a game's start leaves the order out.
    """
    if fold is not None:
        payload = fold.public_payload(event)
    elif event.kind is EventKind.GAME_STARTED:
        payload = {k: v for k, v in event.payload.items() if k != "aureus"}
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
