"""The game the table plays, as the pages see it: its view, its live feed, a new game.

One place for the dashboard to ask, so the pages never care how the table runs a game.  While
a dashboard may still be handed a second, game-specific table beside the session (the
``ides`` field of :class:`Services`), that table is the one the pages show; once one session
runs every game this module reduces to the session's snapshot and ``operate``.
"""

from __future__ import annotations

from typing import Any

from flask import url_for

from companion.errors import InputError
from companion.games.registry import DEFAULT_GAME, game
from companion.web.api import caller_view, perform
from companion.web.game_pages import game_kind
from companion.web.services import services

_SIDE_TABLE_KIND = "ides"  # the game of the side table, when a dashboard is given one


def _side_table() -> Any:
    return getattr(services(), "ides", None)


def current_view() -> dict[str, Any]:
    """The table's view as this caller may see it, with its ``game_kind``."""
    side = _side_table()
    if side is not None:
        return {**side.snapshot(), "game_kind": _SIDE_TABLE_KIND}
    view = caller_view()
    return view if "game_kind" in view else {**view, "game_kind": DEFAULT_GAME}


def events_url() -> str:
    """Where the pages listen for the table's changes (Server-Sent Events)."""
    if _side_table() is not None:
        return url_for(f"{_SIDE_TABLE_KIND}.events")
    return url_for("api.events")


def start_game(kind: str, request: dict[str, Any]) -> Any:
    """Starts a new game of ``kind`` from its setup request (the JSON the API takes)."""
    game(kind)  # an unknown game is refused by name before anything changes
    side = _side_table()
    if side is not None and kind == _SIDE_TABLE_KIND:
        return side.new_game(
            request.get("players"),
            first_seat=request.get("first_seat", 0),
            dice_mode=request.get("dice_mode"),
        )
    if side is None and kind == game_kind(services().table.snapshot()):
        return perform("new_game", {**request, "game_kind": kind}, from_form=True)
    raise InputError(f"this table cannot start a game of {game(kind).title}", field="game")
