"""The Ides of March for the generic layers: the object under ``companion.games``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from companion.games.live_seam import LiveGame
    from companion.games.page_seam import PageKit
    from companion.games.simulation_seam import Simulation
    from companion.games.table_seam import Referee

from companion.games.cafe_seam import GameCafe
from companion.games.command_seam import GameCommands, NoCommands


class IdesPlugin:
    name = "ides"
    title = "The Ides of March"

    def referee(self) -> Referee:
        from companion.games.ides.referee import IdesReferee

        return IdesReferee()

    def live(self) -> LiveGame:
        from companion.games.ides.live import IdesLive

        return IdesLive()

    def pages(self) -> PageKit:
        from companion.games.ides.pages import PAGES

        return PAGES

    def commands(self) -> GameCommands:
        return NoCommands()  # played through ``run`` and ``demo``, like every game

    def cafe(self) -> GameCafe:
        from companion.games.ides.cafe import IdesCafe

        return IdesCafe()

    def simulation(
        self,
        seed: int,
        *,
        players: int | None = None,
        hostile: bool = False,
        choices: Mapping[str, str] | None = None,
    ) -> Simulation:
        from companion.games.ides.scripted import IdesSimulation

        return IdesSimulation(seed, players=players, hostile=hostile, choices=choices)


GAME = IdesPlugin()
