"""The hub's MQTT side: subscribes to every table of the room and feeds the :class:`Room`.

It keeps a persistent session (``clean_session=False``, a fixed client id) with QoS 1
subscriptions, so while it is away the broker queues the events it misses; the retained
``status`` and ``state`` messages give it the whole room again after any restart.

The connection is driven from the hub's own thread, as the table's publisher does: a
refused login, an untrusted certificate or an unreachable broker is printed as one line
and retried with a growing delay.  Nothing a table sends may end that thread: a message
is handed to the room, which checks it, and any error left over is counted, not raised.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import paho.mqtt.client as mqtt

from companion.cafe.broker import (
    TOPIC_ROOT,
    BrokerSettings,
    ConnectionReport,
    parse_topic,
    print_to_stderr,
)
from companion.cafe.room import Room

SUBSCRIPTIONS = [(f"{TOPIC_ROOT}/+/{leaf}", 1) for leaf in ("status", "state", "events")]


def default_client_id() -> str:
    return f"companion-hub-{socket.gethostname()}"[:64]


@dataclass(frozen=True)
class HubOptions:
    """How the broker is retried: the delay doubles from ``retry_min_s`` up to ``retry_max_s``."""

    retry_min_s: float = 0.5
    retry_max_s: float = 5.0  # the room's screen should not lag long behind a broker back up
    keepalive_s: int = 15
    poll_s: float = 0.2


class HubSubscriber:
    """Connects in the background, reconnects on its own, resubscribes on every connect."""

    def __init__(
        self,
        room: Room,
        broker: BrokerSettings,
        client_id: str | None = None,
        options: HubOptions | None = None,
        report: Callable[[str], None] = print_to_stderr,
    ) -> None:
        self.room = room
        self.broker = broker
        self.client_id = client_id or default_client_id()
        self.options = options or HubOptions()
        self.error: str | None = None
        self.callback_errors = 0
        self._report = ConnectionReport(f"hub {self.client_id}", report)
        self._connected = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._refused: str | None = None
        self._subscribe_mid: int | None = None

    def start(self) -> HubSubscriber:
        if self._thread is not None:
            raise RuntimeError("the hub is already running")
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="mqtt-hub", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout_s: float = 5.0) -> None:
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(timeout_s)
        self._connected.clear()

    def __enter__(self) -> HubSubscriber:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    @property
    def alive(self) -> bool:
        """Whether the MQTT thread is still running (it ends only when stopped)."""
        return self._thread is not None and self._thread.is_alive()

    def wait_connected(self, timeout_s: float) -> bool:
        """Waits until the broker has granted the subscriptions, not merely the login.

        An event a table publishes between the two would never reach the hub.
        """
        return self._connected.wait(timeout_s)

    # -- the hub's MQTT thread -------------------------------------------------------------

    def _run(self) -> None:
        opts = self.options
        client = self.broker.client(self.client_id, clean_session=False)
        client.on_connect = self._on_connect
        client.on_subscribe = self._on_subscribe
        client.on_disconnect = self._on_disconnect
        client.on_message = self._on_message
        delay_s = opts.retry_min_s
        while not self._stop.is_set():
            self._refused = None
            was_online = False
            try:
                client.connect(self.broker.host, self.broker.port, keepalive=opts.keepalive_s)
                was_online = self._serve(client)
            except OSError as exc:  # unreachable, refused at TCP level, TLS handshake failed
                self.error = f"cannot reach the broker at {self.broker.address}: {exc}"
            except Exception as exc:  # whatever it was, the hub keeps trying
                self.error = f"lost the broker at {self.broker.address}: {exc!r}"
            self._connected.clear()
            if self._stop.is_set():
                break
            if was_online:
                delay_s = opts.retry_min_s
            if self._refused is not None:
                self.error = f"{self.broker.address} refused the hub: {self._refused}"
            elif self.error is None:
                self.error = f"lost the connection to {self.broker.address}"
            self._report.failed(self.error, delay_s)
            self._stop.wait(delay_s)
            delay_s = min(delay_s * 2, opts.retry_max_s)
        client.disconnect()

    def _serve(self, client: mqtt.Client) -> bool:
        """Runs one connection until it drops or the hub stops; True if it was accepted."""
        was_online = False
        while not self._stop.is_set():
            rc = client.loop(self.options.poll_s)
            if self._connected.is_set() and not was_online:
                was_online = True
                self.error = None
                self._report.connected(self.broker.address)
            if self._refused is not None or rc != mqtt.MQTT_ERR_SUCCESS:
                break
        return was_online

    # -- paho callbacks (the hub's thread) -------------------------------------------------

    def _on_connect(self, client: mqtt.Client, _u: Any, _f: Any, reason: Any, _p: Any) -> None:
        if reason.is_failure:
            self._refused = str(reason)
            return
        _rc, self._subscribe_mid = client.subscribe(SUBSCRIPTIONS)

    def _on_subscribe(self, _c: mqtt.Client, _u: Any, mid: int, reasons: Any, _p: Any) -> None:
        if mid != self._subscribe_mid:
            return
        refused = [str(reason) for reason in reasons if reason.is_failure]
        if refused:
            self._refused = f"subscription refused ({', '.join(refused)})"
            return
        self._connected.set()

    def _on_disconnect(self, _c: mqtt.Client, _u: Any, _f: Any, reason: Any, _p: Any) -> None:
        self._connected.clear()

    def _on_message(self, _c: mqtt.Client, _u: Any, message: mqtt.MQTTMessage) -> None:
        """Hands each message to the room; an error here must never reach paho's loop."""
        try:
            where = parse_topic(message.topic)
            if where is None:
                self.room.reject("bad topic")
                return
            self.room.receive(*where, bytes(message.payload))
        except Exception:
            self.callback_errors += 1
            self.room.reject("hub error")
