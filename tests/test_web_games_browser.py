"""The Ides of March on the café screen and on a phone, in Debian's real chromium: the TV and
phone views follow the game live, and the operator starts a game from the setup picker after
a login that returns to the page it started from."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ides_driver import IdesDriver

from companion.games.ides import Dice
from companion.games.ides.simulate import choose
from companion.table.log import GameLog
from companion.web import Services, create_app
from companion.web.config import WebConfig
from companion.web.serve import DashboardServer

pytestmark = pytest.mark.browser
sync_api = pytest.importorskip("playwright.sync_api")

TOKEN = "games-browser-pin"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[IdesDriver, DashboardServer]]:
    log = GameLog(tmp_path / "ides.db")
    table = IdesDriver(log, dice=Dice.seeded(5), roll_s=0)
    table.new_game(["Livia", "<img src=x onerror=alert(1)>"])
    app = create_app(
        WebConfig(operator_token=TOKEN, secret_key="k", sse_heartbeat_s=1.0),
        Services(table.session, log),
    )
    with DashboardServer(app) as server:
        yield table, server
    table.close()
    log.close()


def watch_errors(page: Any) -> list[str]:
    errors: list[str] = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return errors


@pytest.mark.parametrize("view", ["/tv", "/phone"])
def test_the_tv_and_phone_follow_the_ides_game_live(
    served: tuple[IdesDriver, DashboardServer], page: Any, view: str
) -> None:
    table, server = served
    errors = watch_errors(page)
    page.goto(server.url + view)
    expect = sync_api.expect
    expect(page.locator(".who")).to_have_text("Livia")
    assert page.locator("tr[data-seat='1'] .name").inner_text() == "<img src=x onerror=alert(1)>"
    # styled by the game's own stylesheet: the dice are drawn as boxes, not as bare text
    die = page.locator(".die[data-die='orange']")
    assert die.evaluate("e => getComputedStyle(e).borderTopStyle") == "solid"
    page.evaluate("window.__loadedOnce = true")
    rng = random.Random(8)
    while table.snapshot()["current"] == 0 or not table.snapshot()["rolls"]:
        game = table.game
        assert game is not None
        table.act(choose(game, rng), by="simulated")
    state = table.snapshot()
    expect(page.locator(".who")).to_have_text(state["current_name"])
    expect(page.locator("td.coins")).to_have_text([str(p["coins"]) for p in state["players"]])
    expect(page.locator("td.rank")).to_have_text([p["rank"] for p in state["players"]])
    last = state["rolls"][0]
    expect(page.locator(".rolls li").first).to_contain_text(f"on the {last['die']} die")
    assert page.evaluate("window.__loadedOnce") is True  # updated in place, not reloaded
    assert errors == []  # no script errors, nothing blocked by the content security policy


def test_the_operator_logs_in_from_the_tv_page_and_starts_a_game_from_the_picker(
    served: tuple[IdesDriver, DashboardServer], page: Any
) -> None:
    table, server = served
    errors = watch_errors(page)
    page.goto(server.url + "/phone")
    page.click("nav >> text=Operator")
    page.fill("input[name=pin]", TOKEN)
    page.click("main button[type=submit]")
    page.wait_for_url(server.url + "/phone")  # back where the login started
    page.goto(server.url + "/setup")
    page.click(".game-picker a[data-game='garum']")
    expect = sync_api.expect
    expect(page.locator("form.setup")).to_have_attribute("data-game", "garum")
    page.click(".game-picker a[data-game='ides']")
    expect(page.locator("form.setup")).to_have_attribute("data-game", "ides")
    page.once("dialog", lambda dialog: dialog.accept())  # a game is in play: end it?
    names = page.locator("form.setup input[name=player]")
    names.nth(0).fill("Ann")
    names.nth(1).fill("<b>Bo</b>")
    names.nth(2).fill("Cato")
    page.click("form.setup button[type=submit]")
    page.wait_for_url(server.url + "/")
    expect(page.locator(".who")).to_have_text("Ann")
    expect(page.locator("tr[data-seat] .name")).to_have_count(3)
    assert page.locator("tr[data-seat='1'] .name").inner_text().startswith("<b>Bo</b>")
    assert [p["name"] for p in table.snapshot()["players"]] == ["Ann", "<b>Bo</b>", "Cato"]
    assert errors == []
