"""What can physically lie on a board: only the game's own pieces, each tile whole in a slot.

An illegal move is still a position the players can reach; a board with 64 blue tiles is
not, because the box holds one tile of each colour per vat.  A board stated by hand (an
operator's correction) is checked against this before the rules judge it.
"""

from __future__ import annotations

from collections import Counter

from companion.boards.profile import GRID, BoardProfile
from companion.games.garum.rules import COLOUR_NAMES, worker_counts
from companion.games.garum.setup import DOMINUS_PER_COLOUR, VILICUS_PER_COLOUR
from companion.games.garum.state import BoardState
from companion.games.garum.tiles import tile_owner


def _where(cell: int) -> str:
    """A cell as players count it: rows and columns numbered from 1."""
    return f"row {cell // GRID + 1}, column {cell % GRID + 1}"


def _tile_problem(board: BoardProfile, state: BoardState) -> str | None:
    owned: Counter[str] = Counter()
    for slot in board.slots:
        face = "".join(state.cells[c] for c in slot)
        if "?" in face or face == "....":
            continue
        if "." in face:
            return f"the tile at {_where(slot[0])} is not whole: a tile covers all four cells"
        owner = tile_owner(face)
        if owner is None:
            return f"the tile at {_where(slot[0])} has no predominant colour: no tile looks so"
        owned[owner] += 1
    for colour, count in owned.items():
        if count > board.tiles_per_colour:
            return (
                f"{count} {COLOUR_NAMES[colour]} tiles on the board, but the game has only "
                f"{board.tiles_per_colour}"
            )
    return None


def impossible_board(board: BoardProfile, state: BoardState) -> str | None:
    """Why no table could show ``state`` on ``board`` (fish outside the vats, a broken tile,
    more tiles or workers of a colour than the box holds), or None when one could.
    Unreadable ``?`` cells and spaces are given the benefit of the doubt."""
    for cell, ch in enumerate(state.cells):
        if ch not in ".?" and board.vat_of_cell[cell] is None:
            return f"a fish at {_where(cell)}, outside every vat"
    problem = _tile_problem(board, state)
    if problem is not None:
        return problem
    for colour, name in COLOUR_NAMES.items():
        vilicus, dominus = worker_counts(state.workers, colour)
        if vilicus > VILICUS_PER_COLOUR:
            return f"{vilicus} {name} vilicus on the board, but a colour has {VILICUS_PER_COLOUR}"
        if dominus > DOMINUS_PER_COLOUR:
            return f"{dominus} {name} dominus on the board, but a colour has {DOMINUS_PER_COLOUR}"
    return None
