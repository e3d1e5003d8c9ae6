"""Game records: the shared JSON Lines format (a header, then one board state per turn)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from companion import bounded_json
from companion.boards.profile import BUILTIN, BoardProfile
from companion.errors import InputError
from companion.games.garum.setup import GameSetup, Seat, SetupError, Variant
from companion.games.garum.state import BoardState
from companion.limits import MAX_NAME_CHARS

ProfileLoader = Callable[[str], BoardProfile]


@dataclass(frozen=True, slots=True)
class GameRecord:
    setup: GameSetup
    states: tuple[BoardState, ...]


def header_dict(setup: GameSetup) -> dict[str, Any]:
    return {
        "game": "garum",
        "board": setup.board.name,
        "variant": setup.variant.value,
        "seats": [{"name": s.name, "colours": list(s.colours)} for s in setup.seats],
        "ghost": setup.ghost,
        "aureus": list(setup.aureus),
        "first_seat": setup.first_seat,
    }


def record_lines(setup: GameSetup, states: Iterable[BoardState]) -> list[str]:
    """The record as JSON Lines (without newlines)."""
    lines = [json.dumps(header_dict(setup))]
    lines.extend(json.dumps(state.to_dict(), separators=(",", ":")) for state in states)
    return lines


def parse_seats(value: Any, *, field: str = "seats") -> tuple[Seat, ...]:
    if not isinstance(value, list) or not value:
        raise InputError("expected a list of seats", field=field)
    seats = []
    for i, entry in enumerate(value):
        where = f"{field}[{i}]"
        if not isinstance(entry, dict):
            raise InputError('expected {"name": ..., "colours": [...]}', field=where)
        name = entry.get("name")
        if not isinstance(name, str) or not name.strip():
            raise InputError("expected a non-empty name", field=f"{where}.name")
        if any("\ud800" <= ch <= "\udfff" for ch in name):
            raise InputError("a name holding a lone surrogate is not text", field=f"{where}.name")
        if len(name) > MAX_NAME_CHARS:
            raise InputError(
                f"a name of {len(name)} characters (at most {MAX_NAME_CHARS})",
                field=f"{where}.name",
            )
        colours = entry.get("colours")
        if not isinstance(colours, list) or not all(isinstance(c, str) for c in colours):
            raise InputError("expected a list of colour letters", field=f"{where}.colours")
        seats.append(Seat(name, tuple(colours)))
    return tuple(seats)


def parse_header(data: Any, load_board: ProfileLoader) -> GameSetup:
    """Validates a record header (or the same keys beside a single board state)."""
    if not isinstance(data, dict):
        raise InputError("expected a JSON object header")
    game = data.get("game", "garum")
    if game != "garum":
        raise InputError(f"expected 'garum', got {game!r}", field="game")
    board_name = data.get("board")
    if not isinstance(board_name, str):
        raise InputError(f"expected one of {', '.join(BUILTIN)}", field="board")
    board = load_board(board_name)
    seats = parse_seats(data.get("seats"))
    aureus = data.get("aureus", [])
    if aureus is None:
        aureus = []
    if not isinstance(aureus, list):
        raise InputError("expected a list of vat numbers", field="aureus")
    first_seat = data.get("first_seat", 0)
    if isinstance(first_seat, bool) or not isinstance(first_seat, int):
        raise InputError("expected a seat index", field="first_seat")
    ghost = data.get("ghost")
    if ghost is not None and not isinstance(ghost, str):
        raise InputError("expected a colour letter or null", field="ghost")
    try:
        return GameSetup.create(
            board,
            data.get("variant", "standard"),
            seats,
            ghost=ghost,
            aureus=aureus,
            first_seat=first_seat,
        )
    except SetupError as exc:
        raise InputError(exc.message, field=exc.field) from None


def _require_aureus(setup: GameSetup) -> GameSetup:
    """A record of a game played with the aureus must say the order, or its vat rule
    could not be checked."""
    rounds = setup.board.rounds
    if setup.variant is not Variant.EMPEROR and len(setup.aureus) != rounds:
        raise InputError(
            f"a {setup.variant.value} game record needs all {rounds} aureus vats in round "
            f"order, got {len(setup.aureus)}",
            field="aureus",
        )
    return setup


def builtin_only(name: str) -> BoardProfile:
    from companion.boards.profile import load_profile

    if name not in BUILTIN:
        raise InputError(f"expected one of {', '.join(BUILTIN)}, got {name!r}", field="board")
    return load_profile(name)


def parse_record(
    lines: Iterable[str], source: str, load_board: ProfileLoader = builtin_only
) -> GameRecord:
    """Reads a game record; every error names the source, the line and the field."""
    setup: GameSetup | None = None
    states: list[BoardState] = []
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            data = bounded_json.loads(raw)
        except bounded_json.JsonInputError as exc:
            raise InputError(exc.message, source=source, line=number) from None
        try:
            if setup is None and isinstance(data, dict) and "cells" in data:
                raise InputError(
                    "a single board state, not a game record "
                    "(a record starts with a header line, then one state per turn)"
                )
            if setup is None:
                setup = _require_aureus(parse_header(data, load_board))
            else:
                states.append(BoardState.from_dict(data))
        except InputError as exc:
            raise exc.located(source=source, line=number) from None
        if setup is not None and len(states) > len(setup.turn_plan):
            raise InputError(
                f"more placements than the game has turns ({len(setup.turn_plan)})",
                source=source,
                line=number,
            )
    if setup is None:
        raise InputError("empty file: expected a header line", source=source, line=1)
    return GameRecord(setup, tuple(states))
