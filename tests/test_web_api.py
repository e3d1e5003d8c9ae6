"""The dashboard through Flask's test client: state, pages, escaping, auth and CSRF."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion.games.garum import parse_record, simulate_game
from companion.games.garum.sighting import Sighting
from companion.games.garum.sources import misplaced
from companion.games.garum.state import BoardState
from companion.table.fakes import RecordingLights
from companion.table.log import GameLog
from companion.table.session import TableSession
from companion.web import Services, create_app
from companion.web.config import WebConfig

TOKEN = "s3cret-pin"
NEW_GAME = {
    "board": "troia",
    "variant": "standard",
    "seats": [{"name": "Ana", "colours": ["B", "G"]}, {"name": "Ben", "colours": ["Y", "R"]}],
}


@pytest.fixture
def session(tmp_path: Path) -> Iterator[TableSession]:
    log = GameLog(tmp_path / "table.db")
    yield TableSession(log, RecordingLights(), rng=random.Random(4))
    log.close()


@pytest.fixture
def app(session: TableSession) -> Flask:
    config = WebConfig(operator_token=TOKEN, secret_key="test-key", sse_heartbeat_s=0.2)
    return create_app(config, Services(session, session.log))


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def op(client: FlaskClient, action: str, body: object = None, token: str | None = TOKEN) -> object:
    headers = {"X-Companion-Token": token} if token else {}
    return client.post(f"/api/{action}", json=body, headers=headers)


def csrf(client: FlaskClient, page: str = "/login") -> str:
    match = re.search(r'name="csrf_token" value="([^"]+)"', client.get(page).get_data(as_text=True))
    assert match
    return match.group(1)


def login(client: FlaskClient) -> str:
    token = csrf(client)
    assert client.post("/login", data={"pin": TOKEN, "csrf_token": token}).status_code == 302
    return csrf(client, "/")


def test_state_has_the_shared_board_format_turn_and_scores(client: FlaskClient) -> None:
    assert client.get("/api/state").get_json()["status"] == "setup"
    response = op(client, "new_game", NEW_GAME)
    assert response.status_code == 200  # type: ignore[attr-defined]
    state = client.get("/api/state").get_json()
    assert len(state["board"]["cells"]) == 16 and len(state["board"]["workers"]["rows"]) == 16
    assert state["turn"]["number"] == 1 and state["turn"]["vat"] == state["aureus"][0]
    assert [s["name"] for s in state["scores"]["seats"]] == ["Ana", "Ben"]


def test_operator_actions_need_the_token(client: FlaskClient, session: TableSession) -> None:
    for action in ("new_game", "accept", "correct", "undo", "end", "choose_vat"):
        response = op(client, action, NEW_GAME, token=None)
        assert response.status_code == 401, action  # type: ignore[attr-defined]
        assert "operator" in response.get_json()["error"]  # type: ignore[attr-defined]
    assert op(client, "new_game", NEW_GAME, token="guess").status_code == 401  # type: ignore[attr-defined]
    assert session.history is None  # nothing happened
    response = client.post(
        "/api/new_game", json=NEW_GAME, headers={"Authorization": f"Bearer {TOKEN}"}
    )
    assert response.status_code == 200


def test_bad_requests_say_what_and_where(client: FlaskClient) -> None:
    bad = dict(NEW_GAME, seats=[{"name": "Ana", "colours": ["P"]}])
    response = op(client, "new_game", bad)
    assert response.status_code == 400  # type: ignore[attr-defined]
    assert "seats[0].colours" in response.get_json()["error"]  # type: ignore[attr-defined]
    response = op(client, "accept")
    assert response.status_code == 409  # type: ignore[attr-defined]
    assert "setup" in response.get_json()["error"]  # type: ignore[attr-defined]


def test_forms_need_a_login_and_csrf(client: FlaskClient, session: TableSession) -> None:
    op(client, "new_game", NEW_GAME)
    assert client.post("/operator/end").status_code == 401
    assert client.post("/login", data={"pin": TOKEN}).status_code == 400  # no CSRF token
    token = csrf(client)
    assert client.post("/login", data={"pin": "wrong", "csrf_token": token}).status_code == 401
    token = login(client)
    assert client.post("/operator/end", data={}).status_code == 400
    assert client.post("/operator/end", data={"csrf_token": "forged"}).status_code == 400
    assert client.post("/api/end").status_code == 400  # the cookie alone is not enough
    assert session.state.value == "playing"
    assert client.post("/operator/end", data={"csrf_token": token}).status_code == 302
    assert session.state.value == "ended"


def test_the_setup_form_starts_a_game(client: FlaskClient, session: TableSession) -> None:
    token = login(client)
    form = {
        "csrf_token": token,
        "board": "troia",
        "variant": "haruspex",
        "name0": "Ana",
        "colours0": ["B", "G"],
        "name1": "Ben",
        "colours1": ["Y", "R"],
        "first_seat": "1",
    }
    assert client.post("/operator/new_game", data=form).status_code == 302
    assert session.game is not None and session.game.setup.first_seat == 1
    page = client.get("/").get_data(as_text=True)
    assert "the next vat is foretold" in page


def test_user_text_is_escaped_everywhere(client: FlaskClient) -> None:
    evil = '<script>alert("x")</script>'
    body = dict(NEW_GAME, seats=[{"name": evil, "colours": ["B", "G"]}, NEW_GAME["seats"][1]])  # type: ignore[index]
    assert op(client, "new_game", body).status_code == 200  # type: ignore[attr-defined]
    for page in ("/", "/tv", "/phone", "/live/table", "/history", "/history/1"):
        html = client.get(page).get_data(as_text=True)
        assert "<script>alert" not in html, page
    assert "&lt;script&gt;alert" in client.get("/").get_data(as_text=True)


def test_pages_render_the_board_and_the_kiosk_has_no_controls(client: FlaskClient) -> None:
    op(client, "new_game", NEW_GAME)
    login(client)
    table = client.get("/").get_data(as_text=True)
    assert table.count('class="cell') == 256 and table.count("data-line=") == 32
    assert 'class="vat active"' in table and "End game" in table
    tv = client.get("/tv").get_data(as_text=True)
    assert "<form" not in tv and "<svg" in tv
    qr = client.get("/qr.svg")
    assert qr.mimetype == "image/svg+xml" and b"<svg" in qr.data


def test_history_replay_export_and_evidence(client: FlaskClient, session: TableSession) -> None:
    op(client, "new_game", NEW_GAME)
    assert session.game is not None
    states = simulate_game(session.game.setup, random.Random(5))
    for turn, state in enumerate(states[:3]):
        session.feed(Sighting(state, b"\xff\xd8jpeg" + bytes([turn])))
    session.drain()
    assert "hash chain intact" in client.get("/history").get_data(as_text=True)
    replay = client.get("/history/1?step=1").get_data(as_text=True)
    assert "step 1 of 3" in replay
    assert client.get("/history/1/record.jsonl").status_code == 403  # in play: aureus inside
    record = client.get("/history/1/record.jsonl", headers={"X-Companion-Token": TOKEN})
    lines = record.get_data(as_text=True).splitlines()
    assert list(parse_record(lines, "download").states) == states[:3]
    digest = session.snapshot()["last_photo"]
    assert client.get(f"/photo/{digest}.jpg").data.startswith(b"\xff\xd8")
    assert client.get("/photo/../../etc/passwd.jpg").status_code == 404
    assert client.get("/history/999").status_code == 404


def test_events_stream_starts_with_the_current_state(
    client: FlaskClient, session: TableSession
) -> None:
    op(client, "new_game", NEW_GAME)
    response = client.get("/api/events", buffered=False)
    assert response.mimetype == "text/event-stream"
    chunks = iter(response.response)  # type: ignore[arg-type]
    assert next(chunks).startswith(b"retry:")
    message = next(chunks).decode()
    data = json.loads(message.split("data: ", 1)[1])
    assert message.startswith("id: ") and data["turn"]["number"] == 1
    assert next(chunks).startswith(b": keep-alive")
    response.close()
    assert session.viewers.subscribers == 0


def test_guessing_the_pin_is_throttled(client: FlaskClient) -> None:
    token = csrf(client)
    for _ in range(5):
        assert client.post("/login", data={"pin": "0000", "csrf_token": token}).status_code == 401
    response = client.post("/login", data={"pin": TOKEN, "csrf_token": token})
    assert response.status_code == 429  # even the right PIN waits out the window


def test_guessing_the_token_is_throttled(client: FlaskClient) -> None:
    for _ in range(5):
        assert op(client, "end", token="0000").status_code == 401  # type: ignore[attr-defined]
    assert op(client, "new_game", NEW_GAME).status_code == 429  # type: ignore[attr-defined]


def test_operator_actions_over_http(client: FlaskClient, session: TableSession) -> None:
    op(client, "new_game", NEW_GAME)
    assert session.game is not None
    states = simulate_game(session.game.setup, random.Random(6))
    session.feed(Sighting(misplaced(session.game, states[0]), b"\xff\xd8after"))
    session.drain()
    page = client.get("/").get_data(as_text=True)
    assert "Illegal move" in page and "placed 2 tiles" in page
    replay = client.get("/history/1").get_data(as_text=True)
    assert "placed 2 tiles" in replay and "/photo/" in replay
    response = op(client, "correct", {"board": states[0].to_dict()})
    assert response.get_json()["result"] == "corrected"  # type: ignore[attr-defined]
    assert response.get_json()["state"]["turn"]["number"] == 2  # type: ignore[attr-defined]
    assert op(client, "undo").get_json()["result"] == "undone"  # type: ignore[attr-defined]
    bad = op(client, "correct", {"board": {"cells": "nope"}})
    assert bad.status_code == 400 and "board.cells" in bad.get_json()["error"]  # type: ignore[attr-defined]


def test_desync_page_and_emperor_choice(client: FlaskClient, session: TableSession) -> None:
    op(client, "new_game", dict(NEW_GAME, variant="emperor"))
    assert client.get("/api/state").get_json()["lights"]["status"] == "choose_vat"
    assert op(client, "choose_vat", {"vat": "x"}).status_code == 400  # type: ignore[attr-defined]
    assert op(client, "choose_vat", {"vat": 7}).status_code == 200  # type: ignore[attr-defined]
    assert client.get("/api/state").get_json()["turn"]["vat"] == 7
    assert op(client, "choose_vat", {"vat": 8}).status_code == 409  # type: ignore[attr-defined]
    assert session.game is not None
    setup = session.game.setup
    first = simulate_game(replace(setup, aureus=(7,)), random.Random(1))[0]
    session.feed(Sighting(first))
    session.drain()
    cells = list(first.cells)
    taken = next(i for i, ch in enumerate(cells) if ch != ".")
    cells[taken] = "."
    session.feed(Sighting(BoardState("".join(cells), first.workers)))
    session.drain()
    page = client.get("/").get_data(as_text=True)
    assert "The board differs from the game" in page
    assert f'class="cell flagged" data-cell="{taken}"' in page


def test_every_response_forbids_framing_sniffing_and_foreign_scripts(client: FlaskClient) -> None:
    for path in ("/", "/api/state"):
        headers = client.get(path).headers
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert headers["X-Frame-Options"] == "DENY"
        assert "script-src 'self'" in headers["Content-Security-Policy"]
