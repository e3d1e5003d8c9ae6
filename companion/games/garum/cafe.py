"""Garum as the café sees it: the position followed from the log, and its state fields checked.

The position advances one accepted step at a time (a board, or an emperor's vat) and is
rebuilt from the steps after an undo.  The published payloads keep the aureus order to
what the table has revealed, since the broker is open to the whole café.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from companion.games.cafe_fields import (
    NAME_CHARS,
    TEXT_CHARS,
    Rejected,
    read_choice,
    read_int,
    read_list,
    read_name,
    read_optional_int,
    read_optional_text,
    read_text,
)
from companion.games.garum.record import parse_record
from companion.games.garum.reveal import revealed_vats
from companion.games.garum.rules import Game
from companion.games.garum.scoring import score_state
from companion.games.garum.setup import Variant
from companion.games.garum.state import BoardState

MAX_ROUNDS = 64  # one round per vat; the reference boards have 12 and 16
MAX_TURNS = 1000
MIN_SEATS, MAX_SEATS = 2, 4  # Garum is for 2 to 4 players
MAX_SCORE = 10_000
COLOURS = frozenset("BGYR")
VARIANTS = frozenset(v.value for v in Variant)

Step = tuple[str, Any]  # ("board", state dict) or ("vat", number)


class GarumPosition:
    """One Garum game in play: see the module docstring."""

    def __init__(self, header: Mapping[str, Any]) -> None:
        self.setup = parse_record([json.dumps(dict(header))], "game log").setup
        self.steps: list[Step] = []
        self.game = Game.new(self.setup)

    def apply(self, kind: str, payload: Mapping[str, Any]) -> None:
        if kind in ("accepted", "correction"):
            self._step(("board", payload.get("board")))
        elif kind == "vat_chosen":
            self._step(("vat", payload.get("vat")))
        elif kind == "undo" and self.steps:
            self.steps.pop()
            self.game = self._rebuilt()

    def _step(self, step: Step) -> None:
        self.steps.append(step)
        try:
            self.game = _played(self.game, step)
        except Exception:  # the log says it happened: rebuild from the steps that apply
            self.game = self._rebuilt()

    def _rebuilt(self) -> Game:
        game = Game.new(self.setup)
        for step in self.steps:
            try:
                game = _played(game, step)
            except Exception:
                continue
        return game

    def summary(self) -> dict[str, Any]:
        setup, game = self.setup, self.game
        sheet = score_state(setup.board, game.state, setup.seats, setup.ghost)
        turn = game.turn
        whose = None
        if turn is not None:
            whose = {
                "colour": turn.colour,
                "seat": turn.seat,
                "name": setup.seats[turn.seat].name if turn.seat is not None else "ghost",
            }
        return {
            "board": setup.board.name,
            "board_title": setup.board.title,
            "variant": setup.variant.value,
            "rounds": setup.board.rounds,
            "round": turn.round if turn is not None else setup.board.rounds,
            "turn": turn.number if turn is not None else None,
            "turns_played": sum(kind == "board" for kind, _ in self.steps),
            "whose_turn": whose,
            "seats": [
                {"name": s.name, "colours": list(s.colours), "score": s.total} for s in sheet.seats
            ],
            "leader": list(sheet.winners),
            "position": game.state.to_dict(),
        }

    def public_payload(self, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        turn = self.game.turn
        known = revealed_vats(self.setup.variant.value, turn.round if turn else None)
        if known is None or turn is None:
            return payload
        if kind == "game_started" and isinstance(payload.get("aureus"), list):
            return {**payload, "aureus": payload["aureus"][:known]}
        if kind == "led" and isinstance(payload.get("upcoming_vats"), list):
            keep = max(0, known - turn.round + 1)
            return {**payload, "upcoming_vats": payload["upcoming_vats"][:keep]}
        return payload


def _played(game: Game, step: Step) -> Game:
    kind, value = step
    if kind == "vat":
        return game.choose_vat(int(value))
    return game.advance(BoardState.from_dict(value))


class GarumCafe:
    """The :class:`~companion.games.cafe_seam.GameCafe` of Garum."""

    def follow(self, header: Mapping[str, Any]) -> GarumPosition:
        return GarumPosition(header)

    def public_opening(self, header: dict[str, Any]) -> dict[str, Any]:
        """Without the fold to say how far the table has got, the order is left out."""
        return {k: v for k, v in header.items() if k != "aureus"}

    def check_state(self, data: dict[str, Any]) -> dict[str, Any]:
        rounds = read_int(data, "rounds", 1, MAX_ROUNDS)
        seats = _seats(data.get("seats"))
        names = {seat["name"] for seat in seats}
        leader = read_list(data, "leader", MAX_SEATS)
        if not all(isinstance(name, str) and name in names for name in leader):
            raise Rejected("bad leader")
        return {
            "board": read_text(data, "board", 64),
            "board_title": read_optional_text(data, "board_title", TEXT_CHARS),
            "variant": read_choice(data, "variant", VARIANTS),
            "rounds": rounds,
            "round": read_int(data, "round", 1, rounds),
            "turn": read_optional_int(data, "turn", 1, MAX_TURNS),
            "whose_turn": _whose_turn(data.get("whose_turn")),
            "seats": seats,
            "leader": leader,
        }


def _seats(value: object) -> list[dict[str, Any]]:
    if not isinstance(value, list) or not MIN_SEATS <= len(value) <= MAX_SEATS:
        raise Rejected("bad seats")
    seats = []
    for seat in value:
        if not isinstance(seat, dict):
            raise Rejected("bad seats")
        score = seat.get("score")
        if type(score) is not int or abs(score) > MAX_SCORE:
            raise Rejected("bad score")
        colours = seat.get("colours", [])
        if not isinstance(colours, list) or len(colours) > 2:
            raise Rejected("bad colours")
        if not all(isinstance(c, str) and c in COLOURS for c in colours):
            raise Rejected("bad colours")
        seats.append({"name": read_name(seat.get("name"), "seat name", NAME_CHARS), "score": score})
    return seats


def _whose_turn(value: object) -> dict[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise Rejected("bad whose_turn")
    return {"name": read_name(value.get("name"), "whose_turn", NAME_CHARS)}
