"""Which games this install can play: every entry point of the ``companion.games`` group.

A game is one package that exposes a :class:`~companion.games.plugin.GamePlugin`; the
generic layers (table, web, café, CLI) find it here by name and never import a game's
package themselves, so a separate distribution can add a game by declaring::

    [project.entry-points."companion.games"]
    mygame = "mygame.plugin:GAME"
"""

from __future__ import annotations

import threading
from importlib.metadata import EntryPoint, entry_points

from companion.errors import InputError
from companion.games.plugin import GamePlugin

ENTRY_POINT_GROUP = "companion.games"
DEFAULT_GAME = "garum"  # what a table plays when its config names no game

_lock = threading.Lock()
_loaded: dict[str, GamePlugin] | None = None
_extra: dict[str, GamePlugin] = {}


class UnknownGame(InputError):
    """A game name no installed plugin answers to."""


def _load(point: EntryPoint) -> GamePlugin:
    plugin = point.load()
    if not isinstance(plugin, GamePlugin):
        raise TypeError(f"entry point {point.name!r} ({point.value}) is not a GamePlugin")
    if plugin.name != point.name:
        raise TypeError(f"entry point {point.name!r} loads the game named {plugin.name!r}")
    return plugin


def games() -> dict[str, GamePlugin]:
    """Every installed game by name, in a stable order (the default game first)."""
    global _loaded
    with _lock:
        if _loaded is None:
            found = {p.name: _load(p) for p in entry_points(group=ENTRY_POINT_GROUP)}
            _loaded = dict(sorted(found.items(), key=lambda kv: (kv[0] != DEFAULT_GAME, kv[0])))
        return {**_loaded, **_extra}


def game(name: str) -> GamePlugin:
    """The game called ``name``, or an error listing the games there are."""
    known = games()
    try:
        return known[name]
    except KeyError:
        names = ", ".join(known) or "none"
        raise UnknownGame(f"no game called {name!r} (installed: {names})", field="game") from None


def register(plugin: GamePlugin) -> None:
    """Adds a game for this process without an installed distribution (tests, embedding)."""
    with _lock:
        _extra[plugin.name] = plugin


def unregister(name: str) -> None:
    with _lock:
        _extra.pop(name, None)
