"""The game the table plays, as the pages see it: its view, its live feed, a new game.

One place for the dashboard to ask, so the pages never care which game the table runs.
"""

from __future__ import annotations

from typing import Any

from flask import url_for

from companion.games.registry import DEFAULT_GAME, game
from companion.web.api import caller_view, perform


def current_view() -> dict[str, Any]:
    """The table's view as this caller may see it, with its ``game_kind``."""
    view = caller_view()
    return view if "game_kind" in view else {**view, "game_kind": DEFAULT_GAME}


def events_url() -> str:
    """Where the pages listen for the table's changes (Server-Sent Events)."""
    return url_for("api.events")


def start_game(kind: str, request: dict[str, Any]) -> Any:
    """Starts a new game of ``kind`` from its setup request (the JSON the API takes)."""
    game(kind)  # an unknown game is refused by name before anything changes
    return perform("new_game", {**request, "game": kind}, from_form=True)
