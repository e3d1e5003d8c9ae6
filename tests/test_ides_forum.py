"""The Forum: a commander on the podium holds Rome, reds and missed turns put the others out,
the holder missing a turn or being moved back brings them all back, and the game ends when
every other player is out under the same holder (scenarios 10, 12-15)."""

from __future__ import annotations

import pytest
from ides_support import card, free, kinds, new, roll, seat, step, turn

from companion.games.ides import (
    CardDone,
    CardMissTurn,
    CardMove,
    DrawCard,
    DrawTile,
    Face,
    Game,
    IllegalAction,
    Move,
    Phase,
    PushBack,
    Rank,
    Roll,
    Rule,
    Square,
    TakeMissATurn,
    Token,
)
from companion.games.ides.dice import Die


def three(holder_square: Square = Square.HILL_1) -> Game:
    """Three players on the hills; Ann (seat 0) a commander next to the podium."""
    game = new(3)
    for i in range(3):
        game = seat(game, i, square=Square.HILL_2)
    return seat(game, 0, rank=Rank.COMMANDER, square=holder_square)


def held() -> Game:
    """Ann has just taken the podium (coin and commander card done); Bo is to play."""
    game = step(turn(three(), Face.GREEN), Square.PODIUM)
    return card(game, 2)


def test_scenario_12_commander_on_podium_holds_the_forum_game_goes_on() -> None:
    game = step(turn(three(), Face.GREEN), Square.PODIUM)
    assert game.forum_holder == 0
    assert game.players[0].coins == 1
    assert game.turn.card is not None and game.turn.card.deck.value == "commander"
    game = card(game, 2)
    assert not game.over and game.current == 1


def test_senator_on_podium_holds_nothing() -> None:
    game = step(turn(seat(three(), 0, rank=Rank.SENATOR), Face.GREEN), Square.PODIUM)
    assert game.forum_holder is None


def green_tile(game: Game) -> Game:
    """The current player rolls green and lays a drawn tile: the turn passes."""
    return turn(game, Face.GREEN).apply(DrawTile(to_stockpile=False))


def test_scenario_12_holder_rolls_purple_die_card_then_one_green_action() -> None:
    game = green_tile(green_tile(held()))  # Bo and Cy roll green: they stay in
    assert game.current == 0
    game = free(game, stockpile=False)
    assert [a for a in game.legal_actions() if isinstance(a, Roll)] == [Roll(Die.PURPLE)]
    game = roll(game, Face.PURPLE, Die.PURPLE)  # counts as green
    assert game.phase is Phase.CARD and game.turn.card is not None
    assert game.turn.card.deck.value == "commander"
    game = card(game, 4)
    assert game.phase is Phase.ACTION and game.turn.actions_left == 1 and not game.turn.pair
    game = game.apply(DrawTile(to_stockpile=True))
    assert game.current == 1 and game.players[0].coins == 1  # no coin for staying


def test_scenario_12_holder_card_numeral_one_gives_a_bonus() -> None:
    game = free(green_tile(green_tile(held())), stockpile=False)
    game = card(roll(game, Face.GREEN, Die.PURPLE), 1)
    assert game.turn.bonus and game.turn.actions_left == 1
    game = game.apply(DrawTile(to_stockpile=False)).apply(DrawTile(to_stockpile=False))
    assert game.current == 1


def test_scenario_12_holder_red_just_ends_the_turn() -> None:
    game = free(green_tile(green_tile(held())), stockpile=False)
    game = roll(game, Face.RED, Die.PURPLE)
    assert game.current == 1 and not game.players[0].out and game.forum_holder == 0


def test_scenario_13_red_while_podium_held_puts_the_roller_out() -> None:
    game = turn(held(), Face.RED)
    bo = game.players[1]
    assert bo.out and bo.token is Token.MISS_A_TURN
    assert game.current == 2 and not game.over


def test_out_players_are_bypassed_no_free_tile() -> None:
    game = turn(held(), Face.RED)  # Bo out
    game = green_tile(game)  # Cy plays
    assert game.current == 0  # Bo skipped
    game = roll(free(game, stockpile=False), Face.RED, Die.PURPLE)
    assert game.current == 2


def test_red_on_the_purple_die_also_puts_out() -> None:
    game = turn(held(), Face.PURPLE).apply(DrawTile(to_stockpile=False))
    game = roll(game, Face.RED, Die.PURPLE)
    assert game.players[1].out


def test_taking_miss_a_turn_while_podium_held_puts_out() -> None:
    game = turn(seat(held(), 1, coins=0), Face.YELLOW).apply(TakeMissATurn())
    assert game.players[1].out


def test_game_ends_when_every_other_player_is_out_under_the_same_holder() -> None:
    game = turn(held(), Face.RED)
    assert not game.over
    game = turn(game, Face.RED)
    assert game.over and game.winner == 0 and game.phase is Phase.OVER
    assert game.legal_actions() == []
    with pytest.raises(IllegalAction) as exc:
        game.apply(DrawTile(to_stockpile=True))
    assert exc.value.code is Rule.GAME_OVER


def test_scenario_13_holder_missing_a_turn_brings_everyone_back() -> None:
    game = turn(held(), Face.RED)  # Bo out
    game = step(turn(game, Face.GREEN), Square.HILL_3).apply(DrawCard(6))
    game = game.apply(CardMissTurn(0)).apply(CardDone())  # Cy's card: Ann misses a turn
    assert game.players[0].token is Token.MISS_A_TURN
    assert not game.players[1].out and game.players[1].token is Token.SPQR
    assert game.forum_holder == 0  # still on the podium
    game = free(game)  # Ann's missed turn
    assert game.current == 1  # Bo is back in the rotation


def test_holder_moved_back_reopens_the_game() -> None:
    game = turn(held(), Face.RED)  # Bo out
    game = step(turn(game, Face.GREEN), Square.HILL_3).apply(DrawCard(6))
    game = game.apply(CardMove(0, Square.HILL_1))
    assert game.forum_holder is None
    assert not game.players[1].out


def test_holder_pushed_back_by_scenario_18_reopens_the_game() -> None:
    game = turn(held(), Face.RED)  # Bo out
    game = seat(game, 2, rank=Rank.COMMANDER, coins=1, commander_row=(0, 3, 0, 0, 0, 0, 0))
    game = free(game, stockpile=False).apply(PushBack(2, 0, 1))
    assert game.players[0].square is Square.HILL_1
    assert game.forum_holder is None and not game.players[1].out


def test_scenario_14_miss_a_turn_players_are_out_when_the_podium_is_taken() -> None:
    game = seat(three(), 2, token=Token.MISS_A_TURN)
    game = step(turn(game, Face.GREEN), Square.PODIUM)
    assert game.players[2].out and not game.players[1].out


def test_scenario_15_gift_deposes_the_holder_onto_another_commander() -> None:
    game = seat(held(), 1, rank=Rank.COMMANDER)
    game = green_tile(turn(game, Face.RED))  # Bo, a commander, is out; Cy plays
    game = roll(free(game, stockpile=False), Face.GREEN, Die.PURPLE).apply(DrawCard(3))
    assert game.players[1].out
    # Ann's card gifts her tile to Bo: he takes the podium, she moves back two tiles.
    game = game.apply(CardMove(1, Square.PODIUM))
    assert game.forum_holder == 1
    assert game.players[0].square is Square.HILL_1  # deposed, still in the game
    assert not game.players[0].out and not game.players[1].out


def test_scenario_10_landing_on_the_podium_bumps_the_occupant() -> None:
    game = seat(three(), 1, square=Square.PODIUM)
    game = step(turn(game, Face.GREEN), Square.PODIUM)
    assert game.players[1].square is Square.HILL_1 and game.forum_holder == 0


def test_grand_entrance_sending_a_podium_senator_back_is_the_arrivals_choice() -> None:
    """Grand entrance: when a senator enters onto the podium while an opponent's senator is
    on hill 1, the arriving player *may* send that senator back; it then needs a green or
    purple to enter again. Not choosing it leaves only the landing bump (scenario 10)."""
    game = turn(seat(new(), 1, square=Square.PODIUM), Face.GREEN)
    moves = {a for a in game.legal_actions() if isinstance(a, Move)}
    assert moves == {Move(Square.PODIUM), Move(Square.PODIUM, send_back=(1,))}
    kept = step(game, Square.PODIUM)
    assert kept.players[1].square is Square.HILL_1  # bumped off the podium, still on hill 1
    sent = game.apply(Move(Square.PODIUM, send_back=(1,)))
    assert sent.players[1].square is Square.START
    again = turn(card(sent, 2), Face.GREEN)  # Bo must enter again, and may answer in kind
    moves = {a for a in again.legal_actions() if isinstance(a, Move)}
    assert moves == {Move(Square.PODIUM), Move(Square.PODIUM, send_back=(0,))}


def test_grand_entrance_reaches_senators_anywhere_on_hill_1() -> None:
    """Grand entrance: the rule speaks of a senator *on hill 1*, not only on the podium, so
    senators elsewhere on hill 1 can be sent back too (each one the arrival picks), while
    a commander on hill 1, or a senator on another hill, cannot."""
    game = new(4)
    game = seat(game, 1, square=Square.HILL_1)
    game = seat(game, 2, square=Square.HILL_1, rank=Rank.COMMANDER)
    game = seat(game, 3, square=Square.HILL_2)
    game = turn(game, Face.GREEN)
    assert {a.send_back for a in game.legal_actions() if isinstance(a, Move)} == {(), (1,)}
    after = game.apply(Move(Square.PODIUM, send_back=(1,)))
    squares = [p.square for p in after.players]
    assert squares == [Square.PODIUM, Square.START, Square.HILL_1, Square.HILL_2]
    for victims, code in (((2,), Rule.GRAND_ENTRANCE), ((3,), Rule.GRAND_ENTRANCE)):
        with pytest.raises(IllegalAction) as exc:
            game.apply(Move(Square.PODIUM, send_back=victims))
        assert exc.value.code is code
    two = turn(seat(seat(new(3), 1, square=Square.HILL_1), 2, square=Square.PODIUM), Face.GREEN)
    sends = {a.send_back for a in two.legal_actions() if isinstance(a, Move)}
    assert sends == {(), (1,), (2,), (1, 2)}
    with pytest.raises(IllegalAction):
        two.apply(Move(Square.PODIUM, send_back=(2, 1)))  # each seat once, in order


def test_only_an_entering_senator_sends_others_back() -> None:
    """Grand entrance: the choice belongs to a sigillum first entering the board; a senator
    already on the board stepping onto the podium only bumps (scenario 10)."""
    game = turn(seat(seat(new(), 0, square=Square.HILL_1), 1, square=Square.PODIUM), Face.GREEN)
    assert Move(Square.PODIUM, send_back=(1,)) not in game.legal_actions()
    with pytest.raises(IllegalAction) as exc:
        game.apply(Move(Square.PODIUM, send_back=(1,)))
    assert exc.value.code is Rule.GRAND_ENTRANCE


def test_holder_leaving_the_podium_reopens_the_game() -> None:
    game = green_tile(turn(held(), Face.RED))  # Bo out, Cy plays
    game = card(roll(free(game, stockpile=False), Face.GREEN, Die.PURPLE), 4)
    game = step(game, Square.HILL_1)
    assert game.forum_holder is None and not game.players[1].out
    assert "draw-card" in kinds(game)  # a dice move within the hills still draws


def test_taking_the_podium_with_the_last_action_skips_a_next_player_now_out() -> None:
    game = seat(three(Square.HILL_2), 1, token=Token.MISS_A_TURN)
    game = card(step(turn(game, Face.GREEN), Square.HILL_1), 1)  # numeral I: a bonus move
    game = step(game, Square.PODIUM)  # the bonus move: no coin, no card, the turn ends
    assert game.forum_holder == 0 and game.players[1].out
    assert game.current == 2 and game.phase is Phase.FREE_TILE


def test_leaving_the_podium_with_the_last_action_gives_the_next_turn_to_a_returner() -> None:
    game = green_tile(turn(held(), Face.RED))  # Bo out, Cy plays
    game = card(roll(free(game, stockpile=False), Face.GREEN, Die.PURPLE), 4)
    game = step(game, Square.HILL_1).apply(DrawCard(2)).apply(CardDone())
    assert game.forum_holder is None
    assert game.current == 1  # Bo is back, and it is his turn
