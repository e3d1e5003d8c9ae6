"""Real tables for the HTTP fuzz: one session per installed game, each on its own temporary
SQLite game log with the game's simulated game in play, behind one dashboard address
(``/<game>`` and ``/api/<game>`` paths reach that game's table, every other path the
default game's).

No owner thread runs: each operator action drains the session's queue on the calling thread,
as the tests do, so one request at a time is judged to its end.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flask import Flask

from companion.errors import InputError
from companion.games import registry
from companion.games.plugin import GamePlugin
from companion.games.simulation_seam import Simulation, simulation_of
from companion.table.commands import command_for
from companion.table.fakes import RecordingLights
from companion.table.log import GameLog
from companion.table.session import TableSession, TableState
from companion.web import Services, create_app
from companion.web.config import WebConfig


@dataclass
class GameTable:
    """One game's table: its log, its session, its simulated players (if the game has them)
    and its own dashboard app."""

    log: GameLog
    session: TableSession
    simulation: Simulation | None
    app: Flask


class FuzzedTables:
    def __init__(self, workdir: Path, seed: int, token: str) -> None:
        config = WebConfig(
            operator_token=token, secret_key=secrets.token_hex(16), sse_heartbeat_s=0.2
        )
        self.tables: dict[str, GameTable] = {}
        for name, plugin in registry.games().items():
            self.tables[name] = _open(workdir / f"{name}.db", name, plugin, seed, config)
        first = self.tables.get(registry.DEFAULT_GAME) or next(iter(self.tables.values()))
        self.log, self.session, self.app = first.log, first.session, first.app
        others = {name: t.app.wsgi_app for name, t in self.tables.items() if t is not first}
        self.app.wsgi_app = by_path(others, self.app.wsgi_app)  # type: ignore[method-assign]

    def advance(self, rng: random.Random) -> None:
        """Each table's simulated players make their next move, drawn with ``rng`` (after a
        correction it may no longer fit, and the table flags it: also worth fuzzing)."""
        for table in self.tables.values():
            match = table.session.match
            if table.simulation is None or match is None:
                continue
            if table.session.state is not TableState.PLAYING:
                continue
            move = table.simulation.next_move(match, rng)
            if move is not None:
                table.session.submit(command_for(move))
                table.session.drain()

    def close(self) -> None:
        for table in self.tables.values():
            table.log.close()


def _open(path: Path, name: str, plugin: GamePlugin, seed: int, config: WebConfig) -> GameTable:
    """A table playing ``name`` with its simulated game started (seeded: a failure replays
    exactly); a game without simulated players waits for the fuzz to start one."""
    log = GameLog(path)
    try:
        simulation: Simulation | None = simulation_of(plugin, seed)
    except InputError:
        simulation = None
    referee = simulation.referee() if simulation is not None else None
    session = TableSession(
        log, RecordingLights(), game=name, referee=referee, rng=random.Random(seed)
    )
    if simulation is not None:
        session.operate("new_game", request=simulation.setup_request())
    return GameTable(log, session, simulation, create_app(config, Services(session, log)))


def by_path(apps: Mapping[str, Any], rest: Any) -> Any:
    """One WSGI app: ``/<name>...`` and ``/api/<name>...`` paths to ``apps[name]``, every
    other path to ``rest``."""

    def dispatch(environ: dict[str, Any], start_response: Any) -> Any:
        target = apps.get(_named(str(environ.get("PATH_INFO", ""))), rest)
        return target(environ, start_response)

    return dispatch


def _named(path: str) -> str:
    """The path's first segment after an optional ``api``: the game it may name."""
    segments = path.lstrip("/").split("/")
    return segments[1] if segments[0] == "api" and len(segments) > 1 else segments[0]
