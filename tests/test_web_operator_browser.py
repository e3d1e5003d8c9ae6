"""The operator's path in Debian's real chromium, driven by Playwright: a new game from
/setup, a flagged move corrected by clicking cells, the A and U keys with their
confirmations, and the end screen with its breakdown and the result to keep."""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import cv2
import numpy as np
import pytest

from companion.games.garum import BoardState, simulate_game
from companion.games.garum.sighting import Sighting
from companion.games.garum.sources import misplaced
from companion.table.fakes import RecordingLights
from companion.table.log import GameLog
from companion.table.session import TableSession
from companion.web import Services, create_app
from companion.web.config import WebConfig
from companion.web.serve import DashboardServer

pytestmark = pytest.mark.browser
sync_api = pytest.importorskip("playwright.sync_api")

TOKEN = "browser-pin"

# Presses A in a field, then on the page, and reports which form each press would send
# (the sending itself is held back, so the page stays as it is).
KEY_WHILE_TYPING = """() => {
  const sent = [];
  const hold = (ev) => { sent.push(ev.target.getAttribute("action")); ev.preventDefault(); };
  document.addEventListener("submit", hold, true);
  const press = (target) => target.dispatchEvent(
    new KeyboardEvent("keydown", {key: "a", bubbles: true, cancelable: true}));
  press(document.querySelector("input[name='worker-kind']"));
  const typing = "typing: " + (sent.pop() || "none");
  press(document.body);
  document.removeEventListener("submit", hold, true);
  return [typing, "body: " + (sent.pop() || "none")];
}"""


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[TableSession, DashboardServer]]:
    log = GameLog(tmp_path / "table.db")
    session = TableSession(log, RecordingLights(), rng=random.Random(8))
    owner = threading.Thread(target=session.run, name="table-owner")
    owner.start()
    app = create_app(
        WebConfig(operator_token=TOKEN, secret_key="k", sse_heartbeat_s=1.0),
        Services(session, log),
    )
    try:
        with DashboardServer(app) as server:
            yield session, server
    finally:
        session.stop()
        owner.join(5)
        log.close()


def answer_dialogs(page: Any, answers: list[bool]) -> list[str]:
    """Answers each confirmation with the next of ``answers``; returns the questions."""
    asked: list[str] = []

    def on_dialog(dialog: Any) -> None:
        asked.append(dialog.message)
        if answers.pop(0):
            dialog.accept()
        else:
            dialog.dismiss()

    page.on("dialog", on_dialog)
    return asked


def camera_photo() -> bytes:
    """A real JPEG, as the camera would store with a reading."""
    image = np.full((48, 64, 3), (40, 120, 200), dtype=np.uint8)
    ok, data = cv2.imencode(".jpg", image)
    assert ok
    return data.tobytes()


def differing_cells(seen: BoardState, truth: BoardState) -> list[int]:
    return [i for i, (a, b) in enumerate(zip(seen.cells, truth.cells, strict=True)) if a != b]


def test_the_operators_path_from_setup_to_the_end_screen(
    served: tuple[TableSession, DashboardServer], page: Any, tmp_path: Path
) -> None:
    session, server = served
    expect = sync_api.expect
    errors: list[str] = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    answers: list[bool] = []
    asked = answer_dialogs(page, answers)

    page.goto(server.url + "/login")
    page.fill("input[name=pin]", TOKEN)
    page.click("button[type=submit]")
    page.goto(server.url + "/setup")
    page.fill("input[name=name0]", "<i>Ana</i>")
    page.check("input[name=colours0][value=B]")
    page.check("input[name=colours0][value=G]")
    page.fill("input[name=name1]", "Ben")
    page.check("input[name=colours1][value=Y]")
    page.check("input[name=colours1][value=R]")
    page.click("form.setup button[type=submit]")
    expect(page.locator(".message-ok")).to_have_text("New game started.")
    expect(page.locator(".turn")).to_have_attribute("data-turn", "1")
    assert asked == []  # no game was in play: nothing to confirm

    game = session.game
    assert game is not None
    legal = simulate_game(game.setup, random.Random(6))
    seen = misplaced(game, legal[0])
    session.feed(Sighting(seen, camera_photo()))
    editor = page.locator(".editor")
    expect(editor).to_be_visible()  # arrived live, without a reload
    photo = page.locator(".editor-photo img")
    expect(photo).to_be_visible()
    assert photo.evaluate("img => img.complete && img.naturalWidth") == 64  # it decoded
    editor.locator(".paint[data-paint='.']").click()
    wrong = differing_cells(seen, legal[0])
    assert len(wrong) == 4  # the extra tile in another vat
    for cell in wrong:
        editor.locator(f"svg.board.editable rect[data-cell='{cell}']").click()
        expect(editor.locator(f"rect[data-cell='{cell}']")).to_have_attribute("data-fish", ".")
    free = next(line for line, w in enumerate(legal[0].workers) if w is None)
    editor.locator(".paint[data-paint='R']").click()
    editor.locator("input[name='worker-kind'][value='d']").check()
    space = editor.locator(f"svg.board.editable circle.space[data-line='{free}']")
    mark = editor.locator(f"circle.worker[data-line='{free}']")
    space.click()
    expect(mark).to_have_attribute("data-worker", "Rd")
    expect(mark).to_have_attribute("visibility", "visible")
    mark.click()  # a second click takes the worker off again
    expect(mark).to_have_attribute("visibility", "hidden")
    page.click("#send-correction")
    expect(page.locator(".message-ok")).to_have_text(
        "Correction saved: the corrected board is now the game."
    )
    expect(page.locator(".turn")).to_have_attribute("data-turn", "2")
    assert session.snapshot()["board"] == legal[0].to_dict()

    game = session.game
    assert game is not None
    session.feed(Sighting(misplaced(game, legal[1])))
    expect(page.locator("#accept")).to_be_visible()
    sent = page.evaluate(KEY_WHILE_TYPING)
    assert sent == ["typing: none", "body: /operator/accept"]
    page.locator("body").press("a")  # accept as played, by key
    expect(page.locator(".message-ok")).to_have_text("Move accepted as played.")
    expect(page.locator(".turn")).to_have_attribute("data-turn", "3")

    answers.extend([False, True])
    page.locator("body").press("u")  # asked, and refused: nothing happens
    page.locator("body").press("u")  # asked again, and confirmed
    expect(page.locator(".message-ok")).to_have_text("The last turn was taken back.")
    expect(page.locator(".turn")).to_have_attribute("data-turn", "2")
    assert len(asked) == 2

    answers.append(True)
    with page.expect_event("dialog") as question:
        page.click("#end")
    assert "End the game" in question.value.message
    expect(page.locator(".status")).to_have_attribute("data-status", "ended")
    expect(page.locator(".winner-reason")).to_contain_text("points")
    expect(page.locator("table.lines tbody tr")).to_have_count(4)
    expect(page.locator("#game-record")).to_be_visible()
    with page.expect_download() as download:
        page.click("#result-image")
    saved = tmp_path / "result.svg"
    download.value.save_as(saved)
    texts = [
        t.text or "" for t in ElementTree.parse(saved).iter("{http://www.w3.org/2000/svg}text")
    ]
    assert any(t.startswith("<i>Ana</i> (blue + green)") for t in texts)
    assert page.locator("main i").count() == 0  # the typed name is shown, never obeyed
    assert errors == []  # no script errors, nothing blocked by the content security policy
