"""``companion demo --game ides``: simulated players play a whole Ides game at the table.

Everything but the players is real: the rules engine, the game log, the LED device's own
firmware (emulated behind a pseudo-terminal, driven through ``HostLink``) and the dashboard.
With ``--seed`` every choice and throw is drawn from a generator seeded with the seed and the
number of actions so far, so a game resumed from its log (``--data-dir``) goes on exactly as
it would have.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from companion.cli._arguments import port_number, positive_rate, seconds
from companion.errors import CompanionError, InputError
from companion.games.ides import Dice, DiceMode
from companion.games.ides.simulate import DEFAULT_NAMES, choose
from companion.games.table_seam import LightsPicture
from companion.link.emulator import Emulator
from companion.link.host import HostLink
from companion.table import ides_words as words
from companion.table.chain_key import default_key_path, open_table_log
from companion.table.ides_lights import LightsOut
from companion.table.ides_session import IdesStatus, IdesTable
from companion.table.session import TableSession
from companion.web import Services, create_app
from companion.web.config import WebConfig
from companion.web.serve import DashboardServer

ROLL_S = 0.6  # dice animation at a watchable pace


class _Dark:
    """The Garum side of the dashboard has no lights in this demo."""

    def show(self, lights: LightsPicture) -> None:
        pass


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The Ides demo's own options (``--players`` and ``--seed`` are shared with Garum)."""
    parser.add_argument(
        "--turns-per-second",
        type=positive_rate,
        default=1.0,
        help="Ides: player choices per second (default 1, watchable)",
    )
    parser.add_argument(
        "--fast",
        action="store_true",
        help="Ides: no pause between choices and no dice animation (for tests)",
    )
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="the dashboard's address (default 127.0.0.1: this machine only)",
    )
    parser.add_argument(
        "--port",
        type=port_number,
        default=5000,
        help="the dashboard's port (default 5000; 0 picks a free one)",
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        help="Ides: keep the game log here (ides.db) and resume an unfinished game; "
        "a temporary directory otherwise",
    )
    parser.add_argument(
        "--hold", type=seconds, default=None, help="Ides: seconds the dashboard stays up at the end"
    )


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
        if table.status is IdesStatus.TAMPERED:  # the demo plays nothing on an altered log
            return 1
        try:
            play(table, args.seed, pause_s)
        except KeyboardInterrupt:
            print(f"stopped; --data-dir {data_dir} resumes this game", flush=True)
            return 130
        assert table.game is not None
        link.wait_synced(2.0)
        lit = emulator.snapshot().lights
        dice = "dark" if lit is None else " and ".join(c or "off" for c in lit.dice)
        print(f"{table.ended} after {table.actions_applied} actions; dice LEDs: {dice}")
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
) -> tuple[IdesTable, DashboardServer, WebConfig]:
    """An Ides table on its log in ``data_dir``, served on the dashboard; ``stack`` closes it.
    Both logs are chained with the key in ``key_file`` (the default key when not given)."""
    key_file = key_file or default_key_path()
    log = open_table_log(data_dir / "ides.db", key_file)
    stack.callback(log.close)
    table = IdesTable(log, lights, roll_s=roll_s)
    stack.callback(table.close)
    garum_log = open_table_log(data_dir / "table.db", key_file)
    stack.callback(garum_log.close)
    web = web or WebConfig.from_env()
    app = create_app(web, Services(TableSession(garum_log, _Dark()), garum_log, ides=table))
    try:
        server = DashboardServer(app, host, port).start()
    except OSError as exc:
        raise CompanionError(
            f"cannot serve the dashboard on {host}:{port}: {exc.strerror}; "
            "choose another with --port"
        ) from None
    stack.callback(server.stop)
    return table, server, web


def start_or_resume(
    table: IdesTable,
    server: DashboardServer,
    web: WebConfig,
    names: list[str],
    *,
    dice_mode: DiceMode = DiceMode.ELECTRONIC,
) -> None:
    """Resumes the game in play or starts one, then says where the table is served (so a
    client reading the dashboard line finds the game already there)."""
    status = table.status
    if status is not IdesStatus.PLAYING and status is not IdesStatus.TAMPERED:
        table.new_game(names, dice_mode=dice_mode)
    print(f"dashboard: {server.url}/ides", flush=True)
    print(f"operator token: {web.token_note()}", flush=True)
    print(f"game log: {table.log.path}", flush=True)
    if status is IdesStatus.TAMPERED:
        v = table.verification
        print(
            f"{table.log.path}: the game log fails verification at event {v.bad_seq}"
            f" ({v.reason}): acknowledge it on the dashboard",
            flush=True,
        )
    elif status is IdesStatus.PLAYING:
        print(f"resuming game {table.game_id} after {table.actions_applied} actions")


def play(table: IdesTable, seed: int | None, pause_s: float) -> None:
    """Simulated players choose among the legal actions until the game is over."""
    rng = random.Random(seed)
    while table.status is IdesStatus.PLAYING:
        game = table.game
        assert game is not None
        if seed is not None:
            rng = random.Random(f"{seed}:{table.actions_applied}")
        names = [p.name for p in game.players]
        who = names[game.current]
        applied = table.act(choose(game, rng), by="simulated", dice=_dice(game.faces, rng, seed))
        print(f"turn {game.turn_number:>3}  {who:<7} {words.label(applied, names)}", flush=True)
        if pause_s > 0:
            time.sleep(pause_s)


def _dice(faces: Any, rng: random.Random, seed: int | None) -> Dice | None:
    """Seeded dice for a reproducible demo; otherwise the table's secure dice."""
    return Dice(faces, rng) if seed is not None else None
