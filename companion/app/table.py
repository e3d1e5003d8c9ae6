"""The table assembled: game log, session thread, hardware and dashboard, from one config.

This is the only place that knows which concrete camera, LED device and buttons are used;
adding a backend is one more case in :func:`make_readings`, :func:`make_lights` or
:func:`make_buttons`.
"""

from __future__ import annotations

import random
import signal
import sys
import threading
from dataclasses import dataclass, field
from typing import Any

from companion.boards.profile import BUILTIN, load_profile
from companion.devices.buttons import Button as DeviceButton
from companion.devices.buttons import Buttons, RPiGPIOPins
from companion.errors import InputError
from companion.games.garum import parse_record
from companion.games.garum.camera import CameraReadings
from companion.games.garum.frames import render_jpeg
from companion.games.garum.players import PlayersPlan, SimulatedPlayers, WatchedTable
from companion.games.garum.referee import SetupRequest, make_setup
from companion.games.garum.simcam import SimulatedPlayersCamera
from companion.games.garum.sources import PlayersReadings, RecordReadings
from companion.games.simulated import DEFAULT_PACE_S, DEFAULT_PATIENCE_S
from companion.games.table_seam import LightsPicture
from companion.input_files import read_text
from companion.table.chain_key import open_table_log
from companion.table.config import Backend, TableConfig
from companion.table.device_buttons import DeviceButtons
from companion.table.led import LinkLights
from companion.table.log import GameLog
from companion.table.ports import ButtonSource, LightsSink, ObservationSource
from companion.table.session import TableSession, TableState
from companion.vision.sources import OpenCVCamera, PiCamera
from companion.web import Services, create_app
from companion.web.config import WebConfig
from companion.web.serve import DashboardServer

DEFAULT_GAME: dict[str, Any] = {
    "board": "troia",
    "variant": "standard",
    "seats": [
        {"name": "Livia", "colours": ["B"]},
        {"name": "Marcus", "colours": ["G"]},
        {"name": "Julia", "colours": ["Y"]},
        {"name": "Titus", "colours": ["R"]},
    ],
}


class PrintedLights:
    """Lights shown as a line on the terminal, for a table without the LED device."""

    def show(self, lights: LightsPicture) -> None:
        shown = lights.to_dict()
        vat = f" vat {shown['vat']}" if shown.get("vat") is not None else ""
        colour = f" colour {shown['colour']}" if shown.get("colour") else ""
        print(f"lights: {shown.get('status')}{vat}{colour}", file=sys.stderr, flush=True)


class NoLights:
    def show(self, lights: LightsPicture) -> None:
        pass


def make_readings(
    config: TableConfig, table: WatchedTable
) -> tuple[ObservationSource | None, SetupRequest | None]:
    """The reading source, and the game it implies (a recorded game is replayed as set up);
    simulated players watch ``table`` to follow its operator."""
    backend = config.camera
    if backend.kind == "record":
        path = config.path(_option(backend, "record", str, config, "camera"))
        lines = read_text(path, what="game record").splitlines()
        record = parse_record(lines, str(path))
        interval = float(backend.options.get("interval_s", 2.0))
        return RecordReadings(record.states, interval_s=interval), SetupRequest.of(record.setup)
    if backend.kind in ("simulated", "synthetic"):
        request = new_game_from(config.game or DEFAULT_GAME, config.source)
        seed = backend.options.get("seed")
        setup = make_setup(request, load_profile, random.Random(seed))
        plan = players_plan(config)
        players = SimulatedPlayers(table, plan, random.Random(seed))
        hand_s = min(1.0, plan.pace_s / 2)
        if backend.kind == "synthetic":
            camera = SimulatedPlayersCamera(
                setup.board, players, seed=seed or 0, fps=20, hand_s=hand_s
            )
            readings = CameraReadings(camera, setup.board, still_s=0.2, max_fps=20)
            camera.on_board = readings.use_board
            return readings, SetupRequest.of(setup)
        return PlayersReadings(players, hand_s=hand_s, frame=render_jpeg), SetupRequest.of(setup)
    if backend.kind in ("opencv", "picamera"):
        name = str(backend.options.get("board", "troia"))
        board = load_profile(name if name in BUILTIN else config.path(name))
        still_s = float(backend.options.get("still_s", 0.5))
        source = (
            OpenCVCamera(int(backend.options.get("index", 0)))
            if backend.kind == "opencv"
            else PiCamera()
        )
        return CameraReadings(source, board, still_s=still_s), None
    return None, None


def players_plan(config: TableConfig) -> PlayersPlan:
    """The simulated players' pace, patience and planned mistakes, from ``[camera]``."""
    options = config.camera.options
    pace_s = _seconds(config, "interval_s", DEFAULT_PACE_S)
    patience_s: float | None = _seconds(config, "patience_s", DEFAULT_PATIENCE_S)
    waits = options.get("wait_for_operator", False)
    if not isinstance(waits, bool):
        raise InputError(
            "expected true or false", source=config.source, field="camera.wait_for_operator"
        )
    mistakes = options.get("mistakes_at", list(PlayersPlan.mistakes_at))
    if not isinstance(mistakes, list | tuple) or not all(
        isinstance(m, int) and not isinstance(m, bool) and m > 0 for m in mistakes
    ):
        raise InputError(
            "expected a list of turn numbers", source=config.source, field="camera.mistakes_at"
        )
    return PlayersPlan(pace_s, None if waits else patience_s, tuple(mistakes))


def _seconds(config: TableConfig, key: str, default: float) -> float:
    value = config.camera.options.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise InputError(
            "expected a number of seconds, 0 or more", source=config.source, field=f"camera.{key}"
        )
    return float(value)


def make_lights(config: TableConfig) -> LightsSink:
    kind = config.lights.kind
    if kind == "print":
        return PrintedLights()
    if kind in ("serial", "emulated"):
        port = config.lights.options.get("port")
        if port is not None and not isinstance(port, str):
            raise InputError(
                "expected a serial port path", source=config.source, field="lights.port"
            )
        return LinkLights(port, emulate=kind == "emulated")
    return NoLights()


def make_buttons(config: TableConfig) -> ButtonSource | None:
    backend = config.buttons
    if backend.kind == "gpio":
        pins = {
            DeviceButton.CONFIRM: _option(backend, "accept_pin", int, config, "buttons"),
            DeviceButton.UNDO: _option(backend, "undo_pin", int, config, "buttons"),
        }
        return DeviceButtons(Buttons(RPiGPIOPins(), pins))
    return None


def _option(backend: Backend, key: str, kind: type, config: TableConfig, section: str) -> Any:
    value = backend.options.get(key)
    if not isinstance(value, kind):
        raise InputError(
            f"expected a {kind.__name__}", source=config.source, field=f"{section}.{key}"
        )
    return value


def new_game_from(data: dict[str, Any], source: str) -> SetupRequest:
    try:
        return SetupRequest.from_dict(data)
    except InputError as exc:
        raise exc.located(source=source, field_prefix="game") from None


@dataclass
class Table:
    """A running table; :meth:`close` stops every thread it started."""

    log: GameLog
    session: TableSession
    server: DashboardServer
    lights: LightsSink | None = None
    readings: ObservationSource | None = None
    buttons: ButtonSource | None = None
    _stop: threading.Event = field(default_factory=threading.Event)
    _owner: threading.Thread | None = None

    @classmethod
    def open(
        cls,
        config: TableConfig,
        *,
        lights: LightsSink | None = None,
        readings: ObservationSource | None = None,
        web: WebConfig | None = None,
        fresh: bool = False,
    ) -> Table:
        """``fresh`` starts the configured game even when the log holds one in play (a
        simulated camera always starts from an empty board)."""
        config.data_dir.mkdir(parents=True, exist_ok=True)
        lights = lights or make_lights(config)
        log = open_table_log(config.log_path, config.key_file)
        session = TableSession(log, lights)
        try:
            source, implied = make_readings(config, session)
        except BaseException:
            if isinstance(lights, LinkLights):
                lights.close()
            log.close()
            raise
        app = create_app(web or WebConfig.from_env(), Services(session, log))
        server = DashboardServer(app, config.host, config.port)
        table = cls(log, session, server, lights, readings or source, make_buttons(config))
        if session.state is TableState.TAMPERED:  # no new game until the operator has seen it
            v = session.verification
            print(
                f"{config.log_path}: the game log fails verification at event {v.bad_seq}"
                f" ({v.reason}): acknowledge it on the dashboard",
                file=sys.stderr,
                flush=True,
            )
        elif fresh or session.state.value in ("setup", "ended"):
            if implied is not None:
                session.operate("new_game", request=implied)
            elif config.game is not None:
                session.operate("new_game", request=new_game_from(config.game, config.source))
        return table

    def start(self) -> Table:
        self._owner = threading.Thread(target=self.session.run, args=(self._stop,), daemon=True)
        self._owner.start()
        if self.readings is not None:
            self.session.attach_readings(self.readings)
        if self.buttons is not None:
            self.session.attach_buttons(self.buttons)
        self.server.start()
        return self

    def close(self) -> None:
        for part in (self.readings, self.buttons):
            if part is not None:
                part.close()
        self.session.join_inputs()
        self.server.stop()
        self._stop.set()
        if self._owner is not None:
            self._owner.join(timeout=5)
        if isinstance(self.lights, LinkLights):
            self.lights.close()
        self.log.close()


def serve(
    config: TableConfig,
    cafe: Any = None,
    *,
    narrate: bool = False,
    fresh: bool = False,
    intro: str | None = None,
) -> int:
    """Runs the table until Ctrl-C or SIGTERM; ``narrate`` prints each change, ``fresh``
    starts a new game even if the log holds one in play, ``intro`` is printed once it is up.
    A table configured for another game than the camera's is served by that game's root."""
    if config.game is not None and config.game.get("game") == "ides":
        from companion.app.ides import serve_ides

        return serve_ides(config)
    web = WebConfig.from_env(token_file=config.token_file)
    table = Table.open(config, web=web, fresh=fresh).start()
    dashboard = f"{(web.public_url or table.server.url).rstrip('/')}/"
    publisher = cafe.start(config.log_path, dashboard) if cafe is not None else None
    print(f"dashboard: {table.server.url}/  (TV: /tv, phone: /phone)", flush=True)
    print(f"operator token: {web.token_note()}", flush=True)
    print(f"game log: {config.log_path}", flush=True)
    if intro:
        print(intro, flush=True)
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    try:
        with table.session.viewers.subscribe() as sub:
            before: dict[str, Any] = {}
            while not done.is_set():
                update = sub.get(0.2)
                if update is not None and narrate:
                    for line in news(before, update):
                        print(line, flush=True)
                before = update or before
    except KeyboardInterrupt:
        pass
    finally:
        if publisher is not None:  # café hook: says offline before the table goes
            publisher.stop()
        table.close()
    return 0


def news(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """What changed at the table, in a line or two for the terminal."""
    lines = []
    played = after.get("turns_played", 0)
    if played > before.get("turns_played", 0):
        lines.append(f"turn {played} accepted")
    flag = after.get("flag")
    if flag and flag != before.get("flag"):
        rules = "; ".join(v["message"] for v in flag["violations"]) or "the board differs"
        lines.append(f"flagged ({flag['outcome']}): {rules}")
    turn = after.get("turn")
    if turn and turn != before.get("turn"):
        vat = turn["vat"] if turn["vat"] is not None else "to be chosen"
        lines.append(f"  next: {turn['seat_name']} ({turn['colour']}), vat {vat}")
    if after.get("status") == "ended" and before.get("status") != "ended":
        winners = ", ".join(after.get("scores", {}).get("winners", []))
        lines.append(f"game over: {winners} won (Ctrl-C to stop the dashboard)")
    return lines
