"""Twenty-one, a toy game proving the seam: players take turns adding 1-3; reaching 21 wins.

It is registered with ``registry.register`` and nothing generic names it.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from companion.errors import InputError
from companion.games.cafe_seam import CARD_FIELDS
from companion.games.simulation_seam import Acted, Move, check_choices
from companion.games.table_seam import (
    ActionError,
    ButtonPress,
    Desk,
    EventKind,
    LoggedEvent,
    TablePhase,
)
from companion.link.lights import StatusLight, TableLights

GOAL = 21


@dataclass(frozen=True)
class Seat:
    seat: int | None

    def to_dict(self) -> dict[str, object]:
        return {"seat": self.seat}

    def on_device(self) -> TableLights:
        return TableLights(
            seat=self.seat, status=StatusLight.OK if self.seat is not None else StatusLight.IDLE
        )


class ToyMatch:
    def __init__(self, opening: LoggedEvent) -> None:
        self.game, self.players = opening.game, list(opening.payload["players"])
        self.position, self.history, self.last_seq, self.ended = 0, [], opening.seq, None

    @property
    def phase(self) -> TablePhase:
        return TablePhase.ENDED if self.ended or self.position >= GOAL else TablePhase.PLAYING

    def apply(self, event: LoggedEvent) -> None:
        self.last_seq = event.seq
        if event.kind is EventKind.ACTION:
            self.history.append(event.payload["action"]["add"])
            self.position += event.payload["action"]["add"]
        elif event.kind is EventKind.GAME_ENDED:
            self.ended = event.payload["reason"]

    def act(self, action: object, desk: Desk) -> object:
        if self.phase is not TablePhase.PLAYING or not isinstance(action, int):
            raise ActionError("nothing to add to: the game is over")
        who = self.players[len(self.history) % len(self.players)]
        desk.record(EventKind.ACTION, {"action": {"add": action}, "by": who})
        if self.position >= GOAL:
            desk.record(EventKind.GAME_ENDED, {"reason": f"{who} reaches {GOAL}"})
        return self.position

    def press(self, press: ButtonPress, desk: Desk) -> str:
        return str(self.act(press.value or 1, desk))

    def undo(self, by: str, desk: Desk) -> str:
        raise ActionError("what is added stays added")

    def observe(self, observation: object, desk: Desk) -> str:
        return "no camera"

    def forget_sighting(self) -> None:
        pass

    def lights(self) -> Seat:
        return Seat(
            None if self.phase is TablePhase.ENDED else len(self.history) % len(self.players)
        )

    def view(self, status: str) -> dict[str, Any]:
        return {"status": status, "version": self.last_seq, "players": self.players,
                "total": self.position, "added": self.history, "ended": self.ended}  # fmt: skip


class ToyReferee:
    name = "twentyone"

    def new_game(self, request: object, rng: random.Random | None) -> tuple[dict[str, Any], None]:
        players = request.get("players") if isinstance(request, Mapping) else None
        if not isinstance(players, list) or len(players) < 2:
            raise InputError("expected two or more players", field="players")
        return {"game": self.name, "players": [str(p) for p in players]}, None

    def open(self, opening: LoggedEvent, last: object) -> ToyMatch:
        return ToyMatch(opening)

    def action(self, name: str, args: Mapping[str, Any]) -> object:
        amount = args.get("amount")
        if name != "add" or amount not in (1, 2, 3):
            raise InputError("expected add with an amount of 1, 2 or 3", field="amount")
        return amount

    def idle_lights(self) -> Seat:
        return Seat(None)

    def idle_view(self, status: str) -> dict[str, Any]:
        return {"status": status, "version": 0, "players": [], "total": 0}

    def viewer_view(self, view: dict[str, Any]) -> dict[str, Any]:
        return view

    def simulated_players(self, config: Mapping[str, Any]) -> object:
        return lambda total: min(3, GOAL - total)


class ToyPosition:
    """The café's view of a game of Twenty-one: the running total, whose turn."""

    def __init__(self, header: Mapping[str, Any]) -> None:
        self.players = [str(name) for name in header.get("players", [])]
        self.total, self.turns = 0, 0

    def apply(self, kind: str, payload: Mapping[str, Any]) -> None:
        action = payload.get("action")
        if kind == "action" and isinstance(action, dict) and action.get("add") in (1, 2, 3):
            self.total += int(action["add"])
            self.turns += 1

    def summary(self) -> dict[str, Any]:
        over = self.total >= GOAL
        seat = self.turns % len(self.players) if self.players else 0
        last = (self.turns - 1) % len(self.players) if self.players else 0
        return {
            "board": "counter",
            "board_title": "Twenty-one",
            "variant": "standard",
            "rounds": None,
            "round": None,
            "turn": None if over else self.turns + 1,
            "turns_played": self.turns,
            "whose_turn": None if over else {"name": self.players[seat]},
            "seats": [{"name": name, "score": self.total} for name in self.players],
            "leader": [self.players[last]] if over and self.players else [],
        }

    def public_payload(self, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        return payload


class ToyCafe:
    def follow(self, header: Mapping[str, Any]) -> ToyPosition:
        return ToyPosition(header)

    def public_opening(self, header: dict[str, Any]) -> dict[str, Any]:
        return header

    def check_state(self, data: dict[str, Any]) -> dict[str, Any]:
        return {key: data.get(key) for key in CARD_FIELDS}


class ToySimulation:
    """Seeded players adding 1-3 in turn (Twenty-one has no hostile moves to mix in)."""

    def __init__(self, seed: int, players: int | None, choices: Mapping[str, str] | None) -> None:
        check_choices(choices, {})
        self.seed, self.players = seed, ["Ann", "Bo", "Cy", "Di"][: players or 2]

    def referee(self) -> ToyReferee:
        return ToyReferee()

    def setup_request(self) -> dict[str, Any]:
        return {"players": self.players}

    def script(self, match: Any, turns: int | None = None) -> list[Move]:
        rng, total, moves = random.Random(self.seed), 0, list[Move]()
        while total < GOAL and (turns is None or len(moves) < turns):
            add = rng.randint(1, 3)
            moves.append(Acted(add))
            total += add
        return moves

    def next_move(self, match: Any, rng: random.Random) -> Move | None:
        return Acted(rng.randint(1, 3)) if match.position < GOAL else None

    def dispute(self, match: Any) -> None:
        return None

    def digest(self, match: Any) -> dict[str, Any]:
        return {"total": match.position, "added": match.history}

    def export(self, match: Any) -> list[str]:
        return [str(added) for added in match.history]


class ToyPlugin:
    name = ToyReferee.name
    title = "Twenty-one"

    def referee(self) -> ToyReferee:
        return ToyReferee()

    def live(self) -> Any:
        raise NotImplementedError  # no camera or buttons: played from the dashboard

    def pages(self) -> Any:
        raise NotImplementedError

    def commands(self) -> Any:
        raise NotImplementedError

    def cafe(self) -> ToyCafe:
        return ToyCafe()

    def simulation(
        self,
        seed: int,
        *,
        players: int | None = None,
        hostile: bool = False,
        choices: Mapping[str, str] | None = None,
    ) -> ToySimulation:
        return ToySimulation(seed, players, choices)


GAME = ToyPlugin()
