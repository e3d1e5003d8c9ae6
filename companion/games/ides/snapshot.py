"""JSON-able snapshots of the game's pieces, for the dashboard, the game log and resuming.

Readers validate everything and name the offending field, so a damaged log line is reported
where it is rather than resumed into an impossible game.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, TypeVar

from companion.errors import InputError
from companion.games.ides.dice import Die, Face
from companion.games.ides.rules import NUMERALS
from companion.games.ides.state import (
    Card,
    Deck,
    Expressway,
    Phase,
    Player,
    Rank,
    RollRecord,
    Square,
    Token,
    Turn,
)

FORMAT = "companion-ides-game/1"
E = TypeVar("E", bound=StrEnum)


def player_to_dict(p: Player) -> dict[str, Any]:
    return {
        "name": p.name,
        "rank": p.rank.value,
        "coins": p.coins,
        "stockpile": p.stockpile,
        "ferrymen": p.ferrymen,
        "ferrymen_laid": p.ferrymen_laid,
        "token": p.token.value,
        "out": p.out,
        "square": p.square.value,
        "senator_row": list(p.senator_row),
        "commander_row": list(p.commander_row),
        "commander_flipped": list(p.commander_flipped),
        "expressway": p.expressway.value,
    }


def turn_to_dict(t: Turn) -> dict[str, Any]:
    card = t.card
    return {
        "phase": t.phase.value,
        "actions_left": t.actions_left,
        "bonus": t.bonus,
        "pair": t.pair,
        "pair_card_drawn": t.pair_card_drawn,
        "purple_due": t.purple_due,
        "card": None
        if card is None
        else {
            "deck": card.deck.value,
            "hill": card.hill,
            "numeral": card.numeral,
            "bonus_allowed": card.bonus_allowed,
            "purple_ordered": card.purple_ordered,
        },
        "ending": t.ending,
        "pushed_back": t.pushed_back,
        "expressway_offered": t.expressway_offered,
        "expressway_hill": t.expressway_hill,
        "ferryman_bought": t.ferryman_bought,
    }


def roll_to_dict(roll: RollRecord) -> dict[str, Any]:
    return {
        "seat": roll.seat,
        "die": roll.die.value,
        "face": roll.face.value,
        "for_seat": roll.for_seat,
    }


class Reader:
    """Typed field access on a parsed JSON object; every error carries its dotted path."""

    def __init__(self, data: Any, path: str, source: str | None) -> None:
        if not isinstance(data, dict):
            raise InputError("expected a JSON object", source=source, field=path or None)
        self.data: dict[str, Any] = data
        self.path = path
        self.source = source

    def where(self, key: str) -> str:
        return f"{self.path}.{key}" if self.path else key

    def fail(self, key: str, message: str) -> InputError:
        return InputError(message, source=self.source, field=self.where(key))

    def raw(self, key: str) -> Any:
        if key not in self.data:
            raise self.fail(key, "missing")
        return self.data[key]

    def sub(self, key: str) -> Reader:
        return Reader(self.raw(key), self.where(key), self.source)

    def boolean(self, key: str) -> bool:
        value = self.raw(key)
        if not isinstance(value, bool):
            raise self.fail(key, f"expected true or false, got {value!r}")
        return value

    def integer(self, key: str, low: int = 0, high: int | None = None) -> int:
        value = self.raw(key)
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.fail(key, f"expected an integer, got {value!r}")
        if value < low or (high is not None and value > high):
            span = f"{low}..{high}" if high is not None else f">= {low}"
            raise self.fail(key, f"expected {span}, got {value}")
        return value

    def optional_int(self, key: str, low: int, high: int) -> int | None:
        return None if self.raw(key) is None else self.integer(key, low, high)

    def text(self, key: str) -> str:
        value = self.raw(key)
        if not isinstance(value, str) or not value:
            raise self.fail(key, f"expected a non-empty string, got {value!r}")
        return value

    def enum(self, key: str, kind: type[E]) -> E:
        value = self.raw(key)
        allowed = [e.value for e in kind]
        if value not in allowed:
            raise self.fail(key, f"expected one of {', '.join(allowed)}, got {value!r}")
        return kind(value)

    def row(self, key: str, item: type[int] | type[bool]) -> list[Any]:
        value = self.raw(key)
        ok = isinstance(value, list) and len(value) == NUMERALS
        if ok and item is bool:
            ok = all(isinstance(v, bool) for v in value)
        elif ok:
            ok = all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value)
        if not ok:
            kind = "true/false values" if item is bool else "counts >= 0"
            raise self.fail(key, f"expected a list of {NUMERALS} {kind} (numerals I-VII)")
        return list(value)


def player_from(rd: Reader) -> Player:
    stockpile = rd.integer("stockpile")
    return Player(
        name=rd.text("name"),
        rank=rd.enum("rank", Rank),
        coins=rd.integer("coins"),
        stockpile=stockpile,
        ferrymen=rd.integer("ferrymen", 0, stockpile),
        ferrymen_laid=rd.integer("ferrymen_laid"),
        token=rd.enum("token", Token),
        out=rd.boolean("out"),
        square=rd.enum("square", Square),
        senator_row=tuple(rd.row("senator_row", int)),
        commander_row=tuple(rd.row("commander_row", int)),
        commander_flipped=tuple(rd.row("commander_flipped", bool)),
        expressway=rd.enum("expressway", Expressway),
    )


def turn_from(rd: Reader) -> Turn:
    card: Card | None = None
    if rd.raw("card") is not None:
        c = rd.sub("card")
        card = Card(
            deck=c.enum("deck", Deck),
            hill=c.optional_int("hill", 1, 7),
            numeral=c.optional_int("numeral", 1, NUMERALS),
            bonus_allowed=c.boolean("bonus_allowed"),
            purple_ordered=c.boolean("purple_ordered"),
        )
    phase = rd.enum("phase", Phase)
    if (phase is Phase.CARD) != (card is not None):
        raise rd.fail("card", "a card is pending exactly when the phase is 'card'")
    return Turn(
        phase=phase,
        actions_left=rd.integer("actions_left", 0, 2),
        bonus=rd.boolean("bonus"),
        pair=rd.boolean("pair"),
        pair_card_drawn=rd.boolean("pair_card_drawn"),
        purple_due=rd.boolean("purple_due"),
        card=card,
        ending=rd.boolean("ending"),
        pushed_back=rd.boolean("pushed_back"),
        expressway_offered=rd.boolean("expressway_offered"),
        expressway_hill=rd.optional_int("expressway_hill", 1, 7),
        ferryman_bought=rd.boolean("ferryman_bought"),
    )


def roll_from(rd: Reader, seats: int) -> RollRecord:
    return RollRecord(
        seat=rd.integer("seat", 0, seats - 1),
        die=rd.enum("die", Die),
        face=rd.enum("face", Face),
        for_seat=rd.optional_int("for_seat", 0, seats - 1),
    )
