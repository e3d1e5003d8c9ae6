"""A table's MQTT publisher: it tails the game log and tells the broker what the log holds.

The log is the source of truth.  Events go out in ``seq`` order with QoS 1; the highest
``seq`` the broker has acknowledged (every one before it acknowledged too) is remembered in a
small file next to the log.  After a broker outage, or a restart of the table, publishing
resumes right after that point, so the broker gets, in order, exactly what it missed.  An
acknowledgement lost with the connection means one event may go out twice: it carries the
same ``seq`` and ``hash``, so a subscriber drops the repeat.

Each connection uses a fresh paho client, driven from the publisher's own thread: paho's
in-memory resend queue would otherwise replay messages alongside the log's own replay and
could reorder them.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt

from companion.cafe.broker import (
    BrokerSettings,
    ConnectionReport,
    print_to_stderr,
    table_id,
    topic,
)
from companion.cafe.snapshot import TableFold, event_message
from companion.table.log import GameLog

# How many events may wait for the broker's acknowledgement at once (bounds memory during a
# long replay; paho itself sends at most 20 at a time).
WINDOW = 200


class PublisherState(StrEnum):
    CONNECTING = "connecting"
    ONLINE = "online"
    OFFLINE = "offline"  # waiting to retry the broker
    STOPPED = "stopped"


@dataclass(frozen=True)
class PublisherOptions:
    """Timings: how often the log is polled and how the broker is retried."""

    poll_s: float = 0.05
    retry_min_s: float = 0.2
    retry_max_s: float = 2.0
    keepalive_s: int = 15
    connect_timeout_s: float = 10.0
    save_every_s: float = 0.5


class AckedCursor:
    """``<log>.mqtt.json``: per table and broker, the last acknowledged event's seq and hash.

    A value behind the truth only costs repeats, so writes are atomic but not synced, and
    only ever record what the broker really acknowledged.
    """

    def __init__(self, log_path: Path) -> None:
        self.path = log_path.with_name(log_path.name + ".mqtt.json")

    def load(self, key: str) -> tuple[int, str] | None:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            entry = data[key]
            return int(entry["seq"]), str(entry["hash"])
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def save(self, key: str, seq: int, digest: str) -> None:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if not isinstance(data, dict):
                data = {}
        except (OSError, ValueError):
            data = {}
        data[key] = {"seq": seq, "hash": digest}
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text(json.dumps(data, sort_keys=True), encoding="utf-8")
        os.replace(tmp, self.path)


class _Connection:
    """What one paho connection has seen; filled by paho's callbacks on the publisher thread."""

    def __init__(self) -> None:
        self.connected = False
        self.refused: str | None = None
        self.lost = False
        self.inflight: dict[int, tuple[int, str]] = {}  # mid -> (seq, hash)
        self.acked: dict[int, str] = {}  # seq -> hash, acknowledged beyond the cursor
        self.other_mids: set[int] = set()

    def on_connect(self, _c: mqtt.Client, _u: Any, _f: Any, reason: Any, _p: Any) -> None:
        if reason.is_failure:
            self.refused = str(reason)
        else:
            self.connected = True

    def on_disconnect(self, _c: mqtt.Client, _u: Any, _f: Any, _r: Any, _p: Any) -> None:
        self.lost = True

    def on_publish(self, _c: mqtt.Client, _u: Any, mid: int, _r: Any, _p: Any) -> None:
        entry = self.inflight.pop(mid, None)
        if entry is not None:
            self.acked[entry[0]] = entry[1]
        self.other_mids.discard(mid)


class TablePublisher:
    """Publishes one table's ``status``, ``state`` and ``events`` topics from its game log."""

    def __init__(
        self,
        log_path: str | Path,
        table: str,
        broker: BrokerSettings,
        dashboard_url: str | None = None,
        options: PublisherOptions | None = None,
        report: Callable[[str], None] = print_to_stderr,
    ) -> None:
        """``report`` gets one line per connection problem (default: printed on stderr)."""
        self.log_path = Path(log_path)
        self.table = table_id(table)
        self.broker = broker
        self.dashboard_url = dashboard_url
        self.options = options or PublisherOptions()
        self.state = PublisherState.STOPPED
        self.error: str | None = None
        self._report = ConnectionReport(f"café table {self.table}", report)
        self._cursor = AckedCursor(self.log_path)
        self._key = f"{self.table}@{broker.address}"
        self._acked_seq = 0
        self._acked_hash = ""
        self._saved_seq = -1
        self._changed = threading.Condition()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- control (any thread) --------------------------------------------------------------

    def start(self) -> TablePublisher:
        if self._thread is not None:
            raise RuntimeError("the publisher is already running")
        self._stop.clear()
        self.state = PublisherState.CONNECTING
        self._thread = threading.Thread(target=self._run, name=f"mqtt-{self.table}", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout_s: float = 5.0) -> None:
        """Says ``offline`` (retained), disconnects cleanly and saves the cursor."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout_s)
            self._thread = None

    def __enter__(self) -> TablePublisher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def acked_seq(self) -> int:
        """The last event seq the broker acknowledged, with every earlier one."""
        return self._acked_seq

    def wait_acked(self, seq: int, timeout_s: float) -> bool:
        """Blocks until the broker has acknowledged every event up to ``seq``."""
        with self._changed:
            return self._changed.wait_for(lambda: self._acked_seq >= seq, timeout_s)

    def wait_state(self, state: PublisherState, timeout_s: float) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: self.state is state, timeout_s)

    # -- the publisher thread --------------------------------------------------------------

    def _set_state(self, state: PublisherState) -> None:
        with self._changed:
            self.state = state
            self._changed.notify_all()

    def _run(self) -> None:
        try:
            with GameLog(self.log_path) as log:
                fold = TableFold.from_log(log)
                self._load_cursor(log)
                self._keep_connected(log, fold)
        except Exception as exc:  # the log cannot be read: nothing left to publish from
            self.error = f"{self.log_path}: {exc}"
        finally:
            self._set_state(PublisherState.STOPPED)

    def _keep_connected(self, log: GameLog, fold: TableFold) -> None:
        """Serves one connection after another until stopped, backing off while refused."""
        opts = self.options
        delay_s = opts.retry_min_s
        while not self._stop.is_set():
            self._set_state(PublisherState.CONNECTING)
            was_online = False
            try:
                was_online = self._serve(log, fold)
            except OSError as exc:  # refused, unreachable, TLS handshake failed
                self.error = f"{self.broker.address}: {exc}"
            except Exception as exc:  # never let one bad moment end the table's publishing
                self.error = f"publishing failed: {exc!r}"
            self._save_cursor()
            if self._stop.is_set():
                break
            self._set_state(PublisherState.OFFLINE)
            if was_online:
                delay_s = opts.retry_min_s
            problem = self.error or f"lost the connection to {self.broker.address}"
            self._report.failed(problem, delay_s)
            self._stop.wait(delay_s)
            delay_s = min(delay_s * 2, opts.retry_max_s)

    def _load_cursor(self, log: GameLog) -> None:
        """Trusts the saved cursor only if the log still has that very event there."""
        saved = self._cursor.load(self._key)
        self._acked_seq, self._acked_hash = 0, ""
        if saved is not None:
            seq, digest = saved
            found = next(iter(log.events(after_seq=seq - 1)), None) if seq > 0 else None
            if found is not None and found.seq == seq and found.hash == digest:
                self._acked_seq, self._acked_hash = seq, digest
        self._saved_seq = self._acked_seq  # written again only once the broker acknowledges more

    def _save_cursor(self) -> None:
        if self._acked_seq != self._saved_seq:
            with contextlib.suppress(OSError):
                self._cursor.save(self._key, self._acked_seq, self._acked_hash)
                self._saved_seq = self._acked_seq

    def _advance_cursor(self, conn: _Connection) -> None:
        moved = False
        while self._acked_seq + 1 in conn.acked:
            self._acked_seq += 1
            self._acked_hash = conn.acked.pop(self._acked_seq)
            moved = True
        if moved:
            with self._changed:
                self._changed.notify_all()

    def _serve(self, log: GameLog, fold: TableFold) -> bool:
        """One connection: connect, replay what the broker missed, then follow the log."""
        opts = self.options
        conn = _Connection()
        client = self.broker.client(f"companion-table-{self.table}")
        client.on_connect = conn.on_connect
        client.on_disconnect = conn.on_disconnect
        client.on_publish = conn.on_publish
        status = topic(self.table, "status")
        client.will_set(status, "offline", qos=1, retain=True)
        client.connect(self.broker.host, self.broker.port, keepalive=opts.keepalive_s)
        deadline = time.monotonic() + opts.connect_timeout_s
        while not conn.connected:
            rc = client.loop(0.1)
            if conn.refused is not None:
                self.error = f"{self.broker.address} refused the connection: {conn.refused}"
                client.disconnect()
                return False
            if self._stop.is_set():
                client.disconnect()
                return False
            if rc != mqtt.MQTT_ERR_SUCCESS or conn.lost or time.monotonic() > deadline:
                self.error = f"{self.broker.address}: no answer to the connection request"
                return False
        self.error = None
        self._report.connected(self.broker.address)
        client.publish(status, "online", qos=1, retain=True)
        self._set_state(PublisherState.ONLINE)
        sent = self._acked_seq
        state_seq = -1
        last_save = time.monotonic()
        events_topic = topic(self.table, "events")
        while not self._stop.is_set() and not conn.lost:
            room = WINDOW - len(conn.inflight)
            if room > 0:
                for event in log.events(after_seq=sent):
                    if room <= 0:
                        break
                    fold.apply(event)
                    message = event_message(self.table, event, fold)
                    payload = json.dumps(message, separators=(",", ":"))
                    info = client.publish(events_topic, payload, qos=1)
                    conn.inflight[info.mid] = (event.seq, event.hash)
                    sent = event.seq
                    room -= 1
            if sent >= fold.seq and fold.seq != state_seq:
                snapshot = fold.snapshot(self.table, self.dashboard_url)
                client.publish(
                    topic(self.table, "state"),
                    json.dumps(snapshot, separators=(",", ":")),
                    qos=1,
                    retain=True,
                )
                state_seq = fold.seq
            rc = client.loop(opts.poll_s)
            self._advance_cursor(conn)
            if rc != mqtt.MQTT_ERR_SUCCESS:
                break
            if time.monotonic() - last_save >= opts.save_every_s:
                self._save_cursor()
                last_save = time.monotonic()
        if not conn.lost:
            self._say_offline(client, conn, status)
        return True

    def _say_offline(self, client: mqtt.Client, conn: _Connection, status: str) -> None:
        """A clean stop: the last acknowledgements, ``offline`` retained, then DISCONNECT."""
        info = client.publish(status, "offline", qos=1, retain=True)
        conn.other_mids.add(info.mid)
        deadline = time.monotonic() + 2.0
        while (conn.inflight or info.mid in conn.other_mids) and time.monotonic() < deadline:
            if client.loop(0.05) != mqtt.MQTT_ERR_SUCCESS:
                break
            self._advance_cursor(conn)
        client.disconnect()
        with contextlib.suppress(Exception):
            client.loop(0.05)


def start_publisher(
    log_path: str | Path,
    table: str,
    url: str,
    dashboard_url: str | None = None,
    *,
    ca_file: str | None = None,
    options: PublisherOptions | None = None,
) -> TablePublisher:
    """Starts publishing a table's log to the broker at ``url``; stop it with ``.stop()``."""
    broker = BrokerSettings.from_url(url, ca_file=ca_file)
    return TablePublisher(log_path, table, broker, dashboard_url, options).start()
