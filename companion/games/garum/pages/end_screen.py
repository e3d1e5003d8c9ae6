"""What the score table and the end screen say beyond the numbers: the winner in words and
a score-track scale that fits real totals."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from companion.games.garum import SeatScore, winner_reason

# The words after each operator action, keyed by the session's result.
ACTION_RESULTS = {
    "accepted": "Move accepted as played.",
    "corrected": "Correction saved: the corrected board is now the game.",
    "dismissed": "Move rejected: the players take it back.",
    "undone": "The last turn was taken back.",
    "ended": "Game ended: the final scores are below.",
    "chosen": "Vat chosen for this round.",
    "acknowledged": "Log damage acknowledged: play goes on.",
    "started": "New game started.",
}


def action_message(action: str, result: Any) -> str:
    """The visible result of one operator action, in the table's words."""
    if action == "new_game":
        return ACTION_RESULTS["started"]
    return ACTION_RESULTS.get(str(result), f"{action.replace('_', ' ').capitalize()}: {result}.")


def winner_words(view: Mapping[str, Any]) -> str:
    """Who won and why (the tie-break in words), or nothing before the game has scores."""
    scores = view.get("scores")
    if not scores:
        return ""
    seats = [
        SeatScore(
            str(s["name"]),
            tuple(s["colours"]),
            int(s["total"]),
            int(s["vilicus"]),
            int(s["laps"]),
            int(s["track_position"]),
        )
        for s in scores["seats"]
    ]
    return winner_reason(seats)


def track_top(view: Mapping[str, Any]) -> int:
    """The score the track bars are drawn against: the best total rounded up to whole laps
    of the board's track, so a bar shows a real score and not just the lap remainder."""
    setup = view.get("setup") or {}
    lap = max(int(setup.get("track_length") or 25), 1)
    scores = view.get("scores") or {}
    best = max((int(s["total"]) for s in scores.get("seats", ())), default=0)
    return lap * max(1, math.ceil(best / lap))
