"""Garum as seen by the generic layers: the object registered under ``companion.games``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from companion.games.live_seam import LiveGame
    from companion.games.page_seam import PageKit
    from companion.games.simulation_seam import Simulation
    from companion.games.table_seam import Referee

from companion.games.cafe_seam import GameCafe
from companion.games.command_seam import GameCommands


class GarumPlugin:
    name = "garum"
    title = "Garum"

    def referee(self) -> Referee:
        from companion.games.garum.referee import GarumReferee

        return GarumReferee()

    def live(self) -> LiveGame:
        from companion.games.garum.live import GarumLive

        return GarumLive()

    def pages(self) -> PageKit:
        from companion.games.garum.pages import PAGES

        return PAGES

    def commands(self) -> GameCommands:
        from companion.games.garum.commands import GarumCommands

        return GarumCommands()

    def cafe(self) -> GameCafe:
        from companion.games.garum.cafe import GarumCafe

        return GarumCafe()

    def simulation(
        self,
        seed: int,
        *,
        players: int | None = None,
        hostile: bool = False,
        choices: Mapping[str, str] | None = None,
    ) -> Simulation:
        from companion.games.garum.scripted import GarumSimulation

        return GarumSimulation(seed, players=players, hostile=hostile, choices=choices)


GAME = GarumPlugin()
