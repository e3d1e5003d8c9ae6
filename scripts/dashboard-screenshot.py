"""Writes docs/dashboard.png: the dashboard mid-game, with a flagged move, in chromium."""

from __future__ import annotations

import random
import sys
import tempfile
import threading
from pathlib import Path

from companion.table.runner import DEFAULT_GAME, new_game_from
from playwright.sync_api import sync_playwright

from companion.games.garum import Game
from companion.games.garum.frames import render_jpeg
from companion.games.garum.sources import misplaced, simulated_players
from companion.table.fakes import RecordingLights
from companion.table.log import GameLog
from companion.table.ports import Reading
from companion.table.session import TableSession
from companion.web import Services, create_app
from companion.web.config import WebConfig
from companion.web.serve import DashboardServer

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]  # fmt: skip


def main(out: str = "docs/dashboard.png", view: str = "/") -> None:
    with tempfile.TemporaryDirectory() as tmp:
        log = GameLog(Path(tmp) / "table.db")
        session = TableSession(log, RecordingLights(), rng=random.Random(11))
        session.operate("new_game", request=new_game_from(DEFAULT_GAME, "screenshot"))
        assert session.game is not None
        setup = session.game.setup
        states = simulated_players(setup, random.Random(12), mistakes_at=())
        for state in states[:29]:
            session.feed(Reading(state, render_jpeg(setup.board, state)))
            session.drain()
        game: Game = session.game
        bad = misplaced(game, states[29])
        session.feed(Reading(bad, render_jpeg(setup.board, bad)))
        session.drain()
        stop = threading.Event()
        owner = threading.Thread(target=session.run, args=(stop,), daemon=True)
        owner.start()
        app = create_app(WebConfig("shot-pin", "k"), Services(session, log))
        with DashboardServer(app) as server, sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1050})
            page.goto(server.url + view)
            page.wait_for_load_state("networkidle")
            page.screenshot(path=out, full_page=True)
            browser.close()
        stop.set()
        owner.join()
        log.close()


if __name__ == "__main__":
    main(*sys.argv[1:])
