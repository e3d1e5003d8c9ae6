"""Garum on the dashboard: the SVG board, the score table, the end screen and the setup form.

Pure Python and Jinja templates; the web layer finds this kit through
``registry.game("garum").pages()`` and never imports it by name.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from companion.boards.profile import BoardProfile, load_profile
from companion.bounded_json import loads_bounded
from companion.games.garum.history import fold
from companion.games.garum.lights import LightStatus, TurnLights
from companion.games.garum.pages.board_svg import board_svg
from companion.games.garum.pages.end_screen import action_message, track_top, winner_words
from companion.games.garum.pages.folders import STATIC_FOLDER, STYLESHEET, TEMPLATE_FOLDER
from companion.games.garum.pages.result_image import result_svg
from companion.games.garum.pages.samples import route_samples
from companion.games.garum.replay import export_lines, game_at
from companion.games.garum.rules import COLOUR_NAMES
from companion.games.garum.view import table_view, viewer_view
from companion.games.page_seam import (
    AskedAction,
    FormFields,
    LoggedGame,
    NamedActions,
    PageTemplates,
    RouteSample,
)

DEFAULT_BOARD = "troia"  # the board drawn before any game has started
SEATS_ON_FORM = 4


def profile_of(view: Mapping[str, Any]) -> BoardProfile:
    """The board profile of the game a view shows (the default board before a game)."""
    setup = view.get("setup")
    return load_profile(setup["board"] if setup else DEFAULT_BOARD)


def board_context(view: Mapping[str, Any], *, operator: bool) -> dict[str, Any]:
    """The SVG boards a view needs: the validated board, and the observed one when flagged
    (with the correction editor for the operator)."""
    profile = profile_of(view)
    turn = view.get("turn") or {}
    flag = view.get("flag")
    boards = {
        "board_svg": board_svg(
            profile,
            view["board"],
            active_vat=turn.get("vat"),
            legal_cells=turn.get("legal_cells", ()),
            legal_lines=turn.get("legal_worker_spaces", ()),
            flagged_cells=flag["cells"] if flag else (),
            flagged_lines=flag["lines"] if flag else (),
            title="The validated board",
        )
    }
    if flag:
        boards["observed_svg"] = board_svg(
            profile,
            flag["observed"],
            flagged_cells=flag["cells"],
            flagged_lines=flag["lines"],
            title="What the camera sees",
        )
    if flag and operator:
        boards["editor_svg"] = board_svg(
            profile,
            flag["observed"],
            flagged_cells=flag["cells"],
            flagged_lines=flag["lines"],
            title="Correct the reading: click cells and worker spaces",
            editable=True,
        )
    return {
        "v": view,
        "colour_names": COLOUR_NAMES,
        "profile": profile,
        "species_colours": profile.colours.species,
        "track_top": track_top,
        "winner_words": winner_words,
        **boards,
    }


def _first(form: FormFields, key: str, default: str = "") -> str:
    values = form.get(key) or ()
    return values[0] if values else default


class GarumPages(NamedActions):
    """Garum's page kit (see :class:`companion.games.page_seam.PageKit`); its own routes
    read actions by name, as the table's ``/api/<action>`` routes do."""

    templates = PageTemplates(
        table="_table.html",
        tv="_tv.html",
        phone="_phone.html",
        setup_fields="setup_fields.html",
        replay="replay.html",
    )
    stylesheet = STYLESHEET

    def template_folder(self) -> Path:
        return TEMPLATE_FOLDER

    def static_folder(self) -> Path:
        return STATIC_FOLDER

    def context(self, view: Mapping[str, Any], *, operator: bool) -> dict[str, Any]:
        return board_context(view, operator=operator)

    def setup_context(self) -> dict[str, Any]:
        return {"colour_names": COLOUR_NAMES}

    def setup_request(self, form: FormFields) -> dict[str, Any]:
        seats = []
        for i in range(SEATS_ON_FORM):
            name = _first(form, f"name{i}").strip()
            colours = [c for c in form.get(f"colours{i}") or () if c]
            if name or colours:
                seats.append({"name": name, "colours": colours})
        try:
            first = int(_first(form, "first_seat", "0"))
        except ValueError:
            first = -1  # refused by the table, which names the field
        return {
            "board": _first(form, "board", DEFAULT_BOARD),
            "variant": _first(form, "variant", "standard"),
            "seats": seats,
            "ghost": _first(form, "ghost") or None,
            "first_seat": first,
        }

    def result_image(self, view: Mapping[str, Any], game: int) -> str | None:
        return str(result_svg(profile_of(view), view, game))

    def logged_game(self, events: Sequence[Any]) -> LoggedGame:
        h = fold(events)
        return LoggedGame(
            turns=len(h.boards),
            ended=h.ended,
            seal=h.end_hash,
            steps=len(h.steps),
            record=export_lines(h),
        )

    def replayed_view(self, events: Sequence[Any], step: int, *, operator: bool) -> dict[str, Any]:
        h = fold(events)
        step = max(0, min(step, len(h.steps)))
        shown = replace(h, steps=h.steps[:step], flag=None)
        status = "ended" if step == len(h.steps) and h.ended is not None else "replay"
        view = table_view(status, game_at(h, step), shown, TurnLights(LightStatus.IDLE))
        return view if operator else viewer_view(view)

    def history_summary(self, header: Mapping[str, Any]) -> dict[str, Any]:
        seats = header.get("seats") or ()
        return {
            "setup": f"{header.get('board', '?')} · {header.get('variant', '?')}",
            "players": [str(s.get("name", "")) for s in seats if isinstance(s, Mapping)],
        }

    def action_message(self, action: str, result: Any) -> str:
        return action_message(action, result)

    def read_form_action(self, form: FormFields) -> AskedAction:
        """As :class:`NamedActions` reads it, with the correction editor's board as JSON."""
        asked = super().read_form_action(form)
        if isinstance(asked.args.get("board"), str):
            asked.args["board"] = loads_bounded(asked.args["board"], source="board")
        return asked

    def samples(self, view: Mapping[str, Any], rng: random.Random) -> Sequence[RouteSample]:
        return route_samples(view, rng)


PAGES = GarumPages()
