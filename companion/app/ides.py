"""The Ides of March at the table: ``companion demo --game ides`` and ``companion run`` with
``[game] game = "ides"``.  There is no camera: the LED device shows the dice and the seat to
play, the buttons and the dashboard's operator controls take the players' choices.

In the demo simulated players play a whole game.

Everything but the players is real: the rules engine, the game log, the LED device's own
firmware (emulated behind a pseudo-terminal, driven through ``HostLink``) and the dashboard.
With ``--seed`` every choice and throw is drawn from a generator seeded with the seed and the
number of actions so far, so a game resumed from its log (``--data-dir``) goes on exactly as
it would have.
"""

from __future__ import annotations

import argparse
import random
import signal
import tempfile
import threading
import time
from contextlib import ExitStack, suppress
from pathlib import Path
from typing import Any

from companion.devices.buttons import Buttons, RPiGPIOPins
from companion.errors import CompanionError, InputError
from companion.games.ides import Dice, DiceMode
from companion.games.ides import words as words
from companion.games.ides.buttons import IDES_PINS, IdesButtons
from companion.games.ides.lights import DiceLights, LightsOut
from companion.games.ides.referee import IdesMatch, IdesReferee, IdesSetup, Settle
from companion.games.ides.simulate import DEFAULT_NAMES, choose
from companion.games.table_seam import ButtonPress
from companion.link.emulator import Emulator
from companion.link.host import HostLink
from companion.table.chain_key import default_key_path, open_table_log
from companion.table.commands import Act, Press
from companion.table.config import TableConfig
from companion.table.session import TableSession, TableState
from companion.web import Services, create_app
from companion.web.config import WebConfig
from companion.web.serve import DashboardServer

ROLL_S = 0.6  # dice animation at a watchable pace


def run(args: argparse.Namespace) -> int:
    if args.turns_per_second <= 0:
        raise InputError("expected a positive number", field="--turns-per-second")
    pause_s = 0.0 if args.fast else 1.0 / args.turns_per_second
    hold_s = args.hold if args.hold is not None else (0.0 if args.fast else 5.0)
    with ExitStack() as stack:
        if args.data_dir is None:
            data_dir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="ides-")))
        else:
            data_dir = args.data_dir
            data_dir.mkdir(parents=True, exist_ok=True)
        emulator = Emulator().start()
        stack.callback(emulator.stop)
        link = HostLink(port=emulator.port).start()
        stack.callback(link.stop)
        table, server, web = open_ides_table(
            stack, data_dir, link, args.host, args.port, roll_s=0.0 if args.fast else ROLL_S
        )
        log = table.log
        start_or_resume(table, server, web, list(DEFAULT_NAMES[: args.players]))
        if table.state is TableState.TAMPERED:  # the demo plays nothing on an altered log
            return 1
        try:
            play(table, args.seed, pause_s)
        except KeyboardInterrupt:
            print(f"stopped; --data-dir {data_dir} resumes this game", flush=True)
            return 130
        match = _match(table)
        link.wait_synced(2.0)
        lit = emulator.snapshot().lights
        dice = "dark" if lit is None else " and ".join(c or "off" for c in lit.dice)
        print(f"{match.ended} after {match.actions_applied} actions; dice LEDs: {dice}")
        verdict = log.verify()
        print(f"game log: {verdict.events} events, chain {'verified' if verdict.ok else 'BROKEN'}")
        if hold_s > 0:
            time.sleep(hold_s)
        return 0 if verdict.ok else 1


def open_ides_table(
    stack: ExitStack,
    data_dir: Path,
    lights: LightsOut | None,
    host: str,
    port: int,
    *,
    roll_s: float = ROLL_S,
    web: WebConfig | None = None,
    key_file: Path | None = None,
    dice: Dice | None = None,
) -> tuple[TableSession, DashboardServer, WebConfig]:
    """An Ides table on its log in ``data_dir`` (chained with the key in ``key_file``, the
    default key when not given), its owner thread running, served on the dashboard;
    ``stack`` closes it all."""
    key_file = key_file or default_key_path()
    log = open_table_log(data_dir / "ides.db", key_file)
    stack.callback(log.close)
    table = ides_session(log, lights, roll_s=roll_s, dice=dice)
    stack.callback(stop_session(table))
    web = web or WebConfig.from_env()
    app = create_app(web, Services(table, log))
    try:
        server = DashboardServer(app, host, port).start()
    except OSError as exc:
        raise CompanionError(
            f"cannot serve the dashboard on {host}:{port}: {exc.strerror}; "
            "choose another with --port"
        ) from None
    stack.callback(server.stop)
    return table, server, web


def ides_session(
    log: Any, lights: LightsOut | None, *, roll_s: float = ROLL_S, dice: Dice | None = None
) -> TableSession:
    """A table session playing The Ides of March on ``log``; a roll animates the dice LEDs
    for ``roll_s`` before the faces show (on the dashboard too)."""
    holder: list[TableSession] = []

    def settled(_lights: object) -> None:
        if holder:
            holder[0].submit(Act(Settle()))

    sink = DiceLights(lights, roll_s=roll_s, on_settle=settled)
    table = TableSession(log, sink, referee=IdesReferee(dice))
    holder.append(table)
    return table


def stop_session(table: TableSession) -> Any:
    """Starts ``table``'s owner thread; returns what stops it."""
    stop = threading.Event()
    owner = threading.Thread(target=table.run, args=(stop,), name="ides-table", daemon=True)
    owner.start()

    def close() -> None:
        stop.set()
        owner.join(timeout=5)

    return close


def _match(table: TableSession) -> IdesMatch:
    match = table.match
    assert isinstance(match, IdesMatch)
    return match


def start_or_resume(
    table: TableSession,
    server: DashboardServer,
    web: WebConfig,
    names: list[str],
    *,
    dice_mode: DiceMode = DiceMode.ELECTRONIC,
) -> None:
    """Resumes the game in play or starts one, then says where the table is served (so a
    client reading the dashboard line finds the game already there)."""
    state = table.state
    if state is not TableState.PLAYING and state is not TableState.TAMPERED:
        table.operate("new_game", request=IdesSetup(tuple(names), dice_mode=dice_mode))
    print(f"dashboard: {server.url}/ides", flush=True)
    print(f"operator token: {web.token_note()}", flush=True)
    print(f"game log: {table.log.path}", flush=True)
    if state is TableState.TAMPERED:
        v = table.verification
        print(
            f"{table.log.path}: the game log fails verification at event {v.bad_seq}"
            f" ({v.reason}): acknowledge it on the dashboard",
            flush=True,
        )
    elif state is TableState.PLAYING:
        match = _match(table)
        print(f"resuming game {match.game} after {match.actions_applied} actions")


def play(table: TableSession, seed: int | None, pause_s: float) -> None:
    """Simulated players choose among the legal actions until the game is over."""
    rng = random.Random(seed)
    while table.state is TableState.PLAYING:
        match = _match(table)
        game = match.position
        if seed is not None:
            rng = random.Random(f"{seed}:{match.actions_applied}")
        names = [p.name for p in game.players]
        who = names[game.current]
        dice = _dice(game.faces, rng, seed)
        applied = table.act("play", {"action": choose(game, rng), "by": "simulated", "dice": dice})
        print(f"turn {game.turn_number:>3}  {who:<7} {words.label(applied, names)}", flush=True)
        if pause_s > 0:
            time.sleep(pause_s)


def _dice(faces: Any, rng: random.Random, seed: int | None) -> Dice | None:
    """Seeded dice for a reproducible demo; otherwise the table's secure dice."""
    return Dice(faces, rng) if seed is not None else None


def players_of(config: TableConfig) -> list[str]:
    game: dict[str, Any] = config.game or {}
    names = game.get("players")
    if (
        not isinstance(names, list)
        or not 2 <= len(names) <= 4
        or not all(isinstance(n, str) and n.strip() for n in names)
    ):
        raise InputError(
            "expected the names of 2 to 4 players", source=config.source, field="game.players"
        )
    return names


def dice_mode_of(config: TableConfig) -> DiceMode:
    game: dict[str, Any] = config.game or {}
    raw = game.get("dice_mode", DiceMode.ELECTRONIC.value)
    try:
        return DiceMode.parse(raw, field="game.dice_mode")
    except InputError as exc:
        raise exc.located(source=config.source) from None


def serve_ides(config: TableConfig) -> int:
    """Runs an Ides table until Ctrl-C or SIGTERM; resumes the game in play from its log
    (in the dice mode it was started with)."""
    names = players_of(config)
    dice_mode = dice_mode_of(config)
    with ExitStack() as stack:
        config.data_dir.mkdir(parents=True, exist_ok=True)
        link = None
        if config.lights.kind in ("serial", "emulated"):
            port = config.lights.options.get("port")
            if config.lights.kind == "emulated":
                emulator = Emulator().start()
                stack.callback(emulator.stop)
                port = emulator.port
            link = HostLink(port=port).start()
            stack.callback(link.stop)
        web = WebConfig.from_env(token_file=config.token_file)
        table, server, web = open_ides_table(
            stack,
            config.data_dir,
            link,
            config.host,
            config.port,
            web=web,
            key_file=config.key_file,
        )
        if config.buttons.kind == "gpio":
            press = _presser(table)
            buttons = IdesButtons(press, Buttons(RPiGPIOPins(), IDES_PINS)).start()
            stack.callback(buttons.stop)
        start_or_resume(table, server, web, names, dice_mode=dice_mode)
        done = threading.Event()
        signal.signal(signal.SIGTERM, lambda *_: done.set())
        with suppress(KeyboardInterrupt):
            done.wait()
    return 0


def _presser(table: TableSession) -> Any:
    def press(button: ButtonPress) -> str:
        return str(table.do(Press(button)))

    return press
