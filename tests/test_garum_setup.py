"""Setup validation, the electronic aureus, live bonuses and the legal-move lists."""

from __future__ import annotations

import random

import pytest
from garum_helpers import BAELO, TROIA, four_players, played

from companion.games.garum import Game, GameSetup, Seat, SetupError, draw_aureus
from companion.games.garum.scoring import bonus_points


def test_aureus_is_a_permutation_and_reproducible_with_a_seed() -> None:
    for board in (TROIA, BAELO):
        drawn = draw_aureus(board)
        assert sorted(drawn) == sorted(board.vats)
    assert draw_aureus(TROIA, random.Random(5)) == draw_aureus(TROIA, random.Random(5))
    assert len({draw_aureus(TROIA) for _ in range(5)}) > 1  # the secure source varies


def test_emperor_has_no_aureus_unless_given() -> None:
    assert four_players(variant="emperor").aureus == ()
    assert len(four_players(variant="haruspex").aureus) == 16


@pytest.mark.parametrize(
    ("seats", "ghost", "first", "aureus", "field"),
    [
        ([Seat("A", ("G",))], None, 0, None, "seats"),
        (
            [Seat("A", ("G",)), Seat("B", ("G",)), Seat("C", ("R",))],
            None,
            0,
            None,
            "seats[1].colours",
        ),
        ([Seat("A", ("G",)), Seat("B", ("Y",))], None, 0, None, "seats[0].colours"),
        ([Seat("A", ("G",)), Seat("B", ("Y",)), Seat("C", ("R",))], "Y", 0, None, "ghost"),
        (
            [Seat("A", ("G",)), Seat("B", ("Y",)), Seat("C", ("R",)), Seat("D", ("B",))],
            "B",
            0,
            None,
            "ghost",
        ),
        ([Seat("A", ("G", "B")), Seat("B", ("Y", "R"))], None, 2, None, "first_seat"),
        ([Seat("A", ("G", "B")), Seat("B", ("Y", "R"))], None, 0, [1, 1], "aureus[1]"),
        ([Seat("A", ("G", "B")), Seat("B", ("Y", "R"))], None, 0, [17], "aureus[0]"),
        ([Seat("A", ("G", "X")), Seat("B", ("Y", "R"))], None, 0, None, "seats[0].colours"),
    ],
)
def test_setup_errors_name_the_field(seats, ghost, first, aureus, field) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(SetupError) as info:
        GameSetup.create(TROIA, "standard", seats, ghost=ghost, aureus=aureus, first_seat=first)
    assert info.value.field == field


def test_three_players_get_the_free_colour_as_ghost() -> None:
    setup = GameSetup.create(
        TROIA, "standard", [Seat("A", ("G",)), Seat("B", ("Y",)), Seat("C", ("R",))]
    )
    assert setup.ghost == "B"
    with pytest.raises(SetupError, match="variant"):
        GameSetup.create(TROIA, "chaos", setup.seats)


def test_baelo_claudia_aureus_never_names_a_missing_vat() -> None:
    seats = [Seat("A", ("G",)), Seat("B", ("Y",))]
    with pytest.raises(SetupError):
        GameSetup.create(
            BAELO, "standard", [Seat("A", ("G", "B")), Seat("B", ("Y", "R"))], aureus=[13]
        )
    assert len(seats) == 2


@pytest.mark.parametrize("seed", range(6))
def test_live_bonuses_match_the_final_board(seed: int) -> None:
    setup, states, games = played(seed, players=3 if seed % 2 else 4)
    final = games[-1].advance(states[-1])
    assert final.bonus_scores == bonus_points(setup.board, states[-1].cells, setup.ghost)


def test_legal_lists_follow_the_turn() -> None:
    _setup, states, games = played(8)
    for game, after in zip(games, states, strict=True):
        slots = game.legal_slots()
        assert {s.vat for s in slots} == {game.round_vat}
        verdict = game.judge(after)
        assert verdict.placed_slot in slots
        for line in verdict.new_workers:
            assert line in game.legal_worker_spaces()
    over = games[-1].advance(states[-1])
    assert over.is_over and over.turn is None and over.legal_slots() == ()
    assert over.legal_worker_spaces() == ()


def test_no_worker_spaces_without_supply() -> None:
    from dataclasses import replace

    from garum_helpers import with_workers

    game = Game.new(four_players())
    colour = game.turn.colour  # type: ignore[union-attr]
    lines = [x for x in range(32) if x not in TROIA.vat_lines[game.round_vat]][:6]  # type: ignore[index]
    kinds = ["v"] * 5 + ["d"]
    state = with_workers(game.state, {x: colour + k for x, k in zip(lines, kinds, strict=True)})
    assert replace(game, state=state).legal_worker_spaces() == ()
    assert game.legal_worker_spaces()
