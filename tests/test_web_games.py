"""Every page for every game, through Flask's test client: the Ides TV and phone views, the
setup page's game picker, the login that returns where it started, and escaped names."""

from __future__ import annotations

import html
import random
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urljoin, urlsplit

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import given
from hypothesis import strategies as st
from ides_driver import IdesDriver
from markupsafe import escape

from companion.games.ides import Dice
from companion.games.ides.simulate import choose
from companion.table.fakes import RecordingLights
from companion.table.log import GameLog
from companion.table.session import TableSession
from companion.web import Services, create_app
from companion.web.config import WebConfig
from companion.web.return_path import safe_return_path

TOKEN = "games-pin"
PLAYERS = ["Livia", "<script>alert('x')</script>", "Julia & Co"]


@pytest.fixture
def ides_table(tmp_path: Path) -> Iterator[IdesDriver]:
    log = GameLog(tmp_path / "ides.db")
    table = IdesDriver(log, dice=Dice.seeded(7), roll_s=0)
    table.new_game(PLAYERS)
    yield table
    table.close()
    log.close()


def make_app(tmp_path: Path, ides: IdesDriver | None = None) -> Flask:
    config = WebConfig(operator_token=TOKEN, secret_key="test-key", sse_heartbeat_s=0.2)
    if ides is not None:
        return create_app(config, Services(ides.session, ides.log))
    log = GameLog(tmp_path / "table.db")
    return create_app(config, Services(TableSession(log, RecordingLights()), log))


@pytest.fixture
def ides_client(tmp_path: Path, ides_table: IdesDriver) -> FlaskClient:
    return make_app(tmp_path, ides_table).test_client()


@pytest.fixture
def garum_client(tmp_path: Path) -> FlaskClient:
    return make_app(tmp_path).test_client()


def csrf(client: FlaskClient, page: str = "/login") -> str:
    found = re.search(r'name="csrf_token" value="([^"]+)"', client.get(page).get_data(as_text=True))
    assert found is not None
    return found[1]


def login(client: FlaskClient) -> str:
    answer = client.post("/login", data={"pin": TOKEN, "csrf_token": csrf(client)})
    assert answer.status_code == 302
    return csrf(client, "/setup")


def play_until_rolled(table: IdesDriver, seed: int = 3) -> None:
    """Simulated players act until a die has been thrown and the turn has passed on."""
    rng = random.Random(seed)
    first = table.snapshot()["current"]
    while not table.snapshot()["rolls"] or table.snapshot()["current"] == first:
        game = table.game
        assert game is not None and not game.over
        table.act(choose(game, rng), by="simulated")


@pytest.mark.parametrize("url", ["/tv", "/phone", "/live/tv", "/live/phone"])
def test_ides_tv_and_phone_show_the_players_and_whose_turn(
    ides_client: FlaskClient, ides_table: IdesDriver, url: str
) -> None:
    play_until_rolled(ides_table)
    view = ides_table.snapshot()
    page = ides_client.get(url).get_data(as_text=True)
    assert "No game yet" not in page and "<svg" not in page  # not an empty Garum board
    who = re.search(r'<span class="who" data-current="(\d+)">([^<]*)</span>', page)
    assert who is not None
    assert int(who[1]) == view["current"] and html.unescape(who[2]) == view["current_name"]
    for p in view["players"]:
        row = re.search(rf'<tr data-seat="{p["seat"]}"[^>]*>(.*?)</tr>', page, re.S)
        assert row is not None, p["name"]
        assert str(escape(p["name"])) in row[1]
        assert f'<td class="rank">{p["rank"]}</td>' in row[1]
        assert f'<td class="num coins">{p["coins"]}</td>' in row[1]
        assert str(escape(p["where"])) in row[1]
        assert ('class="current' in row[0]) == p["current"]
    last = view["rolls"][0]
    assert f'<span class="face face-{last["face"]}">{last["face"]}</span>' in page
    assert "<script>alert" not in page and "&lt;script&gt;alert" in page


def test_the_table_page_shows_the_game_the_table_plays(
    ides_client: FlaskClient, ides_table: IdesDriver
) -> None:
    page = ides_client.get("/").get_data(as_text=True)
    assert "<title>The Ides of March table</title>" in page
    assert 'data-events="/api/events"' in page  # the live feed of the table's one session
    assert 'name="choice"' not in page  # a viewer is offered no controls
    login(ides_client)
    page = ides_client.get("/").get_data(as_text=True)
    options = re.findall(r"<option value=", page)
    assert len(options) == len(ides_table.choices()) > 0


def test_a_garum_table_still_shows_its_board(garum_client: FlaskClient) -> None:
    for url in ("/", "/tv", "/phone"):
        page = garum_client.get(url).get_data(as_text=True)
        assert '<svg class="board"' in page and "No game yet" in page
        assert 'data-events="/api/events"' in page


def test_setup_offers_every_installed_game_with_its_own_fields(
    ides_client: FlaskClient,
) -> None:
    login(ides_client)
    page = ides_client.get("/setup").get_data(as_text=True)
    assert 'data-game="garum"' in page and 'data-game="ides"' in page
    assert '<input type="hidden" name="game" value="ides">' in page  # the game played
    assert 'name="player"' in page and 'name="dice_mode"' in page
    page = ides_client.get("/setup?game=garum").get_data(as_text=True)
    assert '<input type="hidden" name="game" value="garum">' in page
    assert 'name="name0"' in page and 'name="board"' in page
    answer = ides_client.get("/setup?game=chess")
    assert answer.status_code == 400
    assert str(escape("no game called 'chess'")) in answer.get_data(as_text=True)


def test_the_picker_starts_an_ides_game(ides_client: FlaskClient, ides_table: IdesDriver) -> None:
    before = ides_table.game_id
    token = login(ides_client)
    form = {
        "csrf_token": token,
        "game": "ides",
        "player": ["Ann", "<b>Bo</b>", "", ""],
        "dice_mode": "physical",
    }
    answer = ides_client.post("/operator/new_game", data=form)
    assert answer.status_code == 302 and answer.headers["Location"] == "/"
    view = ides_table.snapshot()
    assert view["game_id"] != before
    assert [p["name"] for p in view["players"]] == ["Ann", "<b>Bo</b>"]
    assert view["dice_mode"] == "physical"
    page = ides_client.get("/").get_data(as_text=True)
    assert "New game started." in page and "&lt;b&gt;Bo&lt;/b&gt;" in page


def test_the_picker_starts_a_garum_game(garum_client: FlaskClient) -> None:
    token = login(garum_client)
    form = {
        "csrf_token": token,
        "game": "garum",
        "board": "baelo-claudia",
        "variant": "standard",
        "name0": "<i>Ana</i>",
        "colours0": ["B", "G"],
        "name1": "Ben",
        "colours1": ["Y", "R"],
        "first_seat": "1",
    }
    answer = garum_client.post("/operator/new_game", data=form)
    assert answer.status_code == 302
    state = garum_client.get("/api/state").get_json()
    assert state["status"] == "playing" and state["setup"]["board"] == "baelo-claudia"
    assert [s["name"] for s in state["setup"]["seats"]] == ["<i>Ana</i>", "Ben"]
    assert state["turn"]["seat_name"] == "Ben"
    history = garum_client.get("/history").get_data(as_text=True)
    assert "<td>Garum</td>" in history and "&lt;i&gt;Ana&lt;/i&gt;, Ben" in history


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"game": "ides", "player": ["Solo"]}, "players"),
        ({"game": "ides", "player": ["A", "B"], "dice_mode": "loaded"}, "dice_mode"),
        ({"game": "chess"}, "no game called"),
    ],
)
def test_a_refused_setup_says_why_and_changes_nothing(
    ides_client: FlaskClient, ides_table: IdesDriver, fields: dict[str, object], words: str
) -> None:
    def game_shown() -> dict[str, object]:  # the view without its publication counter
        return {k: v for k, v in ides_table.snapshot().items() if k != "version"}

    before, logged = game_shown(), ides_table.log.head()
    token = login(ides_client)
    answer = ides_client.post("/operator/new_game", data={"csrf_token": token, **fields})
    assert answer.status_code == 400
    assert str(escape(words)) in answer.get_data(as_text=True)
    assert game_shown() == before
    assert ides_table.log.head() == logged  # nothing was logged


def test_a_refused_garum_setup_keeps_what_was_typed(garum_client: FlaskClient) -> None:
    token = login(garum_client)
    form = {"csrf_token": token, "game": "garum", "name0": "<b>Ana</b>", "colours0": ["B", "Q"]}
    answer = garum_client.post("/operator/new_game", data=form)
    page = answer.get_data(as_text=True)
    assert answer.status_code == 400 and "seats[0].colours" in page
    assert 'value="&lt;b&gt;Ana&lt;/b&gt;"' in page
    assert garum_client.get("/api/state").get_json()["status"] == "setup"


def test_setup_needs_the_operator_and_csrf(
    ides_client: FlaskClient, ides_table: IdesDriver
) -> None:
    before = ides_table.game_id
    form = {"game": "ides", "player": ["Ann", "Bo"]}
    assert ides_client.post("/operator/new_game", data=form).status_code == 401
    login(ides_client)
    assert ides_client.post("/operator/new_game", data=form).status_code == 400
    assert ides_table.game_id == before


@pytest.mark.parametrize("back", ["/ides", "/history/3?step=2", "/tv"])
def test_login_returns_where_it_started(ides_client: FlaskClient, back: str) -> None:
    page = ides_client.get("/login", query_string={"next": back}).get_data(as_text=True)
    assert f'name="next" value="{html.escape(back)}"' in page
    token = csrf(ides_client)
    answer = ides_client.post("/login", data={"pin": TOKEN, "csrf_token": token, "next": back})
    assert answer.status_code == 302 and answer.headers["Location"] == back


@pytest.mark.parametrize(
    "elsewhere",
    [
        "https://evil.example/",
        "//evil.example/ides",
        "/\\evil.example",
        "javascript:alert(1)",
        "ides",
        "/ides\r\nSet-Cookie: x=1",
        "",
    ],
)
def test_login_refuses_to_send_anyone_off_site(ides_client: FlaskClient, elsewhere: str) -> None:
    token = csrf(ides_client)
    form = {"pin": TOKEN, "csrf_token": token, "next": elsewhere}
    answer = ides_client.post("/login", data=form)
    assert answer.status_code == 302 and answer.headers["Location"] == "/"


def test_a_failed_login_keeps_where_to_return(ides_client: FlaskClient) -> None:
    token = csrf(ides_client)
    answer = ides_client.post("/login", data={"pin": "wrong", "csrf_token": token, "next": "/tv"})
    assert answer.status_code == 401
    assert 'name="next" value="/tv"' in answer.get_data(as_text=True)


@pytest.mark.parametrize("here", ["/ides", "/setup?game=garum", "/phone"])
def test_the_operator_link_carries_the_page(ides_client: FlaskClient, here: str) -> None:
    page = ides_client.get(here).get_data(as_text=True)
    link = re.search(r'<a href="(/login\?[^"]*)">Operator</a>', page)
    assert link is not None
    assert parse_qs(urlsplit(html.unescape(link[1])).query)["next"] == [here]


@given(st.text(max_size=80))
def test_a_return_path_never_leaves_the_site(raw: str) -> None:
    back = safe_return_path(raw)
    assert back == "/" or back == raw
    assert back.startswith("/") and not back.startswith("//") and "\\" not in back
    assert urlsplit(urljoin("https://table.example/setup", back)).netloc == "table.example"


def test_game_static_files_come_only_from_a_games_folder(garum_client: FlaskClient) -> None:
    page = garum_client.get("/").get_data(as_text=True)
    sheets = re.findall(r'<link rel="stylesheet" href="(/games/[^"]+)"', page)
    assert "/games/garum/static/garum.css" in sheets
    for sheet in sheets:
        with garum_client.get(sheet) as answer:
            assert answer.status_code == 200 and answer.mimetype == "text/css"
    assert garum_client.get("/games/chess/static/chess.css").status_code == 404
    assert garum_client.get("/games/garum/static/../__init__.py").status_code == 404


def test_the_default_game_has_its_own_routes_with_its_secrets_kept(
    garum_client: FlaskClient,
) -> None:
    """``/garum`` and ``/api/garum/...`` are the generic routes every game has: the state a
    viewer gets there hides what ``/api/state`` hides, and the operator acts by name."""
    game = {
        "board": "troia",
        "variant": "standard",
        "seats": [{"name": "Ana", "colours": ["B", "G"]}, {"name": "Ben", "colours": ["Y", "R"]}],
    }
    operator = {"X-Companion-Token": TOKEN}
    started = garum_client.post("/api/garum/new_game", json=game, headers=operator)
    assert started.status_code == 200, started.get_json()
    whole = started.get_json()["state"]
    seen = garum_client.get("/api/garum/state").get_json()
    assert seen == garum_client.get("/api/state").get_json()
    assert seen["aureus_hidden"] > 0 and len(seen["aureus"]) < len(whole["aureus"])
    assert garum_client.get("/api/garum/state", headers=operator).get_json() == whole
    page = garum_client.get("/garum").get_data(as_text=True)
    assert 'data-events="/api/garum/events"' in page and "<svg" in page
    refused = garum_client.post(
        "/api/garum/act", json={"action": "choose_vat", "vat": 99}, headers=operator
    )
    assert refused.status_code in (400, 409) and "error" in refused.get_json()
    assert garum_client.post("/api/garum/act", json={"action": "undo"}).status_code == 401
    # Another game's routes, and a word that names no game, are not found.
    assert garum_client.post("/api/ides/act", json={}, headers=operator).status_code == 404
    assert garum_client.get("/api/chess/state").status_code == 404
    assert garum_client.get("/chess").status_code == 404
    assert garum_client.get("/tv").status_code == 200
