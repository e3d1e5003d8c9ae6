"""What a table tells the café (a real Mosquitto): no aureus ahead of the table, and the
chain head of each finished game."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from cafe_helpers import wait_for
from paho.mqtt.enums import CallbackAPIVersion

from companion.cafe.broker import BrokerSettings, topic
from companion.cafe.mosquitto import LocalBroker
from companion.cafe.publisher import PublisherOptions, TablePublisher
from companion.cafe.simtable import SimulatedTable
from companion.table.log import EventKind

pytestmark = [pytest.mark.mosquitto, pytest.mark.timeout(60)]


class Listener:
    """Anyone on the café network, subscribed to everything a table publishes."""

    def __init__(self, url: str) -> None:
        self.messages: list[tuple[str, dict[str, Any]]] = []
        self._lock = threading.Lock()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="onlooker")
        self.client.on_message = self._on_message
        self.client.connect("127.0.0.1", int(url.rsplit(":", 1)[1]))
        self.client.subscribe(topic("t", "#"), qos=1)
        self.client.loop_start()

    def _on_message(self, _c: Any, _u: Any, message: mqtt.MQTTMessage) -> None:
        try:
            body = json.loads(message.payload)
        except ValueError:
            return  # the status topic carries plain words
        with self._lock:
            self.messages.append((message.topic, body))

    def of(self, leaf: str) -> list[dict[str, Any]]:
        with self._lock:
            return [b for t, b in self.messages if t == topic("t", leaf)]

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


@pytest.mark.parametrize(("variant", "extra"), [("standard", 0), ("haruspex", 1)])
def test_the_room_learns_the_aureus_no_sooner_than_the_players(
    broker: LocalBroker, tmp_path: Path, variant: str, extra: int
) -> None:
    table = SimulatedTable(tmp_path / "t.db", seed=4, players=2)
    listener = Listener(broker.url)
    options = PublisherOptions(poll_s=0.02, retry_min_s=0.1, retry_max_s=0.5)
    pub = TablePublisher(table.log.path, "t", BrokerSettings.from_url(broker.url), None, options)
    try:
        boards = table.new_game(variant)
        aureus = list(table.session.game.setup.aureus)  # type: ignore[union-attr]
        for board in boards[:5]:  # into round 2, before the table reaches the broker
            table.show(board)
        pub.start()
        head = max(e.seq for e in table.log.events())
        wait_for(lambda: any(m["seq"] == head for m in listener.of("events")), what="events")
        started = next(m for m in listener.of("events") if m["kind"] == "game_started")
        assert started["payload"]["aureus"] == aureus[: 2 + extra]
        for message in listener.of("events"):
            assert len(message["payload"].get("upcoming_vats", [])) <= 1 + extra
        assert all("chain_head" not in s for s in listener.of("state"))
        table.session.operate("end")
        ended = table.log.events_of_kind(EventKind.GAME_ENDED)[-1]
        wait_for(
            lambda: any(s.get("chain_head") == ended.hash for s in listener.of("state")),
            what="the chain head of the finished game",
        )
        assert len(ended.hash) == 64
    finally:
        pub.stop()
        listener.close()
        table.close()
