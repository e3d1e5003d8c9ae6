"""The turn of the interpretation, point by point: free tile, Miss-A-Turn, the orange die,
the yellow bribe loop, the purple die and its two actions, the numeral bonus."""

from __future__ import annotations

import pytest
from ides_support import card, free, kinds, new, roll, seat, step, turn

from companion.games.ides import (
    Bribe,
    CardDone,
    DrawCard,
    DrawFreeTile,
    DrawTile,
    Face,
    Game,
    IllegalAction,
    LayStockpiled,
    Move,
    Pass,
    Phase,
    Roll,
    Rule,
    Square,
    TakeMissATurn,
    Token,
)
from companion.games.ides.dice import Die


def test_setup_two_to_four_players() -> None:
    for n in (2, 3, 4):
        game = new(n)
        assert len(game.players) == n
        assert game.phase is Phase.FREE_TILE and game.current == 0
        assert all(p.coins == 0 and p.square is Square.START for p in game.players)
    for names in (["Ann"], ["a", "b", "c", "d", "e"]):
        with pytest.raises(IllegalAction) as exc:
            Game.setup(names)
        assert exc.value.code is Rule.BAD_SEAT


def test_turn_1_free_tile_laid_or_stockpiled() -> None:
    game = new()
    assert kinds(game) == {"draw-free-tile"}
    laid = game.apply(DrawFreeTile(to_stockpile=False))
    kept = game.apply(DrawFreeTile(to_stockpile=True))
    assert laid.player.stockpile == 0 and kept.player.stockpile == 1
    assert laid.phase is kept.phase is Phase.TURN_CHOICE
    with pytest.raises(IllegalAction) as exc:
        game.apply(Roll(Die.ORANGE, Face.GREEN))
    assert exc.value.code is Rule.WRONG_STEP


def test_turn_2_miss_a_turn_stockpiles_flips_back_and_passes() -> None:
    game = seat(new(), 0, token=Token.MISS_A_TURN)
    with pytest.raises(IllegalAction) as exc:
        game.apply(DrawFreeTile(to_stockpile=False))
    assert exc.value.code is Rule.MISS_A_TURN_STOCKPILE_ONLY
    assert all(a.to_stockpile for a in game.legal_actions() if isinstance(a, DrawFreeTile))
    after = free(game)
    assert after.players[0].token is Token.SPQR
    assert after.players[0].stockpile == 1
    assert after.current == 1 and after.phase is Phase.FREE_TILE  # no roll for the missed turn


def test_turn_3_green_gives_one_action() -> None:
    game = roll(free(new()), Face.GREEN)
    assert game.phase is Phase.ACTION
    assert {"draw-tile", "lay-stockpiled", "move"} <= kinds(game)
    assert "pass" not in kinds(game)  # a green result must be used
    with pytest.raises(IllegalAction) as exc:
        game.apply(Pass())
    assert exc.value.code is Rule.MUST_ACT
    after = game.apply(DrawTile(to_stockpile=True))
    assert after.current == 1 and after.players[0].stockpile == 2


def test_turn_3_green_lay_stockpiled_needs_a_tile() -> None:
    game = roll(free(new(), stockpile=False), Face.GREEN)
    with pytest.raises(IllegalAction) as exc:
        game.apply(LayStockpiled())
    assert exc.value.code is Rule.NO_STOCKPILE
    assert "lay-stockpiled" not in kinds(game)


def test_turn_3_green_move_onto_hill_collects_coin_and_draws_card_by_rank() -> None:
    game = step(turn(new(), Face.GREEN), Square.PODIUM)  # the grand entrance onto hill 1
    assert game.players[0].coins == 1
    assert game.phase is Phase.CARD and game.turn.card is not None
    assert game.turn.card.deck.value == "senator"
    assert kinds(game) == {"draw-card"}
    game = card(game, 4)
    assert game.players[0].senator_row == (0, 0, 0, 1, 0, 0, 0)
    assert game.current == 1


def test_turn_3_green_move_outside_hills_no_coin_no_card() -> None:
    game = seat(new(), 0, square=Square.HILL_7)
    game = step(turn(game, Face.GREEN), Square.OUTSIDE)
    assert game.players[0].coins == 0 and game.current == 1


def test_turn_3_numeral_matching_hill_gives_bonus_without_coin_or_card() -> None:
    game = seat(new(), 0, square=Square.HILL_2)
    game = step(turn(game, Face.GREEN), Square.HILL_3)
    game = card(game, 3)
    assert game.phase is Phase.ACTION and game.turn.bonus and game.current == 0
    assert "pass" in kinds(game)  # the bonus is optional
    game = step(game, Square.HILL_4)
    assert game.players[0].coins == 1  # only the dice move paid
    assert game.players[0].senator_row == (0, 0, 1, 0, 0, 0, 0)
    assert game.current == 1


def test_turn_3_numeral_not_matching_gives_no_bonus() -> None:
    game = seat(new(), 0, square=Square.HILL_2)
    game = card(step(turn(game, Face.GREEN), Square.HILL_3), 2)
    assert game.current == 1


def test_turn_3_red_ends_the_turn_at_once() -> None:
    game = turn(new(), Face.RED)
    assert game.current == 1 and game.phase is Phase.FREE_TILE
    assert game.rolls[-1].face is Face.RED


def test_turn_3_yellow_bribe_loop_until_green_purple_or_red() -> None:
    game = seat(new(), 0, coins=3)
    game = turn(game, Face.YELLOW)
    assert kinds(game) == {"bribe", "take-miss-a-turn"}
    game = game.apply(Bribe(Face.YELLOW))
    game = game.apply(Bribe(Face.YELLOW))
    assert game.players[0].coins == 1 and game.phase is Phase.YELLOW
    game = game.apply(Bribe(Face.GREEN))
    assert game.players[0].coins == 0 and game.phase is Phase.ACTION


def test_turn_3_yellow_bribe_refused_without_coins() -> None:
    game = turn(new(), Face.YELLOW)
    assert kinds(game) == {"take-miss-a-turn"}
    with pytest.raises(IllegalAction) as exc:
        game.apply(Bribe(Face.GREEN))
    assert exc.value.code is Rule.CANNOT_AFFORD


def test_turn_3_yellow_bribe_to_red_ends_turn() -> None:
    game = turn(seat(new(), 0, coins=1), Face.YELLOW).apply(Bribe(Face.RED))
    assert game.current == 1 and game.players[0].coins == 0


def test_turn_3_yellow_miss_a_turn_flips_token_and_passes() -> None:
    game = turn(new(), Face.YELLOW).apply(TakeMissATurn())
    assert game.players[0].token is Token.MISS_A_TURN and game.current == 1


def test_turn_3_purple_gives_green_options_then_purple_die() -> None:
    game = turn(new(), Face.PURPLE)
    assert game.phase is Phase.ACTION and game.turn.purple_due
    game = game.apply(DrawTile(to_stockpile=True))
    assert game.phase is Phase.PURPLE and game.current == 0
    assert [a for a in game.legal_actions()] == [Roll(Die.PURPLE)]
    with pytest.raises(IllegalAction) as exc:
        game.apply(Roll(Die.ORANGE, Face.GREEN))
    assert exc.value.code is Rule.WRONG_DIE


def test_turn_3_purple_card_comes_before_the_purple_die() -> None:
    game = step(turn(new(), Face.PURPLE), Square.PODIUM)
    assert game.phase is Phase.CARD
    game = card(game, 5)
    assert game.phase is Phase.PURPLE


def purple_done() -> Game:
    """Orange purple, its green option taken: the purple die is next."""
    return turn(new(), Face.PURPLE).apply(DrawTile(to_stockpile=False))


def test_turn_4_purple_die_green_is_one_action() -> None:
    game = roll(purple_done(), Face.GREEN, Die.PURPLE)
    assert game.phase is Phase.ACTION and game.turn.actions_left == 1
    game = game.apply(DrawTile(to_stockpile=False))
    assert game.current == 1


def test_turn_4_purple_die_red_ends_the_turn() -> None:
    game = roll(purple_done(), Face.RED, Die.PURPLE)
    assert game.current == 1


def test_turn_4_purple_die_purple_two_actions_second_optional() -> None:
    game = roll(purple_done(), Face.PURPLE, Die.PURPLE)
    assert game.turn.actions_left == 2
    assert "pass" not in kinds(game)
    game = game.apply(DrawTile(to_stockpile=True))
    assert "pass" in kinds(game) and game.current == 0
    game = game.apply(DrawTile(to_stockpile=True))
    assert game.current == 1 and game.players[0].stockpile == 2


def test_turn_4_two_squares_within_hills_two_coins_one_card() -> None:
    game = seat(new(), 0, square=Square.HILL_2)
    game = turn(game, Face.PURPLE).apply(DrawTile(to_stockpile=False))
    game = roll(game, Face.PURPLE, Die.PURPLE)
    game = step(game, Square.HILL_3)
    assert game.phase is Phase.CARD
    game = card(game, 1)
    game = step(game, Square.HILL_4)
    assert game.players[0].coins == 2
    assert sum(game.players[0].senator_row) == 1
    assert game.current == 1


def test_roll_requires_a_thrown_face_on_that_die() -> None:
    game = free(new())
    with pytest.raises(IllegalAction) as exc:
        game.apply(Roll(Die.ORANGE))
    assert exc.value.code is Rule.ROLL_UNTHROWN
    purple_step = turn(new(), Face.PURPLE).apply(DrawTile(to_stockpile=False))
    with pytest.raises(IllegalAction) as exc:
        purple_step.apply(Roll(Die.PURPLE, Face.YELLOW))  # no yellow on the purple die
    assert exc.value.code is Rule.NOT_A_FACE


def test_grand_entrance_is_onto_the_podium() -> None:
    game = turn(new(), Face.GREEN)
    moves = [a for a in game.legal_actions() if isinstance(a, Move)]
    assert moves == [Move(Square.PODIUM)]
    with pytest.raises(IllegalAction) as exc:
        step(game, Square.HILL_3)
    assert exc.value.code is Rule.GRAND_ENTRANCE


def test_card_step_order_draw_then_instructions() -> None:
    game = step(turn(new(), Face.GREEN), Square.PODIUM)
    with pytest.raises(IllegalAction) as exc:
        game.apply(CardDone())
    assert exc.value.code is Rule.WRONG_STEP
    game = game.apply(DrawCard(2))
    with pytest.raises(IllegalAction) as exc:
        game.apply(DrawCard(3))
    assert exc.value.code is Rule.CARD_ALREADY_DRAWN
    with pytest.raises(IllegalAction) as exc:
        step(turn(new(), Face.GREEN), Square.PODIUM).apply(DrawCard(8))
    assert exc.value.code is Rule.BAD_NUMERAL
