"""``companion bench cafe-hostile``: a flood of hostile MQTT messages at the café hub.

Two passes over the same seeded messages (:mod:`companion.cafe.hostile`).  First straight
into a room, one at a time, to judge each: an exception escaping is a crash, a message
that must be refused but was used is accepted-invalid, a card that then shows what no
game has is a bad card.  Then through a real Mosquitto to a running hub, with a real table
publishing its game alongside; the hub must survive, stay current with the real table,
and survive a restart under the same client id that replays the retained garbage.
"""

from __future__ import annotations

import argparse
import tempfile
import threading
import time
from collections import Counter, deque
from pathlib import Path

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from companion.cafe.broker import BrokerSettings, topic
from companion.cafe.hostile import Hostile, card_problems, messages
from companion.cafe.hub import HubSubscriber
from companion.cafe.mosquitto import LocalBroker
from companion.cafe.publisher import PublisherOptions, TablePublisher
from companion.cafe.room import Room
from companion.cafe.simtable import SimulatedTable
from companion.errors import CompanionError

NAME = "cafe-hostile"
HELP = "100,000 hostile MQTT messages at the café hub: crashes, accepted-invalid, hub alive"
HUB_ID = "bench-hostile-hub"
WINDOW = 1000


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--settle-s", type=float, default=120.0, help="wait for the hub")


def run(args: argparse.Namespace) -> int:
    if args.messages < 20:
        raise CompanionError("--messages must be at least 20")
    hostile = list(messages(args.messages, args.seed))
    failures = judge_in_room(hostile)
    with tempfile.TemporaryDirectory(prefix="companion-hostile-") as tmp:
        failures += through_the_broker(hostile, Path(tmp), args.settle_s)
    return 1 if failures else 0


def judge_in_room(hostile: list[Hostile]) -> int:
    room = Room()
    crashes = accepted_invalid = refused_valid = bad_cards = 0
    started = time.perf_counter()
    for message in hostile:
        before = room.bad_messages
        try:
            room.receive(message.table, message.leaf, message.payload)
        except Exception:
            crashes += 1
            continue
        refused = room.bad_messages > before
        accepted_invalid += message.must_refuse is True and not refused
        refused_valid += message.must_refuse is False and refused
        if not refused:
            card = room.card(message.table)
            bad_cards += card is not None and bool(card_problems(card))
    took_s = time.perf_counter() - started
    print(
        f"room: {len(hostile)} messages in {took_s:.2f} s ({len(hostile) / took_s:,.0f}/s):"
        f" {crashes} crashes, {accepted_invalid} accepted-invalid, {refused_valid} valid"
        f" refused, {bad_cards} cards showing what no game has, {room.bad_messages} refused"
    )
    reasons = Counter(room.rejected()["by_reason"]).most_common(6)
    print("  most refused: " + ", ".join(f"{reason} {n}" for reason, n in reasons))
    return crashes + accepted_invalid + refused_valid + bad_cards


def through_the_broker(hostile: list[Hostile], tmp: Path, settle_s: float) -> int:
    with LocalBroker(tmp / "broker") as broker:
        settings = BrokerSettings.from_url(broker.url)
        table = SimulatedTable(tmp / "t.db", seed=1)
        boards = table.new_game()
        half = len(boards) // 2
        publisher: TablePublisher | None = None
        try:
            room = Room()
            with HubSubscriber(room, settings, HUB_ID) as hub:
                if not hub.wait_connected(10):
                    raise CompanionError(f"the hub could not connect to {broker.url}")
                publisher = TablePublisher(
                    table.log.path, "t", settings, None, PublisherOptions(poll_s=0.02)
                ).start()
                started = time.perf_counter()
                errors: list[BaseException] = []
                flood = threading.Thread(target=_flood, args=(broker.port, hostile, errors))
                flood.start()
                for board in boards[:half]:  # the real table plays meanwhile
                    table.show(board)
                flood.join()
                if errors:
                    raise CompanionError(f"the flood of messages failed: {errors[0]!r}")
                current = _wait_current(room, table, "sentinel", settle_s)
                took_s = time.perf_counter() - started
                failures = _say("hub over Mosquitto", room, hub, current, len(hostile), took_s)
            room = Room()  # the same client id again: queued and retained garbage replayed
            with HubSubscriber(room, settings, HUB_ID) as hub:
                hub.wait_connected(10)
                started = time.perf_counter()
                for board in boards[half:]:
                    table.show(board)
                current = _wait_current(room, table, None, settle_s)
                took_s = time.perf_counter() - started
                failures += _say("hub restarted, same client id", room, hub, current, 0, took_s)
        finally:
            if publisher is not None:
                publisher.stop()
            table.close()
    return failures


def _say(what: str, room: Room, hub: HubSubscriber, current: bool, sent: int, took_s: float) -> int:
    flood = f"{sent} messages in {took_s:.1f} s, " if sent else ""
    print(
        f"{what}: {flood}{room.bad_messages} refused, {hub.callback_errors} callback errors,"
        f" MQTT thread {'alive' if hub.alive else 'DEAD'},"
        f" real table {'current' if current else 'NOT current'}"
    )
    return hub.callback_errors + (not hub.alive) + (not current)


def _flood(port: int, hostile: list[Hostile], errors: list[BaseException]) -> None:
    """Publishes every message (QoS 1, states retained) from one client, then a sentinel.

    At most ``WINDOW`` await the broker's acknowledgement: paho's message ids wrap at 65535.
    """
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="bench-hostile")
    client.max_queued_messages_set(0)
    client.connect("127.0.0.1", port)
    client.loop_start()
    pending: deque[mqtt.MQTTMessageInfo] = deque()
    try:
        for message in hostile:
            retain = message.leaf != "events"
            name = topic(message.table, message.leaf)
            pending.append(client.publish(name, message.payload, 1, retain))
            if len(pending) > WINDOW:
                pending.popleft().wait_for_publish(60)
        client.publish(topic("sentinel", "status"), "online", qos=1).wait_for_publish(60)
    except Exception as exc:  # said by the main thread, not lost in this one
        errors.append(exc)
    finally:
        client.disconnect()
        client.loop_stop()


def _wait_current(room: Room, table: SimulatedTable, sentinel: str | None, wait_s: float) -> bool:
    """Whether the hub got through the flood and shows the real table's every event."""
    last = max(e.seq for e in table.log.events())
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        card = room.card("t")
        flood_done = sentinel is None or room.card(sentinel) is not None
        if flood_done and card is not None and card["seq"] == last:
            return set(range(1, last + 1)) <= set(room.seqs("t")) or sentinel is None
        time.sleep(0.05)
    return False
