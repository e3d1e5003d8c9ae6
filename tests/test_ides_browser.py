"""The Ides page in Debian's real chromium, driven by Playwright: live updates and the operator."""

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

TOKEN = "browser-pin"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[IdesDriver, DashboardServer]]:
    log = GameLog(tmp_path / "ides.db")
    garum = GameLog(tmp_path / "table.db")
    table = IdesDriver(log, dice=Dice.seeded(3), roll_s=0.3)
    table.new_game(["Livia", "<b>Marcus</b>"])
    app = create_app(
        WebConfig(operator_token=TOKEN, secret_key="k", sse_heartbeat_s=1.0),
        Services(table.session, log),
    )
    with DashboardServer(app) as server:
        yield table, server
    table.close()
    log.close()
    garum.close()


def test_the_ides_page_updates_live(served: tuple[IdesDriver, DashboardServer], page: Any) -> None:
    table, server = served
    errors: list[str] = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(server.url + "/ides")
    expect = sync_api.expect
    expect(page.locator(".who")).to_have_text("Livia")
    assert page.locator("tr[data-seat='1'] .name").inner_text() == "<b>Marcus</b>"
    page.evaluate("window.__loadedOnce = true")
    rng = random.Random(4)
    while not table.game.rolls:  # type: ignore[union-attr]
        table.act(choose(table.game, rng), by="simulated")  # type: ignore[arg-type]
    roll = table.game.rolls[-1]  # type: ignore[union-attr]
    expect(page.locator(f"[data-seq='{table.lines[-1].seq}']")).to_be_visible()
    die = page.locator(f".die[data-die='{roll.die.value}']")
    expect(die).to_have_attribute("data-face", roll.face.value)
    expect(die).not_to_have_class("rolling")  # the animation settled on the face
    coins = [str(p.coins) for p in table.game.players]  # type: ignore[union-attr]
    expect(page.locator("td.coins")).to_have_text(coins)
    assert page.evaluate("window.__loadedOnce") is True  # the same document: no reload
    assert errors == []  # no script errors, nothing blocked by the content security policy


def test_the_operator_applies_an_offered_choice(
    served: tuple[IdesDriver, DashboardServer], page: Any
) -> None:
    table, server = served
    page.goto(server.url + "/ides")
    assert page.locator("select[name=choice]").count() == 0  # viewers see no controls
    page.goto(server.url + "/login")
    page.fill("input[name=pin]", TOKEN)
    page.click("button[type=submit]")
    page.goto(server.url + "/ides")
    options = page.locator("select[name=choice] option")
    assert options.count() == len(table.choices())
    label = options.nth(2).inner_text()
    page.select_option("select[name=choice]", label=label)
    page.click("form.choices button[type=submit]")
    sync_api.expect(page.locator(".ides-log li").first).to_contain_text(label)
    assert table.actions_applied == 1 and table.lines[0].text == label


def test_the_operator_sets_up_physical_dice_and_enters_a_face(
    served: tuple[IdesDriver, DashboardServer], page: Any
) -> None:
    table, server = served
    page.goto(server.url + "/login")
    page.fill("input[name=pin]", TOKEN)
    page.click("button[type=submit]")
    page.goto(server.url + "/ides")
    page.click("details.ides-new summary")
    names = page.locator("details.ides-new input[name=player]")
    names.nth(0).fill("Ann")
    names.nth(1).fill("Bo")
    page.select_option("select[name=dice_mode]", "physical")
    page.click("details.ides-new button[type=submit]")
    expect = sync_api.expect
    expect(page.locator(".dice-mode")).to_have_attribute("data-dice-mode", "physical")
    page.select_option(
        "select[name=choice]", label="Draw the free tile and keep it in the stockpile"
    )
    page.click("form.choices button[type=submit]")
    expect(page.locator(".who")).to_contain_text("Ann")
    page.select_option("select[name=choice]", label="Roll the orange die: yellow")
    page.click("form.choices button[type=submit]")
    expect(page.locator(".die[data-die='orange']")).to_have_attribute("data-face", "yellow")
    game = table.game
    assert game is not None and game.rolls[-1].face.value == "yellow"
