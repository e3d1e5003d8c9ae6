"""The Ides of March for the generic layers: the object under ``companion.games``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from companion.games.page_seam import PageKit


class IdesPlugin:
    name = "ides"
    title = "The Ides of March"

    def referee(self) -> Any:
        raise NotImplementedError("the table layer's hook is not wired yet")

    def pages(self) -> PageKit:
        from companion.games.ides.pages import PAGES

        return PAGES

    def commands(self) -> Any:
        raise NotImplementedError("the command line's hook is not wired yet")

    def cafe(self) -> Any:
        raise NotImplementedError("the café's hook is not wired yet")


GAME = IdesPlugin()
