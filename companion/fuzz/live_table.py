"""Real tables for the HTTP fuzz: two sessions on temporary SQLite game logs, one playing the
default game, one The Ides of March, behind one dashboard address (the Ides routes reach the
second table's app, everything else the first's).

No owner thread runs: each operator action drains the session's queue on the calling thread,
as the tests do, so one request at a time is judged to its end.
"""

from __future__ import annotations

import random
import secrets
from pathlib import Path
from typing import Any

from flask import Flask

from companion.games.garum import simulate_game
from companion.games.garum.sighting import Sighting
from companion.games.garum.state import BoardState
from companion.games.ides import Dice
from companion.games.ides.referee import IdesReferee
from companion.table.fakes import RecordingLights
from companion.table.log import GameLog
from companion.table.session import TableSession
from companion.web import Services, create_app
from companion.web.config import WebConfig


class LiveTable:
    def __init__(self, workdir: Path, seed: int, token: str) -> None:
        self.log = GameLog(workdir / "table.db")
        self.session = TableSession(self.log, RecordingLights(), rng=random.Random(seed))
        self.ides_log = GameLog(workdir / "ides.db")
        referee = IdesReferee(Dice.seeded(seed))  # seeded dice: a failure replays exactly
        self.ides = TableSession(self.ides_log, RecordingLights(), referee=referee)
        self.ides.operate("new_game", request={"players": ["Livia", "Marcus", "Julia"]})
        config = WebConfig(
            operator_token=token, secret_key=secrets.token_hex(16), sse_heartbeat_s=0.2
        )
        self.app: Flask = create_app(config, Services(self.session, self.log))
        self.ides_app: Flask = create_app(config, Services(self.ides, self.ides_log))
        self.app.wsgi_app = by_path(self.ides_app.wsgi_app, self.app.wsgi_app)  # type: ignore[method-assign]
        self._plan_for: Any = None
        self._plan: list[BoardState] = []

    def advance(self, rng: random.Random) -> None:
        """The camera sees the next turn of a random game played from this game's setup
        (after a correction it may no longer fit, and the table flags it: also worth fuzzing)."""
        game = self.session.game
        history = self.session.history
        if game is None or history is None or self.session.state.value != "playing":
            return
        if self._plan_for != history.game:
            self._plan_for = history.game
            self._plan = simulate_game(game.setup, rng)
        played = int(self.session.snapshot().get("turns_played") or 0)
        if played < len(self._plan):
            self.session.feed(Sighting(self._plan[played]))
            self.session.drain()

    def close(self) -> None:
        self.ides_log.close()
        self.log.close()


def by_path(ides: Any, rest: Any) -> Any:
    """One WSGI app: the Ides pages and API to ``ides``, every other path to ``rest``."""

    def dispatch(environ: dict[str, Any], start_response: Any) -> Any:
        path = str(environ.get("PATH_INFO", ""))
        target = ides if path.startswith(("/ides", "/api/ides")) else rest
        return target(environ, start_response)

    return dispatch
