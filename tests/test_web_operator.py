"""The operator's tools through Flask's test client: the correction editor's data, the
result of every action, confirmations, the score track scale and the result to keep."""

from __future__ import annotations

import html
import json
import random
import re
from collections.abc import Iterator
from pathlib import Path
from xml.etree import ElementTree

import pytest
from flask.testing import FlaskClient
from test_web_api import NEW_GAME, TOKEN, login, op

from companion.boards import load_profile
from companion.games.garum import simulate_game
from companion.games.garum.sighting import Sighting
from companion.games.garum.sources import misplaced
from companion.games.garum.state import BoardState
from companion.table.fakes import RecordingLights
from companion.table.log import GameLog
from companion.table.session import TableSession
from companion.web import Services, create_app
from companion.web.config import WebConfig

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture
def session(tmp_path: Path) -> Iterator[TableSession]:
    log = GameLog(tmp_path / "table.db")
    yield TableSession(log, RecordingLights(), rng=random.Random(4))
    log.close()


@pytest.fixture
def client(session: TableSession) -> FlaskClient:
    config = WebConfig(operator_token=TOKEN, secret_key="test-key", sse_heartbeat_s=0.2)
    return create_app(config, Services(session, session.log)).test_client()


def flagged(client: FlaskClient, session: TableSession) -> list[BoardState]:
    """A game whose first move put an extra tile in another vat; the legal game's states."""
    op(client, "new_game", NEW_GAME)
    assert session.game is not None
    states = simulate_game(session.game.setup, random.Random(6))
    session.feed(Sighting(misplaced(session.game, states[0]), b"\xff\xd8after"))
    session.drain()
    return states


def messages(page: str) -> list[tuple[str, str]]:
    found = re.findall(r'<p class="message message-(ok|error)">([^<]*)</p>', page)
    return [(kind, html.unescape(text)) for kind, text in found]


def test_the_editor_carries_the_flagged_reading_for_the_operator_only(
    client: FlaskClient, session: TableSession
) -> None:
    flagged(client, session)
    viewer = client.get("/").get_data(as_text=True)
    assert 'class="editor"' not in viewer and "send-correction" not in viewer
    login(client)
    page = client.get("/").get_data(as_text=True)
    board = re.search(r'<section class="editor" data-board="([^"]+)"', page)
    assert board is not None
    assert json.loads(html.unescape(board.group(1))) == session.snapshot()["flag"]["observed"]
    editable = page[page.index('class="board editable"') :]
    editable = editable[: editable.index("</svg>")]
    assert editable.count('class="worker"') == 32  # a mark on every space, empty ones hidden
    assert "/photo/" in page[page.index('class="editor-photo"') :]


def test_every_form_action_says_what_happened(client: FlaskClient, session: TableSession) -> None:
    states = flagged(client, session)
    token = login(client)
    client.post("/operator/correct", data={"csrf_token": token, "board": json.dumps(
        {"cells": states[0].to_dict()["cells"]})})  # fmt: skip
    page = client.get("/").get_data(as_text=True)
    assert messages(page) == [
        ("ok", "Correction saved: the corrected board is now the game."),
    ]
    client.post("/operator/undo", data={"csrf_token": token})
    assert messages(client.get("/").get_data(as_text=True)) == [
        ("ok", "The last turn was taken back."),
    ]
    client.post("/operator/undo", data={"csrf_token": token})
    assert messages(client.get("/").get_data(as_text=True)) == [
        ("error", "nothing to undo: no turn has been accepted yet"),
    ]


def test_errors_number_rows_and_columns_from_one(
    client: FlaskClient, session: TableSession
) -> None:
    flagged(client, session)
    token = login(client)
    slot = load_profile("troia").slots[0]
    cells = ["."] * 256
    cells[slot[0]] = "B"  # a quarter of a tile: no box of pieces makes that
    board = {"cells": ["".join(cells[r * 16 : (r + 1) * 16]) for r in range(16)]}
    client.post("/operator/correct", data={"csrf_token": token, "board": json.dumps(board)})
    [(kind, text)] = messages(client.get("/").get_data(as_text=True))
    row, col = divmod(slot[0], 16)
    assert kind == "error" and f"row {row + 1}, column {col + 1}" in text


def test_destructive_buttons_ask_first_and_shortcuts_are_listed(
    client: FlaskClient, session: TableSession
) -> None:
    op(client, "new_game", NEW_GAME)
    login(client)
    page = client.get("/").get_data(as_text=True)
    assert re.search(r'action="/operator/undo" data-confirm="[^"]+"', page)
    assert re.search(r'action="/operator/end" data-confirm="[^"]+"', page)
    assert "<kbd>A</kbd> accepts" in page and "<kbd>U</kbd>" in page
    assert "data-confirm" in client.get("/setup").get_data(as_text=True)  # a game is in play


def test_score_bars_are_drawn_against_real_totals(
    client: FlaskClient, session: TableSession
) -> None:
    op(client, "new_game", NEW_GAME)
    assert session.game is not None
    states = simulate_game(session.game.setup, random.Random(6))
    for state in states:
        session.feed(Sighting(state))
    session.drain()
    view = session.snapshot()
    assert view["status"] == "ended"
    page = client.get("/").get_data(as_text=True)
    top = int(re.search(r'data-track-top="(\d+)"', page).group(1))  # type: ignore[union-attr]
    totals = [s["total"] for s in view["scores"]["seats"]]
    assert top % 25 == 0 and max(totals) <= top < max(totals) + 25
    for seat in view["scores"]["seats"]:
        width = 100 * max(seat["total"], 0) / top
        assert f'width="{round(width, 1)}" height="8" class="trackfill"' in page
    assert "pay 2 points" in page and '<span class="bonuskey">J</span>' in page


def test_the_end_screen_explains_and_offers_a_result_to_keep(
    client: FlaskClient, session: TableSession
) -> None:
    evil = '<b>"Ana"</b>'
    seats = [{"name": evil, "colours": ["B", "G"]}, NEW_GAME["seats"][1]]  # type: ignore[index]
    op(client, "new_game", dict(NEW_GAME, seats=seats))
    assert session.game is not None
    states = simulate_game(session.game.setup, random.Random(6))
    for state in states[:6]:
        session.feed(Sighting(state))
    session.drain()
    assert client.get("/history/1/result.svg").status_code == 403  # in play: operator only
    op(client, "end")
    view = session.snapshot()
    page = client.get("/").get_data(as_text=True)
    assert 'class="winner-reason"' in page and "<b>" not in page
    assert 'href="/history/1/result.svg"' in page and 'href="/history/1/record.jsonl"' in page
    response = client.get("/history/1/result.svg")
    assert response.mimetype == "image/svg+xml"
    root = ElementTree.fromstring(response.data)  # well-formed, names escaped
    texts = [t.text or "" for t in root.iter(f"{SVG}text")]
    for seat in view["scores"]["seats"]:
        assert any(t.startswith(f"{seat['name']} (") and f"{seat['total']} points" in t
                   for t in texts)  # fmt: skip
    assert any(" wins " in t or "shared" in t or "share" in t for t in texts)
    board = next(s for s in root.iter(f"{SVG}svg") if s.get("class") == "board")
    fish = [r.get("data-fish") for r in board.iter(f"{SVG}rect") if r.get("data-cell")]
    assert sum(f != "." for f in fish) == sum(c != "." for c in states[5].cells)
    assert client.get("/history/2/result.svg").status_code == 404


def test_a_view_unread_for_glare_tells_the_players_to_move_the_lamp(
    client: FlaskClient, session: TableSession
) -> None:
    """Waiting for a clearer view would wait for ever under a lamp that stays: the page
    names the vats glare washes out.  Cells unread for any other reason only wait."""
    op(client, "new_game", NEW_GAME)
    assert session.game is not None
    played = simulate_game(session.game.setup, random.Random(6))[0]
    before = session.game.state.cells
    new = [i for i, (a, b) in enumerate(zip(before, played.cells, strict=True)) if a != b]
    unread = BoardState(
        "".join("?" if i in new else c for i, c in enumerate(played.cells)), played.workers
    )
    session.feed(Sighting(unread, b"\xff\xd8held", frozenset(new[:1])))
    session.drain()
    page = client.get("/").get_data(as_text=True)
    vat = session.game.board.vat_of_cell[new[0]]
    assert f"{len(new)} cell(s) could not be read" in page
    assert f"Glare washes out vat {vat}: move the lamp" in page
    # The players look at the table's screen or their phones, not the operator's page.
    for screen in ("/tv", "/phone"):
        shown = client.get(screen).get_data(as_text=True)
        assert f"Glare washes out vat {vat}: move the lamp" in shown
    assert client.get("/api/state").get_json()["glare_vats"] == [vat]

    more = next(i for i in range(len(unread.cells)) if i not in new)  # another view
    other = BoardState(unread.cells[:more] + "?" + unread.cells[more + 1 :], unread.workers)
    session.feed(Sighting(other, b"\xff\xd8other"))
    session.drain()
    page = client.get("/").get_data(as_text=True)
    assert "could not be read" in page and "Glare" not in page
    tv = client.get("/tv").get_data(as_text=True)
    assert "could not be read" in tv and "Glare" not in tv
