"""The one seam between a game and the generic layers above it.

A game package exposes one object satisfying :class:`GamePlugin`, registered under the
``companion.games`` entry-point group (see :mod:`companion.games.registry`).  Everything
the table, the dashboard, the café and the command line need to know about a game comes
through it; none of them imports a game package directly.

The protocol is grouped by the layer that calls it.  Each hook imports its game-side code
lazily, so listing the installed games stays cheap and a game's optional dependencies
(vision for Garum, say) load only when used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from companion.games.table_seam import Referee


@runtime_checkable
class GamePlugin(Protocol):
    """What a game gives the table; see the module docstring."""

    #: Registry key: lowercase, used in URLs, config files and the log's opening event.
    name: str
    #: Shown to people: "Garum", "The Ides of March".
    title: str

    # -- table layer: new games, the referee, lights, buttons, simulated players ----------

    def referee(self) -> Referee:
        """The game's referee for the generic table session (see
        :mod:`companion.games.table_seam`): new games, the fold of logged events, judging
        observations and operator actions, the view, the lights and the buttons."""
        ...

    # -- web layer: views and pages --------------------------------------------------------

    def pages(self) -> Any:
        """The game's page kit for the dashboard."""
        ...

    # -- café and command line --------------------------------------------------------------

    def commands(self) -> Any:
        """The game's own CLI commands."""
        ...

    def cafe(self) -> Any:
        """How the café summarises a table playing this game."""
        ...
