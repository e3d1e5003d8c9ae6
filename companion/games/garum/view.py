"""The table as plain JSON: what ``/api/state`` returns and every dashboard page renders.

Built once per change on the session thread and shared by all viewers, so a hundred phones
cost one computation, and the pages and the API can never disagree.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from companion.games.garum.history import History
from companion.games.garum.lights import TurnLights
from companion.games.garum.reveal import revealed_vats
from companion.games.garum.rules import Game, line_name
from companion.games.garum.scoring import score_state
from companion.games.garum.setup import GameSetup
from companion.games.garum.state import BoardState


def _plain(value: Any) -> Any:
    """Dataclasses, enums and tuples as JSON values."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def setup_view(setup: GameSetup) -> dict[str, Any]:
    return {
        "board": setup.board.name,
        "title": setup.board.title,
        "variant": setup.variant.value,
        "seats": [{"name": s.name, "colours": list(s.colours)} for s in setup.seats],
        "ghost": setup.ghost,
        "aureus": list(setup.aureus),
        "first_seat": setup.first_seat,
        "rounds": setup.board.rounds,
        "track_length": setup.board.score_track_length,
    }


def scores_view(setup: GameSetup, state: BoardState) -> dict[str, Any]:
    """Scores if the game ended now: per colour (bonus, workers, lines) and per seat."""
    sheet = score_state(setup.board, state, setup.seats, setup.ghost)
    return {
        "colours": {
            c: {
                **_plain(s),
                "total": s.total,
                "lines": [{**_plain(ln), "name": line_name(ln.line)} for ln in s.lines],
            }
            for c, s in sheet.colours.items()
        },
        "seats": [_plain(s) for s in sheet.seats],
        "winners": list(sheet.winners),
    }


def table_view(
    status: str, game: Game | None, history: History | None, lights: TurnLights
) -> dict[str, Any]:
    view: dict[str, Any] = {
        "status": status,
        "version": history.last_seq if history else 0,
        "game": history.game if history else None,
        "lights": lights.to_dict(),
        "setup": None,
        "board": BoardState().to_dict(),
        "turn": None,
        "flag": None,
    }
    if game is None or history is None:
        return view
    setup = game.setup
    turn = game.turn
    view["setup"] = setup_view(setup)
    view["board"] = game.state.to_dict()
    view["turns_played"] = len(history.boards)
    view["ended"] = history.ended
    if turn is not None:
        seat_name = setup.seats[turn.seat].name if turn.seat is not None else "ghost"
        view["turn"] = {
            "number": turn.number,
            "round": turn.round,
            "colour": turn.colour,
            "seat": turn.seat,
            "seat_name": seat_name,
            "vat": turn.vat,
            "legal_worker_spaces": list(game.legal_worker_spaces()),
            "legal_cells": sorted({c for s in game.legal_slots() for c in s.cells}),
        }
    view["aureus"] = list(game.vats)
    view["round_vat"] = game.round_vat
    view["bonus_scores"] = dict(game.bonus_scores)
    view["workers_left"] = {
        c: list(game.workers_left(c)) for s in setup.seats for c in s.colours
    } | ({setup.ghost: list(game.workers_left(setup.ghost))} if setup.ghost else {})
    view["scores"] = scores_view(setup, game.state)
    view["last_photo"] = history.last_photo()
    view["chain_head"] = history.end_hash
    flag = history.flag
    if flag is not None:
        view["flag"] = {
            "outcome": flag.outcome,
            "violations": list(flag.violations),
            "cells": list(flag.cells),
            "lines": list(flag.lines),
            "observed": flag.reading.board,
            "before_photo": history.last_photo(),
            "after_photo": flag.reading.photo,
            "reading_seq": flag.reading.seq,
        }
    return view


def viewer_view(view: dict[str, Any]) -> dict[str, Any]:
    """``view`` as anyone watching may see it: the aureus order only as far as revealed.

    The operator's view carries the whole order; viewers get it once the game is over.
    Returns a copy; the shared snapshot is left whole.
    """
    setup = view.get("setup")
    if not setup or view.get("ended") or view.get("status") == "ended":
        return view
    turn = view.get("turn")
    known = revealed_vats(str(setup.get("variant")), turn["round"] if turn else None)
    if known is None:
        return view
    shown = dict(view)
    aureus = list(view.get("aureus") or [])
    shown["setup"] = {**setup, "aureus": list(setup.get("aureus") or [])[:known]}
    shown["aureus"] = aureus[:known]
    shown["aureus_hidden"] = max(0, len(aureus) - known)
    lights = view.get("lights")
    if isinstance(lights, dict) and turn is not None:
        upcoming = list(lights.get("upcoming_vats") or [])
        shown["lights"] = {**lights, "upcoming_vats": upcoming[: max(0, known - turn["round"] + 1)]}
    return shown
