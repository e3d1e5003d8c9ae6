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
from companion.cli._progress import Progress
from companion.fuzz.mqtt_target import MqttTarget
from companion.fuzz.tally import CRASH, HUB_STALE, TargetTally

CONNECT_S = 10.0
CURRENT_S = 10.0
PUBLISH_S = 60.0

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

    def run(self, count: int, tally: TargetTally, progress: Progress | None = None) -> None:
        died: list[BaseException | None] = []
        previous_hook = threading.excepthook
        threading.excepthook = lambda args: died.append(args.exc_value)
        sender = self.settings.client(f"companion-fuzz-sender-{os.getpid()}")
        try:
            room = Room()
            hub = self.hub_factory(room, self.settings, self.client_id).start()
            if not hub.wait_connected(CONNECT_S):
                where = f"{self.settings.host}:{self.settings.port}"
                tally.found(HUB_STALE, "the hub could not connect", f"{where}: {hub.error}")
                hub.stop()
                return
            sender.connect(self.settings.host, self.settings.port, keepalive=30)
            sender.loop_start()
            self._send(sender, count, tally, progress)
            self._judge(room, sender, died, tally, "after the hostile messages")
            hub.stop()
            died.clear()
            room = Room()
            hub = self.hub_factory(room, self.settings, self.client_id).start()
            if hub.wait_connected(CONNECT_S):
                self._judge(room, sender, died, tally, "after a restart of the hub")
            else:
                tally.found(HUB_STALE, "the hub could not connect after a restart", str(hub.error))
            hub.stop()
        finally:
            sender.disconnect()
            sender.loop_stop()
            threading.excepthook = previous_hook
            self._forget_session()

    def _send(self, sender: Any, count: int, tally: TargetTally, progress: Progress | None) -> None:
        pending = []
        for _ in range(count):
            message = self.target.episode().message
            try:
                pending.append(sender.publish(message.topic, message.payload, qos=1))
            except ValueError:  # a topic MQTT itself forbids: paho refuses to send it
                continue
            finally:
                if progress is not None:
                    progress.advance()
            tally.sent += 1
        deadline = time.monotonic() + PUBLISH_S
        for info in pending:
            info.wait_for_publish(max(0.0, deadline - time.monotonic()))

    def _judge(
        self,
        room: Room,
        sender: Any,
        died: list[BaseException | None],
        tally: TargetTally,
        when: str,
    ) -> None:
        current = self._sentinel_arrives(room, sender)
        for exc in died:
            tally.found(CRASH, f"hub MQTT thread died {when}", f"{type(exc).__name__}: {exc}")
        if not current:
            tally.found(HUB_STALE, f"a real table's message never showed {when}", "")

    def _sentinel_arrives(self, room: Room, sender: Any) -> bool:
        """A real table's first event and state: shown on the hub within ``current_s``?"""
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


def _json(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()
