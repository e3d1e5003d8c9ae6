"""The hub's picture of the room, rebuilt from what the broker delivers and kept in memory only.

Every table is known by its retained ``status`` and ``state`` messages plus the ``events``
stream.  Events are deduplicated by (table, seq): a table that republishes after an outage
may repeat one, and the repeat is counted, not shown twice.  Viewers are told *which* tables
changed; each one then reads the newest card, so a slow screen skips intermediate states of
a table but never misses a table.
"""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any
from urllib.parse import urlsplit

RECENT_EVENTS = 8
SEQ_MEMORY = 20_000  # per table: enough for a long evening, bounded all the same
# The table statuses a snapshot may carry; they become CSS classes, so nothing else passes.
STATUSES = frozenset({"setup", "playing", "dispute", "desync", "ended"})


class Presence(StrEnum):
    ONLINE = "online"
    OFFLINE = "offline"
    UNKNOWN = "unknown"


def safe_link(url: object) -> str | None:
    """Only plain http(s) links leave the hub: a table cannot inject ``javascript:``."""
    if not isinstance(url, str) or len(url) > 2000:
        return None
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return None
    return url


@dataclass
class TableCard:
    table: str
    presence: Presence = Presence.UNKNOWN
    state: dict[str, Any] | None = None
    state_seq: int = -1
    last_event_seq: int = 0
    duplicates: int = 0
    gaps: int = 0
    seqs: deque[int] = field(default_factory=lambda: deque(maxlen=SEQ_MEMORY))
    recent: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=RECENT_EVENTS))

    def view(self) -> dict[str, Any]:
        """The card as JSON for the page; user-typed strings stay data, never markup."""
        s = self.state or {}
        seats: list[Any] = s["seats"] if isinstance(s.get("seats"), list) else []
        whose = s.get("whose_turn") if isinstance(s.get("whose_turn"), dict) else None
        return {
            "table": self.table,
            "presence": self.presence.value,
            "seq": self.state_seq,
            "last_event_seq": self.last_event_seq,
            "status": s["status"] if s.get("status") in STATUSES else "unknown",
            "game": s.get("game") if isinstance(s.get("game"), int) else None,
            "board": _text(s.get("board_title") or s.get("board")),
            "variant": _text(s.get("variant")),
            "round": s.get("round") if isinstance(s.get("round"), int) else None,
            "rounds": s.get("rounds") if isinstance(s.get("rounds"), int) else None,
            "turn": s.get("turn") if isinstance(s.get("turn"), int) else None,
            "whose_turn": _text(whose.get("name")) if whose else None,
            "seats": [
                {"name": _text(p.get("name")), "score": p.get("score")}
                for p in seats
                if isinstance(p, dict) and isinstance(p.get("score"), int)
            ],
            "leader": [_text(n) for n in s.get("leader", []) if isinstance(n, str)]
            if isinstance(s.get("leader"), list)
            else [],
            "dispute": s.get("dispute") is True,
            "desync": s.get("desync") is True,
            "violations": [_text(v) for v in s.get("violations", []) if isinstance(v, str)]
            if isinstance(s.get("violations"), list)
            else [],
            "ended": _text(s.get("ended")),
            "dashboard": safe_link(s.get("dashboard")),
            "recent": list(self.recent),
            "duplicates": self.duplicates,
            "gaps": self.gaps,
        }


def _text(value: object, limit: int = 80) -> str | None:
    return value[:limit] if isinstance(value, str) else None


class RoomWatcher:
    """One viewer: the set of tables changed since it last looked."""

    def __init__(self, room: Room) -> None:
        self._room = room
        self._dirty: set[str] = set()
        self._cond = threading.Condition()

    def mark(self, table: str) -> None:
        with self._cond:
            self._dirty.add(table)
            self._cond.notify()

    def changed(self, timeout_s: float) -> list[str]:
        """Waits up to ``timeout_s`` for changes; the tables changed, or [] on timeout."""
        with self._cond:
            self._cond.wait_for(lambda: bool(self._dirty), timeout_s)
            dirty, self._dirty = self._dirty, set()
        return sorted(dirty)

    def close(self) -> None:
        self._room.unwatch(self)

    def __enter__(self) -> RoomWatcher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Room:
    """Thread-safe: the MQTT thread writes, the web threads read."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tables: dict[str, TableCard] = {}
        self._watchers: set[RoomWatcher] = set()
        self.bad_messages = 0

    # -- updates from the broker -----------------------------------------------------------

    def _card(self, table: str) -> TableCard:
        card = self._tables.get(table)
        if card is None:
            card = self._tables[table] = TableCard(table)
        return card

    def on_status(self, table: str, text: str) -> None:
        presence = {"online": Presence.ONLINE, "offline": Presence.OFFLINE}.get(text)
        if presence is None:
            self.bad_message()
            return
        with self._lock:
            card = self._card(table)
            card.presence = presence
        self._changed(table)

    def on_state(self, table: str, state: object) -> None:
        if not isinstance(state, dict) or not isinstance(state.get("seq"), int):
            self.bad_message()
            return
        with self._lock:
            card = self._card(table)
            if state["seq"] < card.state_seq:
                return  # an older snapshot than the one shown
            card.state = state
            card.state_seq = state["seq"]
        self._changed(table)

    def on_event(self, table: str, event: object) -> None:
        if not isinstance(event, dict) or not isinstance(event.get("seq"), int):
            self.bad_message()
            return
        seq: int = event["seq"]
        with self._lock:
            card = self._card(table)
            if seq <= card.last_event_seq:
                card.duplicates += 1
                return
            if card.last_event_seq and seq != card.last_event_seq + 1:
                card.gaps += 1
            card.last_event_seq = seq
            card.seqs.append(seq)
            card.recent.appendleft(_event_summary(event))
        self._changed(table)

    def forget(self, table: str) -> None:
        """A table taken out of service (its retained status cleared): drop its card."""
        with self._lock:
            found = self._tables.pop(table, None) is not None
        if found:
            self._changed(table)

    def bad_message(self) -> None:
        """A message no table could have meant: counted, never shown."""
        with self._lock:
            self.bad_messages += 1

    def _changed(self, table: str) -> None:
        with self._lock:
            watchers = list(self._watchers)
        for w in watchers:
            w.mark(table)

    # -- reading ---------------------------------------------------------------------------

    def watch(self) -> RoomWatcher:
        """A new viewer, told first about every table already known."""
        watcher = RoomWatcher(self)
        with self._lock:
            self._watchers.add(watcher)
            tables = list(self._tables)
        for t in tables:
            watcher.mark(t)
        return watcher

    def unwatch(self, watcher: RoomWatcher) -> None:
        with self._lock:
            self._watchers.discard(watcher)

    def card(self, table: str) -> dict[str, Any] | None:
        with self._lock:
            card = self._tables.get(table)
            return card.view() if card is not None else None

    def cards(self) -> list[dict[str, Any]]:
        with self._lock:
            return [self._tables[t].view() for t in sorted(self._tables)]

    def seqs(self, table: str) -> list[int]:
        """The event seqs accepted for a table, in arrival order (repeats dropped)."""
        with self._lock:
            card = self._tables.get(table)
            return list(card.seqs) if card is not None else []


def _event_summary(event: dict[str, Any]) -> dict[str, Any]:
    """What a card lists of an event: its kind and, for a verdict, the outcome."""
    payload = event.get("payload")
    outcome = payload.get("outcome") if isinstance(payload, dict) else None
    return {
        "seq": event["seq"],
        "kind": _text(event.get("kind")),
        "outcome": _text(outcome),
        "at_s": event.get("at_s") if isinstance(event.get("at_s"), int | float) else None,
    }
