"""The Ides of March for the generic layers: the object under ``companion.games``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from companion.games.table_seam import Referee


class IdesPlugin:
    name = "ides"
    title = "The Ides of March"

    def referee(self) -> Referee:
        from companion.games.ides.referee import IdesReferee

        return IdesReferee()

    def pages(self) -> Any:
        raise NotImplementedError("the web layer's hook is not wired yet")

    def commands(self) -> Any:
        raise NotImplementedError("the command line's hook is not wired yet")

    def cafe(self) -> Any:
        raise NotImplementedError("the café's hook is not wired yet")


GAME = IdesPlugin()
