"""The table assembled: game log, session thread, hardware and dashboard, from one config.

This is the only place that knows which concrete camera, LED device and buttons are used;
adding a backend is one more case in :func:`make_readings`, :func:`make_lights` or
:func:`make_buttons`.
"""

from __future__ import annotations

import functools
import random
import sys
import threading
from dataclasses import dataclass, field
from typing import Any

from companion.boards.profile import BUILTIN, load_profile
from companion.devices.buttons import Button as DeviceButton
from companion.devices.buttons import Buttons, RPiGPIOPins
from companion.errors import InputError
from companion.games.garum import parse_record
from companion.table.camera import CameraReadings
from companion.table.chain_key import open_table_log
from companion.table.config import Backend, TableConfig
from companion.table.device_buttons import DeviceButtons
from companion.table.frames import render_jpeg
from companion.table.led import LinkLights
from companion.table.log import GameLog
from companion.table.ports import (
    ButtonSource,
    LightsSink,
    ReadingSource,
    TableLights,
)
from companion.table.referee import DemoReferee
from companion.table.session import NewGame, TableSession, TableState, make_setup
from companion.table.simcam import SimulatedPlayersCamera
from companion.table.sources import RecordReadings, simulated_players
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

    def show(self, lights: TableLights) -> None:
        vat = f" vat {lights.vat}" if lights.vat is not None else ""
        colour = f" colour {lights.colour}" if lights.colour else ""
        print(f"lights: {lights.status.value}{vat}{colour}", file=sys.stderr, flush=True)


class NoLights:
    def show(self, lights: TableLights) -> None:
        pass


def make_readings(config: TableConfig) -> tuple[ReadingSource | None, NewGame | None]:
    """The reading source, and the game it implies (a recorded game is replayed as set up)."""
    backend = config.camera
    if backend.kind == "record":
        path = config.path(_option(backend, "record", str, config, "camera"))
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise InputError(
                f"cannot read the game record: {exc.strerror}", source=str(path)
            ) from None
        record = parse_record(lines, str(path))
        interval = float(backend.options.get("interval_s", 2.0))
        return RecordReadings(record.states, interval_s=interval), NewGame.of(record.setup)
    if backend.kind in ("simulated", "synthetic"):
        request = new_game_from(config.game or DEFAULT_GAME, config.source)
        seed = backend.options.get("seed")
        setup = make_setup(request, load_profile, random.Random(seed))
        mistakes = tuple(backend.options.get("mistakes_at", (4,)))
        states = simulated_players(setup, random.Random(seed), mistakes_at=mistakes)
        interval = float(backend.options.get("interval_s", 2.0))
        if backend.kind == "synthetic":
            camera = SimulatedPlayersCamera(
                setup.board, states, seed=seed or 0, fps=20, hand_s=interval / 2, still_s=interval
            )
            return CameraReadings(camera, setup.board, still_s=0.2, max_fps=20), NewGame.of(setup)
        frames = functools.partial(render_jpeg, setup.board)
        return RecordReadings(states, interval_s=interval, frame=frames), NewGame.of(setup)
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


def new_game_from(data: dict[str, Any], source: str) -> NewGame:
    try:
        return NewGame.from_dict(data)
    except InputError as exc:
        raise exc.located(source=source, field_prefix="game") from None


@dataclass
class Table:
    """A running table; :meth:`close` stops every thread it started."""

    log: GameLog
    session: TableSession
    server: DashboardServer
    lights: LightsSink | None = None
    readings: ReadingSource | None = None
    buttons: ButtonSource | None = None
    _stop: threading.Event = field(default_factory=threading.Event)
    _owner: threading.Thread | None = None

    @classmethod
    def open(
        cls,
        config: TableConfig,
        *,
        lights: LightsSink | None = None,
        readings: ReadingSource | None = None,
        web: WebConfig | None = None,
        fresh: bool = False,
    ) -> Table:
        """``fresh`` starts the configured game even when the log holds one in play (a
        simulated camera always starts from an empty board)."""
        config.data_dir.mkdir(parents=True, exist_ok=True)
        source, implied = make_readings(config)
        lights = lights or make_lights(config)
        log = open_table_log(config.log_path, config.key_file)
        session = TableSession(log, lights)
        app = create_app(web or WebConfig.from_env(), Services(session, log))
        server = DashboardServer(app, config.host, config.port)
        table = cls(log, session, server, lights, readings or source, make_buttons(config))
        if isinstance(source, CameraReadings) and isinstance(source.source, SimulatedPlayersCamera):
            source.source.waiter = DemoReferee(session)  # simulated players wait for the table
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
