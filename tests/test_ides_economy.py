"""Coins: every income and payment of the interpretation, and refusals of what a player
cannot afford; Senator -> Commander promotion; ferrymen."""

from __future__ import annotations

import pytest
from ides_support import card, free, kinds, new, seat, step, turn

from companion.games.ides import (
    BuyFerryman,
    DrawFreeTile,
    DrawTile,
    Face,
    IllegalAction,
    LayStockpiled,
    Move,
    Pass,
    Passage,
    Phase,
    Promote,
    Rank,
    ReturnFerrymen,
    Roll,
    Rule,
    Square,
    Token,
)
from companion.games.ides.dice import Die


def on(square: Square, **changes: object) -> object:
    return seat(new(), 0, square=square, **changes)


def test_coin_per_square_within_hills_by_dice_move() -> None:
    game = step(turn(seat(new(), 0, square=Square.HILL_5), Face.GREEN), Square.HILL_6)
    assert game.players[0].coins == 1


def test_leapfrog_within_hills_earns_two_coins_one_card() -> None:
    game = turn(seat(new(), 0, square=Square.HILL_5), Face.GREEN)
    game = step(game, Square.HILL_6, Passage.LEAPFROG)
    assert game.players[0].coins == 2 and game.phase is Phase.CARD


@pytest.mark.parametrize(
    ("passage", "cost"),
    [(Passage.BRIBE_REVOLT, 2), (Passage.BRIBE_OUTPOST, 3)],
)
def test_bribe_passage_costs_and_earns_no_coin_but_draws_card(passage: Passage, cost: int) -> None:
    game = turn(seat(new(), 0, square=Square.HILL_5, coins=cost), Face.GREEN)
    after = step(game, Square.HILL_6, passage)
    assert after.players[0].coins == 0
    assert after.phase is Phase.CARD  # "you must still draw a Fatum card"
    poor = turn(seat(new(), 0, square=Square.HILL_5, coins=cost - 1), Face.GREEN)
    with pytest.raises(IllegalAction) as exc:
        step(poor, Square.HILL_6, passage)
    assert exc.value.code is Rule.CANNOT_AFFORD
    assert Move(Square.HILL_6, passage) not in poor.legal_actions()


def test_yellow_bribe_costs_one() -> None:
    from companion.games.ides import Bribe

    game = turn(seat(new(), 0, coins=2), Face.YELLOW).apply(Bribe(Face.GREEN))
    assert game.players[0].coins == 1


def test_ferryman_use_costs_three_and_uses_the_tile() -> None:
    game = seat(new(), 0, square=Square.OUTSIDE, coins=3, stockpile=2, ferrymen=1)
    game = turn(game, Face.GREEN)
    after = step(game, Square.OUTSIDE, Passage.FERRYMAN)
    p = after.players[0]
    assert (p.coins, p.stockpile, p.ferrymen) == (0, 1, 0)
    without = turn(seat(new(), 0, square=Square.OUTSIDE, coins=3, stockpile=2), Face.GREEN)
    with pytest.raises(IllegalAction) as exc:
        step(without, Square.OUTSIDE, Passage.FERRYMAN)
    assert exc.value.code is Rule.NO_FERRYMAN
    poor = turn(seat(new(), 0, square=Square.OUTSIDE, coins=2, stockpile=1, ferrymen=1), Face.GREEN)
    with pytest.raises(IllegalAction) as exc:
        step(poor, Square.OUTSIDE, Passage.FERRYMAN)
    assert exc.value.code is Rule.CANNOT_AFFORD


def test_bridge_reuse_costs_one_commanders_only() -> None:
    senator = turn(seat(new(), 0, square=Square.OUTSIDE, coins=5), Face.GREEN)
    with pytest.raises(IllegalAction) as exc:
        step(senator, Square.OUTSIDE, Passage.BRIDGE_REUSE)
    assert exc.value.code is Rule.COMMANDER_ONLY
    commander = seat(new(), 0, square=Square.OUTSIDE, coins=5, rank=Rank.COMMANDER)
    after = step(turn(commander, Face.GREEN), Square.OUTSIDE, Passage.BRIDGE_REUSE)
    assert after.players[0].coins == 4


def test_return_unused_ferrymen_one_coin_each_uses_the_turn() -> None:
    game = free(seat(new(), 0, stockpile=3, ferrymen=2), stockpile=False)
    assert {a for a in game.legal_actions() if isinstance(a, ReturnFerrymen)} == {
        ReturnFerrymen(1),
        ReturnFerrymen(2),
    }
    after = game.apply(ReturnFerrymen(2))
    p = after.players[0]
    assert (p.coins, p.stockpile, p.ferrymen) == (2, 1, 0)
    assert after.current == 1
    with pytest.raises(IllegalAction) as exc:
        game.apply(ReturnFerrymen(3))
    assert exc.value.code is Rule.NO_FERRYMAN


def test_scenario_11_laid_ferryman_can_be_bought_for_three() -> None:
    game = new()
    game = game.apply(DrawFreeTile(to_stockpile=False, ferryman=True))  # laid at a crossing
    game = game.apply(Roll(Die.ORANGE, Face.RED))
    game = turn(seat(game, 1, coins=4), Face.GREEN)
    assert BuyFerryman(0) in game.legal_actions()
    after = game.apply(BuyFerryman(0))
    assert after.players[0].ferrymen_laid == 0
    buyer = after.players[1]
    assert (buyer.coins, buyer.stockpile, buyer.ferrymen) == (1, 1, 1)
    poor = turn(seat(seat(new(), 1, ferrymen_laid=1), 0, coins=2), Face.GREEN)
    with pytest.raises(IllegalAction) as exc:
        poor.apply(BuyFerryman(1))
    assert exc.value.code is Rule.CANNOT_AFFORD
    with pytest.raises(IllegalAction) as exc:
        turn(seat(new(), 0, coins=9), Face.GREEN).apply(BuyFerryman(1))
    assert exc.value.code is Rule.NO_FERRYMAN


def test_scenario_11_a_bought_ferryman_can_carry_the_buyer_across_at_once() -> None:
    """Scenario 11 (a ferryman laid too early): the buyer may stockpile the ferryman *or use
    it immediately*; using it costs 3 coins like any ferryman in one's possession, on the
    same green result that bought it."""
    laid = seat(seat(new(), 0, ferrymen_laid=1), 1, square=Square.OUTSIDE, coins=6)
    game = turn(
        laid.apply(DrawFreeTile(to_stockpile=True)).apply(Roll(Die.ORANGE, Face.RED)), Face.GREEN
    )
    assert game.current == 1
    bought = game.apply(BuyFerryman(0))
    assert bought.phase is Phase.ACTION and bought.current == 1
    assert Move(Square.HILL_3, Passage.FERRYMAN) in bought.legal_actions()
    assert DrawTile(to_stockpile=True) not in bought.legal_actions()
    crossed = bought.apply(Move(Square.HILL_3, Passage.FERRYMAN))
    buyer = crossed.players[1]
    # 3 to buy, 3 to use, +2 for a two-square crossing landing within the hills
    assert (buyer.coins, buyer.stockpile, buyer.ferrymen) == (6 - 3 - 3 + 2, 0, 0)
    assert crossed.phase is Phase.CARD  # the crossing was the action's dice move
    kept = bought.apply(Pass())
    assert kept.current == 0 and kept.players[1].ferrymen == 1  # kept, and the turn is over
    with pytest.raises(IllegalAction) as exc:
        bought.apply(DrawTile(to_stockpile=True))
    assert exc.value.code is Rule.FERRYMAN_BOUGHT


def test_scenario_11_a_buyer_who_cannot_pay_the_crossing_keeps_the_ferryman() -> None:
    """Scenario 11 with the ferryman price list: a crossing still costs 3 coins, so a buyer
    left with fewer can only keep the ferryman."""
    game = turn(seat(seat(new(), 1, ferrymen_laid=1), 0, coins=4), Face.GREEN)
    bought = game.apply(BuyFerryman(1))
    assert [type(a) for a in bought.legal_actions()] == [Pass]


def test_a_testudo_over_an_outpost_or_revolt_takes_that_tile() -> None:
    """Testudo Legion tiles: laid over an outpost or a slave revolt, the testudo replaces it
    and the player takes ownership of the beaten tile, which joins the stockpile."""
    drawn = turn(on(Square.HILL_2), Face.GREEN).apply(DrawTile(to_stockpile=False, captures=True))
    assert drawn.players[0].stockpile == 1
    from_stock = turn(on(Square.HILL_2, stockpile=2), Face.GREEN)
    after = from_stock.apply(LayStockpiled(captures=True))
    assert after.players[0].stockpile == 2  # the testudo left, the beaten tile came
    free_tile = on(Square.HILL_2).apply(DrawFreeTile(to_stockpile=False, captures=True))
    assert free_tile.players[0].stockpile == 1
    offered = turn(on(Square.HILL_2, stockpile=1), Face.GREEN).legal_actions()
    assert DrawTile(to_stockpile=False, captures=True) in offered
    assert LayStockpiled(captures=True) in offered


def test_only_a_testudo_laid_on_the_road_takes_a_tile() -> None:
    """Testudo Legion tiles: the capture comes from laying a testudo; a tile kept in the
    stockpile, a ferryman, or a free tile in Miss-A-Turn mode takes nothing."""
    game = turn(on(Square.HILL_2, stockpile=1, ferrymen=1), Face.GREEN)
    for action in (
        DrawTile(to_stockpile=True, captures=True),
        DrawTile(to_stockpile=False, ferryman=True, captures=True),
        LayStockpiled(ferryman=True, captures=True),
    ):
        with pytest.raises(IllegalAction) as exc:
            game.apply(action)
        assert exc.value.code is Rule.TESTUDO_CAPTURE
    missing = on(Square.HILL_2, token=Token.MISS_A_TURN)
    with pytest.raises(IllegalAction) as exc:
        missing.apply(DrawFreeTile(to_stockpile=False, captures=True))
    assert exc.value.code is Rule.MISS_A_TURN_STOCKPILE_ONLY


def test_laying_a_stockpiled_ferryman_leaves_it_buyable_and_usable() -> None:
    game = turn(seat(new(), 0, stockpile=1, ferrymen=1), Face.GREEN)
    game = game.apply(LayStockpiled(ferryman=True))
    p = game.players[0]
    assert (p.stockpile, p.ferrymen, p.ferrymen_laid) == (0, 0, 1)


def test_promotion_on_home_circle_costs_three_on_a_later_turn() -> None:
    game = seat(new(), 0, square=Square.OUTSIDE, coins=3)
    game = step(turn(game, Face.GREEN), Square.HOME_CIRCLE)
    assert game.current == 1  # arriving does not promote
    game = turn(game, Face.RED)
    game = free(game)
    assert "promote" in kinds(game)
    game = game.apply(Promote())
    p = game.players[0]
    assert p.rank is Rank.COMMANDER and p.coins == 0 and p.square is Square.HOME_CIRCLE
    assert game.current == 1  # promotion uses the turn


def test_scenario_1_home_with_less_than_three_coins() -> None:
    game = free(seat(new(), 0, square=Square.HOME_CIRCLE, coins=2))
    assert "promote" not in kinds(game)
    with pytest.raises(IllegalAction) as exc:
        game.apply(Promote())
    assert exc.value.code is Rule.CANNOT_AFFORD
    # ... and can set off again to collect coins on the hills.
    game = step(game.apply(Roll(Die.ORANGE, Face.GREEN)), Square.OUTSIDE)
    assert game.players[0].square is Square.OUTSIDE


def test_promotion_refusals_name_the_rule() -> None:
    away = free(seat(new(), 0, square=Square.HILL_3, coins=9))
    with pytest.raises(IllegalAction) as exc:
        away.apply(Promote())
    assert exc.value.code is Rule.NOT_AT_HOME
    done = free(seat(new(), 0, square=Square.HOME_CIRCLE, coins=9, rank=Rank.COMMANDER))
    with pytest.raises(IllegalAction) as exc:
        done.apply(Promote())
    assert exc.value.code is Rule.ALREADY_COMMANDER


def test_commander_draws_commander_cards() -> None:
    game = seat(new(), 0, square=Square.HILL_4, rank=Rank.COMMANDER)
    game = card(step(turn(game, Face.GREEN), Square.HILL_3), 6)
    assert game.players[0].commander_row == (0, 0, 0, 0, 0, 1, 0)
    assert game.players[0].senator_row == (0,) * 7


def test_draw_tile_to_stockpile_counts() -> None:
    game = turn(new(), Face.GREEN).apply(DrawTile(to_stockpile=True, ferryman=True))
    p = game.players[0]
    assert (p.stockpile, p.ferrymen) == (1, 1)
