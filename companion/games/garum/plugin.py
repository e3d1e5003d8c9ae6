"""Garum as seen by the generic layers: the object registered under ``companion.games``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from companion.games.table_seam import Referee


class GarumPlugin:
    name = "garum"
    title = "Garum"

    def referee(self) -> Referee:
        from companion.games.garum.referee import GarumReferee

        return GarumReferee()

    def pages(self) -> Any:
        raise NotImplementedError("the web layer's hook is not wired yet")

    def commands(self) -> Any:
        raise NotImplementedError("the command line's hook is not wired yet")

    def cafe(self) -> Any:
        raise NotImplementedError("the café's hook is not wired yet")


GAME = GarumPlugin()
