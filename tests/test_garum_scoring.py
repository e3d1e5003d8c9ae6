"""Scoring: the table's boundaries, bonuses, tie-breaks, laps, and two colours per player."""

from __future__ import annotations

import pytest
from garum_helpers import TROIA, with_cells, with_workers

from companion.games.garum import (
    BoardState,
    Seat,
    SeatScore,
    line_name,
    line_points,
    score_state,
    winner_reason,
)
from companion.games.garum.scoring import bonus_points
from companion.games.garum.state import EMPTY_CELLS, NO_WORKERS

TABLE = {4: (-1, -2), 5: (1, 2), 6: (2, 4), 7: (4, 8), 8: (7, 14), 9: (11, 22)}


@pytest.mark.parametrize("fish", range(0, 17))
def test_scoring_table_boundaries(fish: int) -> None:
    vilicus, dominus = TABLE[min(max(fish, 4), 9)]
    assert line_points("v", fish) == vilicus
    assert line_points("d", fish) == dominus


@pytest.mark.parametrize(("fish", "kind"), [(4, "v"), (5, "v"), (8, "d"), (9, "d"), (16, "d")])
def test_column_lines_count_only_their_colour(fish: int, kind: str) -> None:
    cells = with_cells(BoardState(), {r * 16 + 7: "Y" for r in range(fish)})
    cells = with_cells(cells, {r * 16 + 7: "B" for r in range(fish, 16)})
    state = with_workers(cells, {16 + 7: "Y" + kind})
    seats = (Seat("A", ("Y",)), Seat("B", ("B",)), Seat("C", ("G",)), Seat("D", ("R",)))
    sheet = score_state(TROIA, state, seats, None)
    assert sheet.colours["Y"].workers == line_points(kind, fish)
    assert sheet.colours["B"].workers == 0


def test_bonus_goes_to_the_tile_owner_and_the_cell_species_decides() -> None:
    # Bonus (1, 2) is a red space in vat 13's slot 0 (cells 16+2.. no: rows 0-1, cols 2-3).
    red_space = 1 * 16 + 2
    assert TROIA.bonus_kind[red_space] == "R"
    top = 0 * 16 + 2  # slot rows 0-1, columns 2-3
    # A green-owned tile (G, G, R on the red space, Y) pays green 2 points.
    state = with_cells(BoardState(), {top: "G", top + 1: "G", red_space: "R", top + 17: "Y"})
    assert bonus_points(TROIA, state.cells, None)["G"] == 2
    # The same tile with a green fish on the red space pays nothing.
    state = with_cells(state, {red_space: "G"})
    assert bonus_points(TROIA, state.cells, None) == dict.fromkeys("BGYR", 0)
    # A joker pays 1 for any fish; the ghost scores none.
    joker = 2 * 16 + 5
    assert TROIA.bonus_kind[joker] == "J"
    slot = (2 * 16 + 4, 2 * 16 + 5, 3 * 16 + 4, 3 * 16 + 5)
    state = with_cells(BoardState(), dict.fromkeys(slot, "B"))
    assert bonus_points(TROIA, state.cells, None)["B"] == 1
    assert bonus_points(TROIA, state.cells, "B")["B"] == 0


def test_tie_break_fewer_vilicus_then_shared() -> None:
    # Two seats on 2 points each from one vilicus/dominus line with 6 fish / 5 fish.
    cells = with_cells(BoardState(), {c: "G" for c in range(6)})
    cells = with_cells(cells, {16 + c: "Y" for c in range(5)})
    state = with_workers(cells, {0: "Gv", 1: "Yd"})
    seats = (
        Seat("Green", ("G",)),
        Seat("Yellow", ("Y",)),
        Seat("Red", ("R",)),
        Seat("Blue", ("B",)),
    )
    sheet = score_state(TROIA, state, seats, None)
    assert [s.total for s in sheet.seats[:2]] == [2, 2]
    assert sheet.winners == ("Yellow",)  # no vilicus beats one vilicus
    state = with_workers(state, {1: "Yv"})
    state = with_cells(state, {16 + 5: "Y"})  # 6 yellow fish: vilicus 2
    assert score_state(TROIA, state, seats, None).winners == ("Green", "Yellow")


def test_two_player_seat_sums_both_colours_and_counts_both_vilicus() -> None:
    cells = with_cells(BoardState(), {c: "G" for c in range(9)})
    cells = with_cells(cells, {16 + c: "B" for c in range(7)})
    state = with_workers(cells, {0: "Gd", 1: "Bv", 2: "Yv"})
    seats = (Seat("Ana", ("G", "B")), Seat("Rui", ("Y", "R")))
    sheet = score_state(TROIA, state, seats, None)
    assert sheet.seats[0].total == 22 + 4
    assert sheet.seats[0].vilicus == 1
    assert sheet.seats[1].total == -1
    assert sheet.to_json()["winners"] == ["Ana"]


def test_laps_on_the_score_track() -> None:
    cells = "".join("G" * 16 if r < 3 else "." * 16 for r in range(16))
    state = BoardState(cells, NO_WORKERS)
    state = with_workers(state, {0: "Gd", 1: "Gv", 2: "Gv"})
    sheet = score_state(TROIA, state, (Seat("A", ("G",)), Seat("B", ("Y",))), None)
    total = sheet.seats[0].total
    assert total >= 44
    assert sheet.seats[0].laps == total // 25
    assert sheet.seats[0].track_position == total % 25


def test_empty_board_scores_zero_and_everyone_shares() -> None:
    seats = (Seat("A", ("G",)), Seat("B", ("Y",)))
    sheet = score_state(TROIA, BoardState(EMPTY_CELLS, NO_WORKERS), seats, None)
    assert sheet.winners == ("A", "B")


def _seat(name: str, total: int, vilicus: int) -> SeatScore:
    return SeatScore(name, ("B",), total, vilicus, 0, total)


def test_the_winner_is_explained_in_words() -> None:
    clear = winner_reason([_seat("Ana", 31, 3), _seat("Ben", 27, 1)])
    assert clear == "Ana wins with the highest score, 31 points."
    broken = winner_reason([_seat("Ana", 30, 3), _seat("Ben", 30, 2), _seat("Cy", 12, 0)])
    assert broken.startswith("Ana and Ben tie on 30 points; Ben wins with fewer vilicus")
    assert "(2 vilicus; Ana 3 vilicus)" in broken
    shared = winner_reason([_seat("Ana", 30, 2), _seat("Ben", 30, 2)])
    assert shared.endswith("(2 each): the victory is shared.")
    partly = winner_reason([_seat("A", 9, 1), _seat("B", 9, 1), _seat("C", 9, 4)])
    assert "A, B and C tie on 9 points; A and B have the fewest vilicus" in partly


def test_lines_are_named_as_players_count_them() -> None:
    assert (line_name(0), line_name(15), line_name(16), line_name(31)) == (
        "row 1",
        "row 16",
        "column 1",
        "column 16",
    )
