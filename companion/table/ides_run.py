"""``companion run`` for The Ides of March: no camera; the LED device shows the dice and the
seat to play, the buttons and the dashboard's operator controls take the players' choices.

The configuration file is the Garum table's, with ``[game] game = "ides"`` and the players'
names, clockwise (``players = ["Livia", "Marcus", "Julia"]``); ``dice_mode = "physical"``
has the players throw real dice and the operator enter the faces (the default,
``"electronic"``, has the companion throw them).
"""

from __future__ import annotations

import signal
import threading
from contextlib import ExitStack, suppress
from typing import Any

from companion.devices.buttons import Buttons, RPiGPIOPins
from companion.errors import InputError
from companion.games.ides import DiceMode
from companion.link.emulator import Emulator
from companion.link.host import HostLink
from companion.table.config import TableConfig
from companion.table.ides_buttons import IDES_PINS, IdesButtons
from companion.table.ides_demo import open_ides_table, start_or_resume
from companion.web.config import WebConfig


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
            buttons = IdesButtons(table, Buttons(RPiGPIOPins(), IDES_PINS)).start()
            stack.callback(buttons.stop)
        start_or_resume(table, server, web, names, dice_mode=dice_mode)
        done = threading.Event()
        signal.signal(signal.SIGTERM, lambda *_: done.set())
        with suppress(KeyboardInterrupt):
            done.wait()
    return 0
