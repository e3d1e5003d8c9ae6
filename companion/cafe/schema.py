"""What the hub accepts from a table: every message is bounded and typed before it is used.

Anyone who can publish on the broker can send the hub anything, so a message is read in
steps that each cost little: its size, its encoding, how deeply it nests (counted before
the JSON parser sees it), then each field the hub shows, with a range a real game can
have.  A message that fails any step raises :class:`Rejected` with a short reason drawn
from a fixed set, so counting reasons can never grow without bound.

What passes comes out as a small dict of exactly the fields the hub uses: nothing else a
table sent (a board position, a 1 MB string in an unknown field) is kept.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from companion.games.garum.setup import Variant
from companion.table.log import EventKind

MAX_PAYLOAD_BYTES = 64 * 1024  # a full snapshot is about 1.2 kB, the largest event under 1 kB
MAX_NESTING = 16  # a snapshot nests 4 deep, an event 5
MAX_SEQ = 2**53 - 1  # the largest integer every JSON reader keeps exactly
MAX_ROUNDS = 64  # one round per vat; the reference boards have 12 and 16
MAX_TURNS = 1000
MIN_SEATS, MAX_SEATS = 2, 4  # Garum is for 2 to 4 players
NAME_CHARS = 40  # the session refuses longer player names
TEXT_CHARS = 120
LINK_CHARS = 2000
MAX_SCORE = 10_000
MAX_VIOLATIONS = 64
COLOURS = frozenset("BGYR")
STATUSES = frozenset({"setup", "playing", "dispute", "desync", "ended"})
VARIANTS = frozenset(v.value for v in Variant)
KINDS = frozenset(k.value for k in EventKind)
_HEX64 = re.compile(r"[0-9a-f]{64}")
_NESTING_MARKS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)


class Rejected(ValueError):
    """A message the hub cannot use; ``reason`` is a fixed short phrase, safe to count."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def decode(payload: bytes) -> object:
    """The JSON value of a payload, refused if too large, not UTF-8, too deep or not JSON."""
    if len(payload) > MAX_PAYLOAD_BYTES:
        raise Rejected("too large")
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError:
        raise Rejected("not UTF-8") from None
    if _nests_deeper_than(text, MAX_NESTING):
        raise Rejected("nested too deeply")
    try:
        return json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        raise Rejected("not JSON") from None


def _no_constant(name: str) -> object:
    raise ValueError(f"{name} is not a number JSON allows")


def _nests_deeper_than(text: str, limit: int) -> bool:
    """Counts brackets outside strings, so the parser never recurses past ``limit``."""
    depth = 0
    for mark in _NESTING_MARKS.finditer(text):
        token = mark.group()
        if token in ("[", "{"):
            depth += 1
            if depth > limit:
                return True
        elif token in ("]", "}"):
            depth -= 1
    return False


def check_status(payload: bytes) -> str:
    """``online`` or ``offline``: the only words a status topic carries."""
    if payload in (b"online", b"offline"):
        return payload.decode()
    raise Rejected("bad presence")


def check_state(table: str, body: object) -> dict[str, Any]:
    """A retained ``state`` snapshot, reduced to the fields the hub shows."""
    data = _object(body)
    _same_table(table, data)
    state: dict[str, Any] = {
        "seq": _int(data, "seq", 0, MAX_SEQ),
        "at_s": _optional_time(data, "at_s"),
        "status": _choice(data, "status", STATUSES),
        "dashboard": _optional_text(data, "dashboard", LINK_CHARS),
        "game": _optional_int(data, "game", 1, MAX_SEQ),
        "chain_head": _optional_hex(data, "chain_head"),
    }
    if state["game"] is None:
        return state
    rounds = _int(data, "rounds", 1, MAX_ROUNDS)
    seats = _seats(data.get("seats"))
    names = {seat["name"] for seat in seats}
    leader = _list(data, "leader", MAX_SEATS)
    if not all(isinstance(name, str) and name in names for name in leader):
        raise Rejected("bad leader")
    state.update(
        board=_text(data, "board", 64),
        board_title=_optional_text(data, "board_title", TEXT_CHARS),
        variant=_choice(data, "variant", VARIANTS),
        rounds=rounds,
        round=_int(data, "round", 1, rounds),
        turn=_optional_int(data, "turn", 1, MAX_TURNS),
        whose_turn=_whose_turn(data.get("whose_turn")),
        seats=seats,
        leader=leader,
        ended=_optional_text(data, "ended", TEXT_CHARS),
        dispute=_bool(data, "dispute"),
        desync=_bool(data, "desync"),
        violations=[
            _short(v, "violations", TEXT_CHARS) for v in _list(data, "violations", MAX_VIOLATIONS)
        ],
    )
    return state


def check_event(table: str, body: object) -> dict[str, Any]:
    """One ``events`` message, reduced to what a card lists (its seq, hash, kind, outcome)."""
    data = _object(body)
    _same_table(table, data)
    payload = data.get("payload")
    if not isinstance(payload, dict):
        raise Rejected("bad payload")
    outcome = payload.get("outcome")
    if outcome is not None and (not isinstance(outcome, str) or len(outcome) > NAME_CHARS):
        raise Rejected("bad outcome")
    if not isinstance(data.get("hash"), str) or not _HEX64.fullmatch(data["hash"]):
        raise Rejected("bad hash")
    return {
        "seq": _int(data, "seq", 1, MAX_SEQ),
        "hash": data["hash"],
        "kind": _choice(data, "kind", KINDS),
        "outcome": outcome,
        "at_s": _optional_time(data, "at_s"),
    }


# -- field readers: each raises Rejected("bad <field>") --------------------------------------


def _object(body: object) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise Rejected("not an object")
    return body


def _same_table(table: str, data: dict[str, Any]) -> None:
    """The body names the table of its topic, so one table cannot speak for another."""
    if data.get("table") != table:
        raise Rejected("wrong table")


def _int(data: dict[str, Any], name: str, low: int, high: int) -> int:
    value = data.get(name)
    if type(value) is not int or not low <= value <= high:
        raise Rejected(f"bad {name}")
    return value


def _optional_int(data: dict[str, Any], name: str, low: int, high: int) -> int | None:
    return None if data.get(name) is None else _int(data, name, low, high)


def _optional_time(data: dict[str, Any], name: str) -> float | None:
    value = data.get(name)
    if value is None:
        return None
    if type(value) not in (int, float) or not math.isfinite(value) or not 0 <= value < 1e11:
        raise Rejected(f"bad {name}")
    return float(value)


def _bool(data: dict[str, Any], name: str) -> bool:
    value = data.get(name, False)
    if not isinstance(value, bool):
        raise Rejected(f"bad {name}")
    return value


def _short(value: object, name: str, limit: int) -> str:
    if not isinstance(value, str) or len(value) > limit:
        raise Rejected(f"bad {name}")
    return value


def _text(data: dict[str, Any], name: str, limit: int) -> str:
    value = _short(data.get(name), name, limit)
    if not value:
        raise Rejected(f"bad {name}")
    return value


def _optional_text(data: dict[str, Any], name: str, limit: int) -> str | None:
    value = data.get(name)
    return None if value is None else _short(value, name, limit)


def _optional_hex(data: dict[str, Any], name: str) -> str | None:
    value = data.get(name)
    if value is None:
        return None
    if not isinstance(value, str) or not _HEX64.fullmatch(value):
        raise Rejected(f"bad {name}")
    return value


def _choice(data: dict[str, Any], name: str, allowed: frozenset[str]) -> str:
    value = data.get(name)
    if not isinstance(value, str) or value not in allowed:
        raise Rejected(f"bad {name}")
    return value


def _list(data: dict[str, Any], name: str, most: int) -> list[Any]:
    value = data.get(name, [])
    if not isinstance(value, list) or len(value) > most:
        raise Rejected(f"bad {name}")
    return value


def _name(value: object, field: str) -> str:
    name = _short(value, field, NAME_CHARS)
    if not name.strip():
        raise Rejected(f"bad {field}")
    return name


def _seats(value: object) -> list[dict[str, Any]]:
    if not isinstance(value, list) or not MIN_SEATS <= len(value) <= MAX_SEATS:
        raise Rejected("bad seats")
    seats = []
    for seat in value:
        if not isinstance(seat, dict):
            raise Rejected("bad seats")
        score = seat.get("score")
        if type(score) is not int or abs(score) > MAX_SCORE:
            raise Rejected("bad score")
        colours = seat.get("colours", [])
        if not isinstance(colours, list) or len(colours) > 2:
            raise Rejected("bad colours")
        if not all(isinstance(c, str) and c in COLOURS for c in colours):
            raise Rejected("bad colours")
        seats.append({"name": _name(seat.get("name"), "seat name"), "score": score})
    return seats


def _whose_turn(value: object) -> dict[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise Rejected("bad whose_turn")
    return {"name": _name(value.get("name"), "whose_turn")}
