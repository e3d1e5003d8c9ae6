"""Hostile café messages fed to the hub's MQTT message handler, in-process.

Every input goes to a table of its own: the hub first hears the table's real messages up to
some event, then the hostile one, then the table's real next event and state.  Findings:
the handler raising (in the hub it would kill the MQTT thread), the table's card showing a
value out of bounds afterwards (a huge or negative number, a megabyte of text, a hundred
thousand seats, NaN), and a real message the hub no longer shows because a forged sequence
number came first.
"""

from __future__ import annotations

import json
import math
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import paho.mqtt.client as mqtt

from companion.cafe.broker import TOPIC_ROOT, BrokerSettings, topic
from companion.cafe.hub import HubSubscriber
from companion.cafe.room import Room
from companion.fuzz.cafe_samples import CafeStep
from companion.fuzz.hostile import garbage, mutate_value, sized
from companion.fuzz.tally import ACCEPTED_INVALID, CRASH, TargetTally, shorten
from companion.progress import Progress

# What a card may show: the fuzz's idea of sane bounds for a café table.
MAX_SAFE_INT = 2**53
MAX_TEXT = 10_000
MAX_LIST = 1_000
MAX_SEATS = 8
MAX_ROUND = 10_000
MAX_HEARD = 8  # real events a table sends before the hostile one
FORGED_SEQS = (10**40, 2**63, 2**53 + 1, 10**6)


class HubUnderTest(Protocol):
    """What the fuzz needs of a hub: a way in, and what its page would show."""

    def deliver(self, name: str, payload: bytes) -> None: ...

    def cards(self) -> list[dict[str, Any]]: ...

    def seqs(self, table: str) -> list[int]: ...


class RealHub:
    """The café hub's ``on_message`` and room, as paho's network thread would call them."""

    def __init__(self) -> None:
        self.room = Room()
        self._hub = HubSubscriber(self.room, BrokerSettings("127.0.0.1", 1883), "fuzz-hub")

    def deliver(self, name: str, payload: bytes) -> None:
        message = mqtt.MQTTMessage(topic=name.encode("utf-8"))
        message.payload = payload
        self._hub._on_message(None, None, message)  # type: ignore[arg-type]

    def cards(self) -> list[dict[str, Any]]:
        return self.room.cards()

    def seqs(self, table: str) -> list[int]:
        return self.room.seqs(table)


@dataclass(frozen=True)
class Message:
    topic: str
    payload: bytes
    how: str
    forged_event_seq: int | None = None  # the seq of a hostile events message, if any


@dataclass(frozen=True)
class Episode:
    """A table of its own: real events 1..``heard`` reach the hub before ``message``."""

    table: str
    heard: int
    message: Message


def out_of_bounds(card: Any, where: str = "card") -> str | None:
    """The first value of a card no table could have meant, or None."""
    if isinstance(card, bool) or card is None:
        return None
    if isinstance(card, int):
        return (
            None if -MAX_SAFE_INT <= card <= MAX_SAFE_INT else f"{where} = {shorten(str(card), 40)}"
        )
    if isinstance(card, float):
        return None if math.isfinite(card) else f"{where} = {card}"
    if isinstance(card, str):
        return None if len(card) <= MAX_TEXT else f"{where}: {len(card)} characters"
    if isinstance(card, list):
        if len(card) > MAX_LIST:
            return f"{where}: {len(card)} entries"
        for i, item in enumerate(card):
            found = out_of_bounds(item, f"{where}[{i}]")
            if found:
                return found
        return None
    if isinstance(card, dict):
        for key in ("round", "rounds", "turn", "game"):
            value = card.get(key)
            if isinstance(value, int) and not 0 <= value <= (
                MAX_SAFE_INT if key == "game" else MAX_ROUND
            ):
                return f"{where}.{key} = {shorten(str(value), 40)}"
        seats = card.get("seats")
        if isinstance(seats, list) and len(seats) > MAX_SEATS:
            return f"{where}.seats: {len(seats)} seats"
        for key, item in card.items():
            found = out_of_bounds(item, f"{where}.{key}")
            if found:
                return found
    return None


class MqttTarget:
    name = "mqtt"

    def __init__(
        self, steps: list[CafeStep], seed: int, hub: Callable[[], HubUnderTest] = RealHub
    ) -> None:
        if len(steps) < 3:
            raise ValueError("the café fuzz needs a sample game of at least 3 events")
        self.steps = steps
        self.rng = random.Random(seed)
        self.hub = hub
        self.generators: list[tuple[float, Callable[[str, int], Message]]] = [
            (30, self.mutated_event),
            (30, self.mutated_state),
            (5, self.mutated_status),
            (10, self.forged_event_seq),
            (5, self.forged_state_seq),
            (10, self.state_out_of_bounds),
            (0.5, self.state_too_big),
            (5, self.garbage_payload),
            (5, self.hostile_topic),
        ]
        self._made = 0

    def run(self, count: int, tally: TargetTally, progress: Progress | None = None) -> None:
        for _ in range(count):
            self.one(tally)
            if progress is not None:
                progress.advance()

    def episode(self) -> Episode:
        """One hostile message for a new table (the broker phase sends these too)."""
        self._made += 1
        table = f"fuzz-{self._made}"
        weights = [w for w, _ in self.generators]
        makers = [m for _, m in self.generators]
        k = self.rng.randrange(1, min(len(self.steps) - 1, MAX_HEARD))
        return Episode(table, k, self.rng.choices(makers, weights)[0](table, k))

    def one(self, tally: TargetTally) -> None:
        tally.sent += 1
        episode = self.episode()
        table, k, message = episode.table, episode.heard, episode.message
        payload = shorten(message.payload.decode("utf-8", "replace"), 100)
        example = f"{message.topic[:80]} | {message.how} | payload: {payload}"
        hub = self.hub()
        deliver = hub.deliver
        try:
            deliver(topic(table, "status"), b"online")
            for step in self.steps[:k]:
                deliver(topic(table, "events"), self._encoded(step.event, table))
            deliver(topic(table, "state"), self._encoded(self.steps[k - 1].state, table))
        except Exception as exc:
            tally.found(CRASH, f"hub handler on a real message: {type(exc).__name__}", example)
            return
        try:
            deliver(message.topic, message.payload)
        except Exception as exc:  # in the hub, this ends the MQTT thread
            tally.found(CRASH, f"hub handler: {type(exc).__name__}", example)
            return
        shown = self._shown(hub, table, tally, example)
        if shown is None:
            return
        found = self._real_next(hub, table, k, message, tally, example)
        bad = out_of_bounds(shown)
        if found is None and bad:
            found = (f"hub shows {_field(bad)}", f"{bad} | {example}")
        if found is not None:  # one finding per input, the most telling first
            tally.found(ACCEPTED_INVALID, *found)

    def _shown(self, hub: HubUnderTest, table: str, tally: TargetTally, example: str) -> Any:
        try:
            cards = hub.cards()
            json.dumps(cards, allow_nan=False)
        except ValueError as exc:
            tally.found(ACCEPTED_INVALID, "hub page cannot encode the card", f"{exc} | {example}")
            return None
        except Exception as exc:
            tally.found(CRASH, f"hub page: {type(exc).__name__}", example)
            return None
        return next((c for c in cards if c.get("table") == table), {})

    def _real_next(
        self,
        hub: HubUnderTest,
        table: str,
        k: int,
        message: Message,
        tally: TargetTally,
        example: str,
    ) -> tuple[str, str] | None:
        """The table's real next event and state must still show."""
        step = self.steps[k]
        real_seq = step.event["seq"]
        seen_before = real_seq in hub.seqs(table)
        try:
            hub.deliver(topic(table, "events"), self._encoded(step.event, table))
            hub.deliver(topic(table, "state"), self._encoded(step.state, table))
        except Exception as exc:
            tally.found(
                CRASH, f"hub handler after a hostile message: {type(exc).__name__}", example
            )
            return None
        hidden = message.forged_event_seq != real_seq and real_seq not in hub.seqs(table)
        if not seen_before and hidden:
            return "a forged sequence number hid a real event", example
        card = next((c for c in hub.cards() if c.get("table") == table), None)
        if card is not None and card.get("seq") != step.state["seq"]:
            return "a forged sequence number froze the table's state", example
        return None

    def _encoded(self, message: dict[str, Any], table: str) -> bytes:
        return json.dumps({**message, "table": table}, separators=(",", ":")).encode()

    # -- generators ------------------------------------------------------------------------

    def mutated_event(self, table: str, k: int) -> Message:
        event = {**self.steps[k - 1].event, "table": table}
        m = mutate_value(event, self.rng)
        forged = _seq_of(m.data)
        return Message(topic(table, "events"), m.data, f"event {m.how}", forged)

    def mutated_state(self, table: str, k: int) -> Message:
        m = mutate_value({**self.steps[k - 1].state, "table": table}, self.rng)
        return Message(topic(table, "state"), m.data, f"state {m.how}")

    def mutated_status(self, table: str, k: int) -> Message:
        text = self.rng.choice(("onlinе", "OFFLINE", "", "online\x00", "x" * 100_000, "\udcff"))
        return Message(
            topic(table, "status"), text.encode("utf-8", "surrogateescape"), "status text"
        )

    def forged_event_seq(self, table: str, k: int) -> Message:
        seq = self.rng.choice(FORGED_SEQS)
        event = {**self.steps[k].event, "table": table, "seq": seq}
        data = json.dumps(event).encode()
        return Message(topic(table, "events"), data, f"event seq {shorten(str(seq), 30)}", seq)

    def forged_state_seq(self, table: str, k: int) -> Message:
        seq = self.rng.choice(FORGED_SEQS)
        state = {**self.steps[k - 1].state, "table": table, "seq": seq}
        return Message(
            topic(table, "state"), json.dumps(state).encode(), f"state seq {shorten(str(seq), 30)}"
        )

    def state_out_of_bounds(self, table: str, k: int) -> Message:
        state = {**self.steps[k - 1].state, "table": table}
        choice = self.rng.randrange(3)
        if choice == 0:
            state["round"], how = -5, "round -5"
        elif choice == 1:
            state["turn"], how = 10**40, "turn 10^40"
        else:
            seats = list(state.get("seats") or [{"name": "x", "colours": ["B"], "score": 0}])
            seats[0] = {**seats[0], "score": 10**40}
            state["seats"], how = seats, "a score of 10^40"
        return Message(topic(table, "state"), json.dumps(state).encode(), how)

    def state_too_big(self, table: str, k: int) -> Message:
        state = {**self.steps[k - 1].state, "table": table}
        if self.rng.random() < 0.5:
            n = sized(self.rng, 100, 10_000, 100_000)
            state["seats"], how = [{"name": "x", "colours": ["B"], "score": 1}] * n, f"{n} seats"
        else:
            n = sized(self.rng, 1000, 100_000, 1_000_000)
            state["variant"], how = "V" * n, f"a variant of {n} characters"
        return Message(topic(table, "state"), json.dumps(state).encode(), how)

    def garbage_payload(self, table: str, k: int) -> Message:
        m = garbage(self.rng)
        leaf = self.rng.choice(("status", "state", "events"))
        return Message(topic(table, leaf), m.data, f"{leaf}: {m.how}")

    def hostile_topic(self, table: str, k: int) -> Message:
        rng = self.rng
        name = rng.choice(
            (
                f"{TOPIC_ROOT}/{table}/state/extra",
                f"{TOPIC_ROOT}/{'t' * 70}/state",
                f"{TOPIC_ROOT}/../state",
                f"{TOPIC_ROOT}/{table}/unknown",
                f"{TOPIC_ROOT}/\u202e{table}/events",
                "/" * 300,
                f"{TOPIC_ROOT}/{table}/" + "x" * 70_000,
            )
        )
        payload = self._encoded(self.steps[k - 1].state, table)
        return Message(name, payload, f"topic {name[:60]!r}")


def _seq_of(data: bytes) -> int | None:
    try:
        value = json.loads(data)
    except (ValueError, RecursionError):
        return None
    seq = value.get("seq") if isinstance(value, dict) else None
    return seq if isinstance(seq, int) else None


def _field(found: str) -> str:
    """``card.seats[3].score = 1e40`` -> ``card.seats[i].score`` (the kind, not the value)."""
    return re.sub(r"\[\d+\]", "[i]", found.split(" = ")[0].split(":")[0])
