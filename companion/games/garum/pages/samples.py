"""Requests for ``companion bench fuzz`` to send a Garum table through the table's own routes
(``/api/<action>``, ``/operator/<action>``): new games, corrections, vats and the plain
actions, and well-formed requests the rules must refuse."""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from companion.games.page_seam import RouteSample

COLOURS = ("B", "G", "Y", "R")
EMPTY_BOARD = {"cells": ["." * 16] * 16}
BAD_VATS: tuple[Any, ...] = (1.9, "3", True, 10**40, 0, 17, -5, float("nan"))


def new_game_body(rng: random.Random) -> dict[str, Any]:
    """A setup the rules accept: 2-4 seats, random colours, board and variant."""
    colours = list(COLOURS)
    rng.shuffle(colours)
    players = rng.choice((2, 3, 4))
    if players == 2:
        seats = [{"name": "Ana", "colours": colours[:2]}, {"name": "Ben", "colours": colours[2:]}]
    else:
        seats = [
            {"name": n, "colours": [c]}
            for n, c in zip(("Ana", "Ben", "Cy", "Di"), colours, strict=True)
        ][:players]
    return {
        "game": "garum",
        "board": rng.choice(("troia", "baelo-claudia")),
        "variant": rng.choice(("standard", "emperor", "haruspex")),
        "seats": seats,
        "ghost": colours[3] if players == 3 else None,
        "first_seat": rng.randrange(players),
    }


def _bad_new_game(rng: random.Random) -> tuple[dict[str, Any], str]:
    body = new_game_body(rng)
    choice = rng.randrange(6)
    if choice == 0:
        body["seats"] = [{"name": f"P{i}", "colours": [c]} for i, c in enumerate("BGYRB")]
        return body, "five seats"
    if choice == 1:
        body["seats"][0]["name"] = "N" * 41
        return body, "a 41-character name"
    if choice == 2:
        body["first_seat"] = 0.5
        return body, "first_seat 0.5"
    if choice == 3:
        body["variant"] = "bogus"
        return body, "an unknown variant"
    if choice == 4:
        body["board"] = "../../etc/passwd"
        return body, "a board path"
    body["seats"][1]["colours"] = list(body["seats"][0]["colours"])
    return body, "two seats with the same colours"


def _bad_board(rng: random.Random) -> tuple[dict[str, Any], str]:
    colour = rng.choice(COLOURS)
    return rng.choice(
        (
            ({"cells": [colour * 16] * 16}, f"256 {colour} cells: more tiles than exist"),
            ({"cells": ["." * 16] * 17}, "17 rows"),
            ({"cells": ["." * 15] * 16}, "rows of 15 cells"),
            ({"cells": ["X" * 16] * 16}, "cells of an unknown colour"),
            ({"cells": ["?" * 16] * 16}, "unreadable cells"),
        )
    )


def _setup_form(body: Mapping[str, Any]) -> dict[str, str | list[str]]:
    """The setup page's fields for ``body`` (what the game's kit reads back)."""
    form: dict[str, str | list[str]] = {"game": "garum"}
    for i, seat in enumerate(body["seats"]):
        form[f"name{i}"] = seat["name"]
        form[f"colours{i}"] = seat["colours"]
    form.update(board=body["board"], variant=body["variant"], first_seat="0")
    return form


def route_samples(view: Mapping[str, Any], rng: random.Random) -> list[RouteSample]:
    board = view.get("board") or EMPTY_BOARD
    vat = rng.randint(1, 16)
    setup = new_game_body(rng)
    bad_setup, bad_setup_how = _bad_new_game(rng)
    bad_board, bad_board_how = _bad_board(rng)
    bad_vat = rng.choice(BAD_VATS)
    table = [
        RouteSample("new_game", f"{setup['variant']} on {setup['board']}", setup),
        RouteSample("accept", "accept the reading", {}, checked=False),
        RouteSample("correct", "the board as it is", {"board": board}),
        RouteSample("undo", "undo", {}, checked=False),
        RouteSample("end", "end the game", {}, checked=False),
        RouteSample("choose_vat", f"vat {vat}", {"vat": vat}),
        RouteSample("new_game", bad_setup_how, bad_setup, invalid=True),
        RouteSample("correct", bad_board_how, {"board": bad_board}, invalid=True),
        RouteSample("choose_vat", f"no such vat: {bad_vat!r}", {"vat": bad_vat}, invalid=True),
        RouteSample("new_game", "the setup form", form=_setup_form(setup)),
        RouteSample("correct", "the correction editor", form={"board": json.dumps(board)}),
        RouteSample("choose_vat", "the vat buttons", form={"vat": str(vat)}),
        RouteSample("accept", "the accept button", form={}),
        RouteSample("undo", "the undo button", form={}),
        RouteSample("end", "the end button", form={}),
    ]
    # Garum is played through the table's own routes, where its actions have their names;
    # its own routes take the same actions by name.
    own = [
        RouteSample("act", f"vat {vat} by name", {"action": "choose_vat", "vat": vat}),
        RouteSample("act", "the board by name", {"action": "correct", "board": board}),
        RouteSample("act", "accept by name", {"action": "accept"}, checked=False),
        RouteSample(
            "act", "the board as a form", form={"action": "correct", "board": json.dumps(board)}
        ),
        RouteSample(
            "act",
            f"{bad_board_how}, by name",
            {"action": "correct", "board": bad_board},
            invalid=True,
        ),
    ]
    return [replace(s, table=True) for s in table] + own
