"""Shared builders for Garum tests."""

from __future__ import annotations

import random
from dataclasses import replace

from companion.boards import load_profile
from companion.games.garum import BoardState, Game, GameSetup, Seat, random_setup, simulate_game

TROIA = load_profile("troia")
BAELO = load_profile("baelo-claudia")


def four_players(**kwargs: object) -> GameSetup:
    seats = [
        Seat("Tanya", ("G",)),
        Seat("Andrea", ("Y",)),
        Seat("Peter", ("R",)),
        Seat("David", ("B",)),
    ]
    return GameSetup.create(TROIA, kwargs.pop("variant", "standard"), seats, **kwargs)  # type: ignore[arg-type]


def with_cells(state: BoardState, changes: dict[int, str]) -> BoardState:
    cells = list(state.cells)
    for cell, value in changes.items():
        cells[cell] = value
    return replace(state, cells="".join(cells))


def with_workers(state: BoardState, changes: dict[int, str | None]) -> BoardState:
    workers = list(state.workers)
    for line, value in changes.items():
        workers[line] = value
    return replace(state, workers=tuple(workers))


def fill_vat(state: BoardState, board_vat_cells: tuple[int, ...], colour: str = "B") -> BoardState:
    return with_cells(state, {c: colour for c in board_vat_cells})


def played(seed: int, players: int = 4, variant: str = "standard", board: str = "troia"):  # type: ignore[no-untyped-def]
    """A random legal game: (setup, states, games before each turn)."""
    rng = random.Random(seed)
    setup = random_setup(load_profile(board), players, variant, rng)
    states = simulate_game(setup, rng)
    games = [Game.new(setup)]
    for state in states[:-1]:
        games.append(games[-1].advance(state))
    return setup, states, games
