"""Pages for a game that brings none: its view shown as it is, every value escaped.

A new game can be played at the table, watched on the TV and phones and replayed before it
has templates of its own; the dashboard uses this kit for any game whose ``pages()`` hook is
not written yet.  It shows the view's plain values and, when the view lists ``players``
(objects), one row per player; a new game is asked for as the JSON its table takes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from companion.bounded_json import loads_bounded
from companion.errors import InputError
from companion.games.page_seam import (
    FormFields,
    LoggedGame,
    NamedActions,
    PageTemplates,
    logged_story,
)

FOLDER = Path(__file__).parent
PLAIN = (str, int, float, bool, type(None))


def plain_values(value: Mapping[str, Any]) -> dict[str, Any]:
    """The entries of ``value`` that read as one short text (no lists or objects)."""
    return {k: v for k, v in value.items() if isinstance(v, PLAIN)}


def player_rows(view: Mapping[str, Any]) -> tuple[list[str], list[dict[str, Any]]]:
    """The columns and rows of the view's ``players`` list, when it is a list of objects."""
    players = view.get("players")
    if not isinstance(players, list) or not all(isinstance(p, Mapping) for p in players):
        return [], []
    rows = [plain_values(p) for p in players]
    columns = list(dict.fromkeys(k for row in rows for k in row))
    return columns, rows


class PlainPages(NamedActions):
    """The page kit of a game without one (see the module docstring); its own routes read
    actions by name (``{"action": "<name>", ...args}``)."""

    templates = PageTemplates(
        table="_view.html",
        tv="_view.html",
        phone="_view.html",
        setup_fields="setup_fields.html",
        replay="_view.html",
    )
    stylesheet = "plain.css"

    def __init__(self, title: str) -> None:
        self.title = title

    def template_folder(self) -> Path:
        return FOLDER / "templates"

    def static_folder(self) -> Path:
        return FOLDER / "static"

    def context(self, view: Mapping[str, Any], *, operator: bool) -> dict[str, Any]:
        columns, rows = player_rows(view)
        return {
            "v": view,
            "plain_title": self.title,
            "facts": plain_values(view),
            "player_columns": columns,
            "player_rows": rows,
        }

    def setup_context(self) -> dict[str, Any]:
        return {"plain_title": self.title}

    def setup_request(self, form: FormFields) -> dict[str, Any]:
        raw = (form.get("request") or ["{}"])[0]
        request = loads_bounded(raw, source="request")
        if not isinstance(request, dict):
            raise InputError("expected a JSON object", field="request")
        return request

    def action_message(self, action: str, result: Any) -> str:
        return "New game started." if action == "new_game" else f"{action}: {result}."

    def result_image(self, view: Mapping[str, Any], game: int) -> str | None:
        return None

    def logged_game(self, events: Sequence[Any]) -> LoggedGame:
        return logged_story(events)  # no replay yet: the log page lists its actions

    def replayed_view(self, events: Sequence[Any], step: int, *, operator: bool) -> dict[str, Any]:
        raise NotImplementedError("this game has no replay")

    def history_summary(self, header: Mapping[str, Any]) -> dict[str, Any]:
        players = header.get("players")
        names = [str(p) for p in players] if isinstance(players, list) else []
        return {"setup": "", "players": names}
