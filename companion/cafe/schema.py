"""What the hub accepts from a table: every message is bounded and typed before it is used.

Anyone who can publish on the broker can send the hub anything, so a message is read in
steps that each cost little: its size, its encoding, how deeply it nests (counted before
the JSON parser sees it), then each field the hub shows, with a range a real game can
have.  A message that fails any step raises :class:`Rejected` with a short reason drawn
from a fixed set, so counting reasons can never grow without bound.

The fields every table sends are checked here; the game a state message names
(``game_kind``, the default game when absent) checks its own
(:mod:`companion.games.cafe_seam`).
What passes comes out as a small dict of exactly the fields the hub uses: nothing else a
table sent (a board position, a 1 MB string in an unknown field) is kept.
"""

from __future__ import annotations

import json
import re
from typing import Any

from companion.games.cafe_fields import (
    HEX64,
    NAME_CHARS,
    TEXT_CHARS,
    Rejected,
    read_bool,
    read_choice,
    read_int,
    read_list,
    read_object,
    read_optional_hex,
    read_optional_int,
    read_optional_text,
    read_optional_time,
    short_text,
)
from companion.games.registry import DEFAULT_GAME, game, games
from companion.table.log import EventKind

__all__ = ["Rejected", "check_event", "check_state", "check_status", "decode"]

MAX_PAYLOAD_BYTES = 64 * 1024  # a full snapshot is about 1.2 kB, the largest event under 1 kB
MAX_NESTING = 16  # a snapshot nests 4 deep, an event 5
MAX_SEQ = 2**53 - 1  # the largest integer every JSON reader keeps exactly
LINK_CHARS = 2000
MAX_VIOLATIONS = 64
GAME_KIND_CHARS = 40
STATUSES = frozenset({"setup", "playing", "dispute", "desync", "ended"})
KINDS = frozenset(k.value for k in EventKind)
_NESTING_MARKS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)


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
    data = read_object(body)
    _same_table(table, data)
    state: dict[str, Any] = {
        "seq": read_int(data, "seq", 0, MAX_SEQ),
        "at_s": read_optional_time(data, "at_s"),
        "status": read_choice(data, "status", STATUSES),
        "dashboard": read_optional_text(data, "dashboard", LINK_CHARS),
        "game": read_optional_int(data, "game", 1, MAX_SEQ),
        "chain_head": read_optional_hex(data, "chain_head"),
    }
    if state["game"] is None:
        return state
    kind = _game_kind(data)
    try:
        game_cafe = game(kind).cafe()
    except NotImplementedError:  # a game the café cannot show
        raise Rejected("bad game_kind") from None
    state.update(game_cafe.check_state(data), game_kind=kind)
    state.update(
        ended=read_optional_text(data, "ended", TEXT_CHARS),
        dispute=read_bool(data, "dispute"),
        desync=read_bool(data, "desync"),
        violations=[
            short_text(v, "violations", TEXT_CHARS)
            for v in read_list(data, "violations", MAX_VIOLATIONS)
        ],
    )
    return state


def check_event(table: str, body: object) -> dict[str, Any]:
    """One ``events`` message, reduced to what a card lists (its seq, hash, kind, outcome)."""
    data = read_object(body)
    _same_table(table, data)
    payload = data.get("payload")
    if not isinstance(payload, dict):
        raise Rejected("bad payload")
    outcome = payload.get("outcome")
    if outcome is not None and (not isinstance(outcome, str) or len(outcome) > NAME_CHARS):
        raise Rejected("bad outcome")
    if not isinstance(data.get("hash"), str) or not HEX64.fullmatch(data["hash"]):
        raise Rejected("bad hash")
    return {
        "seq": read_int(data, "seq", 1, MAX_SEQ),
        "hash": data["hash"],
        "kind": read_choice(data, "kind", KINDS),
        "outcome": outcome,
        "at_s": read_optional_time(data, "at_s"),
    }


# -- what every message shares ----------------------------------------------------------------


def _same_table(table: str, data: dict[str, Any]) -> None:
    """The body names the table of its topic, so one table cannot speak for another."""
    if data.get("table") != table:
        raise Rejected("wrong table")


def _game_kind(data: dict[str, Any]) -> str:
    """The game the table says it plays (the default game when it does not say), if it is
    installed here."""
    kind = data.get("game_kind", DEFAULT_GAME)
    if not isinstance(kind, str) or len(kind) > GAME_KIND_CHARS or kind not in games():
        raise Rejected("bad game_kind")
    return kind
