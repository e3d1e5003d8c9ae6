"""The Ides of March on the dashboard: the table page with the operator's choices, a TV view
for the café screen, a compact phone view, and the new-game fields.

All three read the game's view (players, ranks, coins, squares, rolls, choices, log) as the
table publishes it; the web layer finds this kit through the registry, never by name.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from companion.bounded_json import loads_bounded
from companion.games.ides import Action, IllegalAction, Rule, action_from_dict, action_to_dict
from companion.games.ides.dice import DiceMode
from companion.games.ides.pages.samples import route_samples
from companion.games.page_seam import (
    AskedAction,
    FormFields,
    LoggedGame,
    PageTemplates,
    Refusal,
    RouteSample,
    logged_story,
)
from companion.games.table_seam import ActionError

FOLDER = Path(__file__).parent
PLAYERS_ON_FORM = 4
ROLLS_ON_TV = 4  # the café screen shows the newest few; the table page shows them all


class IdesPages:
    """The Ides of March's page kit (see :class:`companion.games.page_seam.PageKit`)."""

    templates = PageTemplates(
        table="_table.html",
        tv="_tv.html",
        phone="_phone.html",
        setup_fields="setup_fields.html",
        replay="replay.html",
        page="page.html",
    )
    stylesheet = "ides.css"

    def template_folder(self) -> Path:
        return FOLDER / "templates"

    def static_folder(self) -> Path:
        return FOLDER / "static"

    def context(self, view: Mapping[str, Any], *, operator: bool) -> dict[str, Any]:
        return {"v": view, "rolls_on_tv": ROLLS_ON_TV}

    def setup_context(self) -> dict[str, Any]:
        return {"players_on_form": PLAYERS_ON_FORM, "dice_modes": [m.value for m in DiceMode]}

    def setup_request(self, form: FormFields) -> dict[str, Any]:
        names = [n for n in form.get("player") or () if n.strip()]
        mode = (form.get("dice_mode") or [DiceMode.ELECTRONIC.value])[0]
        try:
            first = int((form.get("first_seat") or ["0"])[0])
        except ValueError:
            first = -1  # refused by the table, which names the field
        return {"players": names, "first_seat": first, "dice_mode": DiceMode.parse(mode).value}

    def action_message(self, action: str, result: Any) -> str:
        return "New game started." if action == "new_game" else f"{action}: {result}."

    def result_image(self, view: Mapping[str, Any], game: int) -> str | None:
        return None  # the table page's log and standings are the result

    def logged_game(self, events: Sequence[Any]) -> LoggedGame:
        return logged_story(events)  # no replay yet: the log page lists its actions

    def replayed_view(self, events: Sequence[Any], step: int, *, operator: bool) -> dict[str, Any]:
        raise NotImplementedError("this game has no replay")

    def history_summary(self, header: Mapping[str, Any]) -> dict[str, Any]:
        players = header.get("players") or ()
        return {
            "setup": f"{header.get('dice_mode', DiceMode.ELECTRONIC.value)} dice",
            "players": [str(p) for p in players],
        }

    # -- its own routes: every choice is the current player's action, as the rules write it

    def read_action(self, body: Mapping[str, Any]) -> AskedAction:
        """``{"action": {...}}`` as ``action_to_dict`` writes it (a roll's face is thrown
        by the table unless the game uses physical dice)."""
        return _play(action_from_dict(body.get("action")))

    def read_form_action(self, form: FormFields) -> AskedAction:
        """The page's ``choice``: one offered action as JSON."""
        raw = (form.get("choice") or [""])[0]
        return _play(action_from_dict(loads_bounded(raw, source="choice"), path="choice"))

    def applied(self, result: object) -> dict[str, Any]:
        return {"action": action_to_dict(result)} if isinstance(result, Action) else {}

    def refusal(self, error: Exception) -> Refusal | None:
        """The rules' refusal; ending a table with no game in play is one too."""
        if isinstance(error, IllegalAction):
            return Refusal(error.message, error.code.value)
        if isinstance(error, ActionError):
            return Refusal(str(error), Rule.GAME_OVER.value)
        return None

    def samples(self, view: Mapping[str, Any], rng: random.Random) -> Sequence[RouteSample]:
        return route_samples(view, rng)


def _play(action: Action) -> AskedAction:
    return AskedAction("play", {"action": action, "by": "operator"})


PAGES = IdesPages()
