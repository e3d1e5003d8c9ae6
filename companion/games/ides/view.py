"""The Ides table as one JSON-able view: what ``/api/ides/state`` returns and SSE carries."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from companion.games.ides import action_to_dict
from companion.games.ides import words as words
from companion.games.table_seam import canonical_json
from companion.link.lights import TableLights

if TYPE_CHECKING:
    from companion.games.ides.referee import IdesMatch

LOG_SHOWN = 40  # newest log lines in a view
ROLLS_SHOWN = 8


@dataclass(frozen=True)
class LogLine:
    """One applied action as the dashboard lists it."""

    seq: int
    turn: int
    seat: int
    text: str
    by: str

    def to_dict(self, names: Sequence[str]) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "turn": self.turn,
            "seat": self.seat,
            "name": names[self.seat],
            "text": self.text,
            "by": self.by,
        }


def ides_view(
    table: IdesMatch | None, status: str, lights: TableLights, version: int = 0
) -> dict[str, Any]:
    """Players, turn, dice, the offered choices, the last refusal and the log, newest first
    (the table adds its own keys: evidence, errors)."""
    base: dict[str, Any] = {
        "status": status,
        "version": version,
        "dice_mode": table.dice_mode.value if table is not None else "electronic",
        "game_id": table.game if table is not None else None,
        "lights": lights.to_dict(),
    }
    if table is None:
        return {**base, "players": [], "choices": [], "log": [], "rolls": []}
    game = table.position
    names = [p.name for p in game.players]
    holder = game.forum_holder
    offered = table.choices()
    cursor = table.cursor % len(offered) if offered else None
    players = [
        {
            "seat": seat,
            "name": p.name,
            "rank": p.rank.value,
            "coins": p.coins,
            "stockpile": p.stockpile,
            "ferrymen": p.ferrymen,
            "token": p.token.value,
            "out": p.out,
            "square": p.square.value,
            "where": words.square(p.square),
            "senator_row": list(p.senator_row),
            "commander_row": list(p.commander_row),
            "commander_flipped": list(p.commander_flipped),
            "expressway": p.expressway.value,
            "current": seat == game.current and not game.over,
            "forum": seat == holder,
        }
        for seat, p in enumerate(game.players)
    ]
    rolls = [
        {
            "seat": r.seat,
            "name": names[r.seat],
            "die": r.die.value,
            "face": r.face.value,
            "for_name": None if r.for_seat is None else names[r.for_seat],
        }
        for r in reversed(game.rolls[-ROLLS_SHOWN:])
    ]
    choices = [
        {
            "index": i,
            "group": words.group(a),
            "label": words.label(a, names),
            "action": action_to_dict(a),
            "value": canonical_json(action_to_dict(a)),
        }
        for i, a in enumerate(offered)
    ]
    refusal = table.refusal
    return {
        **base,
        "turn_number": game.turn_number,
        "current": None if game.over else game.current,
        "current_name": None if game.over else names[game.current],
        "phase": game.phase.value,
        "phase_words": words.PHASES[game.phase],
        "expected_die": None if game.expected_die is None else game.expected_die.value,
        "players": players,
        "forum_holder": holder,
        "forum_holder_name": None if holder is None else names[holder],
        "out": [p.name for p in game.players if p.out],
        "winner": game.winner,
        "winner_name": None if game.winner is None else names[game.winner],
        "ended": table.ended,
        "rolls": rolls,
        "dice": {"orange": lights.dice[0], "purple": lights.dice[1], "rolling": lights.rolling},
        "choices": choices,
        "cursor": cursor,
        "refusal": None
        if refusal is None
        else {"code": refusal.code.value, "message": refusal.message},
        "log": [line.to_dict(names) for line in reversed(table.history[-LOG_SHOWN:])],
        "last_seq": table.last_seq,
        "game": game.to_dict(),
    }
