"""The one seam between a game and the generic layers above it.

A game package exposes one object satisfying :class:`GamePlugin`, registered under the
``companion.games`` entry-point group (see :mod:`companion.games.registry`).  Everything
the table, the dashboard, the café and the command line need to know about a game comes
through it; none of them imports a game package directly.

The protocol is grouped by the layer that calls it.  Each hook imports its game-side code
lazily, so listing the installed games stays cheap and a game's optional dependencies
(a camera reader, say) load only when used.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from companion.games.cafe_seam import GameCafe
    from companion.games.command_seam import GameCommands
    from companion.games.live_seam import LiveGame
    from companion.games.page_seam import PageKit
    from companion.games.simulation_seam import Simulation
    from companion.games.table_seam import Referee


@runtime_checkable
class GamePlugin(Protocol):
    """What a game gives the table; see the module docstring."""

    #: Registry key: lowercase, used in URLs, config files and the log's opening event.
    name: str
    #: Shown to people, in page titles and menus.
    title: str

    # -- table layer: new games, the referee, lights, buttons, simulated players ----------

    def referee(self) -> Referee:
        """The game's referee for the generic table session (see
        :mod:`companion.games.table_seam`): new games, the fold of logged events, judging
        observations and operator actions, the view, the lights and the buttons."""
        ...

    def live(self) -> LiveGame:
        """What a live table of this game needs beyond the referee: its setup from the
        config, its camera, buttons and lights, its demo (see
        :mod:`companion.games.live_seam`); may raise ``NotImplementedError`` for the plain
        table (no camera, no buttons, the ``[game]`` section as the setup request)."""
        ...

    # -- web layer: views and pages --------------------------------------------------------

    def pages(self) -> PageKit:
        """The game's page kit for the dashboard (templates, view to page context, setup
        form); see :mod:`companion.games.page_seam`."""
        ...

    # -- café and command line --------------------------------------------------------------

    def commands(self) -> GameCommands:
        """The game's own subcommands and benchmarks for the command line."""
        ...

    def cafe(self) -> GameCafe:
        """How the café follows, summarises and checks a table playing this game."""
        ...

    # -- harnesses: seeded simulated games (crash test, café simulator, fuzz) ---------------

    def simulation(
        self,
        seed: int,
        *,
        players: int | None = None,
        hostile: bool = False,
        choices: Mapping[str, str] | None = None,
    ) -> Simulation:
        """A simulated game drawn from ``seed`` (see :mod:`companion.games.simulation_seam`):
        ``players`` at the table (the game's default when ``None``), ``hostile`` moves mixed
        in (misread, repeated or refused), ``choices`` the game's own setup choices by name.
        A game without simulated players raises ``NotImplementedError``."""
        ...
