"""The rulebook's worked examples, as the interpretation reads them."""

from __future__ import annotations

from dataclasses import replace

from garum_helpers import TROIA, fill_vat, four_players, with_cells, with_workers

from companion.games.garum import BoardState, Game, line_points, score_state
from companion.games.garum.state import NO_WORKERS

ROWS_OF_VAT_ROW_0 = {0, 1, 2, 3}
COLS_OF_VAT_COL_1 = {16 + 4, 16 + 5, 16 + 6, 16 + 7}


def game_at_round_vat(vat: int, state: BoardState | None = None) -> Game:
    aureus = [vat, *[v for v in TROIA.vats if v != vat]]
    game = Game.new(four_players(aureus=aureus))
    return replace(game, state=state or BoardState())


def test_example_2_vat_14_opens_its_row_and_column_areas() -> None:
    game = game_at_round_vat(14)
    assert set(game.legal_worker_spaces()) == ROWS_OF_VAT_ROW_0 | COLS_OF_VAT_COL_1
    # Those areas hold vats 13-16 and 14, 3, 2, 9.
    assert {TROIA.area_of_line[x].vats for x in game.legal_worker_spaces()} == {
        (13, 14, 15, 16),
        (14, 3, 2, 9),
    }


def test_example_3_vertical_area_of_vat_2_closes_when_14_3_9_are_full() -> None:
    state = BoardState()
    for vat in (14, 3, 9):
        state = fill_vat(state, TROIA.vat_cells[vat])
    game = game_at_round_vat(2, state)
    lines = set(game.legal_worker_spaces())
    assert not lines & {16 + c for c in range(4, 8)}  # vertical lines through vat 2: closed
    assert lines == {8, 9, 10, 11}  # horizontal: open, since 11, 1 and 6 are not all full


def test_example_3_horizontal_area_closes_too_when_11_1_6_are_full() -> None:
    state = BoardState()
    for vat in (14, 3, 9, 11, 1, 6):
        state = fill_vat(state, TROIA.vat_cells[vat])
    assert game_at_round_vat(2, state).legal_worker_spaces() == ()


def test_example_3_placing_a_worker_in_the_closed_area_is_flagged() -> None:
    state = BoardState()
    for vat in (14, 3, 9):
        state = fill_vat(state, TROIA.vat_cells[vat])
    game = game_at_round_vat(2, state)
    slot = game.legal_slots()[0]
    colour = game.turn.colour  # type: ignore[union-attr]
    after = with_cells(state, dict.fromkeys(slot.cells, colour))
    assert game.judge(with_workers(after, {16 + 5: colour + "v"})).codes == ["worker_area_closed"]
    assert game.judge(with_workers(after, {9: colour + "v"})).legal


def test_example_4_scoring_a_horizontal_area() -> None:
    # David (green): dominus with 9 fish = 22, vilicus with 6 = 2; Peter (red) vilicus with 4 = -1.
    rows = ["." * 16 for _ in range(16)]
    rows[0] = "G" * 9 + "." * 7
    rows[1] = "G" * 6 + "." * 10
    rows[2] = "R" * 4 + "." * 12
    workers = list(NO_WORKERS)
    workers[0], workers[1], workers[2] = "Gd", "Gv", "Rv"
    state = BoardState("".join(rows), tuple(workers))
    setup = four_players()
    sheet = score_state(TROIA, state, setup.seats, None)
    assert [(x.fish, x.points) for x in sheet.colours["G"].lines] == [(9, 22), (6, 2)]
    assert [(x.fish, x.points) for x in sheet.colours["R"].lines] == [(4, -1)]
    assert line_points("d", 9) == 22 and line_points("v", 6) == 2 and line_points("v", 4) == -1
