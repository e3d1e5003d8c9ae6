"""Boards no table could show: more pieces than the box holds, broken tiles, fish off the vats."""

from __future__ import annotations

import pytest
from garum_helpers import BAELO, TROIA, played, with_cells, with_workers
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.games.garum import BoardState, impossible_board
from companion.games.garum.rules import slot_cells


@pytest.mark.parametrize("board", ["troia", "baelo-claudia"])
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), players=st.sampled_from([2, 3, 4]))
def test_every_board_of_a_played_game_is_possible(board: str, players: int, seed: int) -> None:
    setup, states, _ = played(seed, players, "standard", board)
    for state in states:
        assert impossible_board(setup.board, state) is None


def test_the_box_holds_one_tile_of_each_colour_per_vat() -> None:
    assert impossible_board(TROIA, BoardState("B" * 256)) == (
        "64 blue tiles on the board, but the game has only 16"
    )
    seventeen = {c: "G" for slot in TROIA.slots[:17] for c in slot}
    assert "17 green tiles" in str(impossible_board(TROIA, with_cells(BoardState(), seventeen)))
    sixteen = {c: "G" for slot in TROIA.slots[:16] for c in slot}
    assert impossible_board(TROIA, with_cells(BoardState(), sixteen)) is None


def test_a_tile_is_whole_and_has_a_predominant_colour() -> None:
    top_left = slot_cells(0)
    broken = with_cells(BoardState(), {top_left[0]: "B", top_left[1]: "B", top_left[2]: "B"})
    assert "row 1, column 1 is not whole" in str(impossible_board(TROIA, broken))
    even = with_cells(BoardState(), dict(zip(top_left, "BBGG", strict=True)))
    assert "no predominant colour" in str(impossible_board(TROIA, even))
    unread = with_cells(BoardState(), dict(zip(top_left, "BB??", strict=True)))
    assert impossible_board(TROIA, unread) is None  # a '?' may hide the rest of the tile


def test_fish_outside_every_vat() -> None:
    outside = next(cell for cell in range(256) if BAELO.vat_of_cell[cell] is None)
    state = with_cells(BoardState(), {outside: "R"})
    assert "outside every vat" in str(impossible_board(BAELO, state))


def test_no_colour_has_more_workers_than_its_supply() -> None:
    six = with_workers(BoardState(), {line: "Yv" for line in range(6)})
    assert impossible_board(TROIA, six) == "6 yellow vilicus on the board, but a colour has 5"
    two = with_workers(BoardState(), {0: "Rd", 20: "Rd"})
    assert impossible_board(TROIA, two) == "2 red dominus on the board, but a colour has 1"
    assert impossible_board(TROIA, with_workers(BoardState(), {0: "Rd", 20: "Bd"})) is None
