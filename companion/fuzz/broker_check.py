"""A sample of the hostile café messages through a real broker, to the real hub subscriber.

In-process feeding shows what the handler does with a message; only a real broker shows
what that means for the hub: a handler that raises ends paho's network thread, and because
the message was never acknowledged the broker delivers it again when the hub comes back
with the same client id.  So after the sample a real table's message must still reach the
hub, and again after a restart of the hub.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from typing import Any

from companion.cafe.broker import BrokerSettings, topic
from companion.cafe.hub import HubSubscriber
from companion.cafe.room import Room
from companion.fuzz.mqtt_target import MqttTarget
from companion.fuzz.tally import CRASH, HUB_STALE, TargetTally
from companion.progress import Progress

CONNECT_S = 10.0
CURRENT_S = 10.0
PUBLISH_S = 10.0

HubFactory = Callable[[Room, BrokerSettings, str], Any]


class BrokerCheck:
    name = "mqtt via broker"

    def __init__(
        self,
        target: MqttTarget,
        settings: BrokerSettings,
        hub_factory: HubFactory = HubSubscriber,
        current_s: float = CURRENT_S,
    ) -> None:
        self.target = target
        self.settings = settings
        self.hub_factory = hub_factory
        self.current_s = current_s
        self.client_id = f"companion-fuzz-hub-{os.getpid()}"
        self._sentinels = 0
        self.dropped: list[str] = []  # messages the broker refused (it closed the sender)
        self.sender: Any = None
        self._senders = 0

    def run(self, count: int, tally: TargetTally, progress: Progress | None = None) -> None:
        died: list[BaseException | None] = []
        previous_hook = threading.excepthook
        threading.excepthook = lambda args: died.append(args.exc_value)
        try:
            room = Room()
            hub = self.hub_factory(room, self.settings, self.client_id).start()
            if not hub.wait_connected(CONNECT_S):
                where = f"{self.settings.host}:{self.settings.port}"
                tally.found(HUB_STALE, "the hub could not connect", f"{where}: {hub.error}")
                hub.stop()
                return
            self._new_sender()
            self._send(count, tally, progress)
            self._judge(room, died, tally, "after the hostile messages")
            hub.stop()
            died.clear()
            room = Room()
            hub = self.hub_factory(room, self.settings, self.client_id).start()
            if hub.wait_connected(CONNECT_S):
                self._judge(room, died, tally, "after a restart of the hub")
            else:
                tally.found(HUB_STALE, "the hub could not connect after a restart", str(hub.error))
            hub.stop()
        finally:
            if self.sender is not None:
                self.sender.disconnect()
                self.sender.loop_stop()
            threading.excepthook = previous_hook
            self._forget_session()

    def _send(self, count: int, tally: TargetTally, progress: Progress | None) -> None:
        """One message at a time, each acknowledged by the broker before the next."""
        for _ in range(count):
            message = self.target.episode().message
            if progress is not None:
                progress.advance()
            if not publishable(message.topic):
                continue
            try:
                info = self.sender.publish(message.topic, message.payload, qos=1)
                info.wait_for_publish(PUBLISH_S)
            except (RuntimeError, ValueError):  # the connection dropped: the broker refused it
                self.dropped.append(message.how)
                self._new_sender()  # a new session: paho would send the message again
                continue
            if info.is_published():
                tally.sent += 1

    def _new_sender(self) -> None:
        if self.sender is not None:
            self.sender.disconnect()
            self.sender.loop_stop()
        self._senders += 1
        self.sender = self.settings.client(f"companion-fuzz-sender-{os.getpid()}-{self._senders}")
        self.sender.connect(self.settings.host, self.settings.port, keepalive=30)
        self.sender.loop_start()
        deadline = time.monotonic() + CONNECT_S
        while not self.sender.is_connected() and time.monotonic() < deadline:
            time.sleep(0.02)

    def _judge(
        self,
        room: Room,
        died: list[BaseException | None],
        tally: TargetTally,
        when: str,
    ) -> None:
        current = self._sentinel_arrives(room)
        for exc in died:
            tally.found(CRASH, f"hub MQTT thread died {when}", f"{type(exc).__name__}: {exc}")
        if not current:
            tally.found(HUB_STALE, f"a real table's message never showed {when}", "")

    def _sentinel_arrives(self, room: Room) -> bool:
        """A real table's first event and state: shown on the hub within ``current_s``?"""
        sender = self.sender
        self._sentinels += 1
        table = f"fuzz-alive-{os.getpid()}-{self._sentinels}"
        step = self.target.steps[0]
        state = {**step.state, "table": table}
        sender.publish(topic(table, "events"), _json({**step.event, "table": table}), qos=1)
        sender.publish(topic(table, "state"), _json(state), qos=1)
        deadline = time.monotonic() + self.current_s
        while time.monotonic() < deadline:
            card = room.card(table)
            if card is not None and card.get("seq") == state["seq"]:
                return True
            time.sleep(0.05)
        return False

    def _forget_session(self) -> None:
        """Connects once with a clean session, so the broker drops the hub's queue."""
        client = self.settings.client(self.client_id, clean_session=True)
        try:
            client.connect(self.settings.host, self.settings.port, keepalive=5)
            client.loop_start()
            time.sleep(0.2)
            client.disconnect()
            client.loop_stop()
        except OSError:
            pass


def publishable(name: str) -> bool:
    """Whether MQTT can carry ``name`` at all (a broker drops a client that tries)."""
    encoded = name.encode("utf-8", "replace")
    return 0 < len(encoded) <= 65_535 and not any(c in name for c in "+#\x00")


def _json(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()
