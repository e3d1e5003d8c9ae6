"""The Ides of March at a live table: no camera; the LED device shows the dice and the seat to
play, the buttons and the dashboard's operator controls take the players' choices.

The ``[game]`` section names the players (2 to 4, clockwise) and who throws the dice; a game
in play resumes from its log in the dice mode it was started with.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from typing import Any

from companion.errors import InputError
from companion.games.ides import DiceMode
from companion.games.ides.buttons import IDES_PINS, meaning
from companion.games.ides.lights import DiceLights
from companion.games.ides.referee import IdesSetup
from companion.games.live_seam import (
    ButtonPlan,
    DemoTable,
    Lights,
    LiveConfig,
    LiveInputs,
    LiveTable,
)

ROLL_S = 0.6  # dice animation at a watchable pace

TEMPLATE = (
    'players = ["Livia", "Marcus", "Julia"]  # 2 to 4 names, clockwise',
    'dice_mode = "electronic" # the companion throws; "physical": the operator enters what',
    '                         # the real dice show (default "electronic")',
    f"{f'dice_roll_s = {ROLL_S}':<25}# seconds the dice LEDs roll before the faces show "
    f"(default {ROLL_S})",
)


class IdesLive:
    log_name = "ides.db"  # the log's name since the game's first tables
    page = "/ides"

    def setup(self, section: Mapping[str, Any] | None, source: str) -> IdesSetup:
        game: Mapping[str, Any] = section or {}
        names = game.get("players")
        if (
            not isinstance(names, list)
            or not 2 <= len(names) <= 4
            or not all(isinstance(n, str) and n.strip() for n in names)
        ):
            raise InputError(
                "expected the names of 2 to 4 players", source=source, field="game.players"
            )
        raw = game.get("dice_mode", DiceMode.ELECTRONIC.value)
        try:
            dice_mode = DiceMode.parse(raw, field="game.dice_mode")
        except InputError as exc:
            raise exc.located(source=source) from None
        return IdesSetup(tuple(names), dice_mode=dice_mode)

    def inputs(self, config: LiveConfig, table: LiveTable) -> LiveInputs:
        del config, table
        return LiveInputs()

    def lights(self, out: Lights, config: LiveConfig, table: LiveTable) -> Lights:
        """A roll animates the dice LEDs, then the faces show (on the dashboard too)."""

        def settled(_lights: object) -> None:
            table.post("settle", {})

        return DiceLights(out, roll_s=roll_seconds(config), on_settle=settled)

    def buttons(self, config: LiveConfig) -> ButtonPlan:
        del config
        return ButtonPlan(IDES_PINS, meaning)

    def news(self, before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
        del before, after
        return []  # the demo's players say each action themselves

    def add_demo_arguments(self, parser: argparse._ArgumentGroup) -> None:
        from companion.games.ides.demo import add_demo_arguments

        add_demo_arguments(parser)

    def demo(self, args: argparse.Namespace) -> DemoTable | int:
        from companion.games.ides.demo import demo

        return demo(args)

    def template(self) -> Sequence[str]:
        return TEMPLATE


def roll_seconds(config: LiveConfig) -> float:
    game: Mapping[str, Any] = config.game or {}
    value = game.get("dice_roll_s", ROLL_S)
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 10:
        raise InputError(
            "expected seconds, 0 to 10", source=config.source, field="game.dice_roll_s"
        )
    return float(value)
