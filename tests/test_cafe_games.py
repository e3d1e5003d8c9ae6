"""The café serves any game: the publisher follows, and the hub checks, the game a table plays.

An Ides of March log and a toy game's log (a game the café code has never heard of,
registered like any plugin) go through the same fold, the same schema and a real broker.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from cafe_helpers import hub, wait_for

from companion.cafe.hostile import card_problems
from companion.cafe.mosquitto import LocalBroker
from companion.cafe.publisher import PublisherOptions, start_publisher
from companion.cafe.room import Room
from companion.cafe.simtable import SimulatedTable
from companion.cafe.snapshot import TableFold, event_message
from companion.errors import InputError
from companion.games import registry
from companion.games.cafe_fields import Rejected, read_int, read_list
from companion.games.ides import DiceFaces, Game, action_to_dict
from companion.games.ides.simulate import simulate
from companion.table.log import EventKind, GameLog

NAMES = ["Ann", "Bo", "Cy"]


def ides_log(path: Path, seed: int, actions: int | None) -> Game:
    """A log holding one Ides game of ``actions`` applied actions (all of them, and its end,
    with None); the game after them."""
    rng = random.Random(seed)
    played = simulate(NAMES, rng)[:actions]
    with GameLog(path) as log:
        opening = log.start_game(
            {
                "game": "ides",
                "players": NAMES,
                "first_seat": 0,
                "dice": DiceFaces().to_dict(),
                "dice_mode": "electronic",
            }
        )
        for action, _ in played:
            log.append(opening.game, EventKind.ACTION, {"action": action_to_dict(action)})
            log.append(opening.game, EventKind.BUTTON, {"button": "ok", "game": "ides"})
        game = played[-1][1]
        if actions is None:
            assert game.over and game.winner is not None
            reason = f"{game.players[game.winner].name} wins the Forum"
            log.append(opening.game, EventKind.GAME_ENDED, {"reason": reason})
    return game


def room_after(snapshots: Iterator[dict[str, Any]]) -> Room:
    room = Room()
    for message in snapshots:
        room.receive(message["table"], "state", json.dumps(message).encode())
    return room


def test_an_ides_game_is_folded_into_its_own_summary(tmp_path: Path) -> None:
    game = ides_log(tmp_path / "t.db", seed=4, actions=40)
    with GameLog(tmp_path / "t.db") as log:
        snapshot = TableFold.from_log(log).snapshot("t", None)
    assert snapshot["game_kind"] == "ides" and snapshot["status"] == "playing"
    assert [s["name"] for s in snapshot["seats"]] == NAMES
    assert [s["score"] for s in snapshot["seats"]] == [p.coins for p in game.players]
    assert snapshot["whose_turn"]["name"] == game.players[game.current].name
    assert snapshot["turn"] == game.turn_number and snapshot["turns_played"] == 40
    assert snapshot["rounds"] is None and snapshot["variant"] == "electronic"

    room = room_after(iter([snapshot]))
    card = room.card("t")
    assert room.bad_messages == 0 and card is not None
    assert card["game_kind"] == "ides" and card["board"] == "The Ides of March"
    assert card["whose_turn"] == snapshot["whose_turn"]["name"]
    assert card_problems(card) == []


def test_a_finished_ides_game_names_its_winner_and_keeps_its_chain_head(tmp_path: Path) -> None:
    game = ides_log(tmp_path / "t.db", seed=6, actions=None)
    assert game.winner is not None
    with GameLog(tmp_path / "t.db") as log:
        snapshot = TableFold.from_log(log).snapshot("t", None)
        end = list(log.events())[-1]
    winner = game.players[game.winner].name
    assert snapshot["status"] == "ended" and snapshot["ended"] == f"{winner} wins the Forum"
    assert snapshot["leader"] == [winner] and snapshot["whose_turn"] is None
    assert snapshot["chain_head"] == end.hash
    card = room_after(iter([snapshot])).card("t")
    assert card is not None and card["leader"] == [winner] and card["chain_head"] == end.hash


def test_an_ides_table_reaches_the_room_through_a_real_broker(
    tmp_path: Path, broker: LocalBroker
) -> None:
    log_path = tmp_path / "t.db"
    game = ides_log(log_path, seed=9, actions=25)
    with GameLog(log_path) as log:
        last = max(e.seq for e in log.events())
    with hub(broker.url) as (room, _, _):
        publisher = start_publisher(
            log_path, "ides-1", broker.url, options=PublisherOptions(poll_s=0.02)
        )
        try:
            card = wait_for(
                lambda: (c := room.card("ides-1")) and c["seq"] == last and c,
                what="the Ides table's last state",
            )
        finally:
            publisher.stop()
        assert room.seqs("ides-1") == list(range(1, last + 1))
    assert room.bad_messages == 0
    assert card["game_kind"] == "ides" and card["status"] == "playing"
    assert [s["score"] for s in card["seats"]] == [p.coins for p in game.players]


def test_a_simulated_table_plays_a_whole_ides_game_and_the_room_takes_every_message(
    tmp_path: Path,
) -> None:
    table = SimulatedTable(tmp_path / "t.db", seed=6, players=3, game="ides")
    fold, room = TableFold(), Room()
    try:
        outcomes = [table.show(move) for move in table.new_game()]
        with pytest.raises(InputError, match="no move of this game waits for the operator"):
            table.dispute()
        for event in table.log.events():
            fold.apply(event)
            room.receive("t-1", "state", json.dumps(fold.snapshot("t-1", None)).encode())
    finally:
        table.close()
    assert len(outcomes) > 50 and table.session.state.value == "ended"
    card = room.card("t-1")
    assert room.bad_messages == 0 and card is not None
    assert card["game_kind"] == "ides" and card["status"] == "ended" and len(card["seats"]) == 3
    assert card["leader"] and card["seq"] == fold.seq


def test_a_simulated_table_process_refuses_a_dispute_its_game_cannot_have(tmp_path: Path) -> None:
    argv = ["--log", str(tmp_path / "t.db"), "--mqtt", "mqtt://127.0.0.1:1", "--table", "t"]
    done = subprocess.run(
        [sys.executable, "-m", "companion.cafe.simtable", *argv, "--game", "ides", "--dispute"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "no move of this game waits for the operator" in done.stderr
    assert "Traceback" not in done.stderr


class ToyPosition:
    """A counting race: each ``step`` event adds its points to the player whose turn it is."""

    def __init__(self, header: Mapping[str, Any]) -> None:
        self.names = list(header["players"])
        self.points = [0] * len(self.names)
        self.turn = 0

    def apply(self, kind: str, payload: Mapping[str, Any]) -> None:
        if kind == "button" and isinstance(payload.get("points"), int):
            self.points[self.turn % len(self.names)] += payload["points"]
            self.turn += 1

    def summary(self) -> dict[str, Any]:
        best = max(self.points)
        return {
            "board": "track",
            "variant": "race",
            "rounds": None,
            "round": None,
            "turn": self.turn + 1,
            "whose_turn": {"name": self.names[self.turn % len(self.names)]},
            "seats": [
                {"name": n, "score": p} for n, p in zip(self.names, self.points, strict=True)
            ],
            "leader": [n for n, p in zip(self.names, self.points, strict=True) if p == best],
            "secret": "the dice",
        }

    def public_payload(self, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in payload.items() if k != "secret"}


class ToyCafe:
    def follow(self, header: Mapping[str, Any]) -> ToyPosition:
        return ToyPosition(header)

    def public_opening(self, header: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in header.items() if k != "secret"}

    def check_state(self, data: dict[str, Any]) -> dict[str, Any]:
        seats = read_list(data, "seats", 6)
        if not all(isinstance(s, dict) and type(s.get("score")) is int for s in seats):
            raise Rejected("bad seats")
        return {
            "board": "track",
            "variant": "race",
            "turn": read_int(data, "turn", 1, 99),
            "whose_turn": data.get("whose_turn"),
            "seats": [{"name": str(s.get("name")), "score": s["score"]} for s in seats],
            "leader": [],
        }


class ToyGame:
    name = "toyrace"
    title = "Toy race"

    def referee(self) -> Any:
        raise NotImplementedError

    def pages(self) -> Any:
        raise NotImplementedError

    def commands(self) -> Any:
        raise NotImplementedError

    def cafe(self) -> ToyCafe:
        return ToyCafe()


@pytest.fixture
def toy_game() -> Iterator[ToyGame]:
    toy = ToyGame()
    registry.register(toy)
    try:
        yield toy
    finally:
        registry.unregister(toy.name)


def test_a_simulated_table_refuses_a_game_or_a_choice_it_cannot_play(
    tmp_path: Path, toy_game: ToyGame
) -> None:
    with pytest.raises(InputError, match="the game 'toyrace' has no simulated players"):
        SimulatedTable(tmp_path / "t.db", seed=1, game=toy_game.name)
    with pytest.raises(InputError, match="not a setup choice of this game") as refused:
        SimulatedTable(tmp_path / "t.db", seed=1, board="troia", game="ides")
    assert refused.value.field == "board"
    assert not (tmp_path / "t.db").exists()  # refused before a log is opened


def toy_log(path: Path, points: list[int]) -> GameLog:
    log = GameLog(path)
    opening = log.start_game({"game": "toyrace", "players": ["Ann", "Bo"], "secret": "x"})
    for n in points:
        log.append(opening.game, EventKind.BUTTON, {"points": n, "secret": "y"})
    return log


def test_a_game_the_cafe_never_heard_of_is_followed_by_its_own_rules(
    tmp_path: Path, toy_game: ToyGame
) -> None:
    with toy_log(tmp_path / "t.db", [3, 5, 4]) as log:
        fold = TableFold()
        sent = []
        for event in log.events():
            fold.apply(event)
            sent.append(event_message("t", event, fold))
        opening = event_message("t", next(iter(log.events())))
    snapshot = fold.snapshot("t", None)
    assert snapshot["game_kind"] == "toyrace"
    assert snapshot["seats"] == [{"name": "Ann", "score": 7}, {"name": "Bo", "score": 5}]
    assert snapshot["leader"] == ["Ann"] and snapshot["whose_turn"] == {"name": "Bo"}
    assert all("secret" not in m["payload"] for m in sent) and "secret" not in opening["payload"]

    room = room_after(iter([snapshot]))
    card = room.card("t")
    assert room.bad_messages == 0 and card is not None
    assert card["game_kind"] == "toyrace" and card["seats"][0]["score"] == 7
    assert "secret" not in json.dumps(card)  # the room keeps only what the game checked

    room.receive("t", "state", json.dumps({**snapshot, "seq": 99, "seats": [{}]}).encode())
    assert room.rejected()["by_reason"] == {"bad seats": 1}  # the toy's own check refused it


def test_a_state_naming_a_game_not_installed_here_is_counted_and_dropped(
    tmp_path: Path, toy_game: ToyGame
) -> None:
    with toy_log(tmp_path / "t.db", [1]) as log:
        snapshot = TableFold.from_log(log).snapshot("t", None)
    registry.unregister(toy_game.name)
    room = room_after(iter([snapshot, {**snapshot, "game_kind": ["garum"]}]))
    assert room.card("t") is None
    assert room.rejected()["by_reason"] == {"bad game_kind": 2}


@pytest.mark.browser
@pytest.mark.mosquitto
def test_the_room_page_shows_an_ides_table_by_turn_not_round(
    tmp_path: Path, broker: LocalBroker, page: Any
) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    log_path = tmp_path / "t.db"
    game = ides_log(log_path, seed=2, actions=12)
    with hub(broker.url, serve=True) as (room, _, server):
        assert server is not None
        publisher = start_publisher(
            log_path, "forum-1", broker.url, options=PublisherOptions(poll_s=0.02)
        )
        try:
            wait_for(lambda: room.card("forum-1"), what="the Ides table's card")
            page.goto(server.url + "/")
            card = page.locator('article[data-table="forum-1"]')
            who = game.players[game.current].name
            sync_api.expect(card.locator(".round")).to_have_text(
                f"turn {game.turn_number} · {who} to play", timeout=10_000
            )
            sync_api.expect(card.locator(".game")).to_have_text("The Ides of March · electronic")
        finally:
            publisher.stop()


class GameWithoutCafe(ToyGame):
    name = "toyhidden"

    def cafe(self) -> ToyCafe:
        raise NotImplementedError


def test_a_game_the_cafe_cannot_show_publishes_its_story_only(tmp_path: Path) -> None:
    registry.register(GameWithoutCafe())
    try:
        log = GameLog(tmp_path / "t.db")
        opening = log.start_game({"game": "toyhidden", "players": ["Ann", "Bo"], "secret": "x"})
        log.append(opening.game, EventKind.GAME_ENDED, {"reason": "done"})
        snapshot = TableFold.from_log(log).snapshot("t", None)
        sent = event_message("t", opening)
        log.close()
        assert snapshot["status"] == "ended" and snapshot["game"] is None
        assert sent["payload"] == {"game": "toyhidden"}  # nothing it might keep from players
        claimed = {**snapshot, "seq": 3, "game": 1, "game_kind": "toyhidden"}
        room = room_after(iter([snapshot, claimed]))
    finally:
        registry.unregister(GameWithoutCafe.name)
    card = room.card("t")
    assert card is not None and card["status"] == "ended" and card["seq"] == 2
    assert room.rejected()["by_reason"] == {"bad game_kind": 1}
