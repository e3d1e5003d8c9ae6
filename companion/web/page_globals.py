"""Helpers every page template may call: the game's title, the games' stylesheets, and the
path of the page itself (for the login link to return to)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import request, url_for

from companion.games.registry import game
from companion.web.api import caller_view
from companion.web.game_pages import game_kind, installed_kits
from companion.web.return_path import safe_return_path


def game_title() -> str:
    """The name of the game the table plays, shown in the page's title."""
    return game(game_kind(caller_view())).title


def game_stylesheets() -> list[str]:
    """Every installed game's stylesheet, so a page of any game (a replay too) is styled."""
    return [
        url_for("pages.game_static", game=name, filename=kit.stylesheet)
        for name, kit in installed_kits().items()
    ]


def here() -> str:
    """This page as a same-site path, for the login form to return to (the login page
    passes on the path it was given)."""
    if request.endpoint == "pages.login_form":
        return safe_return_path(request.args.get("next"))
    query = request.query_string.decode("utf-8", "replace")
    return request.path + (f"?{query}" if query else "")


PAGE_GLOBALS: dict[str, Callable[..., Any]] = {
    "game_title": game_title,
    "game_stylesheets": game_stylesheets,
    "here": here,
}
