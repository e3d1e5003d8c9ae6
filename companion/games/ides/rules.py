"""Refusal codes and the price list: every refusal names the rule it enforces.

Codes are stable strings (logs and the dashboard key on them); the message is plain words for
the players at the table.
"""

from __future__ import annotations

from enum import StrEnum


class Rule(StrEnum):
    """One stable code per rule the engine can refuse an action under."""

    GAME_OVER = "game_over"
    WRONG_STEP = "wrong_step"
    ROLL_UNTHROWN = "roll_unthrown"
    NOT_A_FACE = "not_a_face"
    WRONG_DIE = "wrong_die"
    CANNOT_AFFORD = "cannot_afford"
    MISS_A_TURN_STOCKPILE_ONLY = "miss_a_turn_stockpile_only"
    NO_STOCKPILE = "no_stockpile"
    NO_FERRYMAN = "no_ferryman"
    COMMANDER_ONLY = "commander_only"
    GRAND_ENTRANCE = "grand_entrance"
    NO_MOVE_TO_START = "no_move_to_start"
    SAME_SQUARE = "same_square"
    NOT_AT_HOME = "not_at_home"
    ALREADY_COMMANDER = "already_commander"
    NO_EXPRESSWAY = "no_expressway"
    EXPRESSWAY_MOVE = "expressway_move"
    PUSH_BACK_UNAVAILABLE = "push_back_unavailable"
    PUSH_BACK_ONCE_PER_TURN = "push_back_once_per_turn"
    PUSH_BACK_COINS = "push_back_coins"
    BAD_NUMERAL = "bad_numeral"
    BAD_SEAT = "bad_seat"
    PLAYER_OUT = "player_out"
    ALREADY_MISSING = "already_missing"
    CARD_AMOUNT = "card_amount"
    CARD_ALREADY_DRAWN = "card_already_drawn"
    PURPLE_ALREADY_DUE = "purple_already_due"
    MUST_ACT = "must_act"
    NOT_ON_BOARD = "not_on_board"
    FERRYMAN_BOUGHT = "ferryman_bought"
    TESTUDO_CAPTURE = "testudo_capture"


class IllegalAction(Exception):
    """An action the rules do not allow now; ``code`` names the rule, ``message`` explains."""

    def __init__(self, code: Rule, message: str) -> None:
        self.code = code
        self.message = message
        super().__init__(f"{code.value}: {message}")


# Coins paid to the orange bag (the bank) or received from it.
YELLOW_BRIBE = 1
SLAVE_REVOLT_BRIBE = 2
OUTPOST_BRIBE = 3
FERRYMAN_USE = 3
FERRYMAN_PURCHASE = 3
PROMOTION = 3
BRIDGE_REUSE = 1
FERRYMAN_RETURN_REWARD = 1
PUSH_BACK_MAX_COINS = 3
PUSH_BACK_STACK = 3
# Fatum card texts are unpublished; the companion accepts card coin and tile changes up to this.
CARD_MAX_AMOUNT = 3
NUMERALS = 7
MIN_PLAYERS = 2
MAX_PLAYERS = 4
LAST_ROLLS_KEPT = 12
