"""The hub's picture of the room, rebuilt from what the broker delivers and kept in memory only.

Every table is known by its retained ``status`` and ``state`` messages plus the ``events``
stream.  Each message is checked by :mod:`companion.cafe.schema` first; one the hub cannot
use is counted (per reason and per table) and dropped, never shown.

Sequence numbers come from the table, so a forged one must not hide the real stream:

* an event or state more than ``MAX_SEQ_JUMP`` beyond the table's current seq is dropped
  ("seq jump"), so one message cannot leap the table far ahead; the current seq is that of
  the latest message to arrive, so even a forged one that passed is replaced by the next;
* an event is a repeat only if both its seq and its hash were seen before.  An unseen seq is
  accepted even if a higher one came first, and a seen seq with another hash is accepted and
  counted as a conflict: a forged message may add a line, but it never hides a real event;
* a state snapshot older than the one shown is taken only when it matches an event the hub
  accepted (a table always publishes its events before its snapshot), so a forged high
  snapshot is replaced by the table's next real one.

Viewers are told *which* tables changed; each one then reads the newest card, so a slow
screen skips intermediate states of a table but never misses a table.
"""

from __future__ import annotations

import threading
from collections import Counter, deque
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any
from urllib.parse import urlsplit

from companion.cafe import schema
from companion.cafe.schema import Rejected

RECENT_EVENTS = 8
SEQ_MEMORY = 20_000  # per table: enough for a long evening, bounded all the same
MAX_SEQ_JUMP = 1_000  # a real table's seq grows by one per event; a hub away misses none
HASHES_PER_SEQ = 4  # conflicting events remembered for one seq
MAX_TABLES = 500  # a room, not the whole broker: new tables past this are refused


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
    state: dict[str, Any] | None = None  # as checked by schema.check_state
    state_seq: int = -1
    last_event_seq: int = 0  # of the event that arrived last
    duplicates: int = 0
    gaps: int = 0
    conflicts: int = 0
    rejected: int = 0
    seqs: deque[int] = field(default_factory=lambda: deque(maxlen=SEQ_MEMORY))
    hashes: dict[int, set[str]] = field(default_factory=dict)  # seq -> hashes accepted
    recent: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=RECENT_EVENTS))

    @property
    def head(self) -> int:
        """The table's current seq (its latest snapshot or event), -1 before anything."""
        return max(self.state_seq, self.last_event_seq if self.hashes else -1)

    def remember(self, seq: int, digest: str) -> None:
        known = self.hashes.setdefault(seq, set())
        if len(known) < HASHES_PER_SEQ:
            known.add(digest)
        while len(self.hashes) > SEQ_MEMORY:
            del self.hashes[next(iter(self.hashes))]

    def view(self) -> dict[str, Any]:
        """The card as JSON for the page; user-typed strings stay data, never markup."""
        s = self.state or {}
        seats: list[dict[str, Any]] = s.get("seats", [])
        whose = s.get("whose_turn")
        status = s.get("status", "unknown")
        return {
            "table": self.table,
            "presence": self.presence.value,
            "seq": self.state_seq,
            "last_event_seq": self.last_event_seq,
            "status": status,
            "game": s.get("game"),
            "game_kind": s.get("game_kind"),
            "board": s.get("board_title") or s.get("board"),
            "variant": s.get("variant"),
            "round": s.get("round"),
            "rounds": s.get("rounds"),
            "turn": s.get("turn"),
            "whose_turn": whose["name"] if whose else None,
            "seats": [{"name": p["name"], "score": p["score"]} for p in seats],
            "leader": list(s.get("leader", [])),
            "dispute": s.get("dispute", False),
            "desync": s.get("desync", False),
            "violations": list(s.get("violations", [])),
            "ended": s.get("ended"),
            "chain_head": s.get("chain_head") if status == "ended" else None,
            "dashboard": safe_link(s.get("dashboard")),
            "recent": list(self.recent),
            "duplicates": self.duplicates,
            "gaps": self.gaps,
            "conflicts": self.conflicts,
            "rejected": self.rejected,
        }


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
        self._rejected: Counter[str] = Counter()

    # -- updates from the broker -----------------------------------------------------------

    def _card(self, table: str) -> TableCard:
        card = self._tables.get(table)
        if card is None:
            if len(self._tables) >= MAX_TABLES:
                raise Rejected("too many tables")
            card = self._tables[table] = TableCard(table)
        return card

    def receive(self, table: str, leaf: str, payload: bytes) -> None:
        """One message as the broker delivered it on ``cafe/v1/table/<table>/<leaf>``."""
        if not payload:  # a retained message cleared: the table was retired
            if leaf == "status":
                self.forget(table)
            return
        try:
            if leaf == "status":
                self._status(table, schema.check_status(payload))
            elif leaf == "state":
                self._state(table, schema.check_state(table, schema.decode(payload)))
            elif leaf == "events":
                self._event(table, schema.check_event(table, schema.decode(payload)))
            else:
                raise Rejected("unknown topic")
        except Rejected as refused:
            self.reject(refused.reason, table)

    def on_status(self, table: str, text: str) -> None:
        self.receive(table, "status", text.encode())

    def on_state(self, table: str, state: object) -> None:
        try:
            self._state(table, schema.check_state(table, state))
        except Rejected as refused:
            self.reject(refused.reason, table)

    def on_event(self, table: str, event: object) -> None:
        try:
            self._event(table, schema.check_event(table, event))
        except Rejected as refused:
            self.reject(refused.reason, table)

    def _status(self, table: str, text: str) -> None:
        with self._lock:
            card = self._card(table)
            card.presence = Presence(text)
        self._changed(table)

    def _state(self, table: str, state: dict[str, Any]) -> None:
        seq: int = state["seq"]
        with self._lock:
            card = self._card(table)
            if card.head >= 0 and seq > card.head + MAX_SEQ_JUMP:
                raise Rejected("seq jump")
            if seq < card.state_seq and seq not in card.hashes:
                return  # an older snapshot than the one shown
            card.state = state
            card.state_seq = seq
        self._changed(table)

    def _event(self, table: str, event: dict[str, Any]) -> None:
        seq: int = event["seq"]
        digest: str = event["hash"]
        with self._lock:
            card = self._card(table)
            if card.head >= 0 and seq > card.head + MAX_SEQ_JUMP:
                raise Rejected("seq jump")
            known = card.hashes.get(seq)
            if known is not None and digest in known:
                card.duplicates += 1
                return
            if known is not None:
                card.conflicts += 1  # two events claim one seq: both are shown
            elif card.last_event_seq and seq > card.last_event_seq + 1:
                card.gaps += 1
            card.remember(seq, digest)
            card.last_event_seq = seq  # the newest to arrive, so a forged one is soon replaced
            card.seqs.append(seq)
            card.recent.appendleft({k: event[k] for k in ("seq", "kind", "outcome", "at_s")})
        self._changed(table)

    def forget(self, table: str) -> None:
        """A table taken out of service (its retained status cleared): drop its card."""
        with self._lock:
            found = self._tables.pop(table, None) is not None
        if found:
            self._changed(table)

    def reject(self, reason: str, table: str | None = None) -> None:
        """A message the hub cannot use: counted by reason (and on its table's card), dropped."""
        with self._lock:
            self._rejected[reason] += 1
            card = self._tables.get(table) if table is not None else None
            if card is not None:
                card.rejected += 1
        if card is not None:
            self._changed(card.table)

    @property
    def bad_messages(self) -> int:
        with self._lock:
            return sum(self._rejected.values())

    def rejected(self) -> dict[str, Any]:
        """The dropped messages: a total, per reason, and per table still in the room."""
        with self._lock:
            return {
                "total": sum(self._rejected.values()),
                "by_reason": dict(sorted(self._rejected.items())),
                "by_table": {t: c.rejected for t, c in sorted(self._tables.items()) if c.rejected},
            }

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
