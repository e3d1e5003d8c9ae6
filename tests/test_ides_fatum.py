"""Fatum cards: discard rows, what a card can order (coins, tiles, moves, missed turns and
rolls), scenarios 9, 16, 17, 18, 19 and the "roll vs turn" cases."""

from __future__ import annotations

import pytest
from ides_support import card, free, kinds, new, roll, seat, step, turn

from companion.games.ides import (
    Bribe,
    CardCoins,
    CardDone,
    CardMissTurn,
    CardMove,
    CardRollPurple,
    CardStockpile,
    DrawCard,
    DrawTile,
    Expressway,
    Face,
    FateRoll,
    Game,
    IllegalAction,
    LayStockpiled,
    Pass,
    Phase,
    PushBack,
    Rank,
    Rule,
    Square,
    StartExpressway,
    TakeMissATurn,
    Token,
)
from companion.games.ides.dice import Die


def at_card(game: Game, numeral: int = 2, hill: Square = Square.HILL_3) -> Game:
    """Player 0 moves onto ``hill`` on a green and draws a card numbered ``numeral``."""
    return step(turn(game, Face.GREEN), hill).apply(DrawCard(numeral))


def on_board(n: int = 2) -> Game:
    game = new(n)
    for i in range(n):
        game = seat(game, i, square=Square.HILL_2)
    return game


def test_card_goes_to_the_discard_row_of_its_deck_and_numeral() -> None:
    game = at_card(on_board(), 5)
    assert game.players[0].senator_row == (0, 0, 0, 0, 1, 0, 0)
    game = seat(on_board(), 0, rank=Rank.COMMANDER)
    game = at_card(game, 7)
    assert game.players[0].commander_row == (0, 0, 0, 0, 0, 0, 1)


def test_card_coins_for_anyone_and_refused_beyond_a_players_coins() -> None:
    game = at_card(seat(on_board(), 1, coins=1))
    game = game.apply(CardCoins(1, 2)).apply(CardCoins(0, -1))
    assert [p.coins for p in game.players] == [0, 3]
    with pytest.raises(IllegalAction) as exc:
        game.apply(CardCoins(0, -1))
    assert exc.value.code is Rule.CANNOT_AFFORD
    with pytest.raises(IllegalAction) as exc:
        game.apply(CardCoins(1, 4))
    assert exc.value.code is Rule.CARD_AMOUNT
    assert CardCoins(0, -1) not in game.legal_actions()


def test_scenarios_6_7_8_card_tiles_change_the_stockpile() -> None:
    game = at_card(on_board()).apply(CardStockpile(1, 2))  # 6/7: tiles drawn or taken, kept
    assert game.players[1].stockpile == 2
    game = game.apply(CardStockpile(1, -1))  # 8: a stockpiled tile laid at a path head
    assert game.players[1].stockpile == 1
    with pytest.raises(IllegalAction) as exc:
        game.apply(CardStockpile(1, -2))
    assert exc.value.code is Rule.NO_STOCKPILE


def test_scenarios_2_to_5_card_moves_set_where_a_sigillum_stands() -> None:
    game = at_card(on_board()).apply(CardMove(0, Square.HILL_2)).apply(CardMove(1, Square.OUTSIDE))
    assert [p.square for p in game.players] == [Square.HILL_2, Square.OUTSIDE]
    assert game.players[0].coins == 1  # a card's move earns nothing
    with pytest.raises(IllegalAction) as exc:
        game.apply(CardMove(0, Square.START))
    assert exc.value.code is Rule.NO_MOVE_TO_START
    fresh = at_card(seat(on_board(), 1, square=Square.START))
    with pytest.raises(IllegalAction) as exc:
        fresh.apply(CardMove(1, Square.HILL_1))
    assert exc.value.code is Rule.NOT_ON_BOARD


def test_roll_vs_turn_1_purple_rolled_only_the_purple_roll_is_lost() -> None:
    game = step(turn(on_board(), Face.PURPLE), Square.HILL_3).apply(DrawCard(2))
    game = game.apply(CardMissTurn(0)).apply(CardDone())
    assert game.players[0].token is Token.SPQR  # the next turn is kept
    assert game.current == 1  # the purple die is not rolled
    assert not any(r.die is Die.PURPLE for r in game.rolls)


def test_roll_vs_turn_2_green_rolled_token_flips_and_dice_pass() -> None:
    game = at_card(on_board(), 3)  # numeral matches the hill, but the card ends the turn
    game = game.apply(CardMissTurn(0)).apply(CardDone())
    assert game.players[0].token is Token.MISS_A_TURN
    assert game.current == 1
    game = turn(game, Face.RED)
    assert kinds(game) == {"draw-free-tile"}
    game = free(game)
    assert game.players[0].token is Token.SPQR and game.current == 1


def test_card_miss_turn_on_an_opponent() -> None:
    game = at_card(on_board()).apply(CardMissTurn(1))
    assert game.players[1].token is Token.MISS_A_TURN
    with pytest.raises(IllegalAction) as exc:
        game.apply(CardMissTurn(1))
    assert exc.value.code is Rule.ALREADY_MISSING


def test_scenario_9_card_orders_purple_roll_replacing_the_pending_one() -> None:
    game = step(turn(on_board(), Face.PURPLE), Square.HILL_3).apply(DrawCard(1))
    game = game.apply(CardRollPurple())
    with pytest.raises(IllegalAction) as exc:
        game.apply(CardRollPurple())
    assert exc.value.code is Rule.PURPLE_ALREADY_DUE
    game = game.apply(CardDone())
    assert game.phase is Phase.PURPLE
    game = roll(game, Face.GREEN, Die.PURPLE).apply(DrawTile(to_stockpile=False))
    assert game.current == 1  # one purple roll, not two


def test_scenario_9_card_orders_purple_roll_after_a_green() -> None:
    game = at_card(on_board()).apply(CardRollPurple()).apply(CardDone())
    assert game.phase is Phase.PURPLE and game.current == 0


def test_scenario_16_roll_for_an_opponents_fate() -> None:
    game = at_card(on_board(3)).apply(FateRoll(1, Face.GREEN))
    assert game.rolls[-1].for_seat == 1 and game.phase is Phase.CARD
    game = at_card(seat(on_board(3), 2, token=Token.MISS_A_TURN)).apply(FateRoll(2, Face.RED))
    assert game.rolls[-1].for_seat == 0  # against Miss-A-Turn the result is the roller's
    with pytest.raises(IllegalAction) as exc:
        game.apply(FateRoll(0, Face.RED))
    assert exc.value.code is Rule.BAD_SEAT


def filled_senator_row(game: Game, seat_index: int = 0) -> Game:
    return seat(game, seat_index, senator_row=(1, 1, 1, 0, 1, 1, 1))


def test_scenario_17_full_senator_row_earns_the_expressway_next_turn() -> None:
    game = at_card(filled_senator_row(on_board()), 4)
    assert game.players[0].expressway is Expressway.EARNED
    game = game.apply(CardDone())
    assert game.current == 1
    game = turn(game, Face.RED)
    game = free(game)
    assert "start-expressway" in kinds(game)
    game = game.apply(StartExpressway())
    assert game.phase is Phase.EXPRESSWAY and game.players[0].expressway is Expressway.USED


def test_scenario_17_expressway_lays_tiles_moves_far_coin_per_hill_then_a_card() -> None:
    game = seat(on_board(), 0, expressway=Expressway.EARNED, stockpile=3, square=Square.HILL_2)
    game = free(game, stockpile=False).apply(StartExpressway())
    game = game.apply(LayStockpiled()).apply(LayStockpiled())
    for to in (Square.HILL_2, Square.HILL_3, Square.HILL_3, Square.HILL_4):
        game = step(game, to)
    assert game.players[0].coins == 2  # hills 3 and 4 traversed
    assert game.players[0].stockpile == 1 and game.current == 0
    game = game.apply(Pass())
    assert game.phase is Phase.CARD and game.turn.card is not None
    assert game.turn.card.deck.value == "senator"
    game = card(game, 4)  # the numeral matches, but the run gives no bonus
    assert game.current == 1


def test_scenario_17_expressway_ending_home_waits_for_promotion() -> None:
    game = seat(on_board(), 0, expressway=Expressway.EARNED, square=Square.OUTSIDE, coins=3)
    game = free(game, stockpile=False).apply(StartExpressway())
    game = step(game, Square.HOME_CIRCLE).apply(Pass())
    assert game.current == 1 and game.players[0].rank is Rank.SENATOR


def test_scenario_17_expressway_lapses_if_not_taken_on_the_next_turn() -> None:
    game = seat(on_board(), 0, expressway=Expressway.EARNED)
    game = turn(game, Face.RED)
    assert game.players[0].expressway is Expressway.LAPSED
    game = free(turn(game, Face.RED))
    assert "start-expressway" not in kinds(game)
    with pytest.raises(IllegalAction) as exc:
        game.apply(StartExpressway())
    assert exc.value.code is Rule.NO_EXPRESSWAY


def test_scenario_17_kept_through_a_missed_turn() -> None:
    game = seat(on_board(), 0, expressway=Expressway.EARNED, token=Token.MISS_A_TURN)
    game = turn(free(game), Face.RED)
    assert game.players[0].expressway is Expressway.EARNED


def commander_stack(game: Game, numeral: int, cards: int = 3) -> Game:
    row = [0] * 7
    row[numeral - 1] = cards
    return seat(game, 0, rank=Rank.COMMANDER, commander_row=tuple(row))


def test_scenario_18_three_commander_cards_push_an_opponent_back() -> None:
    game = seat(commander_stack(on_board(), 4), 0, coins=3)
    game = seat(game, 1, square=Square.HOME_CIRCLE)
    game = free(game, stockpile=False)
    offered = {a for a in game.legal_actions() if isinstance(a, PushBack)}
    assert offered == {PushBack(4, 1, c) for c in (1, 2, 3)}
    game = game.apply(PushBack(4, 1, 2))
    assert game.players[0].coins == 1
    assert game.players[0].commander_flipped[3]
    assert game.players[1].square is Square.OUTSIDE  # pushed off the home circle
    assert game.phase is Phase.TURN_CHOICE  # the turn goes on
    assert not any(isinstance(a, PushBack) for a in game.legal_actions())


def test_scenario_18_refusals() -> None:
    two = free(commander_stack(on_board(), 4, cards=2), stockpile=False)
    with pytest.raises(IllegalAction) as exc:
        two.apply(PushBack(4, 1, 1))
    assert exc.value.code is Rule.PUSH_BACK_UNAVAILABLE
    poor = free(commander_stack(on_board(), 4), stockpile=False)
    with pytest.raises(IllegalAction) as exc:
        poor.apply(PushBack(4, 1, 1))
    assert exc.value.code is Rule.CANNOT_AFFORD
    rich = free(seat(commander_stack(on_board(), 4), 0, coins=9), stockpile=False)
    with pytest.raises(IllegalAction) as exc:
        rich.apply(PushBack(4, 1, 4))
    assert exc.value.code is Rule.PUSH_BACK_COINS
    with pytest.raises(IllegalAction) as exc:
        rich.apply(PushBack(4, 0, 1))
    assert exc.value.code is Rule.BAD_SEAT
    used = rich.apply(PushBack(4, 1, 1))
    with pytest.raises(IllegalAction) as exc:
        used.apply(PushBack(4, 1, 1))
    assert exc.value.code is Rule.PUSH_BACK_ONCE_PER_TURN


def test_scenario_18_one_stack_per_turn_another_on_a_later_turn() -> None:
    game = seat(on_board(), 0, rank=Rank.COMMANDER, coins=9, commander_row=(3, 0, 4, 0, 0, 0, 0))
    game = free(game, stockpile=False).apply(PushBack(1, 1, 1))
    with pytest.raises(IllegalAction) as exc:
        game.apply(PushBack(3, 1, 1))
    assert exc.value.code is Rule.PUSH_BACK_ONCE_PER_TURN
    game = free(roll(game, Face.RED), stockpile=False)
    game = roll(game, Face.RED)
    game = free(game, stockpile=False)
    with pytest.raises(IllegalAction) as exc:
        game.apply(PushBack(1, 1, 1))  # that stack is flipped
    assert exc.value.code is Rule.PUSH_BACK_UNAVAILABLE
    game = game.apply(PushBack(3, 1, 1))
    assert game.players[0].commander_flipped[:3] == (True, False, True)


def test_scenario_19_yellow_miss_next_turn_or_bribe_gamble() -> None:
    game = turn(seat(on_board(), 0, coins=1), Face.YELLOW)
    gamble = game.apply(Bribe(Face.GREEN))
    gamble = step(gamble, Square.HILL_3)
    assert gamble.players[0].coins == 1  # paid 1, earned 1 on the hill
    missed = game.apply(TakeMissATurn())
    assert missed.players[0].token is Token.MISS_A_TURN and missed.players[0].coins == 1


def test_numeral_bonus_action_may_be_a_tile() -> None:
    game = at_card(on_board(), 3).apply(CardDone())
    assert game.turn.bonus
    game = game.apply(DrawTile(to_stockpile=True))
    assert game.current == 1 and game.players[0].stockpile == 1
