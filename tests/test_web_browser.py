"""The dashboard in Debian's real chromium, driven by Playwright."""

from __future__ import annotations

import json
import random
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.games.garum import simulate_game
from companion.games.garum.sighting import Sighting
from companion.table.fakes import RecordingLights
from companion.table.log import GameLog
from companion.table.session import TableSession
from companion.web import Services, create_app
from companion.web.config import WebConfig
from companion.web.serve import DashboardServer

pytestmark = pytest.mark.browser
sync_api = pytest.importorskip("playwright.sync_api")

TOKEN = "browser-pin"
NEW_GAME = {
    "board": "troia",
    "variant": "standard",
    "seats": [{"name": "Ana", "colours": ["B", "G"]}, {"name": "Ben", "colours": ["Y", "R"]}],
}


@pytest.fixture
def table(tmp_path: Path) -> Iterator[tuple[TableSession, DashboardServer]]:
    log = GameLog(tmp_path / "table.db")
    session = TableSession(log, RecordingLights(), rng=random.Random(7))
    stop = threading.Event()
    owner = threading.Thread(target=session.run, args=(stop,), daemon=True)
    owner.start()
    app = create_app(
        WebConfig(operator_token=TOKEN, secret_key="k", sse_heartbeat_s=1.0),
        Services(session, log),
    )
    with DashboardServer(app) as server:
        yield session, server
    stop.set()
    owner.join()
    log.close()


def api(server: DashboardServer, action: str, body: object, token: str | None) -> int:
    request = urllib.request.Request(
        f"{server.url}/api/{action}",
        data=json.dumps(body).encode(),
        headers={
            "Content-Type": "application/json",
            **({"X-Companion-Token": token} if token else {}),
        },
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return exc.code


def test_the_page_loads_with_the_board(
    table: tuple[TableSession, DashboardServer], page: Any
) -> None:
    _, server = table
    assert api(server, "new_game", NEW_GAME, TOKEN) == 200
    errors: list[str] = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(server.url + "/")
    page.wait_for_load_state("networkidle")
    assert errors == []  # no script errors, nothing blocked by the content security policy
    assert page.locator(".qr img").evaluate("img => img.naturalWidth") > 0
    assert page.locator("svg.board").first.is_visible()
    assert page.locator("svg.board rect.cell").count() == 256
    assert page.locator("[data-status]").first.inner_text() == "Playing"
    assert page.locator(".turn .who").inner_text() == "Ana"


def test_a_live_change_appears_without_reload(
    table: tuple[TableSession, DashboardServer], page: Any
) -> None:
    session, server = table
    page.goto(server.url + "/")
    sync_api.expect(page.locator("[data-status]").first).to_have_text("No game yet")
    page.evaluate("window.__loadedOnce = true")
    assert api(server, "new_game", NEW_GAME, TOKEN) == 200
    sync_api.expect(page.locator("[data-status]").first).to_have_text("Playing")
    assert session.game is not None
    first = simulate_game(session.game.setup, random.Random(1))[0]
    session.feed(Sighting(first))
    sync_api.expect(page.locator(".turn[data-turn='2']")).to_be_visible()
    placed = [i for i, ch in enumerate(first.cells) if ch != "."]
    fish = page.locator(f"rect[data-cell='{placed[0]}']").get_attribute("data-fish")
    assert fish == first.cells[placed[0]]
    assert page.evaluate("window.__loadedOnce") is True  # the same document: no reload


def test_operator_actions_without_the_token_are_refused(
    table: tuple[TableSession, DashboardServer], page: Any
) -> None:
    session, server = table
    assert api(server, "new_game", NEW_GAME, TOKEN) == 200
    page.goto(server.url + "/")
    assert page.locator("#end").count() == 0  # viewers see no controls
    status = page.evaluate(
        "fetch('/api/end', {method: 'POST', headers: {'Content-Type': 'application/json'},"
        " body: '{}'}).then(r => r.status)"
    )
    assert status == 401
    form_status = page.evaluate("fetch('/operator/end', {method: 'POST'}).then(r => r.status)")
    assert form_status == 401
    assert api(server, "end", {}, "wrong-token") == 401
    assert session.state.value == "playing"
    # With the PIN the same browser becomes the operator and its button works.
    page.goto(server.url + "/login")
    page.fill("input[name=pin]", TOKEN)
    page.click("button[type=submit]")
    page.once("dialog", lambda dialog: dialog.accept())  # End game asks first
    page.click("#end")
    sync_api.expect(page.locator("[data-status]").first).to_have_text("Game over")
    assert session.state.value == "ended"
