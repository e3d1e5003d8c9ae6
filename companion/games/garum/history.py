"""One game's story folded out of the log: what was accepted, what is disputed, how it ended.

The table never keeps state the log does not have: after a crash the Garum match folds the
events of the last game with :func:`fold` and rebuilds the rules position from the steps.
The same fold exports a game as a game record and drives the replay page.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from companion.games.table_seam import EventKind, LoggedEvent


@dataclass(frozen=True)
class Step:
    """One accepted move: a board state (``board``) or an emperor's vat choice (``vat``)."""

    seq: int
    board: dict[str, Any] | None = None
    vat: int | None = None
    photo: str | None = None
    by: str = "camera"


@dataclass(frozen=True)
class LoggedSighting:
    """A sighting as the log keeps it: the board as JSON and its photo's digest."""

    seq: int
    board: dict[str, Any]
    photo: str | None


@dataclass(frozen=True)
class Flag:
    """A reading the rules did not accept: an illegal move (dispute) or a desync."""

    reading: LoggedSighting
    outcome: str  # "dispute" or "desync"
    violations: tuple[dict[str, Any], ...]
    cells: tuple[int, ...]
    lines: tuple[int, ...]
    turn: dict[str, Any] | None


@dataclass(frozen=True)
class History:
    game: int
    header: dict[str, Any]
    steps: tuple[Step, ...] = ()
    last_reading: LoggedSighting | None = None
    flag: Flag | None = None
    ended: str | None = None
    last_seq: int = 0
    end_hash: str | None = None  # the chain head as the game ended: what the players saw

    @property
    def boards(self) -> list[dict[str, Any]]:
        """The accepted board states in play order."""
        return [s.board for s in self.steps if s.board is not None]

    def last_photo(self) -> str | None:
        """The evidence photo of the last accepted change (the "before" of a dispute)."""
        for step in reversed(self.steps):
            if step.photo is not None:
                return step.photo
        return None

    def apply(self, event: LoggedEvent) -> History:
        """The history after one more event of this game."""
        p = event.payload
        h = replace(self, last_seq=event.seq)
        match event.kind:
            case EventKind.READING:
                return replace(h, last_reading=LoggedSighting(event.seq, p["board"], event.photo))
            case EventKind.VERDICT:
                if p["outcome"] in ("dispute", "desync") and h.last_reading is not None:
                    flag = Flag(
                        h.last_reading,
                        p["outcome"],
                        tuple(p.get("violations", ())),
                        tuple(p.get("cells", ())),
                        tuple(p.get("lines", ())),
                        p.get("turn"),
                    )
                    return replace(h, flag=flag)
                if p["outcome"] == "restored":
                    return replace(h, flag=None)
                return h  # an accepted reading clears the flag with its ACCEPTED event
            case EventKind.ACCEPTED | EventKind.CORRECTION:
                step = Step(event.seq, board=p["board"], photo=event.photo, by=p.get("by", ""))
                return replace(h, steps=(*h.steps, step), flag=None)
            case EventKind.VAT_CHOSEN:
                step = Step(event.seq, vat=int(p["vat"]), by=p.get("by", ""))
                return replace(h, steps=(*h.steps, step))
            case EventKind.UNDO:
                return replace(h, steps=h.steps[:-1], flag=None)
            case EventKind.DISMISSED:
                return replace(h, flag=None)
            case EventKind.GAME_ENDED:
                reason = str(p.get("reason", "ended"))
                return replace(h, ended=reason, flag=None, end_hash=event.hash)
            case _:
                return h


def fold(events: Iterable[LoggedEvent]) -> History:
    """Folds the events of one game, which must start with its ``GAME_STARTED``."""
    it = iter(events)
    first = next(it, None)
    if first is None or first.kind is not EventKind.GAME_STARTED:
        raise ValueError("a game's events start with game_started")
    history = History(game=first.game, header=first.payload, last_seq=first.seq)
    for event in it:
        history = history.apply(event)
    return history
