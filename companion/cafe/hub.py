"""The hub's MQTT side: subscribes to every table of the room and feeds the :class:`Room`.

It keeps a persistent session (``clean_session=False``, a fixed client id) with QoS 1
subscriptions, so while it is away the broker queues the events it misses; the retained
``status`` and ``state`` messages give it the whole room again after any restart.
"""

from __future__ import annotations

import json
import socket
import threading
from typing import Any

import paho.mqtt.client as mqtt

from companion.cafe.broker import TOPIC_ROOT, BrokerSettings, parse_topic
from companion.cafe.room import Room

SUBSCRIPTIONS = [(f"{TOPIC_ROOT}/+/{leaf}", 1) for leaf in ("status", "state", "events")]


def default_client_id() -> str:
    return f"companion-hub-{socket.gethostname()}"[:64]


class HubSubscriber:
    """Connects in the background, reconnects on its own, resubscribes on every connect."""

    def __init__(self, room: Room, broker: BrokerSettings, client_id: str | None = None) -> None:
        self.room = room
        self.broker = broker
        self.client_id = client_id or default_client_id()
        self.error: str | None = None
        self._connected = threading.Event()
        self._client: mqtt.Client | None = None

    def start(self) -> HubSubscriber:
        client = self.broker.client(self.client_id, clean_session=False)
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_message = self._on_message
        client.reconnect_delay_set(min_delay=1, max_delay=2)
        client.connect_async(self.broker.host, self.broker.port, keepalive=15)
        client.loop_start()
        self._client = client
        return self

    def stop(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            client.disconnect()
            client.loop_stop()
        self._connected.clear()

    def __enter__(self) -> HubSubscriber:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    def wait_connected(self, timeout_s: float) -> bool:
        return self._connected.wait(timeout_s)

    # -- paho callbacks (paho's network thread) --------------------------------------------

    def _on_connect(self, client: mqtt.Client, _u: Any, _f: Any, reason: Any, _p: Any) -> None:
        if reason.is_failure:
            self.error = f"{self.broker.address} refused the hub: {reason}"
            return
        self.error = None
        client.subscribe(SUBSCRIPTIONS)
        self._connected.set()

    def _on_disconnect(self, _c: mqtt.Client, _u: Any, _f: Any, reason: Any, _p: Any) -> None:
        self._connected.clear()

    def _on_message(self, _c: mqtt.Client, _u: Any, message: mqtt.MQTTMessage) -> None:
        where = parse_topic(message.topic)
        if where is None:
            return
        table, leaf = where
        if not message.payload:  # a retained message cleared: the table was retired
            if leaf == "status":
                self.room.forget(table)
            return
        try:
            text = message.payload.decode("utf-8")
        except UnicodeDecodeError:
            self.room.bad_message()
            return
        if leaf == "status":
            self.room.on_status(table, text)
            return
        try:
            body = json.loads(text)
        except ValueError:
            body = None
        if leaf == "state":
            self.room.on_state(table, body)
        elif leaf == "events":
            self.room.on_event(table, body)
