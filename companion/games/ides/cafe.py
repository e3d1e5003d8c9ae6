"""The Ides of March as the café sees it: the race to the Forum followed from the log.

The room's card shows whose turn it is, each player's coins as their score and, as the
leader, the commander on the Forum podium (the winner once the game is over).  The game
has no rounds and hides nothing the players do not all see, so every event is published
as logged.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.errors import InputError
from companion.games.cafe_fields import (
    NAME_CHARS,
    TEXT_CHARS,
    Rejected,
    read_choice,
    read_list,
    read_name,
    read_optional_int,
    read_optional_text,
    read_text,
)
from companion.games.ides.actions import action_from_dict
from companion.games.ides.dice import DiceFaces, DiceMode
from companion.games.ides.game import Game
from companion.games.ides.rules import MAX_PLAYERS, MIN_PLAYERS, IllegalAction

BOARD = "forum"
TITLE = "The Ides of March"
MAX_TURNS = 100_000
MAX_COINS = 10_000
DICE_MODES = frozenset(m.value for m in DiceMode)


class IdesPosition:
    """One game in play: see the module docstring."""

    def __init__(self, header: Mapping[str, Any]) -> None:
        names = header.get("players")
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise InputError("expected a list of player names", field="players")
        first_seat = header.get("first_seat", 0)
        self.game = Game.setup(
            names,
            first_seat=first_seat if isinstance(first_seat, int) else 0,
            faces=DiceFaces.from_dict(header.get("dice")),
        )
        # A log from before the choice existed was played with the companion's dice.
        self.dice_mode = DiceMode.parse(header.get("dice_mode", DiceMode.ELECTRONIC.value))
        self.actions = 0

    def apply(self, kind: str, payload: Mapping[str, Any]) -> None:
        """Each event carrying an applied action (``{"action": {...}, "by": ...}``, logged as
        ``ides_action``) moves the game on; no other event of the log changes the position."""
        del kind
        if not isinstance(payload.get("action"), dict):
            return
        try:
            self.game = self.game.apply(action_from_dict(payload.get("action")))
        except (IllegalAction, InputError):
            return  # the table refused to replay it too: the position stays where it was
        self.actions += 1

    def summary(self) -> dict[str, Any]:
        game = self.game
        players = game.players
        if game.winner is not None:
            leader = [players[game.winner].name]
        else:
            holder = game.forum_holder
            leader = [] if holder is None else [players[holder].name]
        return {
            "board": BOARD,
            "board_title": TITLE,
            "variant": self.dice_mode.value,
            "rounds": None,
            "round": None,
            "turn": None if game.over else game.turn_number,
            "turns_played": self.actions,
            "whose_turn": None
            if game.over
            else {"seat": game.current, "name": players[game.current].name},
            "seats": [
                {"name": p.name, "score": p.coins, "rank": p.rank.value, "square": p.square.value}
                for p in players
            ],
            "leader": leader,
        }

    def public_payload(self, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        del kind
        return payload


class IdesCafe:
    """The :class:`~companion.games.cafe_seam.GameCafe` of The Ides of March."""

    def follow(self, header: Mapping[str, Any]) -> IdesPosition:
        return IdesPosition(header)

    def public_opening(self, header: dict[str, Any]) -> dict[str, Any]:
        return header

    def check_state(self, data: dict[str, Any]) -> dict[str, Any]:
        seats = _seats(data.get("seats"))
        names = {seat["name"] for seat in seats}
        leader = read_list(data, "leader", MAX_PLAYERS)
        if not all(isinstance(name, str) and name in names for name in leader):
            raise Rejected("bad leader")
        whose = data.get("whose_turn")
        if whose is not None and not isinstance(whose, dict):
            raise Rejected("bad whose_turn")
        return {
            "board": read_text(data, "board", 64),
            "board_title": read_optional_text(data, "board_title", TEXT_CHARS),
            "variant": read_choice(data, "variant", DICE_MODES),
            "rounds": None,
            "round": None,
            "turn": read_optional_int(data, "turn", 1, MAX_TURNS),
            "whose_turn": None
            if whose is None
            else {"name": read_name(whose.get("name"), "whose_turn", NAME_CHARS)},
            "seats": seats,
            "leader": leader,
        }


def _seats(value: object) -> list[dict[str, Any]]:
    if not isinstance(value, list) or not MIN_PLAYERS <= len(value) <= MAX_PLAYERS:
        raise Rejected("bad seats")
    seats = []
    for seat in value:
        if not isinstance(seat, dict):
            raise Rejected("bad seats")
        coins = seat.get("score")
        if type(coins) is not int or not 0 <= coins <= MAX_COINS:
            raise Rejected("bad score")
        seats.append({"name": read_name(seat.get("name"), "seat name", NAME_CHARS), "score": coins})
    return seats
