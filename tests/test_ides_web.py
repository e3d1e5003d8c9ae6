"""The Ides page and API through Flask's test client: auth, CSRF, the offered choices, refusals."""

from __future__ import annotations

import html
import json
import random
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from ides_driver import IdesDriver

from companion.games.ides import Dice, Promote, action_to_dict
from companion.games.ides.simulate import choose
from companion.table.fakes import RecordingLights
from companion.table.log import GameLog, canonical_json
from companion.table.session import TableSession
from companion.web import Services, create_app
from companion.web.config import WebConfig

TOKEN = "ides-pin"
HEADERS = {"X-Companion-Token": TOKEN}


@pytest.fixture
def table(tmp_path: Path) -> Iterator[IdesDriver]:
    log = GameLog(tmp_path / "ides.db")
    table = IdesDriver(log, dice=Dice.seeded(11), roll_s=0)
    table.new_game(["Livia", "<script>alert('x')</script>", "Julia & Co"])
    yield table
    table.close()
    log.close()


def make_app(tmp_path: Path, ides: IdesDriver | None) -> Flask:
    config = WebConfig(operator_token=TOKEN, secret_key="test-key", sse_heartbeat_s=0.2)
    if ides is not None:
        return create_app(config, Services(ides.session, ides.log))
    garum = GameLog(tmp_path / "table.db")
    return create_app(config, Services(TableSession(garum, RecordingLights()), garum))


@pytest.fixture
def client(tmp_path: Path, table: IdesDriver) -> FlaskClient:
    return make_app(tmp_path, table).test_client()


def offered_on_page(client: FlaskClient) -> set[str]:
    """The option values of the choice form, as the browser would submit them."""
    page = client.get("/ides").get_data(as_text=True)
    form = re.search(r'<select name="choice".*?</select>', page, re.S)
    assert form is not None
    return {html.unescape(v) for v in re.findall(r'<option value="([^"]*)"', form[0])}


def login(client: FlaskClient) -> str:
    page = client.get("/login").get_data(as_text=True)
    token = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert token is not None
    assert client.post("/login", data={"pin": TOKEN, "csrf_token": token[1]}).status_code == 302
    page = client.get("/ides").get_data(as_text=True)
    token = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert token is not None
    return token[1]


def test_operator_actions_need_the_token(client: FlaskClient, table: IdesDriver) -> None:
    before = table.snapshot()["game"]
    choice = table.snapshot()["choices"][0]["action"]
    assert client.post("/api/ides/act", json={"action": choice}).status_code == 401
    wrong = {"X-Companion-Token": "nope"}
    assert client.post("/api/ides/act", json={"action": choice}, headers=wrong).status_code == 401
    assert client.post("/api/ides/new_game", json={"players": ["A", "B"]}).status_code == 401
    assert client.post("/ides/act", data={"choice": json.dumps(choice)}).status_code == 401
    assert table.snapshot()["game"] == before
    assert client.post("/api/ides/act", json={"action": choice}, headers=HEADERS).status_code == 200
    assert table.snapshot()["game"] != before


def test_forms_need_csrf(client: FlaskClient, table: IdesDriver) -> None:
    csrf = login(client)
    choice = table.snapshot()["choices"][0]["value"]
    assert client.post("/ides/act", data={"choice": choice}).status_code == 400
    assert (
        client.post("/ides/act", data={"choice": choice, "csrf_token": "forged"}).status_code == 400
    )
    assert table.actions_applied == 0
    answer = client.post("/ides/act", data={"choice": choice, "csrf_token": csrf})
    assert answer.status_code == 302 and table.actions_applied == 1


def test_the_page_offers_exactly_the_legal_actions(client: FlaskClient, table: IdesDriver) -> None:
    """Through a whole stretch of play, the form lists the rules' legal actions and no other,
    and the state API agrees."""
    login(client)
    rng = random.Random(2)
    phases = set()
    for _ in range(120):
        game = table.game
        assert game is not None
        if game.over:
            break
        legal = {canonical_json(action_to_dict(a)) for a in game.legal_actions()}
        assert offered_on_page(client) == legal
        state = client.get("/api/ides/state").get_json()
        assert {canonical_json(c["action"]) for c in state["choices"]} == legal
        phases.add(game.phase)
        action = choose(game, rng)
        answer = client.post(
            "/api/ides/act", json={"action": action_to_dict(action)}, headers=HEADERS
        )
        assert answer.status_code == 200, answer.get_json()
    assert len(phases) >= 4  # the free tile, the turn choice, actions, cards...


def test_a_refused_action_answers_with_the_rules_words(
    client: FlaskClient, table: IdesDriver
) -> None:
    game = table.game
    assert game is not None
    refusal = game.refusal(Promote())
    assert refusal is not None
    answer = client.post("/api/ides/act", json={"action": {"kind": "promote"}}, headers=HEADERS)
    assert answer.status_code == 409
    assert answer.get_json() == {"error": refusal.message, "code": refusal.code.value}
    assert table.game == game  # nothing changed
    page = client.get("/ides").get_data(as_text=True)
    assert html.escape(refusal.message, quote=False) in page
    assert f'data-code="{refusal.code.value}"' in page
    # the stale form of a page: refused, and the words flashed back
    csrf = login(client)
    client.post("/ides/act", data={"choice": '{"kind":"promote"}', "csrf_token": csrf})
    page = client.get("/ides").get_data(as_text=True)
    assert "Refused: " + html.escape(refusal.message, quote=False) in page


def test_bad_input_names_the_field(client: FlaskClient, table: IdesDriver) -> None:
    answer = client.post("/api/ides/act", json={"action": {"kind": "fly"}}, headers=HEADERS)
    assert answer.status_code == 400 and "action.kind" in answer.get_json()["error"]
    answer = client.post("/api/ides/new_game", json={"players": ["Solo"]}, headers=HEADERS)
    assert answer.status_code == 400 and "players" in answer.get_json()["error"]
    answer = client.post("/api/ides/new_game", json={"players": ["A", ""]}, headers=HEADERS)
    assert answer.status_code == 400 and "players[1]" in answer.get_json()["error"]


def test_names_are_escaped(client: FlaskClient) -> None:
    login(client)
    for url in ("/ides", "/ides/live"):
        page = client.get(url).get_data(as_text=True)
        assert "<script>alert" not in page
        assert "&lt;script&gt;alert" in page
        assert "Julia &amp; Co" in page


def test_the_page_shows_players_rolls_and_the_log(client: FlaskClient, table: IdesDriver) -> None:
    rng = random.Random(5)
    while not table.snapshot()["rolls"]:
        game = table.game
        assert game is not None
        table.act(choose(game, rng))
    state = client.get("/api/ides/state").get_json()
    page = client.get("/ides").get_data(as_text=True)
    roll = state["rolls"][0]
    assert (
        f'<span class="face face-{roll["face"]}">{roll["face"]}</span> on the {roll["die"]} die'
        in page
    )
    for line in state["log"]:
        assert f'data-seq="{line["seq"]}"' in page
    assert len(state["log"]) == table.actions_applied
    for p in state["players"]:
        assert f'<tr data-seat="{p["seat"]}"' in page
    assert state["dice"]["orange"] == state["lights"]["dice"][0]


def test_without_an_ides_table(tmp_path: Path) -> None:
    client = make_app(tmp_path, None).test_client()
    assert "No Ides of March game runs" in client.get("/ides").get_data(as_text=True)
    answer = client.get("/api/ides/state")
    assert answer.status_code == 404 and "error" in answer.get_json()


def test_new_game_from_the_api_replaces_the_one_in_play(
    client: FlaskClient, table: IdesDriver
) -> None:
    old = table.game_id
    answer = client.post(
        "/api/ides/new_game", json={"players": ["Ann", "Bo"], "first_seat": 1}, headers=HEADERS
    )
    assert answer.status_code == 200
    state = answer.get_json()["state"]
    assert state["game_id"] != old and state["current_name"] == "Bo"
    assert [e.payload for e in table.log.events(old)][-1] == {"reason": "replaced by a new game"}


def test_events_stream_the_state_then_each_change(client: FlaskClient, table: IdesDriver) -> None:
    response = client.get("/api/ides/events", buffered=False)
    assert response.mimetype == "text/event-stream"
    chunks = iter(response.response)  # type: ignore[arg-type]
    assert next(chunks).startswith(b"retry:")
    first = json.loads(next(chunks).decode().split("data: ", 1)[1])
    assert first["status"] == "playing" and first["current_name"] == "Livia"
    table.act(table.choices()[0])
    second = json.loads(next(chunks).decode().split("data: ", 1)[1])
    assert second["version"] > first["version"] and len(second["log"]) == 1
    response.close()
    assert table.session.viewers.subscribers == 0


def test_the_operator_ends_the_game(client: FlaskClient, table: IdesDriver) -> None:
    assert client.post("/api/ides/end").status_code == 401
    answer = client.post("/api/ides/end", headers=HEADERS)
    assert answer.status_code == 200 and answer.get_json()["state"]["status"] == "over"
    assert answer.get_json()["state"]["choices"] == []
    again = client.post("/api/ides/end", headers=HEADERS)
    assert again.status_code == 409 and again.get_json()["code"] == "game_over"
    action = {"kind": "draw-free-tile", "to_stockpile": True}
    refused = client.post("/api/ides/act", json={"action": action}, headers=HEADERS)
    assert refused.status_code == 409 and "no Ides game is in play" in refused.get_json()["error"]
