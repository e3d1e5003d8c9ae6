"""The table assembled: game log, session thread, hardware and dashboard, from one config.

The same parts are wired for every game; the game named by the ``[game]`` section (the
registry's default game when none is named) adds what is its own through its live seam
(:mod:`companion.games.live_seam`): the game to start, the camera, what the buttons mean,
how the LEDs are driven and what the terminal is told.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from companion.app.parts import make_buttons, make_lights
from companion.cafe.publisher import PublisherState, TablePublisher
from companion.errors import CompanionError, InputError
from companion.games import registry
from companion.games.live_seam import DemoPlayers, LiveGame, live_of
from companion.games.plugin import GamePlugin
from companion.link.lights import TableLights
from companion.table.chain_key import open_table_log
from companion.table.commands import Act
from companion.table.config import TableConfig
from companion.table.led import LinkLights
from companion.table.log import GameLog
from companion.table.ports import ButtonSource, LightsSink, ObservationSource
from companion.table.session import TableSession, TableState
from companion.web import Services, create_app
from companion.web.config import WebConfig
from companion.web.serve import DashboardServer

# Seconds a table that stops gives a connected café publisher to deliver its last events.
CAFE_DRAIN_S = 3.0


def game_of(config: TableConfig) -> GamePlugin:
    """The game the table's file names, or the default game."""
    name = (config.game or {}).get("game", registry.DEFAULT_GAME)
    if not isinstance(name, str):
        raise InputError("expected a game's name", source=config.source, field="game.game")
    try:
        return registry.game(name)
    except InputError as exc:
        raise exc.located(source=config.source, field_prefix="game") from None


class LiveSession:
    """The session as a game's live parts see it (:class:`~companion.games.live_seam.
    LiveTable`); handed out before the session exists, since the session is built on the
    lights the game makes."""

    def __init__(self) -> None:
        self._session: TableSession | None = None

    def bind(self, session: TableSession) -> None:
        self._session = session

    @property
    def session(self) -> TableSession:
        if self._session is None:
            raise RuntimeError("the table session is not open yet")
        return self._session

    @property
    def state(self) -> str:
        return self.session.state

    @property
    def match(self) -> Any:
        return self.session.match

    def position(self) -> tuple[Any, Any]:
        return self.session.position()

    def operate(self, kind: str, timeout_s: float = 10.0, **args: Any) -> Any:
        return self.session.operate(kind, timeout_s, **args)

    def act(self, name: str, args: Mapping[str, Any], timeout_s: float = 10.0) -> Any:
        return self.session.act(name, args, timeout_s)

    def post(self, name: str, args: Mapping[str, Any]) -> None:
        """Queued, never awaited: the lights call this from the session's own thread.
        Before the session exists there is nothing to tell."""
        if self._session is not None:
            self._session.submit(Act(self._session.referee.action(name, args)))


@dataclass
class Table:
    """A running table; :meth:`close` stops every thread it started."""

    log: GameLog
    session: TableSession
    server: DashboardServer
    live: LiveGame
    handle: LiveSession
    lights: LightsSink | None = None
    readings: ObservationSource | None = None
    buttons: ButtonSource | None = None
    sink: LightsSink | None = None  # the game's sink on ``lights``, when it adds one
    resumed: bool = False  # the game in play was taken up from the log
    _stop: threading.Event = field(default_factory=threading.Event)
    _owner: threading.Thread | None = None

    @classmethod
    def open(
        cls,
        config: TableConfig,
        *,
        lights: LightsSink | None = None,
        web: WebConfig | None = None,
        fresh: bool = False,
    ) -> Table:
        """``fresh`` starts the configured game even when the log holds one in play (a
        simulated camera always starts from an empty board)."""
        plugin = game_of(config)
        live = live_of(plugin)
        requested = live.setup(config.game, config.source)
        config.data_dir.mkdir(parents=True, exist_ok=True)
        made = lights is None
        out = lights or make_lights(config)
        handle = LiveSession()
        closing: list[Any] = [out] if made else []
        try:
            sink = live.lights(out, config, handle)
            if sink is not out:
                closing.append(sink)
            log = open_table_log(config.data_dir / live.log_name, config.key_file)
            closing.append(log)
            session = TableSession(log, sink, game=plugin.name)
            handle.bind(session)
            inputs = live.inputs(config, handle)
            closing.append(inputs.readings)
            buttons = make_buttons(config, live)
            app = create_app(web or WebConfig.from_env(), Services(session, log))
            server = _dashboard(app, config)
        except BaseException:
            _close_all(reversed(closing))
            raise
        table = cls(
            log,
            session,
            server,
            live,
            handle,
            out if made else lights,
            inputs.readings,
            buttons,
            sink if sink is not out else None,
        )
        if session.state is TableState.TAMPERED:  # no new game until the operator has seen it
            v = session.verification
            print(
                f"{log.path}: the game log fails verification at event {v.bad_seq}"
                f" ({v.reason}): acknowledge it on the dashboard",
                file=sys.stderr,
                flush=True,
            )
        elif fresh or session.state.value in ("setup", "ended"):
            request = inputs.setup if inputs.setup is not None else requested
            if request is not None:
                session.operate("new_game", request=request, game=plugin.name)
        else:
            table.resumed = True
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
        _close_all([self.sink, self.lights if isinstance(self.lights, LinkLights) else None])
        self.log.close()

    def device_lights(self) -> TableLights | None:
        """What the emulated LED device shows, once the link has delivered the last picture."""
        if not isinstance(self.lights, LinkLights) or self.lights.emulator is None:
            return None
        self.lights.link.wait_synced(2.0)
        return self.lights.emulator.snapshot().lights


def _dashboard(app: Any, config: TableConfig) -> DashboardServer:
    try:
        return DashboardServer(app, config.host, config.port)
    except OSError as exc:
        raise CompanionError(
            f"cannot serve the dashboard on {config.host}:{config.port}: "
            f"{exc.strerror or exc}; choose another with --port"
        ) from None


def _close_all(parts: Any) -> None:
    for part in parts:
        close = getattr(part, "close", None)
        if callable(close):
            close()


def serve(
    config: TableConfig,
    cafe: Any = None,
    *,
    narrate: bool = False,
    fresh: bool = False,
    intro: str | None = None,
    players: DemoPlayers | None = None,
    hold_s: float = 0.0,
    stopped: str = "stopped",
) -> int:
    """Runs the table until Ctrl-C or SIGTERM; ``narrate`` prints each change, ``fresh``
    starts a new game even if the log holds one in play, ``intro`` is printed once it is up.
    With ``players`` (a demo's) it runs until their game is over, then says how it ended
    and keeps the dashboard up ``hold_s`` longer."""
    # Asked to stop from the moment it starts: a SIGTERM that came after the dashboard's
    # address was printed but before the handler was in place ended the process unclean.
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    web = WebConfig.from_env(token_file=config.token_file)
    table = Table.open(config, web=web, fresh=fresh).start()
    dashboard = f"{(web.public_url or table.server.url).rstrip('/')}/"
    publisher = cafe.start(table.log.path, dashboard) if cafe is not None else None
    session = table.session
    print(f"dashboard: {table.server.url}{table.live.page}  (TV: /tv, phone: /phone)", flush=True)
    print(f"operator token: {web.token_note()}", flush=True)
    print(f"game log: {table.log.path}", flush=True)
    if table.resumed and session.match is not None:
        print(f"resuming game {session.match.game}", flush=True)
    if intro:
        print(intro, flush=True)
    try:
        if players is not None:
            return _play(table, players, done, hold_s, stopped)
        _watch(table, done, narrate)
    except KeyboardInterrupt:
        if players is not None:
            print(stopped, flush=True)
            return 130
    finally:
        if publisher is not None:  # café hook: says offline before the table goes
            _send_the_rest(publisher, table.log)
            publisher.stop()
        table.close()
    return 0


def _send_the_rest(publisher: TablePublisher, log: GameLog) -> None:
    """Lets a connected publisher deliver the events logged last (a demo's ending is
    written moments before it exits); an unreachable café is not waited for."""
    head = log.head()
    if head is not None and publisher.state is PublisherState.ONLINE:
        publisher.wait_acked(head.seq, CAFE_DRAIN_S)


def _watch(table: Table, done: threading.Event, narrate: bool) -> None:
    with table.session.viewers.subscribe() as sub:
        before: dict[str, Any] = {}
        while not done.is_set():
            update = sub.get(0.2)
            if update is not None and narrate:
                for line in table.live.news(before, update):
                    print(line, flush=True)
            before = update or before


def _play(
    table: Table, players: DemoPlayers, done: threading.Event, hold_s: float, stopped: str
) -> int:
    """The demo's players play their game out; the log is checked at the end."""
    if table.session.state is TableState.TAMPERED:  # the demo plays nothing on an altered log
        return 1
    players.play(table.handle, done)
    if table.session.state is not TableState.ENDED:
        print(stopped, flush=True)
        return 0
    print(players.summary(table.handle, table.device_lights()), flush=True)
    verdict = table.log.verify()
    print(f"game log: {verdict.events} events, chain {'verified' if verdict.ok else 'BROKEN'}")
    if hold_s > 0:
        done.wait(hold_s)
    return 0 if verdict.ok else 1
