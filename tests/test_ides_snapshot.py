"""Snapshots for the dashboard and the game log: JSON-able, resumable, and a damaged one is
refused naming the field."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from ides_support import new, seat, step, turn

from companion.errors import InputError
from companion.games.ides import (
    CardDone,
    CardMissTurn,
    DrawCard,
    Face,
    Game,
    Move,
    Passage,
    Phase,
    Rank,
    Square,
    action_from_dict,
    action_to_dict,
    describe,
)


def mid_card() -> Game:
    game = seat(new(3), 0, square=Square.HILL_2, coins=2)
    return step(turn(game, Face.PURPLE), Square.HILL_3).apply(DrawCard(3))


def test_snapshot_is_json_and_resumes() -> None:
    game = mid_card()
    data = json.loads(json.dumps(game.to_dict()))
    assert data["turn"]["phase"] == "card"
    assert data["players"][0]["coins"] == 3
    assert data["players"][0]["senator_row"] == [0, 0, 1, 0, 0, 0, 0]
    assert data["rolls"][-1] == {"seat": 0, "die": "orange", "face": "purple", "for_seat": None}
    assert {"kind": "card-done"} in data["legal_actions"]
    assert Game.from_dict(data) == game


def damaged(change: Any) -> InputError:
    data = copy.deepcopy(mid_card().to_dict())
    change(data)
    with pytest.raises(InputError) as exc:
        Game.from_dict(data, source="game.json")
    return exc.value


def test_damaged_snapshots_name_the_field() -> None:
    err = damaged(lambda d: d["players"][1].__setitem__("coins", -1))
    assert err.field == "players[1].coins" and err.source == "game.json"
    err = damaged(lambda d: d["players"][0].__setitem__("square", "hill-9"))
    assert err.field == "players[0].square"
    err = damaged(lambda d: d["players"][0].__setitem__("senator_row", [1, 2]))
    assert err.field == "players[0].senator_row"
    err = damaged(lambda d: d["turn"].__setitem__("phase", "action"))
    assert err.field == "turn.card"
    err = damaged(lambda d: d.__setitem__("format", "other"))
    assert err.field == "format"
    err = damaged(lambda d: d.__setitem__("players", d["players"][:1]))
    assert err.field == "players"
    err = damaged(lambda d: d["rolls"][0].__setitem__("seat", 3))
    assert err.field == "rolls[0].seat"
    err = damaged(lambda d: d["players"][0].__setitem__("ferrymen", 5))
    assert err.field == "players[0].ferrymen"
    err = damaged(lambda d: d.__setitem__("winner", 1))
    assert err.field == "winner"
    err = damaged(lambda d: d["dice"].__setitem__("purple", ["yellow"]))
    assert err.field == "dice.purple"


def test_two_on_the_podium_refused() -> None:
    def both(d: dict[str, Any]) -> None:
        d["players"][1]["square"] = "podium"
        d["players"][2]["square"] = "podium"

    assert damaged(both).field == "players"


def test_action_codec_round_trip_and_errors() -> None:
    for action in [*mid_card().legal_actions(), Move(Square.HILL_4, Passage.BRIBE_OUTPOST)]:
        assert action_from_dict(json.loads(json.dumps(action_to_dict(action)))) == action
    with pytest.raises(InputError) as exc:
        action_from_dict({"kind": "fly"})
    assert exc.value.field == "action.kind"
    with pytest.raises(InputError) as exc:
        action_from_dict({"kind": "move", "to": "rome"})
    assert exc.value.field == "action.to"
    with pytest.raises(InputError) as exc:
        action_from_dict({"kind": "draw-card"})
    assert exc.value.field == "action.numeral" and exc.value.message == "missing"
    with pytest.raises(InputError) as exc:
        action_from_dict({"kind": "draw-tile", "to_stockpile": 1})
    assert exc.value.field == "action.to_stockpile"
    with pytest.raises(InputError) as exc:
        action_from_dict({"kind": "card-coins", "seat": 0, "delta": "2"})
    assert exc.value.field == "action.delta"


def test_describe_names_the_action() -> None:
    assert describe(Move(Square.HILL_4)) == "move(to=hill-4, passage=step)"
    assert describe(DrawCard(3)) == "draw-card(numeral=3)"


def test_player_out_by_their_own_card_resumes_mid_card() -> None:
    game = seat(new(3), 2, rank=Rank.COMMANDER, square=Square.PODIUM)
    game = seat(game, 0, square=Square.HILL_2)
    game = step(turn(game, Face.GREEN), Square.HILL_3).apply(DrawCard(2))
    game = game.apply(CardMissTurn(0))  # Ann misses a turn while Cy holds the Forum: out
    assert game.player.out and game.phase is Phase.CARD
    assert Game.from_dict(json.loads(json.dumps(game.to_dict()))) == game
    game = game.apply(CardDone())
    assert game.current == 1


def test_current_player_out_between_turns_refused() -> None:
    def out(d: dict[str, Any]) -> None:
        d["players"][0]["out"] = True
        d["turn"] = {**d["turn"], "phase": "free-tile", "card": None}

    assert damaged(out).field == "current"
