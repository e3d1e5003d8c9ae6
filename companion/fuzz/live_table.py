"""A real table for the HTTP fuzz: Garum and Ides sessions on temporary SQLite game logs.

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
from companion.table.fakes import RecordingLights
from companion.table.ides_session import IdesTable
from companion.table.log import GameLog
from companion.table.session import TableSession
from companion.web import Services, create_app
from companion.web.config import WebConfig


class LiveTable:
    def __init__(self, workdir: Path, seed: int, token: str) -> None:
        self.log = GameLog(workdir / "table.db")
        self.session = TableSession(self.log, RecordingLights(), rng=random.Random(seed))
        self.ides_log = GameLog(workdir / "ides.db")
        self.ides = IdesTable(self.ides_log, dice=Dice.seeded(seed), roll_s=0)
        self.ides.new_game(["Livia", "Marcus", "Julia"])
        config = WebConfig(
            operator_token=token, secret_key=secrets.token_hex(16), sse_heartbeat_s=0.2
        )
        self.app: Flask = create_app(config, Services(self.session, self.log, ides=self.ides))
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
        self.ides.close()
        self.ides_log.close()
        self.log.close()
