"""Hostile MQTT messages for the hub, made from a seed: what anyone on the broker could send.

Each message says whether the hub must refuse it (``True``), must use it (``False``) or may
do either as long as what it then shows is still a real game's (``None``: a valid message
with one field replaced).  :func:`card_problems` is that last check.
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from companion.cafe import schema
from companion.games.cafe_fields import TEXT_CHARS, Rejected
from companion.games.registry import DEFAULT_GAME, UnknownGame, game

HOSTILE_VALUES: tuple[Any, ...] = (
    10**40, -(10**40), 2**53, -5, 0, 100_000, 1.5, 1e308, -0.0, True, None, "", "x" * 1000,
    "<script>alert(1)</script>", "\u202e\x00\x1b[31m", [], {}, [1] * 500, {"a": {"b": {}}},
    "javascript:alert(1)", "Z" * 64,
)  # fmt: skip
BREAKERS = (
    b"\xff\xfe\x00garbage", b"{not json", b'{"seq": NaN}', b'{"vat": Infinity}', b"[]", b"null",
    b"1e999999", b'"' + b"\\" * 1001 + b'"', b"-" * 10,
)  # fmt: skip


@dataclass(frozen=True)
class Hostile:
    table: str
    leaf: str
    payload: bytes
    must_refuse: bool | None


def valid_state(table: str, seq: int) -> dict[str, Any]:
    return {
        "table": table, "seq": seq, "at_s": 1.7e9, "status": "playing", "dashboard": None,
        "game": 1, "board": "troia", "board_title": "Troia", "variant": "standard",
        "rounds": 16, "round": 1 + seq % 16, "turn": 1 + seq % 64, "turns_played": seq % 64,
        "whose_turn": {"colour": "B", "seat": 0, "name": "Ana"},
        "seats": [{"name": "Ana", "colours": ["B", "G"], "score": 4},
                  {"name": "Ben", "colours": ["Y", "R"], "score": 2}],
        "leader": ["Ana"], "ended": None, "dispute": False, "desync": False, "violations": [],
    }  # fmt: skip


def valid_event(table: str, seq: int) -> dict[str, Any]:
    return {
        "table": table, "seq": seq, "hash": f"{seq:064x}", "prev": f"{seq - 1:064x}",
        "game": 1, "kind": "verdict", "payload": {"outcome": "accept"}, "photo": None,
        "at_s": 1.7e9 + seq,
    }  # fmt: skip


def _json(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


def messages(count: int, seed: int, tables: int = 10) -> Iterator[Hostile]:
    """``count`` messages over tables ``h-00``...; each table first gets a valid state."""
    return itertools.islice(_messages(random.Random(seed), tables), count)


def _messages(rng: random.Random, tables: int) -> Iterator[Hostile]:
    names = [f"h-{i:02d}" for i in range(tables)]
    seqs = dict.fromkeys(names, 1)
    for name in names:
        yield Hostile(name, "state", _json(valid_state(name, 1)), False)
    while True:
        table = rng.choice(names)
        kind = rng.randrange(100)
        if kind < 10:  # the table's own next messages, which must still be used
            seqs[table] += 1
            maker = valid_event if kind < 5 else valid_state
            leaf = "events" if kind < 5 else "state"
            yield Hostile(table, leaf, _json(maker(table, seqs[table])), False)
        elif kind < 55:  # a valid message with one field replaced
            leaf = rng.choice(("state", "events"))
            body = (valid_state if leaf == "state" else valid_event)(table, seqs[table])
            body[rng.choice(sorted(body))] = rng.choice(HOSTILE_VALUES)
            yield Hostile(table, leaf, _json(body), None)
        elif kind < 70:  # seqs no table reaches by playing
            leaf = rng.choice(("state", "events"))
            body = (valid_state if leaf == "state" else valid_event)(table, seqs[table])
            body["seq"] = rng.choice((10**40, 2**60, -1, schema.MAX_SEQ + 1, seqs[table] + 10**6))
            yield Hostile(table, leaf, _json(body), True)
        elif kind < 80:  # another table's body on this table's topic
            body = valid_state(rng.choice([n for n in names if n != table]), seqs[table])
            yield Hostile(table, "state", _json(body), True)
        elif kind < 90:
            yield Hostile(table, rng.choice(("state", "events")), rng.choice(BREAKERS), True)
        elif kind < 97:  # random bytes, and a status that is neither online nor offline
            junk = rng.randbytes(rng.randrange(1, 200))
            yield Hostile(table, rng.choice(("state", "events")), junk, True)
            yield Hostile(table, "status", b"online" + junk, True)
        elif kind < 99 or rng.random() < 0.9:  # nested deeper than allowed, under the size limit
            depth = rng.randrange(schema.MAX_NESTING + 1, 2_000 if rng.random() < 0.95 else 30_000)
            yield Hostile(table, "state", b"[" * depth + b"]" * depth, True)
        else:  # more than the size limit
            yield Hostile(table, "state", b" " * (schema.MAX_PAYLOAD_BYTES + 1) + b"{}", True)


def card_problems(card: dict[str, Any]) -> list[str]:
    """What a card shows that no real game could have (empty for a sound card)."""
    problems = []
    if card["status"] not in schema.STATUSES | {"unknown"}:
        problems.append("status")
    if not -1 <= card["seq"] <= schema.MAX_SEQ:
        problems.append("seq")
    if card["game"] is not None:
        problems += _game_problems(card)
    for text in (card["board"], card["ended"], *card["violations"]):
        if text is not None and (not isinstance(text, str) or len(text) > TEXT_CHARS):
            problems.append("text")
    return problems


def _game_problems(card: dict[str, Any]) -> list[str]:
    """The card's game fields, checked again by its game: a sound card passes as it is.  The
    card shows one board name (the title when there is one): it is checked as the title."""
    whose = card["whose_turn"]
    as_sent = {
        **card,
        "board": "shown",
        "board_title": card["board"],
        "whose_turn": None if whose is None else {"name": whose},
    }
    try:
        game(card.get("game_kind") or DEFAULT_GAME).cafe().check_state(as_sent)
    except UnknownGame:
        return ["game_kind"]
    except Rejected as refused:
        return [refused.reason.removeprefix("bad ")]
    return []
